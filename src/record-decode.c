/* SPDX-License-Identifier: ISC */
/*
 * record-decode.c: decode one breaker's record (record.h) of any version
 * up to RECORD_VERSION into the current struct cb_record; the layout is
 * record.c's.  Version 1 records end after the failure times and decode
 * with empty histories; versions 1 and 2 decode with the version 3 fields
 * 0, slots of unknown lease length, and (version 2) the refusals taken out
 * of the runs strip into refused_since_run, as version 3 counts them.
 * Decoding checks every length against the input before reading, so a
 * truncated or hostile record is an error, never an overread, and every
 * time within +-2^53 ms (+-285,000 years) and every duration within
 * 0..2^53, so that the state machine's sums and differences of two of them
 * cannot overflow.  Version 4 is record-decode4.c's, and version 5 is
 * version 4 and the tagged fields of record-ext.c.  Version 3 was, all
 * integers little-endian, doubles as their IEEE 754 bits in a u64:
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
 * 0 or 1, so that a record has one spelling.  A version 3 record decodes
 * with its snapshot not full (the version 4 fields at the built-in
 * defaults), and every record before 4 with no last success, run by no
 * one, slots of no known namespace or group.
 */
#include <stddef.h>
#include <string.h>

#include "record.h"
#include "record-ext.h"
#include "record-int.h"

#define TIME_BOUND	RECORD_TIME_BOUND

static int
time_ok(int64_t t)
{
	return t >= -TIME_BOUND && t <= TIME_BOUND;
}

static int
duration_ok(int64_t d)
{
	return d >= 0 && d <= TIME_BOUND;
}

static const char *
slots_bad_time(const struct cb_slot *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (!time_ok(s[i].lease_until_ms))
			return "slot lease";
		if (!duration_ok(s[i].lease_ms))
			return "slot lease length";
		if (!time_ok(s[i].since_ms))
			return "slot start";
	}
	return NULL;
}

/* Every time and duration in range; else the name of the first that is not. */
static const char *
record_bad_time(const struct cb_record *r)
{
	const char	*what;
	size_t		 i;

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
	if (!duration_ok(r->cooldown_ms))
		return "cooldown";
	if (r->last_duration_ms < -1 || r->last_duration_ms > TIME_BOUND)
		return "last_duration";
	if ((what = slots_bad_time(r->slots, r->nslots)) != NULL ||
	    (what = slots_bad_time(r->running, r->nrunning)) != NULL)
		return what;
	for (i = 0; i < r->nfailtimes; i++)
		if (!time_ok(r->failtimes[i]))
			return "failure time";
	for (i = 0; i < r->nruns; i++)
		if (!time_ok(r->run_at_ms[i]))
			return "run time";
	for (i = 0; i < r->nhist; i++)
		if (!time_ok(r->hist[i].at_ms))
			return "transition time";
	if (!time_ok(r->last_failure.at_ms))
		return "last_failure time";
	if (!duration_ok(r->last_failure.duration_ms))
		return "last_failure duration";
	if (!time_ok(r->last_success_ms))
		return "last_success";
	return NULL;
}

/* The three code classes share no code. */
static int
classes_apart(const struct cb_snapshot *s)
{
	size_t	i;

	for (i = 0; i < 4; i++)
		if ((s->failure_codes.w[i] & s->success_codes.w[i]) != 0 ||
		    (s->failure_codes.w[i] & s->ignore_codes.w[i]) != 0 ||
		    (s->success_codes.w[i] & s->ignore_codes.w[i]) != 0)
			return 0;
	return 1;
}

#define INT_OK(k, v)	policy_int_in_range((k), (long long)(v))
#define FLOAT_OK(k, v)	policy_float_in_range((k), (v))

/* The fields since version 4 (at their built-in values in older records). */
static enum policy_key
record_bad_policy4(const struct cb_snapshot *s)
{
	if (!FLOAT_OK(PK_JITTER, s->jitter))
		return PK_JITTER;
	if (!INT_OK(PK_PROBE_LEASE, s->probe_lease_ms))
		return PK_PROBE_LEASE;
	if (!INT_OK(PK_PROBE_TIMEOUT, s->probe_timeout_ms))
		return PK_PROBE_TIMEOUT;
	if (!INT_OK(PK_KILL_AFTER, s->kill_after_ms))
		return PK_KILL_AFTER;
	if (!INT_OK(PK_SLOW_CALL, s->slow_call_ms))
		return PK_SLOW_CALL;
	if (!INT_OK(PK_TIMEOUT_IS, s->timeout_is))
		return PK_TIMEOUT_IS;
	if (!INT_OK(PK_SIGNAL_IS, s->signal_is))
		return PK_SIGNAL_IS;
	if (!INT_OK(PK_ON_OPEN, s->on_open))
		return PK_ON_OPEN;
	if (!INT_OK(PK_ON_BUSY, s->on_busy))
		return PK_ON_BUSY;
	if (!INT_OK(PK_OPEN_EXIT_CODE, s->open_exit_code))
		return PK_OPEN_EXIT_CODE;
	return PK_COUNT;
}

/*
 * The policy snapshot, every value in its key's range as the config file
 * checks it (policy.c's key table: SPEC 5), and the two cross-key rules
 * every finished policy keeps (policy-finish.c); else the key of the
 * first that is not.  PK_COUNT: all in range.
 */
static enum policy_key
record_bad_policy(const struct cb_snapshot *s)
{
	if (!INT_OK(PK_TRIP_POLICY, s->trip_policy))
		return PK_TRIP_POLICY;
	if (!INT_OK(PK_PRESET, s->preset))
		return PK_PRESET;
	if (!INT_OK(PK_TRIP_FAILURES, s->trip_failures))
		return PK_TRIP_FAILURES;
	if (!INT_OK(PK_TRIP_PERIOD, s->trip_period_ms))
		return PK_TRIP_PERIOD;
	if (!INT_OK(PK_TRIP_WINDOW, s->trip_window))
		return PK_TRIP_WINDOW;
	if (!INT_OK(PK_TRIP_MIN_CALLS, s->trip_min_calls) ||
	    s->trip_min_calls > s->trip_window)
		return PK_TRIP_MIN_CALLS;
	if (!FLOAT_OK(PK_TRIP_FAILURE_RATE, s->trip_failure_rate))
		return PK_TRIP_FAILURE_RATE;
	if (!INT_OK(PK_OPEN_TIMEOUT, s->open_timeout_ms))
		return PK_OPEN_TIMEOUT;
	if (!INT_OK(PK_MAX_OPEN_TIMEOUT, s->max_open_timeout_ms) ||
	    s->max_open_timeout_ms < s->open_timeout_ms)
		return PK_MAX_OPEN_TIMEOUT;
	if (!FLOAT_OK(PK_BACKOFF, s->backoff))
		return PK_BACKOFF;
	if (!INT_OK(PK_HALF_OPEN_MAX_CALLS, s->half_open_max_calls))
		return PK_HALF_OPEN_MAX_CALLS;
	if (!INT_OK(PK_TIMEOUT, s->timeout_ms))
		return PK_TIMEOUT;
	if (!INT_OK(PK_MAX_CONCURRENT, s->max_concurrent))
		return PK_MAX_CONCURRENT;
	if (!classes_apart(s))
		return PK_FAILURE_CODES;
	return record_bad_policy4(s);
}

/* A u8 length, then that many bytes of text. */
static int
take_text8(struct reader *rd, char *dst, size_t max)
{
	uint8_t	len;

	len = take_u8(rd);
	return take_text(take(rd, len), len, dst, max);
}

static int
decode_slots(struct reader *rd, struct cb_slot *slots, uint16_t *np,
    size_t max, const char *what, struct cb_err *err)
{
	struct cb_slot	*s;
	const uint8_t	*p;
	uint16_t	 n;
	size_t		 i;

	n = take_u16(rd);
	if (n > max) {
		err_set(err, "record has %u %s slots, more than %zu", n, what,
		    max);
		return -1;
	}
	*np = n;
	for (i = 0; i < n && !rd->short_read; i++) {
		s = &slots[i];
		memset(s, 0, sizeof *s);
		s->token = take_u64(rd);
		s->lease_until_ms = take_i64(rd);
		s->pid = (int32_t)take_u32(rd);
		s->start_time = take_u64(rd);
		if ((p = take(rd, 16)) != NULL)
			memcpy(s->boot_id, p, 16);
		if (rd->version < 3)
			continue;
		s->lease_ms = take_i64(rd);
		s->since_ms = take_i64(rd);
		if (take_text8(rd, s->host, sizeof s->host) == -1) {
			err_set(err, "record %s slot %zu has an invalid host",
			    what, i);
			return -1;
		}
	}
	return 0;
}

/* The outcome a version 2 strip used for a refusal (OUTCOME_REJECTED). */
#define V2_MARK_REJECTED	5

/*
 * A version 2 strip held refusals too: drop them, counting those after
 * the last run that ran as refused since it.
 */
static void
runs_from_v2(struct cb_record *r, const uint8_t *marks, uint8_t n)
{
	size_t	i;

	r->nruns = 0;
	for (i = 0; i < n; i++) {
		if ((marks[i] & RECORD_MARK_OUTCOME) == V2_MARK_REJECTED) {
			r->refused_since_run++;
			continue;
		}
		r->refused_since_run = 0;
		r->runs[r->nruns] = marks[i];
		r->run_exit[r->nruns] = -1;
		r->run_at_ms[r->nruns] = 0;
		r->nruns++;
	}
}

static int
decode_runs(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	const uint8_t	*p;
	uint8_t		 n;
	size_t		 i;

	n = take_u8(rd);
	if (n > RECORD_RUNS) {
		err_set(err, "record holds %u run marks, more than %d", n,
		    RECORD_RUNS);
		return -1;
	}
	if (rd->version < 3) {
		if ((p = take(rd, n)) != NULL)
			runs_from_v2(r, p, n);
		return 0;
	}
	r->nruns = n;
	for (i = 0; i < n; i++) {
		r->runs[i] = take_u8(rd);
		r->run_exit[i] = (int16_t)take_u16(rd);
		r->run_at_ms[i] = take_i64(rd);
	}
	return 0;
}

static int
decode_history(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	struct cb_histent	*h;
	uint8_t			 n;
	size_t			 i;

	if (decode_runs(rd, r, err) == -1)
		return -1;
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
		if (take_text8(rd, h->reason, sizeof h->reason) == -1) {
			err_set(err, "record transition %zu has an invalid "
			    "reason", i);
			return -1;
		}
		if (take_text8(rd, h->user, sizeof h->user) == -1) {
			err_set(err, "record transition %zu has an invalid "
			    "user", i);
			return -1;
		}
	}
	return 0;
}

/* Epoch to last_duration; the magic and version are read already. */
static uint8_t
decode_head(struct reader *rd, struct cb_record *r)
{
	uint8_t	state, manual;
	size_t	i;

	state = take_u8(rd);
	manual = rd->version >= 3 ? take_flag(rd) : take_u8(rd);
	r->manual = rd->version >= 3 && manual != 0;
	r->epoch = take_u64(rd);
	r->created_at_ms = take_i64(rd);
	r->changed_at_ms = take_i64(rd);
	r->opened_at_ms = take_i64(rd);
	r->open_until_ms = take_i64(rd);
	r->last_run_at_ms = take_i64(rd);
	r->last_used_ms = take_i64(rd);
	r->cooldown_ms = take_i64(rd);
	r->consecutive_failures = take_u32(rd);
	r->half_open_successes = take_u32(rd);
	r->calls = take_u64(rd);
	r->successes = take_u64(rd);
	r->failures = take_u64(rd);
	r->timeouts = take_u64(rd);
	r->ignored = take_u64(rd);
	r->interrupted = take_u64(rd);
	r->stale = take_u64(rd);
	r->rejected = take_u64(rd);
	for (i = 0; i < STATE_COUNT; i++)
		r->transitions[i] = take_u64(rd);
	r->last_exit = (int32_t)take_u32(rd);
	r->last_duration_ms = take_i64(rd);
	return state;
}

static int
decode_reason(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	const uint8_t	*p;
	uint16_t	 n;

	n = take_u16(rd);
	if (n >= RECORD_REASON_MAX) {
		err_set(err, "record reason of %u bytes exceeds %d", n,
		    RECORD_REASON_MAX - 1);
		return -1;
	}
	if ((p = take(rd, n)) != NULL) {
		memcpy(r->reason, p, n);
		r->reason[n] = '\0';
		if (strlen(r->reason) != n) {
			err_set(err, "record reason contains a NUL byte");
			return -1;
		}
	}
	return 0;
}

/* The rate window bits and the time policy's failure times. */
static int
decode_windows(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	const uint8_t	*p;
	uint16_t	 n;
	size_t		 i;

	n = take_u16(rd);
	if (n > RECORD_MAX_WINDOW) {
		err_set(err, "record rate window of %u calls exceeds %d", n,
		    RECORD_MAX_WINDOW);
		return -1;
	}
	r->wlen = n;
	if ((p = take(rd, (n + 7u) / 8)) != NULL)
		memcpy(r->window, p, (n + 7u) / 8);

	n = take_u16(rd);
	if (n > RECORD_MAX_FAILTIMES) {
		err_set(err, "record holds %u failure times, more than %d", n,
		    RECORD_MAX_FAILTIMES);
		return -1;
	}
	r->nfailtimes = n;
	for (i = 0; i < n; i++)
		r->failtimes[i] = take_i64(rd);
	return 0;
}

static void
decode_snapshot(struct reader *rd, struct cb_snapshot *s)
{
	s->set = take_flag(rd);
	s->trip_policy = take_u8(rd);
	s->preset = (int16_t)take_u16(rd);
	s->trip_failures = take_u32(rd);
	s->trip_period_ms = take_i64(rd);
	s->trip_window = take_u32(rd);
	s->trip_min_calls = take_u32(rd);
	s->trip_failure_rate = take_f64(rd);
	s->open_timeout_ms = take_i64(rd);
	s->max_open_timeout_ms = take_i64(rd);
	s->backoff = take_f64(rd);
	s->half_open_max_calls = take_u32(rd);
	s->timeout_ms = take_i64(rd);
	s->max_concurrent = take_u32(rd);
}

static int
decode_v3(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	struct cb_lastfail	*f = &r->last_failure;

	r->identity = take_u64(rd);
	r->busy = take_u64(rd);
	r->refused_since_run = take_u32(rd);
	f->at_ms = take_i64(rd);
	f->exit_code = (int32_t)take_u32(rd);
	f->signal = (int32_t)take_u32(rd);
	f->timed_out = take_flag(rd);
	f->duration_ms = take_i64(rd);
	decode_snapshot(rd, &r->policy);
	return decode_slots(rd, r->running, &r->nrunning, RECORD_MAX_RUNNING,
	    "run", err);
}

/* Versions 1 to 3 after the magic and version: -1 with err set, or 0. */
static int
decode_v1to3(struct reader *rd, struct cb_record *r, uint8_t *state,
    struct cb_err *err)
{
	*state = decode_head(rd, r);
	if (decode_reason(rd, r, err) == -1 ||
	    decode_slots(rd, r->slots, &r->nslots, RECORD_MAX_SLOTS,
	    "probe", err) == -1 ||
	    decode_windows(rd, r, err) == -1)
		return -1;
	if (rd->version >= 2 && decode_history(rd, r, err) == -1)
		return -1;
	if (rd->version >= 3 && decode_v3(rd, r, err) == -1)
		return -1;
	return 0;
}

/* Zero what decoding sets, but not the unused tails of the arrays. */
static void
decode_clear(struct cb_record *r)
{
	/* Not the whole struct: its unused tails (slots, failure times,
	 * runs, transitions and run slots past their counts) are 25 kB,
	 * which status would zero a million times.  Everything up to slots,
	 * the window, the version 3 scalars and each entry in use are
	 * zeroed, padding and text tails too. */
	memset(r, 0, offsetof(struct cb_record, slots));
	memset(r->window, 0, sizeof r->window);
	r->wlen = r->nfailtimes = 0;
	r->nruns = r->nhist = 0;
	r->identity = 0;
	r->manual = 0;
	r->busy = 0;
	r->refused_since_run = 0;
	memset(&r->last_failure, 0, sizeof r->last_failure);
	record_snapshot_clear(&r->policy);
	r->nrunning = 0;
	r->last_success_ms = 0;
	memset(&r->last_run_by, 0, sizeof r->last_run_by);
	r->manual_on_open = 0;
	r->rate_tat_us = 0;
	r->rate_limited = 0;
	r->outage_since_ms = 0;
	r->outage_failed = r->outage_refused = 0;
}

/* Cross-field checks once every field is read. */
static enum record_error
decode_check(const struct cb_record *r, uint8_t state, struct cb_err *err)
{
	const char	*what;
	enum policy_key	 k;

	if (state >= STATE_COUNT) {
		err_set(err, "record has invalid state %u", state);
		return RECORD_EVALUE;
	}
	if ((what = record_bad_time(r)) != NULL) {
		err_set(err, "record has %s out of range", what);
		return RECORD_EVALUE;
	}
	if (r->policy.set &&
	    (k = record_bad_policy(&r->policy)) != PK_COUNT) {
		if (k == PK_FAILURE_CODES)
			err_set(err, "record policy has two code classes "
			    "that share a code");
		else
			err_set(err, "record policy has %s out of range",
			    policy_key_name(k));
		return RECORD_EVALUE;
	}
	if (r->manual_on_open > MANUAL_ON_OPEN_SKIP) {
		err_set(err, "record has invalid manual on_open %u",
		    r->manual_on_open);
		return RECORD_EVALUE;
	}
	return RECORD_OK;
}

/* Magic and version; rd->version is set on success. */
static enum record_error
decode_magic(struct reader *rd, size_t len, struct cb_err *err)
{
	const uint8_t	*p;
	uint16_t	 version;

	if (len < 6) {
		err_set(err, "record truncated: %zu bytes", len);
		return RECORD_ETRUNC;
	}
	p = take(rd, 4);
	if (memcmp(p, RECORD_MAGIC, 4) != 0) {
		err_set(err, "not a cbexec record (bad magic)");
		return RECORD_EMAGIC;
	}
	version = take_u16(rd);
	if (version > RECORD_VERSION) {
		err_set(err, "record version %u is newer than this cbexec's %u",
		    version, RECORD_VERSION);
		return RECORD_ENEWER;
	}
	if (version == 0) {
		err_set(err, "record version 0 is invalid");
		return RECORD_EVALUE;
	}
	rd->version = version;
	return RECORD_OK;
}

enum record_error
record_decode(const uint8_t *data, size_t len, struct cb_record *r,
    struct cb_err *err)
{
	struct reader		rd = { data, len, 0, 0, 0, NULL };
	enum record_error	e;
	uint8_t			state;

	decode_clear(r);
	if ((e = decode_magic(&rd, len, err)) != RECORD_OK)
		return e;
	if (rd.version >= 4) {
		if (record_decode4(&rd, r, &state, err) == -1)
			return RECORD_EVALUE;
		if (rd.version >= 5 && !rd.short_read &&
		    (e = record_ext_decode(&rd, r, err)) != RECORD_OK)
			return e;
	} else if (decode_v1to3(&rd, r, &state, err) == -1)
		return RECORD_EVALUE;

	if (rd.short_read) {
		err_set(err, "record truncated: %zu bytes", len);
		return RECORD_ETRUNC;
	}
	if (rd.bad_flag) {
		err_set(err, "record has a flag other than 0 or 1");
		return RECORD_EVALUE;
	}
	if (rd.bad_value != NULL) {
		err_set(err, "record has %s", rd.bad_value);
		return RECORD_EVALUE;
	}
	if ((e = decode_check(r, state, err)) != RECORD_OK)
		return e;
	r->state = (enum cb_state)state;
	if (rd.left != 0) {
		err_set(err, "record has %zu trailing bytes", rd.left);
		return RECORD_ETRAIL;
	}
	return RECORD_OK;
}
