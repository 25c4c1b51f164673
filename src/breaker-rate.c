/* SPDX-License-Identifier: ISC */
/*
 * breaker-rate.c: the rate limit of SPEC 2d, GCRA (the generic cell rate
 * algorithm) as redis-cell, throttled and nginx's limit_req do it: one
 * theoretical arrival time per breaker, no list of past calls, nothing in
 * the background.  breaker_admit asks it before the breaker and the
 * bulkhead take anything, in every state, and an admitted call spends its
 * turn in the same store update, so that every process and, on the fleet
 * store, every host shares one quota.  Times in microseconds, so that N
 * up to a million per second keeps its interval.  Pure: time passed in.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "breaker-int.h"

int64_t
breaker_rate_interval(const struct cb_rate *rate)
{
	if (rate->n == 0)
		return 0;
	/* per_ms <= 366d and n >= 1: no overflow; >= 1 by policy. */
	return rate->per_ms * 1000 / rate->n;
}

int
breaker_gcra(int64_t tat_us, int64_t now_us, int64_t interval_us,
    uint32_t burst, int64_t *tat, int64_t *wait_us)
{
	int64_t	tau, most;

	if (burst < 1)
		burst = 1;
	tau = (int64_t)(burst - 1) * interval_us;
	most = now_us + tau + interval_us;
	/*
	 * Later than any admission could set it, by more than any skew we
	 * stand for: the clock stepped back.  Within the skew it stays: a
	 * process whose "now" was read before it waited for the store, or
	 * a host a little behind, must never lower it (that would hand out
	 * the turns another one spent).
	 */
	if (tat_us - most > BREAKER_RATE_SKEW_US)
		tat_us = most;
	if (tat_us < now_us)
		tat_us = now_us;
	*wait_us = 0;
	if (now_us < tat_us - tau) {
		*tat = tat_us;
		*wait_us = tat_us - tau - now_us;
		return 0;
	}
	*tat = tat_us + interval_us;
	return 1;
}

/* The stored TAT as breaker_gcra sees it: 0 (none) is "now". */
static int64_t
stored_tat(const struct cb_record *r, int64_t now_us)
{
	return r->rate_tat_us > 0 ? r->rate_tat_us : now_us;
}

int
breaker_rate_refuse(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, struct cb_ticket *t)
{
	int64_t	now_us = env->now_ms * 1000, tat, wait;
	char	per[64];

	if (p->max_rate.n == 0)
		return 0;
	if (breaker_gcra(stored_tat(r, now_us), now_us,
	    breaker_rate_interval(&p->max_rate), p->rate_burst, &tat,
	    &wait) == 1)
		return 0;
	/* A cap is kept only with a count, which writes anyway. */
	r->rate_tat_us = tat;
	r->rate_limited++;
	t->rate_limited = 1;
	t->state = r->state;
	t->retry_in_ms = (wait + 999) / 1000;
	/* The refusal line's "10 per 1m". */
	format_duration(p->max_rate.per_ms, per, sizeof per);
	snprintf(t->why, sizeof t->why, "%u per %s", (unsigned)p->max_rate.n,
	    per);
	return 1;
}

void
breaker_rate_spend(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env)
{
	int64_t	now_us = env->now_ms * 1000, tat, wait;

	if (p->max_rate.n == 0)
		return;
	/* Admitted by breaker_rate_refuse in this same step: 1. */
	(void)breaker_gcra(stored_tat(r, now_us), now_us,
	    breaker_rate_interval(&p->max_rate), p->rate_burst, &tat, &wait);
	r->rate_tat_us = tat;
}

int64_t
breaker_rate_next(const struct cb_record *r, int64_t now_ms)
{
	struct cb_rate	rate;
	int64_t		now_us = now_ms * 1000, tat, wait, from;

	rate.n = r->policy.rate_n;
	rate.per_ms = r->policy.rate_per_ms;
	if (rate.n == 0 || !policy_rate_valid(&rate))
		return 0;
	if (r->rate_tat_us == 0)
		return now_ms;
	/* Refused now: when its turn comes.  Else since when calls may go
	 * through: the TAT less the tolerance (a TAT that admits now is
	 * within the cap), in the past or now. */
	if (breaker_gcra(r->rate_tat_us, now_us, breaker_rate_interval(&rate),
	    r->policy.rate_burst, &tat, &wait) == 0)
		return now_ms + (wait + 999) / 1000;
	from = r->rate_tat_us - breaker_rate_interval(&rate) *
	    ((int64_t)r->policy.rate_burst - 1);
	return (from + 999) / 1000;
}

void
breaker_rate_wait_text(int64_t ms, char *buf, size_t len)
{
	/* Under a second, as it is ("200ms"); else whole seconds, up. */
	if (ms < 1000)
		format_duration(ms > 0 ? ms : 0, buf, len);
	else
		format_duration((ms + 999) / 1000 * 1000, buf, len);
}

int
breaker_rate_text(const struct cb_record *r, int64_t now_ms, char *buf,
    size_t len)
{
	char	per[64], wait[32];
	int64_t	next;
	int	n;

	buf[0] = '\0';
	if (r->policy.rate_n == 0 && r->rate_limited == 0)
		return 0;
	if (r->policy.rate_n == 0)
		n = snprintf(buf, len, "none");
	else {
		format_duration(r->policy.rate_per_ms, per, sizeof per);
		next = breaker_rate_next(r, now_ms);
		if (next > now_ms)
			breaker_rate_wait_text(next - now_ms, wait,
			    sizeof wait);
		n = snprintf(buf, len, "%u per %s (burst %u): next call %s%s",
		    (unsigned)r->policy.rate_n, per,
		    (unsigned)r->policy.rate_burst, next > now_ms ? "in " :
		    "now", next > now_ms ? wait : "");
	}
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; %llu rate limited",
		    (unsigned long long)r->rate_limited);
	return 1;
}
