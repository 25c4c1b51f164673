/*
 * breaker.c: the circuit breaker state machine of SPEC section 2.  Every
 * function takes the record, the effective policy and an environment that
 * carries the time, a random draw and a liveness oracle; none of them reads
 * a clock or touches the system, so the tests can walk every transition
 * with explicit values.
 *
 * The counters for all three trip policies are kept up to date whatever the
 * policy, so that editing trip.policy never starts from nothing.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"

/* The longest time a record holds: 2^53 ms, as record_decode checks. */
#define BREAKER_MAX_MS	((int64_t)1 << 53)

const char *
breaker_outcome_name(enum cb_outcome o)
{
	static const char *const names[OUTCOME_COUNT] = {
		"success", "failure", "ignored", "interrupted", "stale",
		"rejected"
	};

	return (unsigned)o < OUTCOME_COUNT ? names[o] : "unknown";
}

/* The cool-down the next opening from half-open or closed starts from. */
static int64_t
cooldown(const struct cb_record *r, const struct cb_policy *p)
{
	int64_t	c;

	c = r->cooldown_ms > 0 ? r->cooldown_ms : p->open_timeout_ms;
	if (c > p->max_open_timeout_ms)
		c = p->max_open_timeout_ms;
	return c;
}

/* Remember a run's outcome in the strip, dropping the oldest. */
static void
mark(struct cb_record *r, enum cb_outcome o, int timed_out)
{
	if (r->nruns >= RECORD_RUNS) {
		memmove(r->runs, r->runs + 1, RECORD_RUNS - 1);
		r->nruns = RECORD_RUNS - 1;
	}
	r->runs[r->nruns++] = (uint8_t)(o | (timed_out ? RECORD_MARK_TIMEOUT :
	    0));
}

static void
remember(struct cb_record *r, const struct cb_env *env, enum cb_state to,
    const char *reason, const char *user)
{
	struct cb_histent	*h;

	if (r->nhist >= RECORD_TRANSITIONS) {
		memmove(r->hist, r->hist + 1,
		    (RECORD_TRANSITIONS - 1) * sizeof r->hist[0]);
		r->nhist = RECORD_TRANSITIONS - 1;
	}
	h = &r->hist[r->nhist++];
	h->at_ms = env->now_ms;
	h->from = (uint8_t)r->state;
	h->to = (uint8_t)to;
	snprintf(h->reason, sizeof h->reason, "%s", reason);
	snprintf(h->user, sizeof h->user, "%s", user != NULL ? user : "");
}

static void
transition_by(struct cb_record *r, const struct cb_env *env,
    enum cb_state to, const char *reason, const char *user,
    struct cb_effects *fx)
{
	struct cb_transition	*t;

	if (fx != NULL && fx->ntrans < BREAKER_MAX_EFFECTS) {
		t = &fx->trans[fx->ntrans++];
		t->from = r->state;
		t->to = to;
		t->epoch = r->epoch + 1;
		snprintf(t->reason, sizeof t->reason, "%s", reason);
	}
	remember(r, env, to, reason, user);
	r->state = to;
	r->epoch++;
	r->changed_at_ms = env->now_ms;
	r->transitions[to]++;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	/* In-flight probes belong to the old epoch. */
	r->nslots = 0;
	r->half_open_successes = 0;
}

static void
transition(struct cb_record *r, const struct cb_env *env, enum cb_state to,
    const char *reason, struct cb_effects *fx)
{
	transition_by(r, env, to, reason, NULL, fx);
}

/* Open for len milliseconds, spread later by up to jitter x len. */
static void
open_for(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t len, int jitter, const char *reason,
    const char *user, struct cb_effects *fx)
{
	double	spread;

	if (jitter && p->jitter > 0) {
		spread = (double)len * p->jitter * env->jitter_u;
		if (spread > 0 && spread < 9e15)
			len += (int64_t)spread;
	}
	transition_by(r, env, STATE_OPEN, reason, user, fx);
	r->opened_at_ms = env->now_ms;
	r->open_until_ms = env->now_ms + len;
}

static void
close_breaker(struct cb_record *r, const struct cb_env *env,
    const char *reason, const char *user, struct cb_effects *fx)
{
	transition_by(r, env, STATE_CLOSED, reason, user, fx);
	r->open_until_ms = 0;
	r->cooldown_ms = 0;
	r->consecutive_failures = 0;
	r->wlen = 0;
	r->nfailtimes = 0;
}

/* A probe failed or was lost: re-open with the cool-down times backoff. */
static void
reopen(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const char *reason, struct cb_effects *fx)
{
	double	next;

	next = (double)cooldown(r, p) * p->backoff;
	if (next > (double)p->max_open_timeout_ms)
		next = (double)p->max_open_timeout_ms;
	r->cooldown_ms = (int64_t)next;
	open_for(r, p, env, r->cooldown_ms, 1, reason, NULL, fx);
}

static int
window_bit(const struct cb_record *r, unsigned i)
{
	return r->window[i / 8] >> (i % 8) & 1;
}

static void
window_set(struct cb_record *r, unsigned i, int v)
{
	if (v)
		r->window[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		r->window[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Drop the oldest bits until at most keep remain. */
static void
window_trim(struct cb_record *r, unsigned keep)
{
	unsigned	drop, i;

	if (r->wlen <= keep)
		return;
	drop = r->wlen - keep;
	for (i = 0; i < keep; i++)
		window_set(r, i, window_bit(r, i + drop));
	r->wlen = (uint16_t)keep;
}

static void
window_push(struct cb_record *r, const struct cb_policy *p, int failed)
{
	window_trim(r, p->trip_window - 1);
	window_set(r, r->wlen, failed);
	r->wlen++;
}

static unsigned
window_failures(const struct cb_record *r)
{
	unsigned	i, n = 0;

	for (i = 0; i < r->wlen; i++)
		n += (unsigned)window_bit(r, i);
	return n;
}

static void
failtimes_trim(struct cb_record *r, unsigned keep)
{
	unsigned	drop;

	if (r->nfailtimes <= keep)
		return;
	drop = r->nfailtimes - keep;
	memmove(r->failtimes, r->failtimes + drop,
	    keep * sizeof r->failtimes[0]);
	r->nfailtimes = (uint16_t)keep;
}

/* Failures within the time policy's period: newer than now - period. */
static unsigned
failtimes_recent(const struct cb_record *r, const struct cb_policy *p,
    int64_t now)
{
	unsigned	i, n = 0;

	for (i = 0; i < r->nfailtimes; i++)
		if (now - r->failtimes[i] < p->trip_period_ms)
			n++;
	return n;
}

/* Apply the trip policy after a closed-state outcome; open if it says so. */
static void
maybe_trip(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, struct cb_effects *fx)
{
	char		 reason[RECORD_REASON_MAX], period[32];
	unsigned	 n;

	switch (p->trip_policy) {
	case TRIP_CONSECUTIVE:
		if (r->consecutive_failures < p->trip_failures)
			return;
		snprintf(reason, sizeof reason, "%u consecutive failure%s",
		    r->consecutive_failures,
		    r->consecutive_failures == 1 ? "" : "s");
		break;
	case TRIP_RATE:
		if (r->wlen < p->trip_min_calls || r->wlen == 0)
			return;
		n = window_failures(r);
		if ((double)n / r->wlen < p->trip_failure_rate)
			return;
		snprintf(reason, sizeof reason,
		    "failure rate %.0f%% over %u call%s",
		    100.0 * n / r->wlen, (unsigned)r->wlen,
		    r->wlen == 1 ? "" : "s");
		break;
	case TRIP_TIME:
		n = failtimes_recent(r, p, env->now_ms);
		if (n < p->trip_failures)
			return;
		format_duration(p->trip_period_ms, period, sizeof period);
		snprintf(reason, sizeof reason, "%u failure%s within %s", n,
		    n == 1 ? "" : "s", period);
		break;
	default:
		return;
	}
	r->cooldown_ms = 0;
	open_for(r, p, env, cooldown(r, p), 1, reason, NULL, fx);
}

/* Why a probe slot must be reclaimed, or NULL. */
static const char *
slot_lost(const struct cb_slot *s, const struct cb_env *env, char *buf,
    size_t len)
{
	if (s->lease_until_ms <= env->now_ms)
		return "probe lease expired";
	if (s->pid != 0 && env->alive != NULL &&
	    env->alive(s, env->alive_ctx) == HOLDER_DEAD) {
		snprintf(buf, len, "probe slot lost: holder pid %d died",
		    (int)s->pid);
		return buf;
	}
	return NULL;
}

static void
refuse(struct cb_record *r, const struct cb_env *env, struct cb_ticket *t)
{
	t->admitted = 0;
	t->state = r->state;
	t->epoch = r->epoch;
	if (r->state == STATE_OPEN)
		t->retry_in_ms = r->open_until_ms > env->now_ms ?
		    r->open_until_ms - env->now_ms : 0;
	else
		t->retry_in_ms = -1;
	snprintf(t->why, sizeof t->why, "%s", r->reason);
	r->rejected++;
	mark(r, OUTCOME_REJECTED, 0);
}

int
breaker_admit(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_slot *self,
    struct cb_ticket *t, struct cb_effects *fx)
{
	char		 buf[RECORD_REASON_MAX];
	const char	*lost;
	int64_t		 len;
	unsigned	 i;

	memset(t, 0, sizeof *t);
	r->last_used_ms = env->now_ms;

	if (r->state == STATE_OPEN) {
		/*
		 * The clock may have stepped back since the breaker opened:
		 * it never stays open longer than one open period from now.
		 */
		len = r->open_until_ms - r->opened_at_ms;
		if (len < 0)
			len = 0;
		if (r->open_until_ms - env->now_ms > len) {
			r->opened_at_ms = env->now_ms;
			r->open_until_ms = env->now_ms + len;
		}
		if (env->now_ms < r->open_until_ms) {
			refuse(r, env, t);
			return 1;
		}
		transition(r, env, STATE_HALF_OPEN, "cool-down elapsed", fx);
	}

	if (r->state == STATE_HALF_OPEN) {
		for (i = 0; i < r->nslots; i++) {
			lost = slot_lost(&r->slots[i], env, buf, sizeof buf);
			if (lost != NULL) {
				reopen(r, p, env, lost, fx);
				refuse(r, env, t);
				return 1;
			}
		}
		if (r->nslots >= p->half_open_max_calls ||
		    r->nslots >= RECORD_MAX_SLOTS) {
			refuse(r, env, t);
			snprintf(t->why, sizeof t->why,
			    "%u of %u probes running", (unsigned)r->nslots,
			    p->half_open_max_calls);
			return 1;
		}
		r->slots[r->nslots++] = *self;
		t->admitted = 1;
		t->probe = 1;
		t->token = self->token;
		t->state = STATE_HALF_OPEN;
		t->epoch = r->epoch;
		return 1;
	}

	t->admitted = 1;
	t->state = STATE_CLOSED;
	t->epoch = r->epoch;
	return 0;
}

static int
has_slot(const struct cb_record *r, uint64_t token)
{
	unsigned	i;

	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].token == token)
			return 1;
	return 0;
}

static void
free_slot(struct cb_record *r, uint64_t token)
{
	unsigned	i;

	for (i = 0; i < r->nslots; i++) {
		if (r->slots[i].token != token)
			continue;
		memmove(&r->slots[i], &r->slots[i + 1],
		    (r->nslots - i - 1) * sizeof r->slots[0]);
		r->nslots--;
		return;
	}
}

static void
probe_failed_reason(const struct cb_run *run, char *buf, size_t len)
{
	if (run->timed_out)
		snprintf(buf, len, "probe timed out");
	else if (run->signal != 0)
		snprintf(buf, len, "probe killed by signal %d", run->signal);
	else if (run->exit_code >= 0)
		snprintf(buf, len, "probe failed: exit %d", run->exit_code);
	else
		snprintf(buf, len, "probe failed");
}

enum cb_outcome
breaker_record(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_ticket *t,
    const struct cb_run *run, struct cb_effects *fx)
{
	char		reason[RECORD_REASON_MAX];
	enum cb_outcome	o;

	r->last_used_ms = env->now_ms;
	r->last_run_at_ms = env->now_ms;
	r->last_exit = run->exit_code;
	/* Within what record_decode accepts, whatever the caller measured. */
	r->last_duration_ms = run->duration_ms < 0 ? 0 :
	    run->duration_ms > BREAKER_MAX_MS ? BREAKER_MAX_MS :
	    run->duration_ms;
	r->calls++;
	if (run->timed_out)
		r->timeouts++;

	/*
	 * A probe whose slot is gone was recorded already (a token released
	 * twice): counting it again could close the breaker on one success.
	 */
	if (t->epoch != r->epoch || r->state == STATE_OPEN ||
	    (t->probe && !has_slot(r, t->token))) {
		r->stale++;
		mark(r, OUTCOME_STALE, run->timed_out);
		return OUTCOME_STALE;
	}
	o = run->outcome == OUTCOME_SUCCESS || run->outcome ==
	    OUTCOME_FAILURE || run->outcome == OUTCOME_INTERRUPTED ?
	    run->outcome : OUTCOME_IGNORED;
	mark(r, o, run->timed_out);
	if (t->probe)
		free_slot(r, t->token);

	switch (o) {
	case OUTCOME_SUCCESS:
		r->successes++;
		if (r->state == STATE_HALF_OPEN) {
			if (++r->half_open_successes >=
			    p->half_open_max_calls) {
				snprintf(reason, sizeof reason,
				    "%u probe%s succeeded",
				    r->half_open_successes,
				    r->half_open_successes == 1 ? "" : "s");
				close_breaker(r, env, reason, NULL, fx);
			}
			break;
		}
		r->consecutive_failures = 0;
		window_push(r, p, 0);
		break;
	case OUTCOME_FAILURE:
		r->failures++;
		if (r->state == STATE_HALF_OPEN) {
			probe_failed_reason(run, reason, sizeof reason);
			reopen(r, p, env, reason, fx);
			break;
		}
		r->consecutive_failures++;
		window_push(r, p, 1);
		/* Times after now are from before the clock stepped back. */
		while (r->nfailtimes > 0 &&
		    r->failtimes[r->nfailtimes - 1] > env->now_ms)
			r->nfailtimes--;
		failtimes_trim(r, p->trip_failures - 1);
		r->failtimes[r->nfailtimes++] = env->now_ms;
		maybe_trip(r, p, env, fx);
		break;
	case OUTCOME_INTERRUPTED:
		r->interrupted++;
		break;
	default:
		r->ignored++;
		break;
	}
	return o;
}

void
breaker_trip(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t for_ms, const char *reason,
    const char *user, struct cb_effects *fx)
{
	r->last_used_ms = env->now_ms;
	if (for_ms > 0)
		open_for(r, p, env, for_ms, 0, reason, user, fx);
	else
		open_for(r, p, env, cooldown(r, p), 1, reason, user, fx);
}

void
breaker_reset(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const char *reason, const char *user,
    struct cb_effects *fx)
{
	(void)p;
	r->last_used_ms = env->now_ms;
	close_breaker(r, env, reason, user, fx);
}

void
breaker_progress(const struct cb_record *r, const struct cb_policy *p,
    int64_t now, char *buf, size_t len)
{
	char		period[32];
	unsigned	n;

	switch (p->trip_policy) {
	case TRIP_RATE:
		n = window_failures(r);
		snprintf(buf, len, "%u/%u (%.0f%%)", n, (unsigned)r->wlen,
		    r->wlen == 0 ? 0.0 : 100.0 * n / r->wlen);
		break;
	case TRIP_TIME:
		format_duration(p->trip_period_ms, period, sizeof period);
		snprintf(buf, len, "%u/%u in %s", failtimes_recent(r, p, now),
		    p->trip_failures, period);
		break;
	default:
		snprintf(buf, len, "%u/%u", r->consecutive_failures,
		    p->trip_failures);
		break;
	}
}

/* What `status` shows of a record (breaker.h). */

enum cb_mark
breaker_mark(uint8_t m)
{
	switch (m & ~RECORD_MARK_TIMEOUT) {
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
	    ~RECORD_MARK_TIMEOUT));
}

int
breaker_window_bit(const struct cb_record *r, unsigned i)
{
	return window_bit(r, i);
}

unsigned
breaker_window_failures(const struct cb_record *r)
{
	return window_failures(r);
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
