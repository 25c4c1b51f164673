/*
 * status-json.c: `status --json`, every persisted field of every breaker
 * as one JSON array, one object a line, times in RFC 3339 UTC.  Written
 * with out.h's JSON writer into the one output buffer; the array is opened
 * with the first breaker, so that a walk that fails before it has written
 * nothing.
 */
#include <stddef.h>
#include <stdint.h>

#include "breaker.h"
#include "out.h"
#include "record.h"
#include "status.h"

void
status_json_begin(struct status_walk *w)
{
	jw_init(&w->jw, w->ob);
}

static void
json_probes(struct json_writer *jw, const struct cb_record *r)
{
	const struct cb_slot	*s;
	size_t			 i;

	jw_object_begin_array(jw, "probes");
	for (i = 0; i < r->nslots; i++) {
		s = &r->slots[i];
		jw_array_begin_object(jw);
		jw_object_hex64(jw, "token", s->token);
		jw_object_i64(jw, "pid", s->pid);
		jw_object_u64(jw, "start_time", s->start_time);
		jw_object_hex(jw, "boot_id", s->boot_id, sizeof s->boot_id);
		jw_object_time(jw, "lease_until", s->lease_until_ms);
		jw_end(jw);
	}
	jw_end(jw);
}

/* The rate window, oldest first, as 0 (success) / 1 (failure); the
 * failure times; the runs strip. */
static void
json_window(struct json_writer *jw, const struct cb_record *r)
{
	size_t	i;

	jw_object_u64(jw, "window_calls", r->wlen);
	jw_object_u64(jw, "window_failures", breaker_window_failures(r));
	jw_object_begin_array_compact(jw, "window");
	for (i = 0; i < r->wlen; i++)
		jw_array_u64(jw, (uint64_t)breaker_window_bit(r,
		    (unsigned)i));
	jw_end(jw);
	jw_object_begin_array(jw, "failure_times");
	for (i = 0; i < r->nfailtimes; i++)
		jw_array_time(jw, r->failtimes[i]);
	jw_end(jw);
	jw_object_begin_array(jw, "runs");
	for (i = 0; i < r->nruns; i++)
		jw_array_string(jw, breaker_mark_name(r->runs[i]));
	jw_end(jw);
}

static void
json_history(struct json_writer *jw, const struct cb_record *r)
{
	const struct cb_histent	*h;
	size_t			 i;

	jw_object_begin_array(jw, "history");
	for (i = 0; i < r->nhist; i++) {
		h = &r->hist[i];
		jw_array_begin_object(jw);
		jw_object_time(jw, "at", h->at_ms);
		jw_object_string_or_null(jw, "from",
		    record_state_name(h->from));
		jw_object_string_or_null(jw, "to", record_state_name(h->to));
		jw_object_string_or_null(jw, "reason", h->reason);
		jw_object_string_or_null(jw, "user", h->user);
		jw_end(jw);
	}
	jw_end(jw);
}

void
status_json_add(struct status_walk *w, const char *name, size_t namelen)
{
	const struct cb_record	*r = &w->rec;
	struct json_writer	*jw = &w->jw;

	if (w->n == 0)
		jw_array_begin_lines(jw);
	jw_array_begin_object(jw);
	jw_object_string(jw, "name", name, namelen);
	jw_object_string_or_null(jw, "state", record_state_name(r->state));
	jw_object_u64(jw, "epoch", r->epoch);
	jw_object_u64(jw, "consecutive_failures", r->consecutive_failures);
	jw_object_u64(jw, "half_open_successes", r->half_open_successes);
	jw_object_u64(jw, "calls", r->calls);
	jw_object_u64(jw, "successes", r->successes);
	jw_object_u64(jw, "failures", r->failures);
	jw_object_u64(jw, "timeouts", r->timeouts);
	jw_object_u64(jw, "ignored", r->ignored);
	jw_object_u64(jw, "interrupted", r->interrupted);
	jw_object_u64(jw, "stale", r->stale);
	jw_object_u64(jw, "rejected", r->rejected);
	jw_object_begin_object(jw, "transitions");
	jw_object_u64(jw, "closed", r->transitions[STATE_CLOSED]);
	jw_object_u64(jw, "open", r->transitions[STATE_OPEN]);
	jw_object_u64(jw, "half-open", r->transitions[STATE_HALF_OPEN]);
	jw_end(jw);
	jw_object_time(jw, "created_at", r->created_at_ms);
	jw_object_time(jw, "changed_at", r->changed_at_ms);
	jw_object_time(jw, "opened_at", r->opened_at_ms);
	jw_object_time(jw, "open_until",
	    r->state == STATE_OPEN ? r->open_until_ms : 0);
	jw_object_time(jw, "last_run_at", r->last_run_at_ms);
	jw_object_time(jw, "last_used_at", r->last_used_ms);
	if (r->last_exit >= 0)
		jw_object_i64(jw, "last_exit", r->last_exit);
	else
		jw_object_null(jw, "last_exit");
	if (r->last_duration_ms >= 0)
		jw_object_i64(jw, "last_duration_ms", r->last_duration_ms);
	else
		jw_object_null(jw, "last_duration_ms");
	jw_object_i64(jw, "cooldown_ms", r->cooldown_ms);
	jw_object_string_or_null(jw, "reason", r->reason);
	json_probes(jw, r);
	json_window(jw, r);
	json_history(jw, r);
	jw_end(jw);
}

void
status_json_end(struct status_walk *w)
{
	if (w->n == 0)
		jw_array_begin_lines(&w->jw);
	jw_end(&w->jw);
	OUT_LIT(w->ob, "\n");
}
