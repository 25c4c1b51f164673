/* SPDX-License-Identifier: ISC */
/*
 * status-json.c: `status --json`, every persisted field of every breaker
 * as one JSON array, one object a line, times in RFC 3339 UTC.  Written
 * with out.h's JSON writer into the one output buffer; the array is opened
 * with the first breaker, so that a walk that fails before it has written
 * nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "out.h"
#include "preset.h"
#include "record.h"
#include "name.h"
#include "status.h"

/* Members the writer has no macro for: a bool and a double. */
#define JW_BOOL(jw, k, v) \
	(jw_key((jw), JW_QKEY(k)), json_bool((jw), (v)))
#define JW_DOUBLE(jw, k, v) \
	(jw_key((jw), JW_QKEY(k)), json_double((jw), (v)))

static void
json_bool(struct json_writer *jw, int v)
{
	if (v)
		OUT_LIT(jw->o, "true");
	else
		OUT_LIT(jw->o, "false");
}

/*
 * "%.17g" costs about 1,800 instructions, three times a breaker, and the
 * breakers of a state mostly share their policies: the last few values
 * stay formatted.  The record decoder admits finite values only.
 */
static void
json_double(struct json_writer *jw, double d)
{
	static struct {
		double	d;
		int	set;
		char	s[32];
	}		 memo[4];
	static unsigned	 next;
	size_t		 i;

	for (i = 0; i < sizeof memo / sizeof memo[0]; i++)
		if (memo[i].set && memcmp(&memo[i].d, &d, sizeof d) == 0)
			break;
	if (i == sizeof memo / sizeof memo[0]) {
		i = next++ % (sizeof memo / sizeof memo[0]);
		snprintf(memo[i].s, sizeof memo[i].s, "%.17g", d);
		memo[i].d = d;
		memo[i].set = 1;
	}
	out_str(jw->o, memo[i].s);
}

void
status_json_begin(struct status_walk *w)
{
	jw_init(&w->jw, w->ob);
}

/* A probe or run slot's holder. */
static void
json_slot(struct json_writer *jw, const struct cb_slot *s)
{
	jw_array_begin_object(jw);
	jw_object_hex64(jw, "token", s->token);
	jw_object_i64(jw, "pid", s->pid);
	if (s->pidns != 0)
		jw_object_u64(jw, "pidns", s->pidns);
	else
		jw_object_null(jw, "pidns");
	jw_object_u64(jw, "start_time", s->start_time);
	jw_object_hex(jw, "boot_id", s->boot_id, sizeof s->boot_id);
	jw_object_string_or_null(jw, "host", s->host);
	jw_object_time(jw, "since", s->since_ms);
	jw_object_time(jw, "lease_until", s->lease_until_ms);
	if (s->lease_ms > 0)
		jw_object_i64(jw, "lease_ms", s->lease_ms);
	else
		jw_object_null(jw, "lease_ms");
	jw_end(jw);
}

/* The probe slots, and the live run slots as `running` (SPEC 2b). */
static void
json_slots(struct status_walk *w, const struct cb_record *r)
{
	struct json_writer	*jw = &w->jw;
	size_t			 i;

	jw_object_begin_array(jw, "probes");
	for (i = 0; i < r->nslots; i++)
		json_slot(jw, &r->slots[i]);
	jw_end(jw);
	jw_object_u64(jw, "busy", r->busy);
	/* The rate limit (SPEC 2d): its refusals, and when the next call
	 * may go through (null without one). */
	jw_object_u64(jw, "rate_limited", r->rate_limited);
	jw_object_time(jw, "next_call_at", breaker_rate_next(r,
	    w->env.now_ms));
	jw_object_begin_array(jw, "running");
	for (i = 0; i < r->nrunning; i++)
		if (breaker_slot_live(&r->running[i], &w->env))
			json_slot(jw, &r->running[i]);
	jw_end(jw);
}

/* The last failure, or null. */
static void
json_last_failure(struct json_writer *jw, const struct cb_record *r)
{
	const struct cb_lastfail	*f = &r->last_failure;

	if (f->at_ms == 0) {
		jw_object_null(jw, "last_failure");
		return;
	}
	jw_object_begin_object(jw, "last_failure");
	jw_object_time(jw, "at", f->at_ms);
	if (f->exit_code >= 0)
		jw_object_i64(jw, "exit", f->exit_code);
	else
		jw_object_null(jw, "exit");
	if (f->signal > 0)
		jw_object_i64(jw, "signal", f->signal);
	else
		jw_object_null(jw, "signal");
	JW_BOOL(jw, "timed_out", f->timed_out);
	jw_object_i64(jw, "duration_ms", f->duration_ms);
	jw_end(jw);
}

static const char *const verdict_name[] = { "failure", "success", "ignore" };
static const char *const on_open_name[] = { "fail", "skip" };

/* The version 4 part of the snapshot: null where a version 3 snapshot
 * did not keep it, or where it does not apply (no slow_call, no probe
 * command's probe_timeout). */
static void
json_policy4(struct json_writer *jw, const struct cb_snapshot *s)
{
	char	codes[1200];

	if (!s->full) {
		jw_object_null(jw, "jitter");
		jw_object_null(jw, "probe_lease_ms");
		jw_object_null(jw, "probe_set");
		jw_object_null(jw, "probe_timeout_ms");
		jw_object_null(jw, "kill_after_ms");
		jw_object_null(jw, "slow_call_ms");
		jw_object_null(jw, "failure_codes");
		jw_object_null(jw, "success_codes");
		jw_object_null(jw, "ignore_codes");
		jw_object_null(jw, "timeout_is");
		jw_object_null(jw, "signal_is");
		jw_object_null(jw, "on_open");
		jw_object_null(jw, "on_busy");
		jw_object_null(jw, "open_exit_code");
		return;
	}
	JW_DOUBLE(jw, "jitter", s->jitter);
	jw_object_i64(jw, "probe_lease_ms", s->probe_lease_ms);
	JW_BOOL(jw, "probe_set", s->probe_set);
	if (s->probe_set)
		jw_object_i64(jw, "probe_timeout_ms", s->probe_timeout_ms);
	else
		jw_object_null(jw, "probe_timeout_ms");
	jw_object_i64(jw, "kill_after_ms", s->kill_after_ms);
	if (s->slow_call_ms > 0)
		jw_object_i64(jw, "slow_call_ms", s->slow_call_ms);
	else
		jw_object_null(jw, "slow_call_ms");
	format_codes(&s->failure_codes, codes, sizeof codes);
	jw_object_string_or_null(jw, "failure_codes", codes);
	format_codes(&s->success_codes, codes, sizeof codes);
	jw_object_string_or_null(jw, "success_codes", codes);
	format_codes(&s->ignore_codes, codes, sizeof codes);
	jw_object_string_or_null(jw, "ignore_codes", codes);
	jw_object_string_or_null(jw, "timeout_is",
	    verdict_name[s->timeout_is % 3]);
	jw_object_string_or_null(jw, "signal_is",
	    verdict_name[s->signal_is % 3]);
	jw_object_string_or_null(jw, "on_open", on_open_name[s->on_open & 1]);
	jw_object_string_or_null(jw, "on_busy", on_open_name[s->on_busy & 1]);
	jw_object_i64(jw, "open_exit_code", s->open_exit_code);
}

/*
 * The breakers of a state mostly ran under one policy, and its object is
 * a third of a breaker's JSON: the last one written is kept, and copied
 * when the next snapshot is the same, byte for byte (the object depends
 * on the snapshot alone).  Its longest form (three long code lists) is
 * shorter than json, which is kept free in the output buffer while it is
 * written, so that no flush comes in between.
 */
static struct {
	struct cb_snapshot	s;
	size_t			len;	/* 0: none kept */
	char			json[8192];
} policy_memo;

static void	json_policy_object(struct json_writer *,
		    const struct cb_snapshot *);

/* The policy the breaker last ran under (SPEC 7), or null. */
static void
json_policy(struct json_writer *jw, const struct cb_record *r)
{
	const struct cb_snapshot	*s = &r->policy;
	struct obuf			*o = jw->o;
	size_t				 start;

	if (!s->set) {
		jw_object_null(jw, "policy");
		return;
	}
	jw_key(jw, JW_QKEY("policy"));
	if (policy_memo.len > 0 &&
	    memcmp(&policy_memo.s, s, sizeof *s) == 0) {
		out_add(o, policy_memo.json, policy_memo.len);
		jw->sep = 2;		/* as jw_end leaves it */
		return;
	}
	if (sizeof o->b - o->n < sizeof policy_memo.json)
		out_flush(o);
	start = o->n;
	json_policy_object(jw, s);
	policy_memo.len = 0;
	if (o->n > start && o->n - start <= sizeof policy_memo.json) {
		policy_memo.len = o->n - start;
		memcpy(policy_memo.json, o->b + start, policy_memo.len);
		policy_memo.s = *s;
	}
}

/* max_rate as the config file spells it ("10/1m", null: none) and
 * rate_burst (SPEC 2d). */
static void
json_rate_policy(struct json_writer *jw, const struct cb_snapshot *s)
{
	char	rate[80], per[64];

	if (s->rate_n > 0) {
		format_duration(s->rate_per_ms, per, sizeof per);
		snprintf(rate, sizeof rate, "%u/%s", (unsigned)s->rate_n, per);
		jw_object_string_or_null(jw, "max_rate", rate);
	} else
		jw_object_null(jw, "max_rate");
	jw_object_u64(jw, "rate_burst", s->rate_burst);
}

static void
json_policy_object(struct json_writer *jw, const struct cb_snapshot *s)
{
	const char	*preset;

	jw_value_begin(jw, '{', JW_NORMAL);
	jw_object_string_or_null(jw, "trip_policy",
	    breaker_trip_policy_name((enum cb_trip_policy)s->trip_policy));
	jw_object_u64(jw, "trip_failures", s->trip_failures);
	jw_object_i64(jw, "trip_period_ms", s->trip_period_ms);
	jw_object_u64(jw, "trip_window", s->trip_window);
	jw_object_u64(jw, "trip_min_calls", s->trip_min_calls);
	JW_DOUBLE(jw, "trip_failure_rate", s->trip_failure_rate);
	jw_object_i64(jw, "open_timeout_ms", s->open_timeout_ms);
	jw_object_i64(jw, "max_open_timeout_ms", s->max_open_timeout_ms);
	JW_DOUBLE(jw, "backoff", s->backoff);
	jw_object_u64(jw, "half_open_max_calls", s->half_open_max_calls);
	jw_object_i64(jw, "timeout_ms", s->timeout_ms);
	preset = preset_name(s->preset);
	jw_object_string_or_null(jw, "preset", preset != NULL ? preset : "");
	jw_object_u64(jw, "max_concurrent", s->max_concurrent);
	json_policy4(jw, s);
	if (s->expect_every_ms > 0)
		jw_object_i64(jw, "expect_every_ms", s->expect_every_ms);
	else
		jw_object_null(jw, "expect_every_ms");
	json_rate_policy(jw, s);
	jw_end(jw);
}

/* Who ran the last run (SPEC 7), or null: never its arguments. */
static void
json_run_by(struct json_writer *jw, const struct cb_record *r)
{
	const struct cb_runby	*by = &r->last_run_by;

	jw_object_time(jw, "last_success", r->last_success_ms);
	if (by->user[0] == '\0' && by->host[0] == '\0' &&
	    by->argv0[0] == '\0') {
		jw_object_null(jw, "last_run_by");
		return;
	}
	jw_object_begin_object(jw, "last_run_by");
	jw_object_string_or_null(jw, "user", by->user);
	jw_object_string_or_null(jw, "host", by->host);
	jw_object_string_or_null(jw, "command", by->argv0);
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
	jw_object_u64(jw, "refused_since_run", r->refused_since_run);
	/* The same runs with their end, exit and probe mark. */
	jw_object_begin_array(jw, "run_log");
	for (i = 0; i < r->nruns; i++) {
		jw_array_begin_object(jw);
		jw_object_time(jw, "at", r->run_at_ms[i]);
		jw_object_string_or_null(jw, "outcome",
		    breaker_mark_name(r->runs[i]));
		if (r->run_exit[i] >= 0)
			jw_object_i64(jw, "exit", r->run_exit[i]);
		else
			jw_object_null(jw, "exit");
		JW_BOOL(jw, "probe", (r->runs[i] & RECORD_MARK_PROBE) != 0);
		jw_end(jw);
	}
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
	char			 nm[NAME_MAX_LEN + 1];
	int64_t			 every;

	if (w->n == 0)
		jw_array_begin_lines(jw);
	jw_array_begin_object(jw);
	jw_object_string(jw, "name", name, namelen);
	jw_object_string_or_null(jw, "state", record_state_name(r->state));
	jw_object_u64(jw, "epoch", r->epoch);
	jw_object_hex64(jw, "identity", r->identity);
	JW_BOOL(jw, "manual", r->manual);
	jw_object_string_or_null(jw, "manual_on_open",
	    r->manual_on_open == MANUAL_ON_OPEN_SKIP ? "skip" :
	    r->manual_on_open == MANUAL_ON_OPEN_FAIL ? "fail" : "");
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
	json_last_failure(jw, r);
	json_run_by(jw, r);
	/* SPEC 7: seconds past expect_every since the last success. */
	snprintf(nm, sizeof nm, "%.*s", (int)namelen, name);
	jw_object_i64(jw, "overdue", status_overdue(w, nm, &every) / 1000);
	json_policy(jw, r);
	json_slots(w, r);
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
