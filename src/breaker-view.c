/* SPDX-License-Identifier: ISC */
/*
 * breaker-view.c: what the rest of cbexec reads of a record without
 * changing it: names of outcomes, marks and trip policies for status, the
 * policy a breaker last ran under (kept, and read back), and what gc and
 * eviction may remove.
 * Pure: libc only.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "breaker-int.h"

const char *
breaker_outcome_name(enum cb_outcome o)
{
	static const char *const names[OUTCOME_COUNT] = {
		"success", "failure", "ignored", "interrupted", "stale",
		"rejected"
	};

	return (unsigned)o < OUTCOME_COUNT ? names[o] : "unknown";
}

int
breaker_removable(const struct cb_record *r, const struct cb_env *env)
{
	unsigned	i;

	if (r->state != STATE_CLOSED)
		return 0;
	for (i = 0; i < r->nrunning; i++)
		if (breaker_slot_live(&r->running[i], env))
			return 0;
	return 1;
}

int64_t
breaker_last_used(const struct cb_record *r)
{
	int64_t		t = r->last_used_ms;
	unsigned	i;

	if (r->last_run_at_ms > t)
		t = r->last_run_at_ms;
	for (i = 0; i < r->nrunning; i++)
		if (r->running[i].since_ms > t)
			t = r->running[i].since_ms;
	return t;
}

/*
 * The whole policy the breaker runs under (SPEC 7): every number, class
 * and mode, command-line options included; of a probe command only
 * whether one was set, never the command.
 */
void
breaker_snapshot(struct cb_record *r, const struct cb_policy *p)
{
	struct cb_snapshot	*s = &r->policy;

	memset(s, 0, sizeof *s);
	s->set = 1;
	s->full = 1;
	s->trip_policy = (uint8_t)p->trip_policy;
	s->preset = (int16_t)(p->preset >= 0 && p->preset < 0x7fff ?
	    p->preset : -1);
	s->trip_failures = p->trip_failures;
	s->trip_period_ms = p->trip_period_ms;
	s->trip_window = p->trip_window;
	s->trip_min_calls = p->trip_min_calls;
	s->trip_failure_rate = p->trip_failure_rate;
	s->open_timeout_ms = p->open_timeout_ms;
	s->max_open_timeout_ms = p->max_open_timeout_ms;
	s->backoff = p->backoff;
	s->half_open_max_calls = p->half_open_max_calls;
	s->timeout_ms = p->timeout_ms;
	s->max_concurrent = p->max_concurrent;
	s->jitter = p->jitter;
	s->probe_lease_ms = p->probe_lease_ms;
	s->probe_timeout_ms = p->probe_timeout_ms;
	s->probe_set = p->probe != NULL;
	s->kill_after_ms = p->kill_after_ms;
	s->slow_call_ms = p->slow_call_ms;
	s->failure_codes = p->failure_codes;
	s->success_codes = p->success_codes;
	s->ignore_codes = p->ignore_codes;
	s->timeout_is = (uint8_t)p->timeout_is;
	s->signal_is = (uint8_t)p->signal_is;
	s->on_open = (uint8_t)p->on_open;
	s->on_busy = (uint8_t)p->on_busy;
	s->open_exit_code = (uint8_t)p->open_exit_code;
	s->expect_every_ms = p->expect_every_ms;
	s->rate_n = p->max_rate.n;
	s->rate_per_ms = p->max_rate.per_ms;
	s->rate_burst = p->rate_burst;
	s->output = (uint8_t)p->output;
}

/* What a whole snapshot adds to the version 3 part (breaker_policy). */
static void
policy_full(const struct cb_snapshot *s, struct cb_policy *out)
{
	out->jitter = s->jitter;
	out->probe_lease_ms = s->probe_lease_ms;
	out->probe_timeout_ms = s->probe_timeout_ms;
	out->kill_after_ms = s->kill_after_ms;
	out->slow_call_ms = s->slow_call_ms;
	out->failure_codes = s->failure_codes;
	out->success_codes = s->success_codes;
	out->ignore_codes = s->ignore_codes;
	out->timeout_is = s->timeout_is <= VERDICT_IGNORE ?
	    (enum cb_verdict)s->timeout_is : VERDICT_FAILURE;
	out->signal_is = s->signal_is <= VERDICT_IGNORE ?
	    (enum cb_verdict)s->signal_is : VERDICT_FAILURE;
	out->on_open = s->on_open <= ON_OPEN_SKIP ?
	    (enum cb_on_open)s->on_open : ON_OPEN_FAIL;
	out->on_busy = s->on_busy <= ON_OPEN_SKIP ?
	    (enum cb_on_open)s->on_busy : ON_OPEN_FAIL;
	out->open_exit_code = s->open_exit_code;
}

int
breaker_policy(const struct cb_record *r, const struct cb_policy *base,
    struct cb_policy *out)
{
	const struct cb_snapshot	*s = &r->policy;

	*out = *base;
	if (!s->set)
		return 0;
	out->trip_policy = s->trip_policy <= TRIP_TIME ?
	    (enum cb_trip_policy)s->trip_policy : TRIP_CONSECUTIVE;
	out->preset = s->preset;
	out->trip_failures = s->trip_failures;
	out->trip_period_ms = s->trip_period_ms;
	out->trip_window = s->trip_window;
	out->trip_min_calls = s->trip_min_calls;
	out->trip_failure_rate = s->trip_failure_rate;
	out->open_timeout_ms = s->open_timeout_ms;
	out->max_open_timeout_ms = s->max_open_timeout_ms;
	out->backoff = s->backoff;
	out->half_open_max_calls = s->half_open_max_calls;
	out->timeout_ms = s->timeout_ms;
	out->max_concurrent = s->max_concurrent;
	out->expect_every_ms = s->expect_every_ms;
	out->output = s->output <= OUTPUT_ON_CHANGE ?
	    (enum cb_output)s->output : OUTPUT_PASS;
	if (!s->full)
		return 1;
	policy_full(s, out);
	out->max_rate.n = s->rate_n;
	out->max_rate.per_ms = s->rate_per_ms;
	out->rate_burst = s->rate_burst;
	return 2;
}

void
breaker_policy_record(struct cb_record *r, const struct cb_policy *p,
    int64_t now)
{
	record_init(r, now);
	breaker_snapshot(r, p);
}

int
breaker_outage_edge(const struct cb_effects *fx)
{
	const struct cb_transition	*t;
	int				 i;

	for (i = 0; i < fx->ntrans; i++) {
		t = &fx->trans[i];
		if (!t->manual && (t->to == STATE_CLOSED ||
		    (t->to == STATE_OPEN && t->from == STATE_CLOSED)))
			return 1;
	}
	return 0;
}

/* What `status` shows of a record (breaker.h). */

int64_t
breaker_overdue(const struct cb_record *r, const struct cb_policy *p,
    int64_t now)
{
	int64_t	since;

	if (p->expect_every_ms <= 0)
		return 0;
	since = r->last_success_ms > 0 ? r->last_success_ms :
	    r->created_at_ms;
	if (now - since <= p->expect_every_ms)
		return 0;
	return now - since - p->expect_every_ms;
}

enum cb_mark
breaker_mark(uint8_t m)
{
	m &= RECORD_MARK_OUTCOME | RECORD_MARK_TIMEOUT;
	switch (m & RECORD_MARK_OUTCOME) {
	case OUTCOME_REJECTED:
		return MARK_REJECTED;
	case OUTCOME_INTERRUPTED:
	case OUTCOME_STALE:
		return MARK_OTHER;
	default:
		break;
	}
	if (m & RECORD_MARK_TIMEOUT)
		return MARK_TIMEOUT;
	switch (m) {
	case OUTCOME_SUCCESS:
		return MARK_SUCCESS;
	case OUTCOME_FAILURE:
		return MARK_FAILURE;
	default:
		return MARK_OTHER;
	}
}

const char *
breaker_mark_name(uint8_t m)
{
	if (breaker_mark(m) == MARK_TIMEOUT)
		return "timeout";
	return breaker_outcome_name((enum cb_outcome)(m &
	    RECORD_MARK_OUTCOME));
}

int
breaker_never_changed(const struct cb_record *r)
{
	return r->transitions[STATE_CLOSED] + r->transitions[STATE_OPEN] +
	    r->transitions[STATE_HALF_OPEN] == 0;
}

const char *
breaker_trip_policy_name(enum cb_trip_policy t)
{
	switch (t) {
	case TRIP_RATE:
		return "rate";
	case TRIP_TIME:
		return "time";
	default:
		return "consecutive";
	}
}
