/* SPDX-License-Identifier: ISC */
/*
 * breaker-trip.c: the three trip policies of SPEC section 2 (consecutive,
 * rate, time): the rate window's bits, the time policy's failure times,
 * and the verdict breaker.c asks for after every outcome that enters them.
 * Pure, like the rest of the breaker: the time is passed in.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "breaker-int.h"

int
breaker_window_bit(const struct cb_record *r, unsigned i)
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
		window_set(r, i, breaker_window_bit(r, i + drop));
	r->wlen = (uint16_t)keep;
}

/*
 * How many entries of a window of n (at most max) to keep before one more
 * is added: never past the record's array, whatever a policy says (the
 * decoder refuses a snapshot out of range; this holds without it).
 */
static unsigned
keep_before_push(uint32_t n, unsigned max)
{
	if (n == 0)
		return 0;
	return (n < max ? n : max) - 1;
}

static void
window_push(struct cb_record *r, const struct cb_policy *p, int failed)
{
	window_trim(r, keep_before_push(p->trip_window, RECORD_MAX_WINDOW));
	window_set(r, r->wlen, failed);
	r->wlen++;
}

unsigned
breaker_window_failures(const struct cb_record *r)
{
	unsigned	i, n = 0;

	for (i = 0; i < r->wlen; i++)
		n += (unsigned)breaker_window_bit(r, i);
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

/* Count an outcome that entered the trip policies' windows. */
void
breaker_count(struct cb_record *r, const struct cb_policy *p, int64_t now,
    int failed)
{
	window_push(r, p, failed);
	if (!failed)
		return;
	/* Times after now are from before the clock stepped back. */
	while (r->nfailtimes > 0 && r->failtimes[r->nfailtimes - 1] > now)
		r->nfailtimes--;
	failtimes_trim(r, keep_before_push(p->trip_failures,
	    RECORD_MAX_FAILTIMES));
	r->failtimes[r->nfailtimes++] = now;
}

/* Does the trip policy say open, now?  The reason goes into buf. */
int
breaker_verdict(const struct cb_record *r, const struct cb_policy *p,
    int64_t now, char *buf, size_t len)
{
	char		 period[32];
	unsigned	 n;

	switch (p->trip_policy) {
	case TRIP_CONSECUTIVE:
		if (r->consecutive_failures < p->trip_failures)
			return 0;
		snprintf(buf, len, "%u consecutive failure%s",
		    r->consecutive_failures,
		    r->consecutive_failures == 1 ? "" : "s");
		break;
	case TRIP_RATE:
		if (r->wlen < p->trip_min_calls || r->wlen == 0)
			return 0;
		n = breaker_window_failures(r);
		if ((double)n / r->wlen < p->trip_failure_rate)
			return 0;
		snprintf(buf, len,
		    "failure rate %.0f%% over %u call%s",
		    100.0 * n / r->wlen, (unsigned)r->wlen,
		    r->wlen == 1 ? "" : "s");
		break;
	case TRIP_TIME:
		n = failtimes_recent(r, p, now);
		if (n < p->trip_failures)
			return 0;
		format_duration(p->trip_period_ms, period, sizeof period);
		snprintf(buf, len, "%u failure%s within %s", n,
		    n == 1 ? "" : "s", period);
		break;
	default:
		return 0;
	}
	return 1;
}

void
breaker_progress(const struct cb_record *r, const struct cb_policy *p,
    int64_t now, char *buf, size_t len)
{
	char		period[32];
	unsigned	n;

	switch (p->trip_policy) {
	case TRIP_RATE:
		n = breaker_window_failures(r);
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
