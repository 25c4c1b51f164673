/* SPDX-License-Identifier: ISC */
/*
 * breaker-outage.c: the outage under way, from the breaker leaving closed
 * to its closing, and the summary the closing line gives of it (SPEC 6.5):
 * how long it was open, from and to, how many calls failed (the streak
 * that opened it, then every failure until it closed: failed probes), how
 * many were refused while open or half-open, and the last failure.  The
 * counters live in the record (tag RECORD_TAG_OUTAGE) and are cleared
 * once the closing has taken them.  Pure: no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "breaker-int.h"

void
breaker_outage_move(struct cb_record *r, int64_t now, enum cb_state to,
    int manual, struct cb_transition *t)
{
	if (r->state == STATE_CLOSED && to != STATE_CLOSED) {
		r->outage_since_ms = now;
		r->outage_failed = manual ? 0 : r->consecutive_failures;
		r->outage_refused = 0;
		return;
	}
	if (to != STATE_CLOSED || r->state == STATE_CLOSED)
		return;
	if (t != NULL) {
		t->since_ms = r->outage_since_ms;
		t->at_ms = now;
		t->failed = r->outage_failed;
		t->refused = r->outage_refused;
		t->last = r->last_failure;
	}
	r->outage_since_ms = 0;
	r->outage_failed = r->outage_refused = 0;
}

void
breaker_outage_fail(struct cb_record *r)
{
	if (r->state != STATE_CLOSED && r->outage_failed < UINT32_MAX)
		r->outage_failed++;
}

void
breaker_outage_refuse(struct cb_record *r)
{
	if (r->state != STATE_CLOSED && r->outage_refused < UINT32_MAX)
		r->outage_refused++;
}

/* "exit 7", "timed out", "killed by SIGKILL" and " after 2.1s". */
static void
outage_last(const struct cb_lastfail *f, char *buf, size_t len)
{
	char	d[32], what[48];

	if (f->timed_out)
		snprintf(what, sizeof what, "timed out");
	else if (f->signal != 0)
		snprintf(what, sizeof what, "signal %d", (int)f->signal);
	else
		snprintf(what, sizeof what, "exit %d", (int)f->exit_code);
	if (f->duration_ms < 0) {
		snprintf(buf, len, "%s", what);
		return;
	}
	/* "2.1s" under a minute, as a person says it; then to the second. */
	if (f->duration_ms >= 1000 && f->duration_ms < 60000 &&
	    f->duration_ms % 1000 >= 100)
		snprintf(d, sizeof d, "%lld.%llds",
		    (long long)(f->duration_ms / 1000),
		    (long long)(f->duration_ms % 1000 / 100));
	else
		format_duration(f->duration_ms < 1000 ? f->duration_ms :
		    (f->duration_ms + 500) / 1000 * 1000, d, sizeof d);
	snprintf(buf, len, "%s after %s", what, d);
}

void
breaker_outage_text(const struct cb_transition *t, const char *from,
    const char *to, char *buf, size_t len)
{
	char	open[32], last[96];
	int64_t	d;

	buf[0] = '\0';
	if (t->to != STATE_CLOSED || t->since_ms <= 0 ||
	    t->at_ms < t->since_ms || t->failed == 0)
		return;
	/* To the minute from a minute on (cron's unit), else the second. */
	d = t->at_ms - t->since_ms;
	d = d >= 60000 ? (d + 30000) / 60000 * 60000 : (d + 500) / 1000 * 1000;
	format_duration(d, open, sizeof open);
	if (t->last.at_ms >= t->since_ms)
		outage_last(&t->last, last, sizeof last);
	else
		snprintf(last, sizeof last, "none");
	snprintf(buf, len, "open %s (%s-%s), %u call%s failed, %u refused, "
	    "last failure: %s", open, from, to, (unsigned)t->failed,
	    t->failed == 1 ? "" : "s", (unsigned)t->refused, last);
}
