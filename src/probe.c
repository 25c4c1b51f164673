/* SPDX-License-Identifier: ISC */
/*
 * probe.c: the probe command of SPEC section 2c, run by `run` and
 * `acquire` in place of the job when their call was admitted as a
 * half-open probe.  The probe is a helper as hooks are (spawn.h: no shell,
 * no descriptor of ours, no CBEXEC_REDIS_PASSWORD), with stdin and stdout
 * on /dev/null so that it can neither wait for input nor mix its output
 * into the job's, and its process group SIGKILLed at probe_timeout, since
 * a health check that hangs has answered, or as soon as it exits, since
 * nothing a health check started in the background is wanted after it.  Its outcome is judged here,
 * not by the job's code classes: 0 passes, anything else fails.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "probe.h"
#include "spawn.h"

/* The probe's run as the breaker counts it: exit 0 passes, all else
 * fails, but a signal of ours forwarded to it says nothing. */
static void
probe_judge(struct cmd_call *c, const struct spawn_result *res)
{
	memset(&c->run, 0, sizeof c->run);
	c->run.probe_command = 1;
	c->run.timed_out = res->timed_out;
	c->run.signal = res->signal;
	c->run.exit_code = res->status;
	c->run.duration_ms = res->duration_ms;
	if (res->interrupted)
		c->run.outcome = OUTCOME_INTERRUPTED;
	else if (!res->exec_failed && !res->timed_out && res->signal == 0 &&
	    res->exit_code == 0)
		c->run.outcome = OUTCOME_SUCCESS;
	else
		c->run.outcome = OUTCOME_FAILURE;
}

/* The refusal of a call whose probe did not close the breaker. */
static void
probe_refusal(struct cmd_call *c, int passed)
{
	struct cb_ticket	*t = &c->ticket;
	const struct cb_record	*r = &c->rec;

	memset(t, 0, sizeof *t);
	t->state = r->state;
	if (r->state == STATE_OPEN) {
		t->retry_in_ms = r->open_until_ms - c->env.now_ms;
		if (t->retry_in_ms < 0)
			t->retry_in_ms = 0;
		snprintf(t->why, sizeof t->why, "%s", r->reason);
		return;
	}
	/* Half-open still, or moved on (reset, trip) while it ran. */
	t->state = STATE_HALF_OPEN;
	if (passed && r->state == STATE_HALF_OPEN)
		snprintf(t->why, sizeof t->why, "probe command succeeded, %u "
		    "of %u successes to close", r->half_open_successes,
		    c->p->half_open_max_calls);
	else
		snprintf(t->why, sizeof t->why, "the probe command %s while "
		    "the breaker moved on", passed ? "passed" : "failed");
}

/*
 * Run the probe and record it.  Returns 1 when it closed the breaker (the
 * job then runs, admitted anew), 0 when the call goes on as it was, or -1
 * with *status when the call ends here.
 */
static int
probe_once(struct cmd_call *c, struct store *s, const sigset_t *mask,
    int *status)
{
	struct cb_ctx		*ctx = c->ctx;
	struct spawn_opts	 so;
	struct spawn_result	 res;
	struct cb_err		 err;
	char			 after[32];
	int64_t			 start = c->env.now_ms;	/* admitted */

	memset(&so, 0, sizeof so);
	so.argv = c->p->probe;
	so.timeout_ms = c->p->probe_timeout_ms;
	so.timeout_signal = SIGKILL;
	so.mask = mask;
	so.stdin_null = 1;
	so.stdout_null = 1;
	so.helper = 1;
	so.sweep_group = 1;
	if (ctx->verbose) {
		format_duration(c->p->probe_timeout_ms, after, sizeof after);
		cmd_warnx("%s: half-open: running the probe command '%s' "
		    "(killed after %s)", c->name, so.argv[0], after);
	}
	if (spawn_run(&so, &res, &err) == -1) {
		cmd_warnx("%s", err.msg);
		*status = EXIT_CBEXEC;
		return -1;
	}
	if (res.exec_failed)
		cmd_warnx("failed to run probe command '%s': %s", so.argv[0],
		    strerror(res.exec_errno));
	probe_judge(c, &res);
	c->run.start_ms = start;

	c->env.now_ms = clock_wall_ms();
	(void)cmd_run_by(ctx);
	if (store_update(s, c->name, cmd_record_cb, c, &err) == -1) {
		cmd_warnx("warning: %s; outcome of probe command '%s' not "
		    "recorded", err.msg, so.argv[0]);
		memset(&c->ticket, 0, sizeof c->ticket);
		c->ticket.state = STATE_HALF_OPEN;
		snprintf(c->ticket.why, sizeof c->ticket.why, "the probe "
		    "command's outcome was not recorded");
		return 0;
	}
	if (ctx->verbose)
		cmd_warnx("%s: probe command exit %d, counted as %s", c->name,
		    res.status, breaker_outcome_name(c->counted));
	cmd_transitions(ctx, c->name, &c->fx);
	if (res.interrupted) {
		*status = res.status;
		return -1;
	}
	if (c->run.outcome != OUTCOME_SUCCESS ||
	    c->rec.state != STATE_CLOSED) {
		probe_refusal(c, c->run.outcome == OUTCOME_SUCCESS);
		return 0;
	}
	return 1;
}

int
probe_admit(struct cmd_call *c, struct store *s, const sigset_t *mask,
    int *status)
{
	struct cb_err	err;
	int64_t		lease_ms;
	int		rv;

	/* Again only when the breaker re-opened and half-opened meanwhile. */
	while (c->ticket.admitted && c->ticket.probe && c->p->probe != NULL) {
		lease_ms = c->self.lease_until_ms - c->env.now_ms;
		if ((rv = probe_once(c, s, mask, status)) != 1)
			return rv;
		/* Closed: the job is a call of its own, admitted anew. */
		cmd_env(c->ctx, &c->env);
		c->self.token = clock_random();
		c->self.lease_until_ms = c->env.now_ms + lease_ms;
		if (store_update(s, c->name, cmd_admit_cb, c, &err) == -1) {
			cmd_warnx("%s", err.msg);
			*status = EXIT_CBEXEC;
			return -1;
		}
		cmd_evictions(c->ctx);
		cmd_transitions(c->ctx, c->name, &c->fx);
	}
	return 0;
}
