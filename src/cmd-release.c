/* SPDX-License-Identifier: ISC */
/*
 * cmd-release.c: `cbexec release TOKEN success|failure|ignore`, the second
 * half of the two-step API (SPEC section 7b).  The token says which
 * breaker, under which epoch, and which probe slot; the outcome is recorded
 * with the same epoch fencing as a run's, so a token from an epoch the
 * breaker has left (a reset, a trip, a lease that expired) is only counted
 * as stale.  slow_call applies, measured from the acquire.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "record.h"
#include "token.h"

static int
cmd_release_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	/* Large (a record): static, see struct cb_record. */
	static struct cmd_call		 st;
	static const char *const	 outcomes[] = {
		"success", "failure", "ignore", NULL
	};
	static const enum cb_outcome	 as[] = {
		OUTCOME_SUCCESS, OUTCOME_FAILURE, OUTCOME_IGNORED
	};
	struct cb_policy		 p;
	struct cb_token			 tok;
	struct cb_err			 err;
	struct store			*store;
	int				 i;

	/* The operands: TOKEN and the outcome. */
	for (i = 0; outcomes[i] != NULL; i++)
		if (strcmp(a->argv[1], outcomes[i]) == 0)
			break;
	if (outcomes[i] == NULL) {
		cmd_warnx("release: outcome must be success, failure or "
		    "ignore, not '%.80s'", a->argv[1]);
		return cmd_usage(&cmd_release_entry, EXIT_USAGE);
	}
	if (token_decode(a->argv[0], &tok, &err) == -1) {
		cmd_warnx("release: invalid token '%.120s%s': %s", a->argv[0],
		    strlen(a->argv[0]) > 120 ? "..." : "", err.msg);
		return EXIT_USAGE;
	}
	if (tok.unguarded) {
		if (ctx->verbose)
			cmd_warnx("%s: token acquired with CBEXEC_DISABLE=1: "
			    "nothing recorded", tok.name);
		return EXIT_OK;
	}

	if (cmd_call_policy(ctx, "release", tok.name, CALL_STORE_RW, NULL,
	    &p) == -1)
		return EXIT_FAIL;

	memset(&st, 0, sizeof st);
	st.ctx = ctx;
	st.name = tok.name;
	st.p = &p;
	cmd_env(ctx, &st.env);
	st.ticket.admitted = 1;
	st.ticket.probe = tok.probe;
	st.ticket.running = tok.running;
	st.ticket.epoch = tok.epoch;
	st.ticket.identity = tok.identity;
	st.ticket.token = tok.slot;
	st.ticket.state = tok.probe ? STATE_HALF_OPEN : STATE_CLOSED;
	st.run.outcome = as[i];
	st.run.exit_code = -1;
	st.run.start_ms = tok.acquired_ms;
	st.run.duration_ms = st.env.now_ms - tok.acquired_ms;
	if (st.run.duration_ms < 0)
		st.run.duration_ms = 0;
	/* As classify() does for a run: a slow success is a failure. */
	if (st.run.outcome == OUTCOME_SUCCESS && p.slow_call_ms > 0 &&
	    st.run.duration_ms > p.slow_call_ms)
		st.run.outcome = OUTCOME_FAILURE;

	ctx->run_by_wanted = 1;		/* user and host: no command */
	(void)cmd_run_by(ctx);
	if ((store = cmd_store(ctx, 0, &err)) == NULL ||
	    store_update(store, tok.name, cmd_record_cb, &st, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	/* In the order it happened: the outcome, then what it caused. */
	if (ctx->verbose)
		cmd_warnx("%s: released as %s, counted as %s", tok.name,
		    outcomes[i], breaker_outcome_name(st.counted));
	/* SPEC 2, Late release: a dropped permit, said even with -q. */
	if (st.fx.late)
		cmd_warnx("%s: released after its lease ended: counted as a "
		    "failure, and the breaker re-opens", tok.name);
	cmd_transitions(ctx, tok.name, &st.fx);
	return EXIT_OK;
}

const struct cmd_entry cmd_release_entry = {
	"release",
	"TOKEN success|failure|ignore",
	"record the outcome of a call admitted by acquire",
	"Records the outcome of the call TOKEN (from `cbexec acquire`) stands\n"
	"for.  A token from an epoch the breaker has left (reset, trip, lease\n"
	"expired) is counted as stale and changes nothing else; that is no\n"
	"error (exit 0).  A half-open token released after its lease ended,\n"
	"its slot still held, is a dropped permit: counted as a failure, the\n"
	"breaker re-opens, and release says so on stderr (exit 0).  A token\n"
	"whose breaker was forgotten makes it anew and is counted there.\n"
	"Release each token once.  A malformed TOKEN is a usage error (2).\n",
	{ NULL, 2, 2, 0, NULL },
	0,
	NULL,
	cmd_release_exec
};
