/*
 * cmd-run.c: `cbexec run NAME [options] [--] COMMAND [ARG...]`, the reason
 * cbexec exists.  One store update admits the call (or refuses it), the
 * command runs with no transaction open, and a second update records its
 * outcome.  Admission peeks first (store_update_peek): a closed breaker
 * admits without a write, so it need not queue for the writer lock.  When the state file cannot be used, on_store_error decides
 * between running unguarded and refusing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "classify.h"
#include "clock.h"
#include "cmd.h"
#include "record.h"
#include "spawn.h"

#define MAX_CLI_VALUES	64

/* One option value given on the command line, applied after the config. */
struct cli_value {
	enum policy_key	 key;
	const char	*value;
};

/* What the two update callbacks share with the command. */
struct run_step {
	struct cb_ctx		*ctx;
	const char		*name;
	const struct cb_policy	*p;
	struct cb_env		 env;
	int			 have_self;
	struct cb_slot		 self;
	int64_t			 lease_ms;
	struct cb_ticket	 ticket;
	struct cb_run		 run;
	enum cb_outcome		 counted;
	struct cb_effects	 fx;
	struct cb_record	 rec;
};

/* Who we are, read only when a probe slot is at stake. */
static void
fill_self(struct run_step *st)
{
	if (st->have_self)
		return;
	st->self.pid = (int32_t)getpid();
	st->self.start_time = clock_proc_start(getpid());
	memcpy(st->self.boot_id, cmd_boot_id(st->ctx),
	    sizeof st->self.boot_id);
	st->self.token = clock_random();
	st->self.lease_until_ms = st->env.now_ms + st->lease_ms;
	st->have_self = 1;
}

static int
admit_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct run_step	*st = arg;
	int		 changed;

	memset(&st->fx, 0, sizeof st->fx);
	if (old == NULL)
		record_init(&st->rec, st->env.now_ms);
	else if (cmd_decode(st->ctx, st->name, old, oldlen, &st->rec,
	    err) == -1)
		return -1;
	if (st->rec.state != STATE_CLOSED)
		fill_self(st);
	changed = breaker_admit(&st->rec, st->p, &st->env, &st->self,
	    &st->ticket, &st->fx);
	if (old != NULL && !changed)
		return STORE_KEEP;
	record_encode(&st->rec, out);
	return STORE_PUT;
}

static int
record_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct run_step	*st = arg;

	memset(&st->fx, 0, sizeof st->fx);
	if (old == NULL) {
		/* Forgotten while the command ran: nothing to count in. */
		st->counted = OUTCOME_STALE;
		return STORE_KEEP;
	}
	if (cmd_decode(st->ctx, st->name, old, oldlen, &st->rec, err) == -1)
		return -1;
	st->counted = breaker_record(&st->rec, st->p, &st->env, &st->ticket,
	    &st->run, &st->fx);
	record_encode(&st->rec, out);
	return STORE_PUT;
}

/* Seconds, rounded up, as "23s" or "4m10s". */
static void
format_retry(int64_t ms, char *buf, size_t len)
{
	format_duration((ms + 999) / 1000 * 1000, buf, len);
}

static int
refused(struct cb_ctx *ctx, struct run_step *st)
{
	char	retry[32];

	if (st->p->on_open == ON_OPEN_SKIP)
		return EXIT_OK;
	if (!ctx->quiet) {
		if (st->ticket.state == STATE_OPEN) {
			format_retry(st->ticket.retry_in_ms, retry,
			    sizeof retry);
			cmd_warnx("%s: circuit open, retry in %s (%s)",
			    st->name, retry, st->ticket.why);
		} else
			cmd_warnx("%s: circuit half-open, %s, retry later",
			    st->name, st->ticket.why);
	}
	return st->p->open_exit_code;
}

static int
spawn_unguarded(const struct spawn_opts *so)
{
	struct spawn_result	res;
	struct cb_err		err;

	if (spawn_run(so, &res, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_CBEXEC;
	}
	return res.status;
}

static const struct option longopts[] = {
	{ "timeout",		required_argument,	NULL, 't' },
	{ "kill-after",		required_argument,	NULL, 'k' },
	{ "foreground",		no_argument,		NULL, 'F' },
	{ "on-open",		required_argument,	NULL, 'O' },
	{ "preset",		required_argument,	NULL, 'P' },
	{ "failure-codes",	required_argument,	NULL, 'f' },
	{ "success-codes",	required_argument,	NULL, 'S' },
	{ "ignore-codes",	required_argument,	NULL, 'i' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

/* Lay the command-line values over the config's policy. */
static int
apply_cli(struct policy_builder *b, const struct cli_value *cv, int ncv)
{
	struct policy_value	v;
	struct cb_err		err;
	int			i;

	for (i = 0; i < ncv; i++) {
		memset(&v, 0, sizeof v);
		v.type = PV_STRING;
		v.s = cv[i].value;
		v.from_cli = 1;
		if (policy_set(b, cv[i].key, &v, LAYER_CLI, "command line",
		    &err) == -1) {
			cmd_warnx("run: %s", err.msg);
			return -1;
		}
	}
	return 0;
}

static int
cmd_run_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	static struct run_step	 st;	/* large: keep it off the stack */
	struct cli_value	 cv[MAX_CLI_VALUES];
	struct policy_builder	 b;
	struct cb_policy	 p;
	struct spawn_opts	 so;
	struct spawn_result	 res;
	struct classify_in	 in;
	struct cb_err		 err;
	struct store		*store;
	const char		*name, *disable, *eq;
	char			 key[128];
	int			 ch, ncv = 0, foreground = 0, k;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		if (argc >= 2) {
			printf("usage: cbexec run %s\n%s",
			    cmd_run_entry.usage, cmd_run_entry.help);
			return EXIT_OK;
		}
		return cmd_usage(&cmd_run_entry, EXIT_CBEXEC);
	}
	name = argv[1];
	if (cmd_name_valid(name, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_CBEXEC;
	}

	/* Options end at "--" or at the first word that is not one. */
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, "+t:k:o:h", longopts,
	    NULL)) != -1) {
		if (ncv == MAX_CLI_VALUES) {
			cmd_warnx("run: too many options");
			return EXIT_CBEXEC;
		}
		switch (ch) {
		case 't':
			cv[ncv++] = (struct cli_value){ PK_TIMEOUT, optarg };
			break;
		case 'k':
			cv[ncv++] = (struct cli_value){ PK_KILL_AFTER, optarg };
			break;
		case 'F':
			foreground = 1;
			break;
		case 'O':
			cv[ncv++] = (struct cli_value){ PK_ON_OPEN, optarg };
			break;
		case 'P':
			cv[ncv++] = (struct cli_value){ PK_PRESET, optarg };
			break;
		case 'f':
			cv[ncv++] = (struct cli_value){ PK_FAILURE_CODES,
			    optarg };
			break;
		case 'S':
			cv[ncv++] = (struct cli_value){ PK_SUCCESS_CODES,
			    optarg };
			break;
		case 'i':
			cv[ncv++] = (struct cli_value){ PK_IGNORE_CODES,
			    optarg };
			break;
		case 'o':
			if ((eq = strchr(optarg, '=')) == NULL ||
			    (size_t)(eq - optarg) >= sizeof key) {
				cmd_warnx("run: -o wants KEY=VALUE, not '%s'",
				    optarg);
				return EXIT_CBEXEC;
			}
			memcpy(key, optarg, (size_t)(eq - optarg));
			key[eq - optarg] = '\0';
			if ((k = policy_key_lookup(key)) == -1) {
				cmd_warnx("run: -o: unknown policy key '%s'",
				    key);
				return EXIT_CBEXEC;
			}
			cv[ncv++] = (struct cli_value){ (enum policy_key)k,
			    eq + 1 };
			break;
		case 'h':
			printf("usage: cbexec run %s\n%s",
			    cmd_run_entry.usage, cmd_run_entry.help);
			return EXIT_OK;
		default:
			if (optopt != 0 && strchr("tko", optopt) != NULL)
				cmd_warnx("run: option '-%c' needs an argument",
				    optopt);
			else if (optopt != 0)
				cmd_warnx("run: unknown option '-%c'", optopt);
			else
				cmd_warnx("run: unknown option '%s'",
				    argv[optind]);
			return cmd_usage(&cmd_run_entry, EXIT_CBEXEC);
		}
	}
	argv += 1 + optind;
	argc -= 1 + optind;
	if (argc < 1) {
		cmd_warnx("run: no command given");
		return cmd_usage(&cmd_run_entry, EXIT_CBEXEC);
	}

	policy_init(&b);
	if (cmd_policy(ctx, name, &b) == -1 || apply_cli(&b, cv, ncv) == -1)
		return EXIT_CBEXEC;
	if (policy_finish(&b, &p, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return EXIT_CBEXEC;
	}

	memset(&so, 0, sizeof so);
	so.argv = argv;
	so.timeout_ms = p.timeout_ms;
	so.kill_after_ms = p.kill_after_ms;
	so.foreground = foreground;

	disable = getenv("CBEXEC_DISABLE");
	if (disable != NULL && strcmp(disable, "1") == 0) {
		if (!ctx->quiet)
			cmd_warnx("warning: CBEXEC_DISABLE=1: running '%s' "
			    "unguarded, nothing recorded", argv[0]);
		return spawn_unguarded(&so);
	}

	memset(&st, 0, sizeof st);
	st.ctx = ctx;
	st.name = name;
	st.p = &p;
	cmd_env(ctx, &st.env);
	if (p.timeout_ms > 0 && p.kill_after_ms > 0)
		st.lease_ms = p.timeout_ms + p.kill_after_ms + 5000;
	else
		st.lease_ms = p.probe_lease_ms;

	if ((store = cmd_store(ctx, 0, NULL, &err)) == NULL ||
	    store_update_peek(store, name, admit_cb, &st, &err) == -1) {
		if (ctx->cfg.on_store_error == STORE_ERROR_CLOSED) {
			cmd_warnx("%s; refusing to run '%s' "
			    "(on_store_error = closed)", err.msg, argv[0]);
			return EXIT_CBEXEC;
		}
		if (!ctx->quiet)
			cmd_warnx("warning: %s; running '%s' unguarded",
			    err.msg, argv[0]);
		return spawn_unguarded(&so);
	}
	cmd_transitions(ctx, name, &st.fx);
	if (!st.ticket.admitted)
		return refused(ctx, &st);
	if (ctx->verbose)
		cmd_warnx("%s: admitted (%s, epoch %llu)", name,
		    st.ticket.probe ? "probe" : "closed",
		    (unsigned long long)st.ticket.epoch);

	if (spawn_run(&so, &res, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_CBEXEC;
	}

	memset(&in, 0, sizeof in);
	in.exec_failed = res.exec_failed;
	in.timed_out = res.timed_out;
	in.interrupted = res.interrupted;
	in.signal = res.signal;
	in.exit_code = res.exit_code;
	in.duration_ms = res.duration_ms;
	st.run.outcome = classify(&p, &in);
	st.run.timed_out = res.timed_out;
	st.run.exit_code = res.status;
	st.run.duration_ms = res.duration_ms;
	st.env.now_ms = clock_wall_ms();

	if (store_update(store, name, record_cb, &st, &err) == -1)
		cmd_warnx("warning: %s; outcome of '%s' not recorded",
		    err.msg, argv[0]);
	else {
		cmd_transitions(ctx, name, &st.fx);
		if (ctx->verbose)
			cmd_warnx("%s: exit %d, counted as %s", name,
			    res.status, breaker_outcome_name(st.counted));
	}
	return res.status;
}

const struct cmd_entry cmd_run_entry = {
	"run",
	"NAME [-t D] [-k D] [--foreground] [--on-open fail|skip] "
	    "[--preset P] [--failure-codes L] [--success-codes L] "
	    "[--ignore-codes L] [-o KEY=VALUE] [--] COMMAND [ARG...]",
	"run COMMAND behind breaker NAME",
	"  -t, --timeout D          SIGTERM the command after D, exit 124\n"
	"  -k, --kill-after D       SIGKILL D after the SIGTERM (default 10s; "
	"0: never)\n"
	"      --foreground         keep the command in cbexec's process "
	"group\n"
	"      --on-open fail|skip  when refused: exit 75, or exit 0 silently\n"
	"      --preset NAME        exit code table of curl, wget, ssh, "
	"rsync, psql\n"
	"      --failure-codes L    codes meaning the dependency is down "
	"(6,7,50-59)\n"
	"      --success-codes L    codes meaning it answered\n"
	"      --ignore-codes L     codes that say nothing about it\n"
	"  -o KEY=VALUE             any policy key of cbexec.conf(5)\n"
	"Options end at -- or at the first word that is not one.\n",
	cmd_run_exec
};
