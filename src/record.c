/* SPDX-License-Identifier: ISC */
/*
 * record.c: one breaker's record, encoded.  The layout, version 5, is
 * varints in the main (U: unsigned LEB128, shortest form, at most 10
 * bytes; S: a signed value zigzagged into a U), so that a breaker costs
 * what it holds, not what its widest fields could hold:
 *
 *	"CBRK" u16 version (LE) u8 state u8 manual
 *	S last_used				(B, the base of the times)
 *	U epoch
 *	T created_at changed_at opened_at open_until last_run_at
 *	U cooldown consecutive_failures half_open_successes
 *	U calls successes failures timeouts ignored interrupted stale
 *	    rejected transitions[closed] [open] [half-open]
 *	S last_exit S last_duration
 *	STR reason
 *	U n, n x SLOT					(probe slots)
 *	U n, (n + 7) / 8 bytes of rate window bits
 *	U n, n x T failure time				(each from the last)
 *	U n, n x (u8 mark S exit T at)			(runs, the same)
 *	U n, n x (T at u8 from u8 to STR reason STR user)  (the same)
 *	u64 identity (LE) U busy U refused_since_run
 *	u8 0 | 1 T at S exit S signal u8 timed_out U duration
 *						(the last failure; 0: none,
 *						 at 0 and exit -1, all else 0)
 *	u8 0 | 1 | 2, then from 1 on:			(the policy snapshot)
 *	    u8 trip_policy S preset U trip_failures trip_period trip_window
 *	    trip_min_calls F trip_failure_rate U open_timeout
 *	    max_open_timeout F backoff U half_open_max_calls timeout
 *	    max_concurrent
 *	  and at 2 (full) also:
 *	    F jitter U probe_lease probe_timeout u8 probe_set U kill_after
 *	    slow_call CODES failure success ignore u8 timeout_is signal_is
 *	    on_open on_busy open_exit_code
 *	U n, n x SLOT					(run slots)
 *	T last_success STR user STR host STR argv0	(last_run_by)
 *	u8 manual_on_open
 *	U n, n x (U tag U len, len bytes)		(version 5 on: the
 *						 tagged fields, record.h)
 *
 * where T is a time: U 0 for 0 (none), else 1 + the zigzagged difference
 * from the base (B; in the failure times, runs and transitions, the entry
 * before, starting from B); STR is U n and n bytes of text, no NUL; F is a
 * double's IEEE 754 bits as a u64 (LE); CODES is U n, then n ranges of
 * codes, ascending and apart, each U (first - (last end + 2), from -2) U
 * (length - 1); and SLOT is
 *
 *	u64 token (LE) T lease_until S pid U start_time 16 bytes boot_id
 *	U lease_length T since STR host U pidns S pgid
 *
 * Snapshot 0 is a breaker that never ran under version 3 or later, 1 one
 * whose version 3 snapshot lacks the version 4 fields (full 0), 2 a whole
 * one.  Every flag is 0 or 1, every value in its field's range, and
 * record-decode4.c refuses any other spelling, so that a record has one.
 *
 * Version 4 was the same without the tagged fields.  Versions 1 to 3 were
 * little-endian fixed-width fields (record-decode.c
 * describes them); decoding every version, with the range checks, is
 * record-decode.c's and record-decode4.c's.
 */
#include <string.h>

#include "record.h"
#include "record-ext.h"
#include "record-wire.h"

void
record_init(struct cb_record *r, int64_t now)
{
	memset(r, 0, sizeof *r);
	r->state = STATE_CLOSED;
	r->created_at_ms = now;
	r->changed_at_ms = now;
	r->last_used_ms = now;
	r->last_exit = -1;
	r->last_duration_ms = -1;
	r->last_failure.exit_code = -1;
	record_snapshot_clear(&r->policy);
}

/* The built-in policy's values of the fields a version 3 snapshot lacks,
 * from policy.c's table, once per process (not for threads). */
void
record_snapshot_clear(struct cb_snapshot *s)
{
	static struct cb_snapshot	def;
	static int			done;
	struct policy_builder		b;

	if (!done) {
		policy_init(&b);
		memset(&def, 0, sizeof def);
		def.preset = -1;
		def.jitter = b.p.jitter;
		def.probe_lease_ms = b.p.probe_lease_ms;
		def.probe_timeout_ms = b.p.probe_timeout_ms;
		def.kill_after_ms = b.p.kill_after_ms;
		def.slow_call_ms = b.p.slow_call_ms;
		def.failure_codes = b.p.failure_codes;
		def.success_codes = b.p.success_codes;
		def.ignore_codes = b.p.ignore_codes;
		def.timeout_is = (uint8_t)b.p.timeout_is;
		def.signal_is = (uint8_t)b.p.signal_is;
		def.on_open = (uint8_t)b.p.on_open;
		def.on_busy = (uint8_t)b.p.on_busy;
		def.open_exit_code = (uint8_t)b.p.open_exit_code;
		def.rate_burst = b.p.rate_burst;
		done = 1;
	}
	*s = def;
}

const char *
record_state_name(enum cb_state s)
{
	switch (s) {
	case STATE_CLOSED:
		return "closed";
	case STATE_OPEN:
		return "open";
	case STATE_HALF_OPEN:
		return "half-open";
	default:
		return "unknown";
	}
}

/* CODES: the set as ranges, each from two past the end of the last. */
static void
put_codes(struct cb_buf *b, const struct cb_codeset *set)
{
	uint8_t	first[128], len[128];
	size_t	i, n = 0;
	int	c, start, prev;

	for (c = 0; c < 256; ) {
		if (!codeset_has(set, c)) {
			c++;
			continue;
		}
		start = c;
		while (c < 256 && codeset_has(set, c))
			c++;
		first[n] = (uint8_t)start;
		len[n++] = (uint8_t)(c - start - 1);
	}
	put_uv(b, n);
	for (i = 0, prev = -2; i < n; i++) {
		put_uv(b, (uint64_t)(first[i] - (prev + 2)));
		put_uv(b, len[i]);
		prev = first[i] + len[i];
	}
}

static void
put_slots(struct cb_buf *b, const struct cb_slot *slots, uint16_t n,
    size_t max, int64_t base)
{
	const struct cb_slot	*s;
	size_t			 i;

	if (n > max)
		n = (uint16_t)max;
	put_uv(b, n);
	for (i = 0; i < n; i++) {
		s = &slots[i];
		buf_add_u64(b, s->token);
		put_time(b, s->lease_until_ms, base);
		put_sv(b, s->pid);
		put_uv(b, s->start_time);
		buf_add(b, s->boot_id, 16);
		put_uv(b, (uint64_t)s->lease_ms);
		put_time(b, s->since_ms, base);
		put_str(b, s->host, sizeof s->host);
		put_uv(b, s->pidns);
		put_sv(b, s->pgid);
	}
}

/* Magic and version to last_duration. */
static void
encode_head(const struct cb_record *r, struct cb_buf *b)
{
	int64_t	base = r->last_used_ms;
	size_t	i;

	buf_add(b, RECORD_MAGIC, 4);
	buf_add_u16(b, RECORD_VERSION);
	buf_add_u8(b, (uint8_t)r->state);
	buf_add_u8(b, r->manual ? 1 : 0);
	put_sv(b, base);
	put_uv(b, r->epoch);
	put_time(b, r->created_at_ms, base);
	put_time(b, r->changed_at_ms, base);
	put_time(b, r->opened_at_ms, base);
	put_time(b, r->open_until_ms, base);
	put_time(b, r->last_run_at_ms, base);
	put_uv(b, (uint64_t)r->cooldown_ms);
	put_uv(b, r->consecutive_failures);
	put_uv(b, r->half_open_successes);
	put_uv(b, r->calls);
	put_uv(b, r->successes);
	put_uv(b, r->failures);
	put_uv(b, r->timeouts);
	put_uv(b, r->ignored);
	put_uv(b, r->interrupted);
	put_uv(b, r->stale);
	put_uv(b, r->rejected);
	for (i = 0; i < STATE_COUNT; i++)
		put_uv(b, r->transitions[i]);
	put_sv(b, r->last_exit);
	put_sv(b, r->last_duration_ms);
}

/* The reason to the transition history. */
static void
encode_history(const struct cb_record *r, struct cb_buf *b)
{
	const struct cb_histent	*h;
	int64_t			 prev;
	size_t			 i, n;

	put_str(b, r->reason, sizeof r->reason);
	put_slots(b, r->slots, r->nslots, RECORD_MAX_SLOTS, r->last_used_ms);

	n = r->wlen < RECORD_MAX_WINDOW ? r->wlen : RECORD_MAX_WINDOW;
	put_uv(b, n);
	buf_add(b, r->window, (n + 7) / 8);

	n = r->nfailtimes < RECORD_MAX_FAILTIMES ? r->nfailtimes :
	    RECORD_MAX_FAILTIMES;
	put_uv(b, n);
	for (i = 0, prev = r->last_used_ms; i < n; i++) {
		put_time(b, r->failtimes[i], prev);
		prev = r->failtimes[i];
	}

	n = r->nruns < RECORD_RUNS ? r->nruns : RECORD_RUNS;
	put_uv(b, n);
	for (i = 0, prev = r->last_used_ms; i < n; i++) {
		buf_add_u8(b, r->runs[i]);
		put_sv(b, r->run_exit[i]);
		put_time(b, r->run_at_ms[i], prev);
		prev = r->run_at_ms[i];
	}

	n = r->nhist < RECORD_TRANSITIONS ? r->nhist : RECORD_TRANSITIONS;
	put_uv(b, n);
	for (i = 0, prev = r->last_used_ms; i < n; i++) {
		h = &r->hist[i];
		put_time(b, h->at_ms, prev);
		prev = h->at_ms;
		buf_add_u8(b, h->from);
		buf_add_u8(b, h->to);
		put_str(b, h->reason, sizeof h->reason);
		put_str(b, h->user, sizeof h->user);
	}
}

int
record_lastfail_none(const struct cb_lastfail *f)
{
	return f->at_ms == 0 && f->exit_code == -1 && f->signal == 0 &&
	    f->timed_out == 0 && f->duration_ms == 0;
}

/* The policy snapshot: none, the version 3 part, or whole. */
static void
encode_snapshot(const struct cb_snapshot *s, struct cb_buf *b)
{
	buf_add_u8(b, !s->set ? 0 : !s->full ? 1 : 2);
	if (!s->set)
		return;
	buf_add_u8(b, s->trip_policy);
	put_sv(b, s->preset);
	put_uv(b, s->trip_failures);
	put_uv(b, (uint64_t)s->trip_period_ms);
	put_uv(b, s->trip_window);
	put_uv(b, s->trip_min_calls);
	put_f64(b, s->trip_failure_rate);
	put_uv(b, (uint64_t)s->open_timeout_ms);
	put_uv(b, (uint64_t)s->max_open_timeout_ms);
	put_f64(b, s->backoff);
	put_uv(b, s->half_open_max_calls);
	put_uv(b, (uint64_t)s->timeout_ms);
	put_uv(b, s->max_concurrent);
	if (!s->full)
		return;
	put_f64(b, s->jitter);
	put_uv(b, (uint64_t)s->probe_lease_ms);
	put_uv(b, (uint64_t)s->probe_timeout_ms);
	buf_add_u8(b, s->probe_set ? 1 : 0);
	put_uv(b, (uint64_t)s->kill_after_ms);
	put_uv(b, (uint64_t)s->slow_call_ms);
	put_codes(b, &s->failure_codes);
	put_codes(b, &s->success_codes);
	put_codes(b, &s->ignore_codes);
	buf_add_u8(b, s->timeout_is);
	buf_add_u8(b, s->signal_is);
	buf_add_u8(b, s->on_open);
	buf_add_u8(b, s->on_busy);
	buf_add_u8(b, s->open_exit_code);
}

/* Identity to the end. */
static void
encode_tail(const struct cb_record *r, struct cb_buf *b)
{
	const struct cb_lastfail	*f = &r->last_failure;
	int64_t				 base = r->last_used_ms;

	buf_add_u64(b, r->identity);
	put_uv(b, r->busy);
	put_uv(b, r->refused_since_run);
	if (record_lastfail_none(f))
		buf_add_u8(b, 0);
	else {
		buf_add_u8(b, 1);
		put_time(b, f->at_ms, base);
		put_sv(b, f->exit_code);
		put_sv(b, f->signal);
		buf_add_u8(b, f->timed_out ? 1 : 0);
		put_uv(b, (uint64_t)f->duration_ms);
	}
	encode_snapshot(&r->policy, b);
	put_slots(b, r->running, r->nrunning, RECORD_MAX_RUNNING, base);
	put_time(b, r->last_success_ms, base);
	put_str(b, r->last_run_by.user, sizeof r->last_run_by.user);
	put_str(b, r->last_run_by.host, sizeof r->last_run_by.host);
	put_str(b, r->last_run_by.argv0, sizeof r->last_run_by.argv0);
	buf_add_u8(b, r->manual_on_open);
}

void
record_encode(const struct cb_record *r, struct cb_buf *b)
{
	buf_reserve(b, 256);
	encode_head(r, b);
	encode_history(r, b);
	encode_tail(r, b);
	record_ext_encode(r, b);
}
