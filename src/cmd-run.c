/* SPDX-License-Identifier: ISC */
/*
 * cmd-run.c: `cbexec run NAME [options] [--] COMMAND [ARG...]`, the reason
 * cbexec exists.  One store update admits the call (or refuses it), the
 * command runs with no transaction open, and a second update records its
 * outcome.  Admission peeks first (store_update_peek): a closed breaker
 * admits without a write, so it need not queue for the writer lock.  When
 * the state file cannot be used, on_store_error decides between running
 * unguarded and refusing; a config file that cannot be used leaves each
 * breaker the policy it last ran under (SPEC section 4).  With --retries
 * a failed call is followed by
 * another, each admitted and recorded on its own, after a delay that
 * doubles (full jitter, capped at 60s) and that SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT cut short.  With max_concurrent a call that finds every run
 * slot taken is busy; --wait then asks again until a slot frees or the
 * wait ends (busy.c), a signal ending it with nothing recorded.  The
 * RUN-OPTIONS parser, shared with `config show`, is run-opts.c.  With
 * output = on-failure or on-change the command's output is held (held.c)
 * and each attempt decides, once its outcome is recorded, whether it is
 * written out.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "classify.h"
#include "clock.h"
#include "cmd.h"
#include "esc.h"
#include "held.h"
#include "hint.h"
#include "jobmark.h"
#include "name.h"
#include "probe.h"
#include "record.h"
#include "spawn.h"

/*
 * What the two update callbacks share with the command.  c comes first
 * because call.c hands fill_self and job_group the struct cmd_call and they
 * cast it back to the step that holds it: the idiom of struct store in
 * struct store_redis, cheaper than a void * in every cmd_call for the one
 * caller that needs it.
 */
struct run_step {
	struct cmd_call		 c;		/* first: see above */
	int			 have_self;
	int64_t			 lease_ms;
	int			 interrupted;	/* the last run was */
	int			 left_open;	/* ... and left it open */
	int			 sent;		/* the timeout's first signal */
	int			 killed;	/* ... then SIGKILL */
	int64_t			 wait_ms;	/* --wait for a run slot */
	int			 asks_fail;	/* --on-open fail given */
	const struct spawn_opts	*so;		/* the job */
	struct held		*held;		/* its output (SPEC 6.5) */
	int			 held_said;	/* cannot hold: said once */
	int			 held_done;	/* this attempt's decided */
	/* The job's marker (jobmark.h), so->job_marker, made with the slot
	 * it is for: "" until then. */
	char			 marker[JOBMARK_SIZE(NAME_MAX_LEN)];
};

/* Who we are, read only when a probe or run slot is at stake. */
static void
fill_self(struct cmd_call *c)
{
	struct run_step	*st = (struct run_step *)c;
	uint64_t	 rnd[2];

	if (st->have_self)
		return;
	st->c.self.pid = (int32_t)getpid();
	st->c.self.start_time = clock_proc_start(getpid());
	memcpy(st->c.self.boot_id, cmd_boot_id(st->c.ctx),
	    sizeof st->c.self.boot_id);
	clock_host_name(st->c.self.host, sizeof st->c.self.host);
	st->c.self.token = clock_random();
	/* The job's marker, and the hash of it the slot keeps (SPEC 2b). */
	clock_random2(rnd);
	if (jobmark_make(st->c.name, rnd, st->marker, sizeof st->marker) == 0)
		st->c.self.job = jobmark_hash(st->marker +
		    sizeof JOBMARK_VAR, strlen(st->marker +
		    sizeof JOBMARK_VAR));
	else
		st->marker[0] = '\0';
	st->c.self.lease_until_ms = st->c.env.now_ms + st->lease_ms;
	/* SPEC 2: a probe command may run under the slot first. */
	if (st->c.rec.state != STATE_CLOSED && st->c.p->probe != NULL)
		st->c.self.lease_until_ms += st->c.p->probe_timeout_ms;
	st->have_self = 1;
}

/* Before each attempt: no self, no marker, nothing sent or left open. */
static void
step_reset(struct run_step *st)
{
	st->have_self = 0;
	st->marker[0] = '\0';
	st->left_open = 0;
	st->sent = st->killed = 0;
	st->held_done = 0;
}

/*
 * The job's process group, for the slot the call is admitted with (SPEC
 * 2b): the job is forked ahead, to wait until spawn_run_held starts it.
 * None with --foreground, or when the fork fails (spawn_run_held forks
 * again then, and says why it cannot).
 */
static pid_t
job_group(struct cmd_call *c)
{
	struct run_step	*st = (struct run_step *)c;
	struct cb_err	 err;
	pid_t		 pid;

	if (st->so->foreground || (pid = spawn_hold(st->so, &err)) == -1)
		return 0;
	return pid;
}

void
run_refusal(struct cb_ctx *ctx, const char *name, const struct cb_ticket *t)
{
	char	retry[32], end[32];

	if (t->rate_limited) {
		rate_refusal(ctx, name, t);
		return;
	}
	if (t->busy) {
		busy_refusal(ctx, name, t);
		return;
	}
	if (ctx->quiet)
		return;
	if (t->state == STATE_OPEN && t->opener_end_ms != 0) {
		/* Not a whole period from its start: say why (SPEC 2). */
		cmd_clock(t->open_until_ms, retry, sizeof retry);
		cmd_clock(t->opener_end_ms, end, sizeof end);
		cmd_warnx("%s: circuit open, retry after %s: the run that "
		    "opened it ended at %s (%s)", esc(name), retry, end,
		    esc(t->why));
	} else if (t->state == STATE_OPEN) {
		cmd_format_wait(t->retry_in_ms, retry, sizeof retry);
		cmd_warnx("%s: circuit open, retry in %s (%s)", esc(name),
		    retry, esc(t->why));
	} else
		cmd_warnx("%s: circuit half-open, %s, retry later", esc(name),
		    esc(t->why));
}

/* Does the refusal in st's ticket exit 0 silently (on_open or on_busy)? */
static int
skipped(const struct run_step *st)
{
	if (st->c.ticket.busy || st->c.ticket.rate_limited)
		return st->c.p->on_busy == ON_OPEN_SKIP;
	/* A manual window's trip --on-open beats the policy's, except a
	 * command line's own --on-open fail (SPEC 1). */
	if (st->c.ticket.manual_on_open != MANUAL_ON_OPEN_NONE)
		return st->c.ticket.manual_on_open == MANUAL_ON_OPEN_SKIP &&
		    !st->asks_fail;
	return st->c.p->on_open == ON_OPEN_SKIP;
}

static int
refused(struct cb_ctx *ctx, struct run_step *st)
{
	if (skipped(st))
		return EXIT_OK;
	run_refusal(ctx, st->c.name, &st->c.ticket);
	return st->c.p->open_exit_code;
}

/*
 * Admit through the store.  When the store is Redis and cannot be used
 * (no answer, no connection, an error reply, or no Redis support built
 * in) and fallback = "local", warn once per run and admit through the
 * local LMDB breaker of the same name instead; the fleet is tried afresh
 * by the next invocation.  Returns 0 with *storep the store that admitted,
 * or -1 with err filled (on_store_error decides).
 */
static int
run_admit(struct cb_ctx *ctx, struct run_step *st, struct store **storep,
    struct cb_err *err)
{
	static int	 warned;
	struct store	*s;

	s = cmd_store(ctx, 0, err);
	/* With a run slot or a turn (max_rate) to take every admission
	 * writes: no peek first. */
	if (s != NULL && (st->c.p->max_concurrent > 0 ||
	    st->c.p->max_rate.n > 0 ?
	    store_update(s, st->c.name, cmd_admit_cb, st, err) :
	    store_update_peek(s, st->c.name, cmd_admit_cb, st, err)) == 0) {
		*storep = s;
		return 0;
	}
	if (!ctx->state_redis || ctx->cfg.fallback != FALLBACK_LOCAL ||
	    (s != NULL && !s->down))
		return -1;
	if (!warned && !ctx->quiet)
		cmd_warnx("warning: %s; using the local breaker", err->msg);
	warned = 1;
	if ((s = cmd_store_local(ctx, err)) == NULL ||
	    store_update(s, st->c.name, cmd_admit_cb, st, err) == -1)
		return -1;
	*storep = s;
	return 0;
}

/* How the run ended, as the breaker will count it. */
static void
judge(struct run_step *st, const struct spawn_result *res)
{
	struct classify_in	in;

	memset(&in, 0, sizeof in);
	in.exec_failed = res->exec_failed;
	in.timed_out = res->timed_out;
	in.interrupted = res->interrupted;
	in.signal = res->signal;
	in.exit_code = res->exit_code;
	in.duration_ms = res->duration_ms;
	memset(&st->c.run, 0, sizeof st->c.run);
	st->c.run.outcome = classify(st->c.p, &in);
	st->c.run.timed_out = res->timed_out;
	st->c.run.signal = res->signal;
	st->c.run.exit_code = res->status;
	st->c.run.duration_ms = res->duration_ms;
	st->interrupted = res->interrupted;
}

static void	run_timed_out(const struct run_step *);
static void	run_held_start(struct run_step *);
static void	run_output(struct run_step *, int);

/*
 * The state could not be used: on_store_error = open runs the command
 * unguarded (0, *guarded cleared), closed refuses (-1, *status 125).  A
 * directory another user made for us is no store failure: running
 * unguarded is what they would want, so it refuses whatever
 * on_store_error says (SPEC 5).
 */
static int
store_failed(struct cb_ctx *ctx, const struct spawn_opts *so,
    const struct cb_err *err, int *guarded, int *status)
{
	if (ctx->cfg.on_store_error == STORE_ERROR_CLOSED ||
	    err->code == CB_ERR_PLANTED) {
		cmd_warnx("%s; refusing to run '%s'%s", err->msg, so->argv[0],
		    err->code == CB_ERR_PLANTED ? "" :
		    " (on_store_error = closed)");
		*status = EXIT_CBEXEC;
		return -1;
	}
	if (!ctx->quiet)
		cmd_warnx("warning: %s; running '%s' unguarded", err->msg,
		    so->argv[0]);
	*guarded = 0;
	return 0;
}

/*
 * One call: admit, run, record; unguarded (CBEXEC_DISABLE, or a state file
 * that on_store_error = open lets us do without), only run.  Sets *status
 * to what cbexec would exit with after it, and st->c.run to how it ended.
 * Returns 0 when the command ran, 1 when the breaker refused it, -1 when
 * cbexec itself failed.
 */
static int
attempt(struct run_step *st, const struct spawn_opts *so, int *guarded,
    int *status)
{
	struct cb_ctx		*ctx = st->c.ctx;
	struct spawn_result	 res;
	struct cb_err		 err;
	struct busy_wait	 w;
	struct store		*store = NULL;
	char			 wait[32];
	int			 sig;
	int64_t			 start;

	busy_wait_start(&w, st->wait_ms);
again:
	step_reset(st);
	memset(&st->c.ticket, 0, sizeof st->c.ticket);
	cmd_env(ctx, &st->c.env);
	st->c.waiting = busy_wait_left(&w);
	st->c.wait_left_ms = busy_wait_left_ms(&w);
	if (*guarded && run_admit(ctx, st, &store, &err) == -1 &&
	    store_failed(ctx, so, &err, guarded, status) == -1)
		return -1;
	if (*guarded) {
		cmd_evictions(ctx);
		cmd_transitions(ctx, st->c.name, &st->c.fx);
		if (busy_retry(&w, &st->c.ticket)) {
			/* --wait: nothing recorded if a signal ends it. */
			if (ctx->verbose && st->c.ticket.busy &&
			    w.step_ms == BUSY_WAIT_FIRST_MS) {
				format_duration(st->wait_ms, wait, sizeof wait);
				cmd_warnx("%s: busy, waiting up to %s for a run "
				    "slot", st->c.name, wait);
			}
			if ((sig = busy_sleep(&w, &st->c.ticket, &err)) == 0)
				goto again;
			if (sig == -1)
				cmd_warnx("%s", err.msg);
			*status = sig > 0 ? 128 + sig : EXIT_CBEXEC;
			return -1;
		}
		/* A half-open probe with a probe command: that runs first. */
		if (probe_admit(&st->c, store, so->mask, status) == -1)
			return -1;
		if (!st->c.ticket.admitted) {
			*status = refused(ctx, st);
			return 1;
		}
		if (ctx->verbose)
			cmd_warnx("%s: admitted (%s, epoch %llu)", st->c.name,
			    st->c.ticket.probe ? "probe" : "closed",
			    (unsigned long long)st->c.ticket.epoch);
	}

	run_held_start(st);
	start = st->c.env.now_ms;	/* admitted: the cool-down counts */
	if (spawn_run_held(so, &res, &err) == -1) {
		cmd_warnx("%s", err.msg);
		*status = EXIT_CBEXEC;
		return -1;
	}
	/* As timeout(1) says it, -q or not: a typo must not pass silently. */
	if (res.exec_failed)
		cmd_warnx("failed to run command '%s': %s", so->argv[0],
		    strerror(res.exec_errno));
	*status = res.status;
	judge(st, &res);
	st->c.run.start_ms = start;
	if (res.timed_out && !ctx->quiet)
		run_timed_out(st);
	if (!*guarded)
		return 0;

	st->c.env.now_ms = clock_wall_ms();
	(void)cmd_run_by(ctx);
	if (store_update(store, st->c.name, cmd_record_cb, st, &err) == -1) {
		cmd_warnx("warning: %s; outcome of '%s' not recorded",
		    err.msg, so->argv[0]);
		return 0;
	}
	/* In the order it happened: the outcome, then what it caused. */
	if (ctx->verbose)
		cmd_warnx("%s: exit %d, counted as %s", st->c.name,
		    res.status, breaker_outcome_name(st->c.counted));
	/* A probe that outlived its lease: a dropped permit. */
	if (st->c.fx.late && !ctx->quiet)
		cmd_warnx("%s: the probe outlived its lease: counted as a "
		    "failure, and the breaker re-opens", st->c.name);
	run_output(st, 1);
	cmd_transitions(ctx, st->c.name, &st->c.fx);
	st->left_open = st->c.rec.state == STATE_OPEN;
	return 0;
}

/* Output that cannot be held passes through, and says so once. */
static void
run_held_start(struct run_step *st)
{
	if (st->held == NULL || st->held->on || st->held_said)
		return;
	st->held_said = 1;
	if (!st->c.ctx->quiet)
		cmd_warnx("%s: cannot hold the output of '%s' (%s): passing "
		    "it through", st->c.name, st->so->argv[0],
		    strerror(st->held->err));
}

/*
 * The held output of the attempt that ran, written out or dropped (SPEC
 * 6.5): on-failure writes it unless the run is a success; on-change when
 * its outcome opened or closed the breaker (a failed probe's re-opening
 * goes on with the outage), or it timed out.  Unguarded, or its outcome
 * not recorded, on-change knows of no change and acts as on-failure.
 * recorded: called with the outcome recorded, before its transitions are
 * said.  Once per attempt.
 */
static void
run_output(struct run_step *st, int recorded)
{
	int	show, rv;

	if (st->held == NULL || !st->held->on || st->held_done)
		return;
	st->held_done = 1;
	if (st->c.p->output == OUTPUT_ON_CHANGE && recorded)
		show = st->c.run.timed_out ||
		    breaker_outage_edge(&st->c.fx);
	else
		show = st->c.run.outcome != OUTCOME_SUCCESS;
	if ((rv = held_end(st->held, show)) == -1)
		cmd_warn("%s: the output of '%s' written out is incomplete",
		    st->c.name, st->so->argv[0]);
	else if (rv == 1)
		cmd_warnx("%s: the output of '%s' may have been cut: the "
		    "file system of its temporary files is full", st->c.name,
		    st->so->argv[0]);
}

/*
 * The wait before retry n (0: the first): retry_delay doubled n times and
 * capped at 60s, then "full jitter", a uniform draw from [0, that].
 */
static int64_t
retry_wait(const struct cb_policy *p, unsigned n)
{
	int64_t	d = p->retry_delay_ms;

	for (; n > 0 && d < POLICY_MAX_RETRY_DELAY; n--)
		d *= 2;
	if (d > POLICY_MAX_RETRY_DELAY)
		d = POLICY_MAX_RETRY_DELAY;
	if (d <= 0)
		return 0;
	return (int64_t)(clock_random() % ((uint64_t)d + 1));
}

/*
 * A timeout, said by default (SPEC 6.5): cron mails it, where exit 124
 * alone would pass unseen.  It says what was really sent.
 */
static void
run_timed_out(const struct run_step *st)
{
	char	after[32];

	format_duration(st->c.p->timeout_ms, after, sizeof after);
	if (st->sent == 0)
		cmd_warnx("%s: timed out after %s", st->c.name, after);
	else
		cmd_warnx("%s: timed out after %s; sent SIG%s%s", st->c.name,
		    after, sigabbrev_np(st->sent), st->killed &&
		    st->sent != SIGKILL ? ", then SIGKILL" : "");
}

/* What a deadline does: remembered for run_timed_out, and with -v said
 * as it happens, as timeout --verbose says it. */
static void
run_on_kill(void *arg, int sig, pid_t pid, int group)
{
	struct run_step	*st = arg;
	char		 after[32], whom[64];

	if (st->sent == 0)
		st->sent = sig;
	else if (sig == SIGKILL)
		st->killed = 1;
	if (!st->c.ctx->verbose)
		return;

	if (group)
		snprintf(whom, sizeof whom, "process group %ld", (long)pid);
	else
		snprintf(whom, sizeof whom, "pid %ld", (long)pid);
	if (sig == SIGKILL) {
		format_duration(st->c.p->kill_after_ms, after, sizeof after);
		cmd_warnx("%s: still running %s after the timeout: sending "
		    "SIGKILL to %s", st->c.name, after, whom);
	} else {
		format_duration(st->c.p->timeout_ms, after, sizeof after);
		cmd_warnx("%s: timeout after %s: sending SIG%s to %s",
		    st->c.name, after, sigabbrev_np(sig), whom);
	}
}

static int	run_attempts(struct run_step *, const struct cb_policy *,
		    const struct spawn_opts *, int);

static int	run_guarded(struct cb_ctx *, const char *, char **,
		    const struct run_opts *);

/* output = on-failure or on-change: hold the job's output (SPEC 6.5). */
static void
run_hold(struct run_step *st, struct spawn_opts *so, struct held *h)
{
	memset(h, 0, sizeof *h);
	if (st->c.p->output == OUTPUT_PASS)
		return;
	st->held = h;
	st->c.ctx->reopen_quiet = st->c.p->output == OUTPUT_ON_CHANGE;
	if (held_open(h) == 0) {
		so->held_out = h->fd[0];
		so->held_err = h->fd[1];
	}
}

static int
cmd_run_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	struct run_opts		 ro;
	struct cb_err		 err;
	int			 status;

	if (name_valid(a->argv[0], &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_CBEXEC;
	}
	if (run_options(a, &ro) == -1)
		return cmd_usage(&cmd_run_entry, EXIT_CBEXEC);
	status = run_guarded(ctx, a->argv[0], a->argv + 1, &ro);
	run_options_free(&ro);
	return status;
}

static int
run_guarded(struct cb_ctx *ctx, const char *name, char **argv,
    const struct run_opts *ro)
{
	/* Large (a record): static, see struct cb_record. */
	static struct run_step	 st;
	struct held		 h;
	struct cb_policy	 p;
	struct spawn_opts	 so;
	struct cb_err		 err;
	const char		*disable;
	int			 guarded = 1, status;

	/*
	 * A config that cannot be used never stops a job nor weakens a
	 * guard (SPEC section 4): its problems are printed, and the call
	 * runs guarded under the policy its breaker last ran under and the
	 * command line's values.  A -c file that is not there is a usage
	 * error.
	 */
	disable = getenv("CBEXEC_DISABLE");
	if (disable != NULL && strcmp(disable, "1") != 0)
		disable = NULL;
	if (cmd_call_policy(ctx, "run", name, disable != NULL ?
	    CALL_STORE_NONE : CALL_STORE_RW, ro, &p) == -1)
		return EXIT_CBEXEC;

	memset(&so, 0, sizeof so);
	so.argv = argv;
	ctx->run_by_wanted = 1;		/* last_run_by (SPEC 7) */
	ctx->run_argv0 = argv[0];
	so.timeout_ms = p.timeout_ms;
	so.kill_after_ms = p.kill_after_ms;
	so.foreground = ro->foreground;
	so.on_kill = run_on_kill;
	so.on_kill_arg = &st;

	if (disable != NULL) {
		if (!ctx->quiet)
			cmd_warnx("warning: CBEXEC_DISABLE=1: running '%s' "
			    "unguarded, nothing recorded", argv[0]);
		guarded = 0;
	}

	/* st is static, so zero already: run is one call per process, and
	 * a memset would touch every page of its 31 KB record for nothing. */
	st.c.ctx = ctx;
	st.c.fill_self = fill_self;
	st.c.job_group = job_group;
	st.so = &so;
	so.job_marker = st.marker;
	st.c.name = name;
	st.c.p = &p;
	st.wait_ms = ro->wait_ms;
	st.asks_fail = run_asks_fail(ro);
	if (p.timeout_ms > 0 && p.kill_after_ms > 0)
		st.lease_ms = p.timeout_ms + p.kill_after_ms + 5000;
	else
		st.lease_ms = p.probe_lease_ms;

	/*
	 * From the first admission until the last outcome is written, a
	 * SIGINT, SIGTERM, SIGHUP or SIGQUIT must not end cbexec half-way,
	 * holding a probe slot or with an outcome unrecorded.  They stay
	 * blocked: spawn_run forwards those that arrive while the command
	 * runs, and one that arrives outside it acts once the outcome is
	 * written.  Children start with the mask cbexec had.
	 */
	if (spawn_block(&ctx->mask, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_CBEXEC;
	}
	ctx->have_mask = 1;
	so.mask = &ctx->mask;
	run_hold(&st, &so, &h);
	status = run_attempts(&st, &p, &so, guarded);
	held_close(&h);
	(void)sigprocmask(SIG_SETMASK, &ctx->mask, NULL);
	ctx->have_mask = 0;
	return status;
}

/*
 * Every attempt is a call of its own.  Only a failure is retried; a
 * refusal, an interruption or a signal during the wait ends the loop at
 * once.  Returns the exit status.
 */
static int
run_attempts(struct run_step *st, const struct cb_policy *p,
    const struct spawn_opts *so, int guarded)
{
	struct cb_ctx	*ctx = st->c.ctx;
	struct cb_err	 err;
	char		 wait[32];
	int64_t		 ms;
	unsigned	 n;
	int		 status, sig, rv, ran = -1;

	for (n = 0;; n++) {
		rv = attempt(st, so, &guarded, &status);
		if (rv == 0)
			run_output(st, 0);
		/* A job forked ahead that did not run. */
		spawn_drop();
		/* skip hides a refusal, never a failure that ran (SPEC 6.4). */
		if (rv == 1 && ran != -1 && skipped(st))
			return ran;
		if (rv != 0)
			return status;
		ran = status;
		if (st->c.run.outcome != OUTCOME_FAILURE || st->interrupted ||
		    n >= p->retries)
			return status;
		/* An open breaker will refuse the retry: no need to wait. */
		ms = st->left_open ? 0 : retry_wait(p, n);
		if (ctx->verbose) {
			if (ms == 0)
				snprintf(wait, sizeof wait, "0s");
			else
				format_duration(ms, wait, sizeof wait);
			cmd_warnx("%s: exit %d, retry %u of %u in %s",
			    st->c.name,
			    status, n + 1, p->retries, wait);
		}
		if ((sig = spawn_sleep(ms, &err)) == -1) {
			cmd_warnx("%s", err.msg);
			return status;
		}
		if (sig > 0) {
			if (ctx->verbose)
				cmd_warnx("%s: %s while waiting to retry; "
				    "giving up", st->c.name, strsignal(sig));
			return 128 + sig;
		}
	}
}

const struct cmd_entry cmd_run_entry = {
	"run",
	"NAME [-t D] [-k D] [--foreground] [--on-open fail|skip] "
	    "[--wait D] [--retries N] [--retry-delay D] "
	    "[--preset P] [--failure-codes L] [--success-codes L] "
	    "[--ignore-codes L] [-o KEY=VALUE] [--] COMMAND [ARG...]",
	"run COMMAND behind breaker NAME",
	"  -t, --timeout D          SIGTERM the command after D, exit 124\n"
	"  -k, --kill-after D       SIGKILL D after the SIGTERM (default 10s; "
	"0: never)\n"
	"      --foreground         keep the command in cbexec's process "
	"group\n"
	"      --on-open fail|skip  when refused: exit 75, or exit 0 silently\n"
	"      --wait D             every run slot taken (max_concurrent): "
	"wait up to\n"
	"                           D for one to free (default 0); rate "
	"limited\n"
	"                           (max_rate): sleep until the turn if it "
	"comes\n"
	"                           within D\n"
	"      --retries N          run again after a failure, up to N more "
	"times\n"
	"      --retry-delay D      first wait before a retry (default 1s), "
	"doubled\n"
	"                           each time up to 60s, full jitter\n"
	"      --preset NAME        exit code table of curl, wget, ssh, "
	"rsync, psql,\n"
	"                           pg_isready\n"
	"      --failure-codes L    codes meaning the dependency is down "
	"(6,7,50-59)\n"
	"      --success-codes L    codes meaning it answered\n"
	"      --ignore-codes L     codes that say nothing about it\n"
	"  -o KEY=VALUE             any policy key of cbexec.conf(5); a list "
	"in its\n"
	"                           syntax: -o 'probe=[\"pg_isready\",\"-q\"]'\n"
	"Options come after NAME, and end at -- or at the first word that is\n"
	"not one.\n",
	{ run_grammar, 2, -1, CMD_NAME_FIRST, "no command given" },
	EXIT_CBEXEC,
	NULL,
	cmd_run_exec
};
