/* SPDX-License-Identifier: ISC */
/*
 * record-decode4.c: decode a version 4 record (the layout at the top of
 * record.c) into struct cb_record.  Every number is a varint read through
 * the bounded reader of record-int.h; a varint that is longer than its
 * shortest form, a value wider than its field, a time of 0 spelt as a
 * difference or a group present with its "none" values is refused, so
 * that a record that decodes encodes back to the same bytes.  Counts and
 * text lengths past their bounds are errors at once; values out of range
 * are noted in the reader and reported once the record is read, after a
 * short read, so that a truncated record is always RECORD_ETRUNC.  The
 * bounded reader every version is read through is record-wire.c's.
 */
#include <stdint.h>
#include <string.h>

#include "record.h"
#include "record-int.h"

/* CODES: ranges ascending and apart, within 0..255. */
static int
take_codes(struct reader *rd, struct cb_codeset *set)
{
	uint64_t	n, gap, len;
	int		first, prev = -2;

	memset(set, 0, sizeof *set);
	if ((n = take_uv(rd)) > 128)
		return -1;
	while (n-- > 0) {
		gap = take_uv(rd);
		len = take_uv(rd);
		if (gap > 255 || len > 255 || prev + 2 + (int)gap + (int)len >
		    255)
			return -1;
		first = prev + 2 + (int)gap;
		codeset_add_range(set, first, first + (int)len);
		prev = first + (int)len;
	}
	return 0;
}

static int
take_slots(struct reader *rd, struct cb_slot *slots, uint16_t *np,
    size_t max, int64_t base, const char *what, struct cb_err *err)
{
	struct cb_slot	*s;
	const uint8_t	*p;
	uint64_t	 n;
	size_t		 i;

	if ((n = take_uv(rd)) > max) {
		err_set(err, "record has %llu %s slots, more than %zu",
		    (unsigned long long)n, what, max);
		return -1;
	}
	*np = (uint16_t)n;
	for (i = 0; i < n && !rd->short_read; i++) {
		s = &slots[i];
		memset(s, 0, sizeof *s);
		s->token = take_u64(rd);
		s->lease_until_ms = take_time(rd, base,
		    "slot lease out of range");
		s->pid = (int32_t)take_sv_in(rd, INT32_MIN, INT32_MAX,
		    "slot pid out of range");
		s->start_time = take_uv(rd);
		if ((p = take(rd, 16)) != NULL)
			memcpy(s->boot_id, p, 16);
		s->lease_ms = (int64_t)take_uv(rd);
		s->since_ms = take_time(rd, base, "slot start out of range");
		if (take_str(rd, s->host, sizeof s->host) == -1) {
			err_set(err, "record %s slot %zu has an invalid host",
			    what, i);
			return -1;
		}
		s->pidns = take_uv(rd);
		s->pgid = (int32_t)take_sv_in(rd, INT32_MIN, INT32_MAX,
		    "slot process group out of range");
	}
	return 0;
}

/* The head: state to last_duration. */
static void
take_head(struct reader *rd, struct cb_record *r, uint8_t *state)
{
	int64_t	b;
	size_t	i;

	*state = take_u8(rd);
	r->manual = take_flag(rd);
	b = take_sv(rd);
	if (b < -RECORD_TIME_BOUND || b > RECORD_TIME_BOUND) {
		take_bad(rd, "last_used out of range");
		b = 0;
	}
	r->last_used_ms = b;
	r->epoch = take_uv(rd);
	r->created_at_ms = take_time(rd, b, "created_at out of range");
	r->changed_at_ms = take_time(rd, b, "changed_at out of range");
	r->opened_at_ms = take_time(rd, b, "opened_at out of range");
	r->open_until_ms = take_time(rd, b, "open_until out of range");
	r->last_run_at_ms = take_time(rd, b, "last_run_at out of range");
	r->cooldown_ms = (int64_t)take_uv(rd);
	r->consecutive_failures = take_uv32(rd, "consecutive_failures "
	    "out of range");
	r->half_open_successes = take_uv32(rd, "half_open_successes "
	    "out of range");
	r->calls = take_uv(rd);
	r->successes = take_uv(rd);
	r->failures = take_uv(rd);
	r->timeouts = take_uv(rd);
	r->ignored = take_uv(rd);
	r->interrupted = take_uv(rd);
	r->stale = take_uv(rd);
	r->rejected = take_uv(rd);
	for (i = 0; i < STATE_COUNT; i++)
		r->transitions[i] = take_uv(rd);
	r->last_exit = (int32_t)take_sv_in(rd, INT32_MIN, INT32_MAX,
	    "last_exit out of range");
	r->last_duration_ms = take_sv(rd);
}

/* The rate window, the failure times and the runs. */
static int
take_windows(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	const uint8_t	*p;
	uint64_t	 n;
	int64_t		 prev;
	size_t		 i;

	if ((n = take_uv(rd)) > RECORD_MAX_WINDOW) {
		err_set(err, "record rate window of %llu calls exceeds %d",
		    (unsigned long long)n, RECORD_MAX_WINDOW);
		return -1;
	}
	r->wlen = (uint16_t)n;
	if ((p = take(rd, (n + 7) / 8)) != NULL)
		memcpy(r->window, p, (n + 7) / 8);

	if ((n = take_uv(rd)) > RECORD_MAX_FAILTIMES) {
		err_set(err, "record holds %llu failure times, more than %d",
		    (unsigned long long)n, RECORD_MAX_FAILTIMES);
		return -1;
	}
	r->nfailtimes = (uint16_t)n;
	for (i = 0, prev = r->last_used_ms; i < n; i++)
		prev = r->failtimes[i] = take_time(rd, prev,
		    "failure time out of range");

	if ((n = take_uv(rd)) > RECORD_RUNS) {
		err_set(err, "record holds %llu run marks, more than %d",
		    (unsigned long long)n, RECORD_RUNS);
		return -1;
	}
	r->nruns = (uint8_t)n;
	for (i = 0, prev = r->last_used_ms; i < n; i++) {
		r->runs[i] = take_u8(rd);
		r->run_exit[i] = (int16_t)take_sv_in(rd, INT16_MIN,
		    INT16_MAX, "run exit out of range");
		prev = r->run_at_ms[i] = take_time(rd, prev,
		    "run time out of range");
	}
	return 0;
}

static int
take_history(struct reader *rd, struct cb_record *r, struct cb_err *err)
{
	struct cb_histent	*h;
	uint64_t		 n;
	int64_t			 prev;
	size_t			 i;

	if ((n = take_uv(rd)) > RECORD_TRANSITIONS) {
		err_set(err, "record holds %llu transitions, more than %d",
		    (unsigned long long)n, RECORD_TRANSITIONS);
		return -1;
	}
	r->nhist = (uint8_t)n;
	for (i = 0, prev = r->last_used_ms; i < n && !rd->short_read; i++) {
		h = &r->hist[i];
		memset(h, 0, sizeof *h);
		prev = h->at_ms = take_time(rd, prev,
		    "transition time out of range");
		h->from = take_u8(rd);
		h->to = take_u8(rd);
		if (h->from >= STATE_COUNT || h->to >= STATE_COUNT) {
			err_set(err, "record transition %zu has an invalid "
			    "state", i);
			return -1;
		}
		if (take_str(rd, h->reason, sizeof h->reason) == -1 ||
		    take_str(rd, h->user, sizeof h->user) == -1) {
			err_set(err, "record transition %zu has an invalid "
			    "reason or user", i);
			return -1;
		}
	}
	return 0;
}

static void
take_lastfail(struct reader *rd, struct cb_lastfail *f, int64_t base)
{
	uint8_t	present = take_u8(rd);

	memset(f, 0, sizeof *f);
	f->exit_code = -1;
	if (present == 0)
		return;
	if (present > 1)
		take_bad(rd, "an invalid last_failure presence byte");
	f->at_ms = take_time(rd, base, "last_failure time out of range");
	f->exit_code = (int32_t)take_sv_in(rd, INT32_MIN, INT32_MAX,
	    "last_failure exit out of range");
	f->signal = (int32_t)take_sv_in(rd, INT32_MIN, INT32_MAX,
	    "last_failure signal out of range");
	f->timed_out = take_flag(rd);
	f->duration_ms = (int64_t)take_uv(rd);
	if (record_lastfail_none(f))
		take_bad(rd, "an empty last_failure spelt out");
}

/* The fields only a whole snapshot has. */
static int
take_snapshot_full(struct reader *rd, struct cb_snapshot *s,
    struct cb_err *err)
{
	s->full = 1;
	s->jitter = take_f64(rd);
	s->probe_lease_ms = (int64_t)take_uv(rd);
	s->probe_timeout_ms = (int64_t)take_uv(rd);
	s->probe_set = take_flag(rd);
	s->kill_after_ms = (int64_t)take_uv(rd);
	s->slow_call_ms = (int64_t)take_uv(rd);
	if (take_codes(rd, &s->failure_codes) == -1 ||
	    take_codes(rd, &s->success_codes) == -1 ||
	    take_codes(rd, &s->ignore_codes) == -1) {
		err_set(err, "record policy has a code class out of range");
		return -1;
	}
	s->timeout_is = take_u8(rd);
	s->signal_is = take_u8(rd);
	s->on_open = take_u8(rd);
	s->on_busy = take_u8(rd);
	s->open_exit_code = take_u8(rd);
	return 0;
}

static int
take_snapshot(struct reader *rd, struct cb_snapshot *s, struct cb_err *err)
{
	uint8_t	present = take_u8(rd);

	record_snapshot_clear(s);
	if (present == 0)
		return 0;
	if (present > 2)
		take_bad(rd, "an invalid policy presence byte");
	s->set = 1;
	s->trip_policy = take_u8(rd);
	s->preset = (int16_t)take_sv_in(rd, -1, INT16_MAX,
	    "policy preset out of range");
	s->trip_failures = take_uv32(rd, "trip.failures out of range");
	s->trip_period_ms = (int64_t)take_uv(rd);
	s->trip_window = take_uv32(rd, "trip.window out of range");
	s->trip_min_calls = take_uv32(rd, "trip.min_calls out of range");
	s->trip_failure_rate = take_f64(rd);
	s->open_timeout_ms = (int64_t)take_uv(rd);
	s->max_open_timeout_ms = (int64_t)take_uv(rd);
	s->backoff = take_f64(rd);
	s->half_open_max_calls = take_uv32(rd,
	    "half_open_max_calls out of range");
	s->timeout_ms = (int64_t)take_uv(rd);
	s->max_concurrent = take_uv32(rd, "max_concurrent out of range");
	if (present == 2)
		return take_snapshot_full(rd, s, err);
	return 0;
}

int
record_decode4(struct reader *rd, struct cb_record *r, uint8_t *state,
    struct cb_err *err)
{
	struct cb_runby	*by = &r->last_run_by;
	int64_t		 b;

	take_head(rd, r, state);
	b = r->last_used_ms;
	if (take_str(rd, r->reason, sizeof r->reason) == -1) {
		err_set(err, "record reason is too long or holds a NUL byte");
		return -1;
	}
	if (take_slots(rd, r->slots, &r->nslots, RECORD_MAX_SLOTS, b,
	    "probe", err) == -1 || take_windows(rd, r, err) == -1 ||
	    take_history(rd, r, err) == -1)
		return -1;
	r->identity = take_u64(rd);
	r->busy = take_uv(rd);
	r->refused_since_run = take_uv32(rd, "refused_since_run out of "
	    "range");
	take_lastfail(rd, &r->last_failure, b);
	if (take_snapshot(rd, &r->policy, err) == -1 ||
	    take_slots(rd, r->running, &r->nrunning, RECORD_MAX_RUNNING, b,
	    "run", err) == -1)
		return -1;
	r->last_success_ms = take_time(rd, b, "last_success out of range");
	if (take_str(rd, by->user, sizeof by->user) == -1 ||
	    take_str(rd, by->host, sizeof by->host) == -1 ||
	    take_str(rd, by->argv0, sizeof by->argv0) == -1) {
		err_set(err, "record last_run_by has an invalid user, host "
		    "or command");
		return -1;
	}
	r->manual_on_open = take_u8(rd);
	return 0;
}
