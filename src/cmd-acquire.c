/* SPDX-License-Identifier: ISC */
/*
 * cmd-acquire.c: `cbexec acquire NAME [--lease D] [--pid PID]`, the first
 * half of the two-step API of SPEC section 7b.  It admits a call exactly as
 * run would and prints an opaque token that `cbexec release`
 * (cmd-release.c) turns back into the admission.  Tokens are leases: a
 * half-open token holds a probe slot with pid 0, which only its lease can
 * free, so an unreleased one expires as a dropped permit; a closed-state
 * token holds nothing, or with max_concurrent a run slot (SPEC 2b), which
 * --wait waits for.  With --pid the slot is held by that process (the
 * calling script, `--pid $$`), judged alive as run's own slot is: by its
 * start time and the boot id, so a script that dies frees the slot at the
 * next call.  The token itself is token.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "name.h"
#include "probe.h"
#include "record.h"
#include "token.h"

/*
 * The holder named by --pid: a live process whose start time can be read
 * (its slot is judged by it).  Returns 0, or -1 after printing.
 */
static int
acquire_pid(const char *arg, pid_t *pid, uint64_t *start)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0 ||
	    v <= 0 || v > INT32_MAX) {
		cmd_warnx("acquire: --pid: '%s' is not a process id", arg);
		return -1;
	}
	*pid = (pid_t)v;
	if ((*start = clock_proc_start(*pid)) == 0) {
		if (kill(*pid, 0) == 0 || errno == EPERM)
			cmd_warnx("acquire: --pid: cannot read the start time "
			    "of process %ld (/proc/%ld/stat)", v, v);
		else
			cmd_warnx("acquire: --pid: no process %ld", v);
		return -1;
	}
	return 0;
}

static const struct cmd_opt acquire_grammar[] = {
	{ "lease",	'l', 'l', required_argument },
	{ "pid",	'p', 'p', required_argument },
	{ "wait",	0,   'W', required_argument },
	{ NULL,		0,   0,   0 }
};

/* An acquire's request, as its command line says it. */
struct acquire_req {
	const char	*name;
	const char	*lease;		/* --lease, or NULL */
	int64_t		 lease_ms;
	pid_t		 pid;		/* --pid, or 0 */
	uint64_t	 start;		/* ... and its start time */
	int64_t		 wait_ms;	/* --wait for a run slot, or 0 */
};

/* Check the operand and options.  Returns 0, or -1 after printing. */
static int
acquire_request(const struct cmd_args *a, struct acquire_req *rq)
{
	struct cb_err	 err;
	const char	*pidarg;

	memset(rq, 0, sizeof *rq);
	rq->name = a->argv[0];
	if (name_valid(rq->name, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return -1;
	}
	if ((rq->lease = cmd_arg(a, 'l')) != NULL) {
		if (parse_duration(rq->lease, &rq->lease_ms, &err) == -1) {
			cmd_warnx("acquire: --lease: %s", err.msg);
			return -1;
		}
		if (rq->lease_ms <= 0) {
			cmd_warnx("acquire: --lease: must be longer than 0");
			return -1;
		}
	}
	if ((pidarg = cmd_arg(a, 'p')) != NULL &&
	    acquire_pid(pidarg, &rq->pid, &rq->start) == -1)
		return -1;
	if (cmd_has(a, 'W') &&
	    busy_wait_arg("acquire", cmd_arg(a, 'W'), &rq->wait_ms) == -1)
		return -1;
	return 0;
}

/* Print the token; nobody has it when that fails: give its probe slot
 * back at once.  Returns the exit status. */
static int
acquire_print(struct cb_ctx *ctx, struct store *store, struct cmd_call *st,
    const char *text)
{
	struct cb_err	err;

	/* A reader gone is an error to handle here, not a SIGPIPE. */
	(void)signal(SIGPIPE, SIG_IGN);
	if (printf("%s\n", text) >= 0 && fflush(stdout) != EOF)
		return EXIT_OK;
	cmd_warn("acquire: cannot print the token");
	if (st->ticket.probe) {
		st->run.outcome = OUTCOME_IGNORED;
		st->run.exit_code = -1;
		if (store_update(store, st->name, cmd_record_cb, st,
		    &err) == -1)
			cmd_warnx("%s", err.msg);
		else
			cmd_transitions(ctx, st->name, &st->fx);
	}
	return EXIT_FAIL;
}

/* CBEXEC_DISABLE=1: a token that records nothing. */
static int
acquire_unguarded(struct cb_ctx *ctx, struct cb_token *tok)
{
	char	text[TOKEN_TEXT_MAX];

	if (!ctx->quiet)
		cmd_warnx("warning: CBEXEC_DISABLE=1: '%s' unguarded, "
		    "nothing recorded", tok->name);
	tok->unguarded = 1;
	tok->acquired_ms = clock_wall_ms();
	token_encode(tok, text, sizeof text);
	printf("%s\n", text);
	return EXIT_OK;
}

static int
cmd_acquire_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	/* Large (a record): static, see struct cb_record. */
	static struct cmd_call		 st;
	struct acquire_req		 rq;
	struct cb_policy		 p;
	struct cb_token			 tok;
	struct cb_err			 err;
	struct busy_wait		 w;
	struct store			*store;
	const char			*disable;
	char				 text[TOKEN_TEXT_MAX];
	int				 sig, status;

	if (acquire_request(a, &rq) == -1)
		return EXIT_USAGE;
	disable = getenv("CBEXEC_DISABLE");
	if (disable != NULL && strcmp(disable, "1") != 0)
		disable = NULL;
	if (cmd_call_policy(ctx, "acquire", rq.name, disable != NULL ?
	    CALL_STORE_NONE : CALL_STORE_RW, NULL, &p) == -1)
		return EXIT_FAIL;
	if (rq.lease == NULL)
		rq.lease_ms = p.probe_lease_ms;

	memset(&tok, 0, sizeof tok);
	snprintf(tok.name, sizeof tok.name, "%s", rq.name);
	if (disable != NULL)
		return acquire_unguarded(ctx, &tok);

	memset(&st, 0, sizeof st);
	st.ctx = ctx;
	st.name = rq.name;
	st.p = &p;
	/* --pid: that process holds the slot, judged alive as run's is.
	 * Else none does: pid 0, judged by its lease alone. */
	st.self.pid = (int32_t)rq.pid;
	st.self.start_time = rq.start;
	memcpy(st.self.boot_id, cmd_boot_id(ctx), sizeof st.self.boot_id);
	clock_host_name(st.self.host, sizeof st.self.host);
	st.self.token = clock_random();
	busy_wait_start(&w, rq.wait_ms);
	for (;;) {
		cmd_env(ctx, &st.env);
		st.self.lease_until_ms = st.env.now_ms + rq.lease_ms;
		st.waiting = busy_wait_left(&w);
		st.wait_left_ms = busy_wait_left_ms(&w);
		if ((store = cmd_store(ctx, 0, &err)) == NULL ||
		    store_update(store, rq.name, cmd_admit_cb, &st,
		    &err) == -1) {
			cmd_store_error(ctx, &err);
			return EXIT_FAIL;
		}
		cmd_evictions(ctx);
		cmd_transitions(ctx, rq.name, &st.fx);
		if (!busy_retry(&w, &st.ticket))
			break;
		/* --wait: a signal ends it, recording nothing. */
		if ((sig = busy_sleep(&w, &st.ticket, &err)) == -1) {
			cmd_warnx("%s", err.msg);
			return EXIT_FAIL;
		}
		if (sig > 0)
			return 128 + sig;
	}
	/* A probe slot and a probe command: the command decides first. */
	if (probe_admit(&st, store, NULL, &status) == -1)
		return status == EXIT_CBEXEC ? EXIT_FAIL : status;
	if (!st.ticket.admitted) {
		/* Whatever on_open says: no token, so the caller must not run. */
		run_refusal(ctx, rq.name, &st.ticket);
		return p.open_exit_code;
	}
	tok.probe = st.ticket.probe;
	tok.running = st.ticket.running;
	tok.epoch = st.ticket.epoch;
	tok.identity = st.ticket.identity;
	tok.slot = st.ticket.probe || st.ticket.running ? st.ticket.token : 0;
	tok.acquired_ms = st.env.now_ms;
	token_encode(&tok, text, sizeof text);
	if (ctx->verbose)
		cmd_warnx("%s: admitted (%s, epoch %llu)", rq.name,
		    tok.probe ? "probe" : "closed",
		    (unsigned long long)tok.epoch);
	return acquire_print(ctx, store, &st, text);
}

const struct cmd_entry cmd_acquire_entry = {
	"acquire",
	"NAME [--lease D] [--pid PID] [--wait D]",
	"admit a call as run would and print a token for release",
	"Admits a call to NAME as run would and prints a TOKEN on stdout;\n"
	"`cbexec release TOKEN success|failure|ignore` records its outcome.\n"
	"Refused: exits open_exit_code (75) and prints no token, whatever\n"
	"on_open says.\n"
	"  -l, --lease D   how long the token's probe or run slot is held\n"
	"                  (default: probe_lease, 1h); a probe unreleased by\n"
	"                  then counts as a failed probe\n"
	"  -p, --pid PID   process PID holds the slot (typically --pid $$):\n"
	"                  once it has died, the next call frees the slot as\n"
	"                  a failed probe instead of waiting for the lease\n"
	"      --wait D    every run slot taken (max_concurrent): wait up to\n"
	"                  D for one to free before refusing (default 0);\n"
	"                  rate limited (max_rate): sleep until the turn\n"
	"                  if it comes within D\n"
	"Example:\n"
	"  tok=$(cbexec acquire api --pid $$) || exit\n"
	"  trap 'cbexec release \"$tok\" failure' EXIT\n"
	"  if curl -fsS https://api.example/; then r=success; else "
	"r=failure; fi\n"
	"  trap - EXIT\n"
	"  cbexec release \"$tok\" $r\n",
	{ acquire_grammar, 1, 1, 0, NULL },
	0,
	NULL,
	cmd_acquire_exec
};
