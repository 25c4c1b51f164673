/* SPDX-License-Identifier: ISC */
/*
 * record.c: one breaker's record, encoded.  The layout, version 3,
 * all integers little-endian, doubles as their IEEE 754 bits in a u64:
 *
 *	"CBRK" u16 version u8 state u8 manual		(version 1-2: u8 0)
 *	u64 epoch
 *	i64 created_at changed_at opened_at open_until last_run_at last_used
 *	    cooldown				(milliseconds)
 *	u32 consecutive_failures half_open_successes
 *	u64 calls successes failures timeouts ignored interrupted stale
 *	    rejected
 *	u64 transitions[closed] transitions[open] transitions[half-open]
 *	i32 last_exit i64 last_duration
 *	u16 n, n bytes of reason
 *	u16 n, n x SLOT					(probe slots)
 *	u16 n, (n + 7) / 8 bytes of rate window bits
 *	u16 n, n x i64 failure times
 *	u8 n, n x (u8 mark i16 exit i64 at)		(version 2: n x u8 mark)
 *	u8 n, n x (i64 at u8 from u8 to u8 len, len bytes of reason
 *	    u8 len, len bytes of user)			(version 2 on)
 *	u64 identity u64 busy u32 refused_since_run	(version 3 on)
 *	i64 last_failure.at i32 exit i32 signal u8 timed_out i64 duration
 *	u8 policy.set u8 trip_policy i16 preset u32 trip_failures
 *	    i64 trip_period u32 trip_window u32 trip_min_calls
 *	    f64 trip_failure_rate i64 open_timeout i64 max_open_timeout
 *	    f64 backoff u32 half_open_max_calls i64 timeout u32 max_concurrent
 *	u16 n, n x SLOT					(run slots)
 *
 * where SLOT is u64 token i64 lease_until i32 pid u64 start_time 16 bytes
 * boot_id, and since version 3 also i64 lease_length i64 since u8 len, len
 * bytes of host.  The version 3 flags (manual, timed_out, policy.set) are
 * 0 or 1, so that a record has one spelling.
 *
 * Decoding any version up to this one, with the range checks, is
 * record-decode.c's.
 */
#include <string.h>

#include "record.h"

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
	r->policy.preset = -1;
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

static void
put_f64(struct cb_buf *b, double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof u);
	buf_add_u64(b, u);
}

static void
put_text8(struct cb_buf *b, const char *s, size_t max)
{
	size_t	len;

	len = strnlen(s, max - 1);
	if (len > 255)
		len = 255;
	buf_add_u8(b, (uint8_t)len);
	buf_add(b, s, len);
}

static void
put_slots(struct cb_buf *b, const struct cb_slot *slots, uint16_t n,
    size_t max)
{
	const struct cb_slot	*s;
	size_t			 i;

	if (n > max)
		n = (uint16_t)max;
	buf_add_u16(b, n);
	for (i = 0; i < n; i++) {
		s = &slots[i];
		buf_add_u64(b, s->token);
		buf_add_u64(b, (uint64_t)s->lease_until_ms);
		buf_add_u32(b, (uint32_t)s->pid);
		buf_add_u64(b, s->start_time);
		buf_add(b, s->boot_id, 16);
		buf_add_u64(b, (uint64_t)s->lease_ms);
		buf_add_u64(b, (uint64_t)s->since_ms);
		put_text8(b, s->host, sizeof s->host);
	}
}

/* Magic and version to last_duration: the fixed-size head. */
static void
encode_head(const struct cb_record *r, struct cb_buf *b)
{
	size_t	i;

	buf_add(b, RECORD_MAGIC, 4);
	buf_add_u16(b, RECORD_VERSION);
	buf_add_u8(b, (uint8_t)r->state);
	buf_add_u8(b, r->manual ? 1 : 0);
	buf_add_u64(b, r->epoch);
	buf_add_u64(b, (uint64_t)r->created_at_ms);
	buf_add_u64(b, (uint64_t)r->changed_at_ms);
	buf_add_u64(b, (uint64_t)r->opened_at_ms);
	buf_add_u64(b, (uint64_t)r->open_until_ms);
	buf_add_u64(b, (uint64_t)r->last_run_at_ms);
	buf_add_u64(b, (uint64_t)r->last_used_ms);
	buf_add_u64(b, (uint64_t)r->cooldown_ms);
	buf_add_u32(b, r->consecutive_failures);
	buf_add_u32(b, r->half_open_successes);
	buf_add_u64(b, r->calls);
	buf_add_u64(b, r->successes);
	buf_add_u64(b, r->failures);
	buf_add_u64(b, r->timeouts);
	buf_add_u64(b, r->ignored);
	buf_add_u64(b, r->interrupted);
	buf_add_u64(b, r->stale);
	buf_add_u64(b, r->rejected);
	for (i = 0; i < STATE_COUNT; i++)
		buf_add_u64(b, r->transitions[i]);
	buf_add_u32(b, (uint32_t)r->last_exit);
	buf_add_u64(b, (uint64_t)r->last_duration_ms);
}

/* The runs strip and the transition history. */
static void
encode_history(const struct cb_record *r, struct cb_buf *b)
{
	const struct cb_histent	*h;
	size_t			 i, n;

	n = r->nruns < RECORD_RUNS ? r->nruns : RECORD_RUNS;
	buf_add_u8(b, (uint8_t)n);
	for (i = 0; i < n; i++) {
		buf_add_u8(b, r->runs[i]);
		buf_add_u16(b, (uint16_t)r->run_exit[i]);
		buf_add_u64(b, (uint64_t)r->run_at_ms[i]);
	}

	n = r->nhist < RECORD_TRANSITIONS ? r->nhist : RECORD_TRANSITIONS;
	buf_add_u8(b, (uint8_t)n);
	for (i = 0; i < n; i++) {
		h = &r->hist[i];
		buf_add_u64(b, (uint64_t)h->at_ms);
		buf_add_u8(b, h->from);
		buf_add_u8(b, h->to);
		put_text8(b, h->reason, sizeof h->reason);
		put_text8(b, h->user, sizeof h->user);
	}
}

/* Identity, busy, refusals, the last failure and the policy snapshot. */
static void
encode_v3(const struct cb_record *r, struct cb_buf *b)
{
	const struct cb_lastfail	*f = &r->last_failure;
	const struct cb_snapshot	*s = &r->policy;

	buf_add_u64(b, r->identity);
	buf_add_u64(b, r->busy);
	buf_add_u32(b, r->refused_since_run);
	buf_add_u64(b, (uint64_t)f->at_ms);
	buf_add_u32(b, (uint32_t)f->exit_code);
	buf_add_u32(b, (uint32_t)f->signal);
	buf_add_u8(b, f->timed_out ? 1 : 0);
	buf_add_u64(b, (uint64_t)f->duration_ms);
	buf_add_u8(b, s->set ? 1 : 0);
	buf_add_u8(b, s->trip_policy);
	buf_add_u16(b, (uint16_t)s->preset);
	buf_add_u32(b, s->trip_failures);
	buf_add_u64(b, (uint64_t)s->trip_period_ms);
	buf_add_u32(b, s->trip_window);
	buf_add_u32(b, s->trip_min_calls);
	put_f64(b, s->trip_failure_rate);
	buf_add_u64(b, (uint64_t)s->open_timeout_ms);
	buf_add_u64(b, (uint64_t)s->max_open_timeout_ms);
	put_f64(b, s->backoff);
	buf_add_u32(b, s->half_open_max_calls);
	buf_add_u64(b, (uint64_t)s->timeout_ms);
	buf_add_u32(b, s->max_concurrent);
}

void
record_encode(const struct cb_record *r, struct cb_buf *b)
{
	size_t	i, rlen;

	buf_reserve(b, 512);
	encode_head(r, b);

	rlen = strnlen(r->reason, sizeof r->reason - 1);
	buf_add_u16(b, (uint16_t)rlen);
	buf_add(b, r->reason, rlen);

	put_slots(b, r->slots, r->nslots, RECORD_MAX_SLOTS);

	buf_add_u16(b, r->wlen);
	buf_add(b, r->window, (r->wlen + 7u) / 8);

	buf_add_u16(b, r->nfailtimes);
	for (i = 0; i < r->nfailtimes && i < RECORD_MAX_FAILTIMES; i++)
		buf_add_u64(b, (uint64_t)r->failtimes[i]);

	encode_history(r, b);
	encode_v3(r, b);
	put_slots(b, r->running, r->nrunning, RECORD_MAX_RUNNING);
}
