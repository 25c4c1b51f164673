/* SPDX-License-Identifier: ISC */
/*
 * classify.c: turn how a run ended into one outcome, by the policy's code
 * classes and its verdicts for timeouts and signals.  Pure.
 */
#include "classify.h"

static enum cb_outcome
verdict(enum cb_verdict v)
{
	switch (v) {
	case VERDICT_SUCCESS:
		return OUTCOME_SUCCESS;
	case VERDICT_IGNORE:
		return OUTCOME_IGNORED;
	default:
		return OUTCOME_FAILURE;
	}
}

enum cb_outcome
classify(const struct cb_policy *p, const struct classify_in *in)
{
	enum cb_outcome	o;

	if (in->interrupted)
		return OUTCOME_INTERRUPTED;
	/* Could not run at all: says nothing about the dependency. */
	if (in->exec_failed)
		return OUTCOME_IGNORED;
	if (in->timed_out)
		o = verdict(p->timeout_is);
	else if (in->signal != 0)
		o = verdict(p->signal_is);
	else if (codeset_has(&p->ignore_codes, in->exit_code))
		o = OUTCOME_IGNORED;
	else if (codeset_has(&p->success_codes, in->exit_code))
		o = OUTCOME_SUCCESS;
	else if (codeset_has(&p->failure_codes, in->exit_code))
		o = OUTCOME_FAILURE;
	else
		o = OUTCOME_SUCCESS;	/* the dependency answered */
	if (o == OUTCOME_SUCCESS && p->slow_call_ms > 0 &&
	    in->duration_ms > p->slow_call_ms)
		o = OUTCOME_FAILURE;
	return o;
}
