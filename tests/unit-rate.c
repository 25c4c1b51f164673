/* SPDX-License-Identifier: ISC */
/*
 * unit-rate.c: unit tests of the rate limit (SPEC 2d, breaker-rate.c):
 * GCRA's arithmetic case by case, then exhaustively against its
 * definition (no window of any length admits more than B + length / T,
 * and a call whose turn is due is admitted) over seeded random arrivals
 * for several rates and bursts; the clock stepping back; and the
 * breaker's use of it: before the breaker and the bulkhead, counted as
 * rate_limited, a turn spent only by an admitted call (a probe too).
 */
#include <stdint.h>
#include <string.h>

#include "breaker.h"
#include "record.h"
#include "unit.h"

#define US	1000LL		/* a ms in us */

static void
test_gcra_cases(void)
{
	int64_t	now = T0 * US, T = 100 * US, tat, wait;

	/* B = 1: a first call goes through, the next one a T later. */
	CHECK_EQ(breaker_gcra(now, now, T, 1, &tat, &wait), 1);
	CHECK_EQ(tat, now + T);
	CHECK_EQ(breaker_gcra(tat, now, T, 1, &tat, &wait), 0);
	CHECK_EQ(wait, T);
	CHECK_EQ(tat, now + T);
	CHECK_EQ(breaker_gcra(tat, now + T - 1, T, 1, &tat, &wait), 0);
	CHECK_EQ(wait, 1);
	CHECK_EQ(breaker_gcra(tat, now + T, T, 1, &tat, &wait), 1);
	CHECK_EQ(tat, now + 2 * T);
	/* A quiet spell earns no more than the burst. */
	CHECK_EQ(breaker_gcra(tat, now + 100 * T, T, 1, &tat, &wait), 1);
	CHECK_EQ(tat, now + 101 * T);

	/* B = 3: three at once, then one per T. */
	tat = now;
	CHECK_EQ(breaker_gcra(tat, now, T, 3, &tat, &wait), 1);
	CHECK_EQ(breaker_gcra(tat, now, T, 3, &tat, &wait), 1);
	CHECK_EQ(breaker_gcra(tat, now, T, 3, &tat, &wait), 1);
	CHECK_EQ(tat, now + 3 * T);
	CHECK_EQ(breaker_gcra(tat, now, T, 3, &tat, &wait), 0);
	CHECK_EQ(wait, T);
	CHECK_EQ(breaker_gcra(tat, now + T, T, 3, &tat, &wait), 1);
	CHECK_EQ(breaker_gcra(tat, now + T, T, 3, &tat, &wait), 0);

	/* A TAT later than any admission at now could set, within the
	 * skew (a now read before a wait for the lock, a host behind): it
	 * stays, and the wait is the whole of it. */
	CHECK_EQ(breaker_gcra(now + 2 * T + 10 * SEC * US, now, T, 1, &tat,
	    &wait), 0);
	CHECK_EQ(tat, now + 2 * T + 10 * SEC * US);
	CHECK_EQ(wait, 2 * T + 10 * SEC * US);
	CHECK_EQ(breaker_gcra(now + T + 60 * SEC * US, now, T, 1, &tat,
	    &wait), 0);
	CHECK_EQ(tat, now + T + 60 * SEC * US);
	/* The clock stepped back an hour: never more than one T to wait. */
	CHECK_EQ(breaker_gcra(now + 2 * T, now - 3600 * 1000 * US, T, 1, &tat,
	    &wait), 0);
	CHECK_EQ(wait, T);
	CHECK_EQ(tat, now - 3600 * 1000 * US + T);
	/* ... with a burst: the tolerance and one T. */
	CHECK_EQ(breaker_gcra(now + 50 * T + 60 * SEC * US, now, T, 4, &tat,
	    &wait), 0);
	CHECK_EQ(wait, T);
	CHECK_EQ(tat, now + 4 * T);
	/* A burst of 0 (never from a policy) is 1. */
	CHECK_EQ(breaker_gcra(now, now, T, 0, &tat, &wait), 1);
	CHECK_EQ(breaker_gcra(tat, now, T, 0, &tat, &wait), 0);

	/* Intervals: 10/1s, 3/1s (us grain), 1000000/1s, 1/366d. */
	{
		struct cb_rate	r = { 10, 1000 };

		CHECK_EQ(breaker_rate_interval(&r), 100 * US);
		r.n = 3;
		CHECK_EQ(breaker_rate_interval(&r), 333333);
		r.n = 1000000;
		CHECK_EQ(breaker_rate_interval(&r), 1);
		r.n = 1;
		r.per_ms = 366 * DAY;
		CHECK_EQ(breaker_rate_interval(&r), 366 * DAY * US);
		r.n = 0;
		CHECK_EQ(breaker_rate_interval(&r), 0);
	}
}

/* A seeded xorshift: the same arrivals on every run. */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define ARRIVALS	600

/*
 * Calls at random times (gaps 0..T, twice the rate: many refused) under
 * T and B: every window between two admitted calls holds at most
 * B + (its length) / T of them, and each refused call's turn, when taken
 * at once with nothing between, is admitted.
 */
static int
gcra_property(int64_t T, uint32_t B, uint64_t seed)
{
	static int64_t	at[ARRIVALS];
	int64_t		now = T0 * US, tat = 0, t2, wait, w2;
	size_t		n = 0, i, j;
	int		bad = 0;

	for (i = 0; i < ARRIVALS; i++) {
		now += (int64_t)(next_rand(&seed) % (uint64_t)(T + 1));
		if (breaker_gcra(tat > 0 ? tat : now, now, T, B, &tat,
		    &wait) == 1) {
			at[n++] = now;
			continue;
		}
		if (wait <= 0 || wait > T ||
		    breaker_gcra(tat, now + wait - 1, T, B, &t2, &w2) != 0 ||
		    breaker_gcra(tat, now + wait, T, B, &t2, &w2) != 1)
			bad++;
	}
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			if ((int64_t)(j - i + 1) > (int64_t)B +
			    (at[j] - at[i]) / T)
				bad++;
	/* Not vacuous: some were refused, and the rate was reached. */
	if (n == ARRIVALS || n < ARRIVALS / 4) {
		fprintf(stderr, "T %lld B %u: %zu of %d admitted\n",
		    (long long)T, (unsigned)B, n, ARRIVALS);
		bad++;
	}
	return bad;
}

static void
test_gcra_property(void)
{
	static const int64_t	Ts[] = { 1, 7, 100 * US, 333333, 60 * SEC * US };
	static const uint32_t	Bs[] = { 1, 2, 5, 100 };
	size_t			i, j;

	for (i = 0; i < sizeof Ts / sizeof Ts[0]; i++)
		for (j = 0; j < sizeof Bs / sizeof Bs[0]; j++)
			CHECK_EQ(gcra_property(Ts[i], Bs[j], 0x9e3779b97f4a7c15ULL
			    + i * 31 + j), 0);
}

static struct cb_ticket
admit(struct cb_record *r, const struct cb_policy *p, int64_t now,
    uint64_t token, int *changed)
{
	struct cb_env		env;
	struct cb_effects	fx;
	struct cb_ticket	t;
	struct cb_slot		self;

	memset(&env, 0, sizeof env);
	env.now_ms = now;
	memset(&self, 0, sizeof self);
	self.token = token;
	self.pid = (int32_t)(1000 + token);
	self.lease_until_ms = now + HOUR;
	memset(&fx, 0, sizeof fx);
	*changed = breaker_admit(r, p, &env, &self, &t, &fx);
	return t;
}

static void
test_rate_breaker(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	int			changed;

	unit_policy_defaults(&p);
	p.max_rate.n = 2;
	p.max_rate.per_ms = SEC;
	record_init(&r, T0);

	/* A closed admission under max_rate writes its turn. */
	t = admit(&r, &p, T0, 1, &changed);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(changed, 1);
	CHECK_EQ(r.rate_tat_us, (T0 + 500) * US);
	CHECK_EQ(r.policy.rate_n, 2);
	CHECK_EQ(r.policy.rate_per_ms, SEC);
	CHECK_EQ(r.policy.rate_burst, 1);
	CHECK_EQ(breaker_rate_next(&r, T0), T0 + 500);
	CHECK_EQ(breaker_rate_next(&r, T0 + 600), T0 + 500);
	CHECK_EQ(breaker_rate_next(&r, T0 + DAY), T0 + 500);

	t = admit(&r, &p, T0 + 100, 2, &changed);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.rate_limited, 1);
	CHECK_EQ(t.busy, 0);
	CHECK_EQ(t.retry_in_ms, 400);
	CHECK_STR(t.why, "2 per 1s");
	CHECK_EQ(changed, 1);
	CHECK_EQ(r.rate_limited, 1);
	/* Neither a failure nor a rejection. */
	CHECK_EQ(r.rejected, 0);
	CHECK_EQ(r.refused_since_run, 0);
	CHECK_EQ(r.busy, 0);
	CHECK_EQ(r.consecutive_failures, 0);
	CHECK_EQ(r.rate_tat_us, (T0 + 500) * US);

	/* Before the bulkhead: a full bulkhead refuses as busy only when a
	 * turn is there, and a busy refusal spends none. */
	p.max_concurrent = 1;
	t = admit(&r, &p, T0 + 500, 3, &changed);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(r.rate_tat_us, (T0 + 1000) * US);
	t = admit(&r, &p, T0 + 600, 4, &changed);
	CHECK_EQ(t.rate_limited, 1);
	CHECK_EQ(r.busy, 0);
	t = admit(&r, &p, T0 + 1000, 5, &changed);
	CHECK_EQ(t.busy, 1);
	CHECK_EQ(t.rate_limited, 0);
	CHECK_EQ(r.rate_tat_us, (T0 + 1000) * US);
	p.max_concurrent = 0;

	/* Before the breaker: an open breaker's refusal spends no turn,
	 * and a rate limited call is no rejection even when open. */
	r.state = STATE_OPEN;
	r.open_until_ms = T0 + HOUR;
	t = admit(&r, &p, T0 + 1000, 6, &changed);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.rate_limited, 0);
	CHECK_EQ(r.rejected, 1);
	CHECK_EQ(r.rate_tat_us, (T0 + 1000) * US);
	r.rate_tat_us = (T0 + 2000) * US;
	t = admit(&r, &p, T0 + 1000, 7, &changed);
	CHECK_EQ(t.rate_limited, 1);
	CHECK_EQ(r.rejected, 1);
	CHECK_EQ(r.state, STATE_OPEN);

	/* A half-open probe spends a turn. */
	r.open_until_ms = T0 + 3000;
	t = admit(&r, &p, T0 + 3000, 8, &changed);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(r.rate_tat_us, (T0 + 3500) * US);

	/* Without max_rate nothing is counted or kept. */
	unit_policy_defaults(&p);
	record_init(&r, T0);
	t = admit(&r, &p, T0, 1, &changed);
	CHECK_EQ(changed, 0);
	CHECK_EQ(r.rate_tat_us, 0);
	CHECK_EQ(breaker_rate_next(&r, T0), 0);
}

void
test_rate(void)
{
	test_gcra_cases();
	test_gcra_property();
	test_rate_breaker();
}
