/* SPDX-License-Identifier: ISC */
/*
 * hook.c: what a breaker's transitions set off (SPEC section 5): a log
 * line (syslog, or stderr), a line for the caller when this call opened
 * or closed the breaker (SPEC 6.5: cron mails it), and the on_transition
 * hook, run in the background under a supervisor that finishes every hook
 * before cbexec exits; and the log of a broken config's problems, once
 * per content of the file.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <paths.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "cmd.h"
#include "esc.h"
#include "record.h"
#include "spawn.h"

#define HOOK_TIMEOUT_MS	5000
#define HOOK_MAX	8

/*
 * Hooks started and not yet finished.  They run alongside whatever cbexec
 * does next (the wrapped command, for a transition made at admission) and
 * are finished, each no later than five seconds after its start, by
 * cmd_hooks_wait() before cbexec exits.  So a hook never delays the start
 * of the command, and delays cbexec's exit by at most five seconds after
 * the last transition.  Hooks start in the order of the transitions; two of
 * one invocation may overlap, and CBEXEC_EPOCH tells their order.
 */
static struct spawn_job	hooks[HOOK_MAX];
static int		nhooks;

static void
hook_report(struct cb_ctx *ctx, const struct spawn_job *job,
    const struct spawn_result *res)
{
	if (ctx->quiet)
		return;
	if (res->exec_failed)
		cmd_warnx("warning: on_transition: cannot run '%s': %s",
		    job->argv0, strerror(res->exec_errno));
	else if (res->timed_out)
		cmd_warnx("warning: on_transition: '%s' killed after %ds",
		    job->argv0, HOOK_TIMEOUT_MS / 1000);
}

static void
hook_finish(struct cb_ctx *ctx, struct spawn_job *job)
{
	struct spawn_job	copy = *job;
	struct spawn_result	res;

	spawn_finish(job, &res);
	hook_report(ctx, &copy, &res);
}

void
cmd_hooks_wait(struct cb_ctx *ctx)
{
	int	i;

	for (i = 0; i < nhooks; i++)
		hook_finish(ctx, &hooks[i]);
	nhooks = 0;
}

/*
 * Start the on_transition hook for t: argv without a shell, the CBEXEC_*
 * variables but never CBEXEC_REDIS_PASSWORD, no descriptor above 2, stdin
 * from /dev/null, its output on our stderr, its own process group, killed
 * with that group five seconds after it started.  Its result changes
 * nothing; only a hook that could not run or had to be killed is
 * reported.
 */
static void
run_hook(struct cb_ctx *ctx, const char *name, const struct cb_transition *t)
{
	struct spawn_opts	 so;
	struct cb_err		 err;
	char			*env[6];
	int			 i;

	if (nhooks == HOOK_MAX) {
		hook_finish(ctx, &hooks[0]);
		memmove(&hooks[0], &hooks[1], (HOOK_MAX - 1) * sizeof hooks[0]);
		nhooks--;
	}
	/* The hook gets the bytes as they are: data for a program, not for
	 * a terminal (esc.h is for people).  A hook that prints them must
	 * escape them itself. */
	xasprintf(&env[0], "CBEXEC_NAME=%s", name);
	xasprintf(&env[1], "CBEXEC_FROM=%s", record_state_name(t->from));
	xasprintf(&env[2], "CBEXEC_TO=%s", record_state_name(t->to));
	xasprintf(&env[3], "CBEXEC_REASON=%s", t->reason);
	xasprintf(&env[4], "CBEXEC_EPOCH=%llu", (unsigned long long)t->epoch);
	env[5] = NULL;
	memset(&so, 0, sizeof so);
	so.argv = ctx->cfg.on_transition;
	so.timeout_ms = HOOK_TIMEOUT_MS;
	so.env = env;
	so.stdin_null = 1;
	so.stdout_to_stderr = 1;
	so.helper = 1;
	so.mask = ctx->have_mask ? &ctx->mask : NULL;
	if (spawn_start(&so, &hooks[nhooks], &err) == -1)
		cmd_warnx("warning: on_transition: %s", err.msg);
	else
		nhooks++;
	/* The child has its own copy. */
	for (i = 0; i < 5; i++)
		free(env[i]);
}

/*
 * Can syslog(3) deliver?  glibc drops messages silently when /dev/log is
 * missing or nobody listens on it (a container), so connect to it once per
 * run, as syslog(3) would, and say so when it cannot.
 */
static int
syslog_usable(struct cb_ctx *ctx)
{
	static int		 usable = -1;
	struct sockaddr_un	 sun;
	int			 fd, e = 0;

	if (usable != -1)
		return usable;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", _PATH_LOG);
	usable = 0;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		e = errno;
	else {
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
			usable = 1;
		else
			e = errno;
		(void)close(fd);
	}
	/* glibc tries a stream socket when the datagram one is refused. */
	if (!usable && e == EPROTOTYPE &&
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1) {
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
			usable = 1;
		else
			e = errno;
		(void)close(fd);
	}
	if (!usable && ctx->verbose)
		cmd_warnx("warning: cannot log to syslog (%s: %s)", _PATH_LOG,
		    strerror(e));
	return usable;
}

/* "10:35:00" local time, with the date when it is not today's. */
static void
until_text(int64_t ms, char *buf, size_t len)
{
	struct tm	tm, today;
	time_t		t = (time_t)(ms / 1000), now = time(NULL);

	if (localtime_r(&t, &tm) == NULL || localtime_r(&now, &today) ==
	    NULL || strftime(buf, len, tm.tm_yday == today.tm_yday &&
	    tm.tm_year == today.tm_year ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
	    &tm) == 0)
		snprintf(buf, len, "later");
}

/* "06:48" local time; with the date when not the day of ref. */
static void
hm_text(int64_t ms, int64_t ref, char *buf, size_t len)
{
	struct tm	tm, rt;
	time_t		t = (time_t)(ms / 1000), r = (time_t)(ref / 1000);

	if (localtime_r(&t, &tm) == NULL || localtime_r(&r, &rt) == NULL ||
	    strftime(buf, len, tm.tm_yday == rt.tm_yday &&
	    tm.tm_year == rt.tm_year ? "%H:%M" : "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(buf, len, "?");
}

/* The closing line's summary of the outage (SPEC 6.5), or "". */
static void
outage_summary(const struct cb_transition *t, char *buf, size_t len)
{
	char	from[32], to[32];

	hm_text(t->since_ms, t->at_ms, from, sizeof from);
	hm_text(t->at_ms, t->at_ms, to, sizeof to);
	breaker_outage_text(t, from, to, buf, len);
}

/*
 * What a transition says to the caller, for cron mail (SPEC 6.5): an
 * opening with how long, a closing after its probes.  Returns 0 for what
 * is not said (half-open, and trip and reset, which their user made).
 */
static int
transition_said(const char *name, const struct cb_transition *t)
{
	char	until[32], sum[192];

	if (t->manual || t->from == t->to)
		return 0;
	if (t->to == STATE_OPEN) {
		until_text(t->until_ms, until, sizeof until);
		if (t->from == STATE_CLOSED)
			cmd_warnx("%s: circuit opened after %s; refusing runs "
			    "until %s", esc(name), esc(t->reason), until);
		else
			cmd_warnx("%s: circuit re-opened (%s); refusing runs "
			    "until %s", esc(name), esc(t->reason), until);
		return 1;
	}
	if (t->to != STATE_CLOSED)
		return 0;
	outage_summary(t, sum, sizeof sum);
	if (t->probes <= 1)
		cmd_warnx("%s: circuit closed after a successful probe%s%s",
		    esc(name), sum[0] != '\0' ? "; " : "", sum);
	else
		cmd_warnx("%s: circuit closed after %u successful probes%s%s",
		    esc(name), t->probes, sum[0] != '\0' ? "; " : "", sum);
	return 1;
}

/* " [user@host: command]": who made the call whose transitions are
 * logged (SPEC 7), escaped; "" when no run is being made. */
static void
run_by_suffix(struct cb_ctx *ctx, char *buf, size_t len)
{
	const struct cb_runby	*by;

	buf[0] = '\0';
	if ((by = cmd_run_by(ctx)) == NULL)
		return;
	snprintf(buf, len, " [%s@%s%s%s]", esc(by->user), esc(by->host),
	    by->argv0[0] != '\0' ? ": " : "", esc(by->argv0));
}

void
cmd_transitions(struct cb_ctx *ctx, const char *name,
    const struct cb_effects *fx)
{
	const struct cb_transition	*t;
	int				 i, said;
	enum cb_log			 log;
	char				 by[512];

	cmd_reap(ctx, name, fx);
	log = ctx->cfg_loaded ? ctx->cfg.log : CB_LOG_SYSLOG;
	/* No syslog (a container): what is said on stderr is said once. */
	if (log == CB_LOG_SYSLOG && fx->ntrans > 0 && !syslog_usable(ctx))
		log = CB_LOG_NONE;
	if (fx->ntrans > 0)
		run_by_suffix(ctx, by, sizeof by);
	for (i = 0; i < fx->ntrans; i++) {
		t = &fx->trans[i];
		if (log == CB_LOG_SYSLOG) {
			openlog("cbexec", LOG_PID, LOG_USER);
			syslog(t->to == STATE_OPEN ? LOG_WARNING : LOG_NOTICE,
			    "%s: %s -> %s (%s)%s", esc(name),
			    record_state_name(t->from),
			    record_state_name(t->to), esc(t->reason), by);
		}
		/* log = stderr is the log: its line, not a second one. */
		said = log != CB_LOG_STDERR && !ctx->quiet &&
		    !(ctx->reopen_quiet && t->from == STATE_HALF_OPEN &&
		    t->to == STATE_OPEN) && transition_said(name, t);
		if (!said && (log == CB_LOG_STDERR || ctx->verbose))
			cmd_warnx("%s: %s -> %s (%s)%s", esc(name),
			    record_state_name(t->from),
			    record_state_name(t->to), esc(t->reason), by);
		/* A broken file names nothing to run (SPEC section 4). */
		if (ctx->cfg_loaded && !ctx->cfg_broken &&
		    ctx->cfg.on_transition != NULL)
			run_hook(ctx, name, t);
	}
	if (log == CB_LOG_SYSLOG && fx->ntrans > 0)
		closelog();
}
