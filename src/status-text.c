/* SPDX-License-Identifier: ISC */
/*
 * status-text.c: the detail view of `status` for people, of one exact
 * NAME, in the manner of `systemctl status`: state and why,
 * next probe, the effective policy, the runs strip (UTF-8 or ASCII marks
 * by locale), totals, last run and transitions.  Colour only when
 * status.c says the output is a terminal that wants it.  The pieces the
 * table (status-table.c) shares: times, the wait, a breaker's policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breaker.h"
#include "cmd.h"
#include "config.h"
#include "esc.h"
#include "preset.h"
#include "record.h"
#include "status.h"

#define C_RESET		"\033[0m"
#define C_GREEN		"\033[32m"
#define C_RED		"\033[31m"
#define C_YELLOW	"\033[33m"
#define C_DIM		"\033[2m"
#define C_BOLD		"\033[1m"

static const char *const state_colour[STATE_COUNT] = {
	C_GREEN, C_RED, C_YELLOW
};

/* The detail view's "      State: " labels, right-aligned. */
#define LABEL_W		11

static void
label(FILE *f, const char *what)
{
	fprintf(f, "%*s: ", LABEL_W, what);
}

/* Local time for people: "2026-11-30 07:41:57 CET", or "-". */
static void
local_time(int64_t ms, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t;

	t = (time_t)(ms / 1000);
	if (ms <= 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		snprintf(buf, len, "-");
}

/* "5m ago", rounded down to the largest unit that fits. */
void
status_ago(int64_t now, int64_t then, char *buf, size_t len)
{
	char	d[32];
	int64_t	s;

	if (then <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	s = (now - then) / 1000;
	if (s < 0)
		s = 0;
	if (s >= 86400)
		s -= s % 86400;
	else if (s >= 3600)
		s -= s % 3600;
	else if (s >= 60)
		s -= s % 60;
	format_duration(s * 1000, d, sizeof d);
	snprintf(buf, len, "%s ago", s == 0 ? "0s" : d);
}

void
status_retry_in(const struct cb_record *r, int64_t now, char *buf, size_t len)
{
	int64_t	ms;

	if (r->state == STATE_CLOSED)
		snprintf(buf, len, "-");
	else if (r->state == STATE_HALF_OPEN)
		snprintf(buf, len, "probing");
	else if ((ms = r->open_until_ms - now) <= 0)
		snprintf(buf, len, "now");
	else
		cmd_format_wait(ms, buf, len);
}

/*
 * Text from the record (reasons, user and host names) for a terminal,
 * escaped (esc.h), so a --reason or a planted record cannot move the
 * cursor.
 */
static void
put_text(FILE *f, const char *s)
{
	fputs(esc(s), f);
}

int
status_policy_of(struct cb_ctx *ctx, const char *name, struct cb_policy *p)
{
	struct policy_builder	b;
	struct cb_err		err;

	policy_init(&b);
	if (cmd_policy(ctx, name, &b) == -1)
		return -1;
	if (policy_finish(&b, p, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return -1;
	}
	return 0;
}

/*
 * The config's policy of a breaker (a table row, one that never ran).  Every name that one config entry matches
 * (or that none does) has the same policy, so it is built once per entry,
 * not once per breaker: a million rows spent 40% of their time there.
 */
const struct cb_policy *
status_row_policy(struct status_walk *w, const char *name)
{
	size_t	k;

	if (w->pol == NULL) {
		w->pol = xcalloc(w->ctx->cfg.nbreakers + 1, sizeof *w->pol);
		w->polset = xcalloc(w->ctx->cfg.nbreakers + 1, 1);
	}
	k = config_entry(&w->ctx->cfg, name);
	if (!w->polset[k]) {
		if (status_policy_of(w->ctx, name, &w->pol[k]) == -1)
			return NULL;
		w->polset[k] = 1;
	}
	return &w->pol[k];
}

int64_t
status_overdue(struct status_walk *w, const char *name, int64_t *every)
{
	const struct cb_policy	*cfg;
	struct cb_policy	 p;

	memset(&p, 0, sizeof p);
	/* What it last ran under; the config's for one that never ran. */
	if (w->rec.policy.set)
		p.expect_every_ms = w->rec.policy.expect_every_ms;
	else if ((cfg = status_row_policy(w, name)) != NULL)
		p.expect_every_ms = cfg->expect_every_ms;
	*every = p.expect_every_ms;
	return breaker_overdue(&w->rec, &p, w->now);
}

/* The effective policy in one line. */
static void
print_on_open(FILE *f, const char *what, enum cb_on_open how, int code)
{
	if (how == ON_OPEN_SKIP)
		fprintf(f, "; %s: skip (exit 0)", what);
	else
		fprintf(f, "; %s: fail (exit %d)", what, code);
}

/* probe_set: a probe command was set (the record keeps only that). */
static void
print_policy(FILE *f, const struct cb_policy *p, int probe_set)
{
	char	a[32], b[32];

	switch (p->trip_policy) {
	case TRIP_RATE:
		fprintf(f, "trip at %g%% failures of the last %u calls "
		    "(at least %u)", p->trip_failure_rate * 100,
		    p->trip_window, p->trip_min_calls);
		break;
	case TRIP_TIME:
		format_duration(p->trip_period_ms, a, sizeof a);
		fprintf(f, "trip after %u failure%s within %s",
		    p->trip_failures, p->trip_failures == 1 ? "" : "s", a);
		break;
	default:
		fprintf(f, "trip after %u consecutive failure%s",
		    p->trip_failures, p->trip_failures == 1 ? "" : "s");
		break;
	}
	format_duration(p->open_timeout_ms, a, sizeof a);
	fprintf(f, "; open %s", a);
	if (p->backoff != 1.0) {
		format_duration(p->max_open_timeout_ms, b, sizeof b);
		fprintf(f, ", x%g per failed probe up to %s", p->backoff, b);
	}
	if (p->jitter > 0)
		fprintf(f, ", jitter %g", p->jitter);
	fprintf(f, "; %u probe%s", p->half_open_max_calls,
	    p->half_open_max_calls == 1 ? "" : "s");
	if (probe_set) {
		format_duration(p->probe_timeout_ms, a, sizeof a);
		fprintf(f, " by the probe command (killed after %s)", a);
	}
	if (p->timeout_ms > 0) {
		format_duration(p->timeout_ms, a, sizeof a);
		fprintf(f, "; timeout %s", a);
		if (p->kill_after_ms > 0) {
			format_duration(p->kill_after_ms, b, sizeof b);
			fprintf(f, ", SIGKILL %s later", b);
		}
	}
	if (p->slow_call_ms > 0) {
		format_duration(p->slow_call_ms, a, sizeof a);
		fprintf(f, "; slower than %s fails", a);
	}
	if (preset_name(p->preset) != NULL)
		fprintf(f, "; preset %s", preset_name(p->preset));
	if (p->max_concurrent > 0) {
		fprintf(f, "; at most %u running", p->max_concurrent);
		print_on_open(f, "on busy", p->on_busy, p->open_exit_code);
	}
	print_on_open(f, "on open", p->on_open, p->open_exit_code);
	fputc('\n', f);
}

/* The exit code classes and what a timeout or a signal counts as. */
static void
print_codes(FILE *f, const struct cb_policy *p)
{
	static const char *const verdict[] = { "failure", "success", "ignored" };
	char	a[1200];

	label(f, "Codes");
	format_codes(&p->failure_codes, a, sizeof a);
	fprintf(f, "failure %s", a);
	format_codes(&p->success_codes, a, sizeof a);
	fprintf(f, ", success %s", a);
	format_codes(&p->ignore_codes, a, sizeof a);
	fprintf(f, ", ignored %s; timeout: %s, signal: %s\n", a,
	    verdict[p->timeout_is % 3], verdict[p->signal_is % 3]);
}

static void
print_strip(struct status_walk *w)
{
	static const char *const utf8[MARK_COUNT] = {
		"\xe2\x9c\x93",		/* U+2713 check mark */
		"\xe2\x9c\x97",		/* U+2717 ballot x */
		"\xe2\x8f\xb1",		/* U+23F1 stopwatch */
		"\xc2\xb7",		/* U+00B7 middle dot */
		"\xe2\x8a\x98"		/* U+2298 circled division slash */
	};
	static const char *const ascii[MARK_COUNT] = {
		"+", "x", "T", ".", "-"
	};
	static const char *const colour[MARK_COUNT] = {
		C_GREEN, C_RED, C_RED, C_DIM, C_YELLOW
	};
	static const char *const legend[MARK_COUNT] = {
		"success", "failure", "timeout",
		"ignored/interrupted/stale", "rejected"
	};
	/*
	 * A probe command's run (SPEC 2c), passed and failed: letters in
	 * every locale, as U+2714 and U+2718 were hard to tell from a run's
	 * U+2713 and U+2717 at a glance.
	 */
	static const char *const pmarks[2] = { "P", "F" };
	const struct cb_record	*r = &w->rec;
	const char *const	*marks = w->utf8 ? utf8 : ascii;
	const char		*glyph;
	FILE			*f = w->out;
	enum cb_mark		 m;
	size_t			 i;
	int			 probes = 0;

	label(f, "Runs");
	if (r->nruns == 0)
		fputs("none yet", f);
	for (i = 0; i < r->nruns; i++) {
		m = breaker_mark(r->runs[i]);
		glyph = marks[m];
		if ((r->runs[i] & RECORD_MARK_PROBE) && m != MARK_OTHER) {
			glyph = pmarks[m != MARK_SUCCESS];
			probes = 1;
		}
		fprintf(f, "%s%s%s", w->colour ? colour[m] : "", glyph,
		    w->colour ? C_RESET : "");
	}
	if (r->nruns == 0) {
		if (r->refused_since_run > 0)
			fprintf(f, " (%u refused)", r->refused_since_run);
		fputc('\n', f);
		return;
	}
	fprintf(f, "  (last %u, newest last", (unsigned)r->nruns);
	if (r->refused_since_run > 0)
		fprintf(f, "; %u refused since", r->refused_since_run);
	fputs(")\n", f);
	fprintf(f, "%*s", LABEL_W + 2, "");
	/* Refusals are a count, not marks, since record version 3. */
	for (i = 0; i < MARK_REJECTED; i++)
		fprintf(f, "%s%s %s", i ? "  " : "", marks[i], legend[i]);
	if (probes)
		fprintf(f, "  %s%s probe command passed/failed", pmarks[0],
		    pmarks[1]);
	fputc('\n', f);
}

/* When the breaker will next let a probe through. */
static void
print_next(struct status_walk *w, const struct cb_policy *p)
{
	const struct cb_record	*r = &w->rec;
	FILE			*f = w->out;
	char			 a[48], b[48], rate[160];
	int64_t			 lease = 0;
	size_t			 i;

	label(f, "Next probe");
	switch (r->state) {
	case STATE_CLOSED:
		fputs("- (closed: every call runs)\n", f);
		break;
	case STATE_OPEN:
		status_retry_in(r, w->now, a, sizeof a);
		local_time(r->open_until_ms, b, sizeof b);
		if (strcmp(a, "now") == 0)
			fprintf(f, "now (cool-down ended %s; the next call "
			    "probes)\n", b);
		else
			fprintf(f, "in %s, at %s", a, b);
		/* trip --on-open beats the policy's in this window (SPEC 1) */
		if (r->manual && r->manual_on_open != MANUAL_ON_OPEN_NONE)
			fputs(r->manual_on_open == MANUAL_ON_OPEN_SKIP ?
			    "; until then refused calls exit 0 silently" :
			    "; until then refused calls fail", f);
		fputc('\n', f);
		break;
	default:
		if (r->nslots < p->half_open_max_calls) {
			fprintf(f, "now (half-open: %u of %u probes running, "
			    "%u of %u succeeded)\n", (unsigned)r->nslots,
			    p->half_open_max_calls, r->half_open_successes,
			    p->half_open_max_calls);
			break;
		}
		for (i = 0; i < r->nslots; i++)
			if (lease == 0 || r->slots[i].lease_until_ms < lease)
				lease = r->slots[i].lease_until_ms;
		local_time(lease, b, sizeof b);
		fprintf(f, "when a probe ends (half-open: %u of %u running, "
		    "first lease ends %s)\n", (unsigned)r->nslots,
		    p->half_open_max_calls, b);
		break;
	}
	/* max_rate (SPEC 2d): the rate, and when its next turn comes. */
	if (breaker_rate_text(r, w->now, rate, sizeof rate)) {
		label(f, "Rate limit");
		fprintf(f, "%s\n", rate);
	}
}

static void
print_history(struct status_walk *w)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_histent	*h;
	FILE			*f = w->out;
	const char		*arrow = w->utf8 ? " \xe2\x86\x92 " : " -> ";
	char			 a[48], ft[32];
	size_t			 i;
	int			 n;

	if (r->nhist == 0) {
		fputs("\nTransitions: none yet\n", f);
		return;
	}
	fprintf(f, "\nTransitions (last %u, newest last):\n",
	    (unsigned)r->nhist);
	for (i = 0; i < r->nhist; i++) {
		h = &r->hist[i];
		local_time(h->at_ms, a, sizeof a);
		n = snprintf(ft, sizeof ft, "%s%s%s",
		    record_state_name(h->from), arrow,
		    record_state_name(h->to));
		/* Pad by columns, not bytes: the arrow is 3 bytes wide in
		 * UTF-8 and one column. */
		fprintf(f, "  %s  %s%*s  ", a, ft,
		    (w->utf8 ? 22 : 20) - n > 0 ? (w->utf8 ? 22 : 20) - n : 0,
		    "");
		put_text(f, h->reason);
		if (h->user[0] != '\0' && strstr(h->reason, h->user) == NULL) {
			fputs(" (by ", f);
			put_text(f, h->user);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

/* How long a run took, as a person reads it: "4ms", "1.2s", "2m5s". */
static void
took(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		snprintf(buf, len, "?");
	else if (ms < 1000)
		snprintf(buf, len, "%lldms", (long long)ms);
	else if (ms < 60000)
		snprintf(buf, len, "%.1fs", (double)ms / 1000);
	else
		format_duration(ms / 1000 * 1000, buf, len);
}

/* How a run ended: "exit 7", "timed out", "killed by SIGKILL". */
static void
ended(FILE *f, int timed_out, int sig, int exit_code)
{
	const char	*name;

	if (timed_out)
		fputs("timed out", f);
	else if (sig > 0 && (name = sigabbrev_np(sig)) != NULL)
		fprintf(f, "killed by SIG%s", name);
	else if (sig > 0)
		fprintf(f, "killed by signal %d", sig);
	else if (exit_code >= 0)
		fprintf(f, "exit %d", exit_code);
	else
		fputs("no exit status", f);
}

/* The last failure: when, how it ended, after how long. */
static void
print_last_failure(struct status_walk *w)
{
	const struct cb_lastfail	*lf = &w->rec.last_failure;
	FILE				*f = w->out;
	char				 a[48], b[48], c[48];

	if (lf->at_ms == 0)
		return;
	label(f, "Failed");
	local_time(lf->at_ms, a, sizeof a);
	status_ago(w->now, lf->at_ms, b, sizeof b);
	took(lf->duration_ms, c, sizeof c);
	fprintf(f, "%s (%s): ", a, b);
	ended(f, lf->timed_out, (int)lf->signal, (int)lf->exit_code);
	fprintf(f, " after %s\n", c);
}

/* Who ran the last run, and when the last success was (SPEC 7). */
static void
print_run_by(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_runby	*by = &r->last_run_by;
	FILE			*f = w->out;
	char			 a[48], b[48];
	int64_t			 late, every;

	if (by->user[0] != '\0' || by->host[0] != '\0' ||
	    by->argv0[0] != '\0') {
		label(f, "Run by");
		put_text(f, by->user[0] != '\0' ? by->user : "?");
		fputs(" on ", f);
		put_text(f, by->host[0] != '\0' ? by->host : "?");
		if (by->argv0[0] != '\0') {
			fputs(": ", f);
			put_text(f, by->argv0);
		}
		fputc('\n', f);
	}
	if (r->last_run_at_ms == 0)
		return;
	label(f, "Succeeded");
	if (r->last_success_ms > 0) {
		local_time(r->last_success_ms, a, sizeof a);
		status_ago(w->now, r->last_success_ms, b, sizeof b);
		fprintf(f, "%s (%s)", a, b);
	} else
		fputs("never", f);
	/* expect_every (SPEC 7). */
	if ((late = status_overdue(w, name, &every)) > 0) {
		format_duration(every, a, sizeof a);
		format_duration(late - late % 1000, b, sizeof b);
		fprintf(f, "; expected every %s: overdue %s", a, b);
	}
	fputc('\n', f);
}

/* The live run slots' holders (max_concurrent). */
static void
print_running(struct status_walk *w)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_slot	*s;
	FILE			*f = w->out;
	char			 a[48], b[48];
	unsigned		 i, n = 0;

	for (i = 0; i < r->nrunning; i++) {
		s = &r->running[i];
		if (!breaker_slot_live(s, &w->env))
			continue;
		if (n++ == 0)
			label(f, "Running");
		else
			fprintf(f, "%*s", LABEL_W + 2, "");
		local_time(s->since_ms, a, sizeof a);
		local_time(s->lease_until_ms, b, sizeof b);
		fprintf(f, "pid %d", (int)s->pid);
		if (s->pidns != 0 && s->pidns != cmd_pidns(w->ctx))
			fprintf(f, " in pid:[%llu]",
			    (unsigned long long)s->pidns);
		if (s->host[0] != '\0') {
			fputs(" on ", f);
			put_text(f, s->host);
		}
		fprintf(f, " since %s, lease until %s\n", a, b);
	}
}

int
status_text_detail(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	FILE			*f = w->out;
	struct cb_policy	 cfg, p;
	char			 a[48], b[48], c[48];

	/* What the breaker last ran under, command line included (SPEC 7);
	 * the config's guess for one that never ran. */
	if (status_policy_of(w->ctx, name, &cfg) == -1)
		return -1;
	breaker_policy(r, &cfg, &p);
	fprintf(f, "%s%s%s %s%s%s - %s%s%s (epoch %llu)\n",
	    w->colour ? state_colour[r->state] : "",
	    w->utf8 ? "\xe2\x97\x8f" : "*", w->colour ? C_RESET : "",
	    w->colour ? C_BOLD : "", esc(name), w->colour ? C_RESET : "",
	    w->colour ? state_colour[r->state] : "",
	    record_state_name(r->state), w->colour ? C_RESET : "",
	    (unsigned long long)r->epoch);

	label(f, "State");
	fprintf(f, "%s%s%s", w->colour ? state_colour[r->state] : "",
	    record_state_name(r->state), w->colour ? C_RESET : "");
	local_time(r->changed_at_ms, a, sizeof a);
	status_ago(w->now, r->changed_at_ms, b, sizeof b);
	fprintf(f, " since %s (%s)", a, b);
	if (breaker_never_changed(r))
		fputs(", when it was created", f);
	if (r->reason[0] != '\0') {
		fputs(": ", f);
		put_text(f, r->reason);
	}
	fputc('\n', f);

	print_next(w, &p);

	breaker_progress(r, &p, w->now, a, sizeof a);
	label(f, "Failures");
	fprintf(f, "%s toward tripping (%s)\n", a,
	    breaker_trip_policy_name(p.trip_policy));
	label(f, "Policy");
	print_policy(f, &p, r->policy.full ? r->policy.probe_set :
	    p.probe != NULL);
	print_codes(f, &p);
	print_running(w);

	print_strip(w);
	label(f, "Totals");
	fprintf(f, "%llu call%s: %llu success%s, %llu failure%s "
	    "(%llu timeout%s), %llu ignored, %llu interrupted, %llu stale; "
	    "%llu rejected",
	    (unsigned long long)r->calls, r->calls == 1 ? "" : "s",
	    (unsigned long long)r->successes, r->successes == 1 ? "" : "es",
	    (unsigned long long)r->failures, r->failures == 1 ? "" : "s",
	    (unsigned long long)r->timeouts, r->timeouts == 1 ? "" : "s",
	    (unsigned long long)r->ignored,
	    (unsigned long long)r->interrupted,
	    (unsigned long long)r->stale, (unsigned long long)r->rejected);
	/* Refused with every run slot taken (SPEC 2b), apart from rejected. */
	if (r->busy > 0 || p.max_concurrent > 0)
		fprintf(f, ", %llu busy", (unsigned long long)r->busy);
	fputc('\n', f);
	label(f, "Last run");
	if (r->last_run_at_ms > 0) {
		local_time(r->last_run_at_ms, a, sizeof a);
		status_ago(w->now, r->last_run_at_ms, b, sizeof b);
		took(r->last_duration_ms, c, sizeof c);
		fprintf(f, "%s (%s): ", a, b);
		/* 124 and 128+N are cbexec's words for a timeout and a
		 * signal, not the command's exit: the last failure, or the
		 * run's mark, says which it was. */
		if (r->last_failure.at_ms == r->last_run_at_ms)
			ended(f, r->last_failure.timed_out,
			    (int)r->last_failure.signal, (int)r->last_exit);
		else
			ended(f, r->nruns > 0 && r->run_at_ms[r->nruns - 1] ==
			    r->last_run_at_ms && (r->runs[r->nruns - 1] &
			    RECORD_MARK_TIMEOUT), 0, (int)r->last_exit);
		fprintf(f, " after %s\n", c);
	} else
		fputs("none yet\n", f);
	print_run_by(w, name);
	print_last_failure(w);
	print_history(w);
	return 0;
}
