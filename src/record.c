/*
 * record.c: encode and decode one breaker's record.  The layout, version 2,
 * all integers little-endian:
 *
 *	"CBRK" u16 version u8 state u8 0
 *	u64 epoch
 *	i64 created_at changed_at opened_at open_until last_run_at last_used
 *	    cooldown				(milliseconds)
 *	u32 consecutive_failures half_open_successes
 *	u64 calls successes failures timeouts ignored interrupted stale
 *	    rejected
 *	u64 transitions[closed] transitions[open] transitions[half-open]
 *	i32 last_exit i64 last_duration
 *	u16 n, n bytes of reason
 *	u16 n, n x (u64 token i64 lease_until i32 pid u64 start_time
 *	    16 bytes boot_id)
 *	u16 n, (n + 7) / 8 bytes of rate window bits
 *	u16 n, n x i64 failure times
 *	u8 n, n bytes of run marks			(version 2 on)
 *	u8 n, n x (i64 at u8 from u8 to u8 len, len bytes of reason
 *	    u8 len, len bytes of user)			(version 2 on)
 *
 * Version 1 records end after the failure times and decode with empty
 * histories.
 * Decoding checks every length against the input before reading, so a
 * truncated or hostile record is an error, never an overread, and every
 * time within +-2^53 ms (+-285,000 years) and every duration within
 * 0..2^53, so that the state machine's sums and differences of two of them
 * cannot overflow.
 */
#include <string.h>

#include "record.h"

#define SLOT_BYTES	(8 + 8 + 4 + 8 + 16)

/* Bound on stored times and durations (ms): sums of two stay in int64. */
#define TIME_BOUND	((int64_t)1 << 53)

static int
time_ok(int64_t t)
{
	return t >= -TIME_BOUND && t <= TIME_BOUND;
}

/* Every time and duration in range; else the name of the first that is not. */
static const char *
record_bad_time(const struct cb_record *r)
{
	size_t	i;

	if (!time_ok(r->created_at_ms))
		return "created_at";
	if (!time_ok(r->changed_at_ms))
		return "changed_at";
	if (!time_ok(r->opened_at_ms))
		return "opened_at";
	if (!time_ok(r->open_until_ms))
		return "open_until";
	if (!time_ok(r->last_run_at_ms))
		return "last_run_at";
	if (!time_ok(r->last_used_ms))
		return "last_used";
	if (r->cooldown_ms < 0 || r->cooldown_ms > TIME_BOUND)
		return "cooldown";
	if (r->last_duration_ms < -1 || r->last_duration_ms > TIME_BOUND)
		return "last_duration";
	for (i = 0; i < r->nslots; i++)
		if (!time_ok(r->slots[i].lease_until_ms))
			return "probe lease";
	for (i = 0; i < r->nfailtimes; i++)
		if (!time_ok(r->failtimes[i]))
			return "failure time";
	return NULL;
}

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

void
record_encode(const struct cb_record *r, struct cb_buf *b)
{
	const struct cb_histent	*h;
	size_t			 i, n, rlen;

	buf_reserve(b, 256);
	buf_add(b, RECORD_MAGIC, 4);
	buf_add_u16(b, RECORD_VERSION);
	buf_add_u8(b, (uint8_t)r->state);
	buf_add_u8(b, 0);
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

	rlen = strnlen(r->reason, sizeof r->reason - 1);
	buf_add_u16(b, (uint16_t)rlen);
	buf_add(b, r->reason, rlen);

	buf_add_u16(b, r->nslots);
	for (i = 0; i < r->nslots && i < RECORD_MAX_SLOTS; i++) {
		buf_add_u64(b, r->slots[i].token);
		buf_add_u64(b, (uint64_t)r->slots[i].lease_until_ms);
		buf_add_u32(b, (uint32_t)r->slots[i].pid);
		buf_add_u64(b, r->slots[i].start_time);
		buf_add(b, r->slots[i].boot_id, 16);
	}

	buf_add_u16(b, r->wlen);
	buf_add(b, r->window, (r->wlen + 7u) / 8);

	buf_add_u16(b, r->nfailtimes);
	for (i = 0; i < r->nfailtimes && i < RECORD_MAX_FAILTIMES; i++)
		buf_add_u64(b, (uint64_t)r->failtimes[i]);

	n = r->nruns < RECORD_RUNS ? r->nruns : RECORD_RUNS;
	buf_add_u8(b, (uint8_t)n);
	buf_add(b, r->runs, n);

	n = r->nhist < RECORD_TRANSITIONS ? r->nhist : RECORD_TRANSITIONS;
	buf_add_u8(b, (uint8_t)n);
	for (i = 0; i < n; i++) {
		h = &r->hist[i];
		buf_add_u64(b, (uint64_t)h->at_ms);
		buf_add_u8(b, h->from);
		buf_add_u8(b, h->to);
		rlen = strnlen(h->reason, sizeof h->reason - 1);
		buf_add_u8(b, (uint8_t)rlen);
		buf_add(b, h->reason, rlen);
		rlen = strnlen(h->user, sizeof h->user - 1);
		buf_add_u8(b, (uint8_t)rlen);
		buf_add(b, h->user, rlen);
	}
}

/* Copy n bytes of text into dst (size max), refusing NUL bytes. */
static int
take_text(const uint8_t *p, size_t n, char *dst, size_t max)
{
	if (p == NULL)
		return 0;	/* short read: reported by the caller */
	if (n >= max || memchr(p, '\0', n) != NULL)
		return -1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

/* A bounded reader: every take checks the remaining length first. */
struct reader {
	const uint8_t	*p;
	size_t		 left;
	int		 short_read;
};

static const uint8_t *
take(struct reader *rd, size_t n)
{
	const uint8_t	*p;

	if (rd->short_read || rd->left < n) {
		rd->short_read = 1;
		return NULL;
	}
	p = rd->p;
	rd->p += n;
	rd->left -= n;
	return p;
}

static uint8_t
take_u8(struct reader *rd)
{
	const uint8_t	*p = take(rd, 1);

	return p == NULL ? 0 : p[0];
}

static uint16_t
take_u16(struct reader *rd)
{
	const uint8_t	*p = take(rd, 2);

	return p == NULL ? 0 : get_u16(p);
}

static uint32_t
take_u32(struct reader *rd)
{
	const uint8_t	*p = take(rd, 4);

	return p == NULL ? 0 : get_u32(p);
}

static uint64_t
take_u64(struct reader *rd)
{
	const uint8_t	*p = take(rd, 8);

	return p == NULL ? 0 : get_u64(p);
}

static int64_t
take_i64(struct reader *rd)
{
	return (int64_t)take_u64(rd);
}

static int
decode_history(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	struct cb_histent	*h;
	const uint8_t		*p;
	uint8_t			 n, len;
	size_t			 i;

	n = take_u8(rd);
	if (n > RECORD_RUNS) {
		err_set(err, "record holds %u run marks, more than %d", n,
		    RECORD_RUNS);
		return -1;
	}
	r->nruns = n;
	if ((p = take(rd, n)) != NULL)
		memcpy(r->runs, p, n);

	n = take_u8(rd);
	if (n > RECORD_TRANSITIONS) {
		err_set(err, "record holds %u transitions, more than %d", n,
		    RECORD_TRANSITIONS);
		return -1;
	}
	r->nhist = n;
	for (i = 0; i < n && !rd->short_read; i++) {
		h = &r->hist[i];
		memset(h, 0, sizeof *h);
		h->at_ms = take_i64(rd);
		h->from = take_u8(rd);
		h->to = take_u8(rd);
		if (h->from >= STATE_COUNT || h->to >= STATE_COUNT) {
			err_set(err, "record transition %zu has an invalid "
			    "state", i);
			return -1;
		}
		len = take_u8(rd);
		if (take_text(take(rd, len), len, h->reason,
		    sizeof h->reason) == -1) {
			err_set(err, "record transition %zu has an invalid "
			    "reason", i);
			return -1;
		}
		len = take_u8(rd);
		if (take_text(take(rd, len), len, h->user,
		    sizeof h->user) == -1) {
			err_set(err, "record transition %zu has an invalid "
			    "user", i);
			return -1;
		}
	}
	return 0;
}

enum record_error
record_decode(const uint8_t *data, size_t len, struct cb_record *r,
    struct cb_err *err)
{
	struct reader	 rd = { data, len, 0 };
	const uint8_t	*p;
	const char	*what;
	uint16_t	 version, n;
	uint8_t		 state;
	size_t		 i;

	/* Not the whole struct: its unused tails (slots, failure times,
	 * runs and transitions past their counts) are 17 kB, which status
	 * would zero a million times.  Everything up to slots, the window
	 * and each entry in use are zeroed, padding and text tails too. */
	memset(r, 0, offsetof(struct cb_record, slots));
	memset(r->window, 0, sizeof r->window);
	r->wlen = r->nfailtimes = 0;
	r->nruns = r->nhist = 0;
	if (len < 6) {
		err_set(err, "record truncated: %zu bytes", len);
		return RECORD_ETRUNC;
	}
	p = take(&rd, 4);
	if (memcmp(p, RECORD_MAGIC, 4) != 0) {
		err_set(err, "not a cbexec record (bad magic)");
		return RECORD_EMAGIC;
	}
	version = take_u16(&rd);
	if (version > RECORD_VERSION) {
		err_set(err, "record version %u is newer than this cbexec's %u",
		    version, RECORD_VERSION);
		return RECORD_ENEWER;
	}
	if (version == 0) {
		err_set(err, "record version 0 is invalid");
		return RECORD_EVALUE;
	}
	state = take_u8(&rd);
	(void)take_u8(&rd);
	r->epoch = take_u64(&rd);
	r->created_at_ms = take_i64(&rd);
	r->changed_at_ms = take_i64(&rd);
	r->opened_at_ms = take_i64(&rd);
	r->open_until_ms = take_i64(&rd);
	r->last_run_at_ms = take_i64(&rd);
	r->last_used_ms = take_i64(&rd);
	r->cooldown_ms = take_i64(&rd);
	r->consecutive_failures = take_u32(&rd);
	r->half_open_successes = take_u32(&rd);
	r->calls = take_u64(&rd);
	r->successes = take_u64(&rd);
	r->failures = take_u64(&rd);
	r->timeouts = take_u64(&rd);
	r->ignored = take_u64(&rd);
	r->interrupted = take_u64(&rd);
	r->stale = take_u64(&rd);
	r->rejected = take_u64(&rd);
	for (i = 0; i < STATE_COUNT; i++)
		r->transitions[i] = take_u64(&rd);
	r->last_exit = (int32_t)take_u32(&rd);
	r->last_duration_ms = take_i64(&rd);

	n = take_u16(&rd);
	if (n >= RECORD_REASON_MAX) {
		err_set(err, "record reason of %u bytes exceeds %d", n,
		    RECORD_REASON_MAX - 1);
		return RECORD_EVALUE;
	}
	if ((p = take(&rd, n)) != NULL) {
		memcpy(r->reason, p, n);
		r->reason[n] = '\0';
		if (strlen(r->reason) != n) {
			err_set(err, "record reason contains a NUL byte");
			return RECORD_EVALUE;
		}
	}

	n = take_u16(&rd);
	if (n > RECORD_MAX_SLOTS) {
		err_set(err, "record has %u probe slots, more than %d", n,
		    RECORD_MAX_SLOTS);
		return RECORD_EVALUE;
	}
	r->nslots = n;
	for (i = 0; i < n; i++) {
		memset(&r->slots[i], 0, sizeof r->slots[i]);
		r->slots[i].token = take_u64(&rd);
		r->slots[i].lease_until_ms = take_i64(&rd);
		r->slots[i].pid = (int32_t)take_u32(&rd);
		r->slots[i].start_time = take_u64(&rd);
		if ((p = take(&rd, 16)) != NULL)
			memcpy(r->slots[i].boot_id, p, 16);
	}

	n = take_u16(&rd);
	if (n > RECORD_MAX_WINDOW) {
		err_set(err, "record rate window of %u calls exceeds %d", n,
		    RECORD_MAX_WINDOW);
		return RECORD_EVALUE;
	}
	r->wlen = n;
	if ((p = take(&rd, (n + 7u) / 8)) != NULL)
		memcpy(r->window, p, (n + 7u) / 8);

	n = take_u16(&rd);
	if (n > RECORD_MAX_FAILTIMES) {
		err_set(err, "record holds %u failure times, more than %d", n,
		    RECORD_MAX_FAILTIMES);
		return RECORD_EVALUE;
	}
	r->nfailtimes = n;
	for (i = 0; i < n; i++)
		r->failtimes[i] = take_i64(&rd);

	if (version >= 2 && decode_history(&rd, r, err) == -1)
		return RECORD_EVALUE;

	if (rd.short_read) {
		err_set(err, "record truncated: %zu bytes", len);
		return RECORD_ETRUNC;
	}
	if (state >= STATE_COUNT) {
		err_set(err, "record has invalid state %u", state);
		return RECORD_EVALUE;
	}
	r->state = (enum cb_state)state;
	if ((what = record_bad_time(r)) != NULL) {
		err_set(err, "record has %s out of range", what);
		return RECORD_EVALUE;
	}
	if (rd.left != 0) {
		err_set(err, "record has %zu trailing bytes", rd.left);
		return RECORD_ETRAIL;
	}
	return RECORD_OK;
}

/*
 * The fixed head every version shares: magic, version, state, pad, epoch,
 * then six i64 times of which last_used is the sixth.
 */
#define PEEK_STATE	6
#define PEEK_LAST_USED	(8 + 8 + 5 * 8)
#define PEEK_MIN	(PEEK_LAST_USED + 8)

int
record_peek(const uint8_t *p, size_t len, enum cb_state *state,
    int64_t *last_used_ms)
{
	unsigned	version;

	if (p == NULL || len < PEEK_MIN || memcmp(p, RECORD_MAGIC, 4) != 0)
		return -1;
	version = get_u16(p + 4);
	if (version == 0 || version > RECORD_VERSION ||
	    p[PEEK_STATE] >= STATE_COUNT)
		return -1;
	*state = (enum cb_state)p[PEEK_STATE];
	*last_used_ms = (int64_t)get_u64(p + PEEK_LAST_USED);
	return 0;
}
