/* SPDX-License-Identifier: ISC */
/*
 * status-prom.c: `status --prometheus`, the text exposition format for
 * node_exporter's textfile collector.  Samples are grouped by metric
 * family, so every breaker is kept (struct status_prow, its name escaped
 * once) until the walk ends, then the families are written into the one
 * output buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "esc.h"
#include "out.h"
#include "record.h"
#include "status.h"
#include "util.h"

/* What --prometheus prints of one breaker. */
struct status_prow {
	char		*name;		/* escaped as a label value */
	size_t		 namelen;
	enum cb_state	 st;
	uint64_t	 n[OUTCOME_COUNT];	/* by enum cb_outcome */
	uint64_t	 timeouts;
	uint64_t	 trans[STATE_COUNT];
	uint32_t	 consecutive;
	int64_t		 open_until_ms;		/* 0 unless open */
	int64_t		 last_run_ms;
	int64_t		 last_success_ms;	/* 0: never */
	int64_t		 last_duration_ms;	/* -1: no run yet */
	int64_t		 last_transition_ms;	/* 0: never changed */
	uint64_t	 busy;
	uint64_t	 rate_limited;		/* max_rate (SPEC 2d) */
	int		 manual;
	unsigned	 running;		/* live run slots */
	int64_t		 expect_every_ms;	/* 0: none */
	int		 overdue;
};

/*
 * A label value in the exposition format: escaped for people first
 * (esc.h: no control byte, valid UTF-8 as the format demands), then \ "
 * and newline as the format escapes them.  Done once per breaker: its
 * name appears in 20 samples.
 */
static char *
prom_label(const char *s)
{
	char	*e, *p;

	s = esc(s);
	p = e = xmalloc(2 * strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			*p++ = '\\';
			*p++ = *s == '\n' ? 'n' : *s;
		} else
			*p++ = *s;
	}
	*p = '\0';
	return e;
}

void
status_prom_add(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	struct status_prow	*pr;
	unsigned		 i;

	if (w->nprows == w->capprows) {
		w->capprows = w->capprows ? w->capprows * 2 : 64;
		w->prows = xrealloc(w->prows, w->capprows * sizeof *w->prows);
	}
	pr = &w->prows[w->nprows++];
	memset(pr, 0, sizeof *pr);
	pr->name = prom_label(name);
	pr->namelen = strlen(pr->name);
	pr->st = r->state;
	pr->n[OUTCOME_SUCCESS] = r->successes;
	pr->n[OUTCOME_FAILURE] = r->failures;
	pr->n[OUTCOME_IGNORED] = r->ignored;
	pr->n[OUTCOME_INTERRUPTED] = r->interrupted;
	pr->n[OUTCOME_STALE] = r->stale;
	pr->n[OUTCOME_REJECTED] = r->rejected;
	pr->timeouts = r->timeouts;
	memcpy(pr->trans, r->transitions, sizeof pr->trans);
	pr->consecutive = r->consecutive_failures;
	pr->open_until_ms = r->state == STATE_OPEN ? r->open_until_ms : 0;
	pr->last_run_ms = r->last_run_at_ms;
	pr->last_success_ms = r->last_success_ms;
	pr->last_duration_ms = r->last_duration_ms;
	pr->last_transition_ms = breaker_never_changed(r) ? 0 :
	    r->changed_at_ms;
	pr->busy = r->busy;
	pr->rate_limited = r->rate_limited;
	pr->manual = r->manual;
	for (i = 0; i < r->nrunning; i++)
		if (breaker_slot_live(&r->running[i], &w->env))
			pr->running++;
	pr->overdue = status_overdue(w, name, &pr->expect_every_ms) > 0;
}

static void
prom_family(struct obuf *o, const char *metric, const char *type,
    const char *help)
{
	OUT_LIT(o, "# HELP ");
	out_str(o, metric);
	OUT_LIT(o, " ");
	out_str(o, help);
	OUT_LIT(o, "\n# TYPE ");
	out_str(o, metric);
	OUT_LIT(o, " ");
	out_str(o, type);
	OUT_LIT(o, "\n");
}

/* metric{name="NAME"[,label="value"]} (name already escaped); the
 * metric is a literal, its length known at compile time. */
#define PROM_SAMPLE(o, metric, pr, label, value) \
	prom_sample_len((o), "" metric, sizeof(metric) - 1, (pr), (label), \
	    (value))

static void
prom_sample_len(struct obuf *o, const char *metric, size_t metriclen,
    const struct status_prow *pr, const char *label, const char *value)
{
	out_add(o, metric, metriclen);
	OUT_LIT(o, "{name=\"");
	out_add(o, pr->name, pr->namelen);
	if (label != NULL) {
		OUT_LIT(o, "\",");
		out_str(o, label);
		OUT_LIT(o, "=\"");
		out_str(o, value);	/* a state or outcome: no escapes */
	}
	OUT_LIT(o, "\"} ");
}

static void
prom_u64(struct obuf *o, uint64_t v)
{
	out_u64(o, v);
	OUT_LIT(o, "\n");
}

/* Unix seconds with milliseconds, "0" for none. */
static void
prom_time(struct obuf *o, int64_t ms)
{
	if (ms <= 0) {
		OUT_LIT(o, "0\n");
		return;
	}
	out_seconds(o, ms);
	OUT_LIT(o, "\n");
}

/* The state and the counters. */
static void
prom_counters(struct status_walk *w)
{
	static const enum cb_outcome	 outs[] = { OUTCOME_SUCCESS,
	    OUTCOME_FAILURE, OUTCOME_IGNORED, OUTCOME_INTERRUPTED,
	    OUTCOME_STALE };
	struct obuf			*o = w->ob;
	const struct status_prow	*pr;
	size_t				 i, j;
	int				 s;

	prom_family(o, "cbexec_breaker_state", "gauge",
	    "Breaker state: 1 for the current state, 0 for the others.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (s = 0; s < STATE_COUNT; s++) {
			PROM_SAMPLE(o, "cbexec_breaker_state", pr,
			    "state", record_state_name((enum cb_state)s));
			prom_u64(o, pr->st == (enum cb_state)s);
		}
	}
	prom_family(o, "cbexec_calls_total", "counter",
	    "Runs that ran, by outcome.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (j = 0; j < sizeof outs / sizeof outs[0]; j++) {
			PROM_SAMPLE(o, "cbexec_calls_total", pr,
			    "outcome", breaker_outcome_name(outs[j]));
			prom_u64(o, pr->n[outs[j]]);
		}
	}
	prom_family(o, "cbexec_refused_total", "counter",
	    "Calls refused without running: why=\"open\" by an open "
	    "breaker or no free probe slot, why=\"busy\" with every run "
	    "slot taken.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_refused_total", pr, "why", "open");
		prom_u64(o, pr->n[OUTCOME_REJECTED]);
		PROM_SAMPLE(o, "cbexec_refused_total", pr, "why", "busy");
		prom_u64(o, pr->busy);
	}
	prom_family(o, "cbexec_rate_limited_total", "counter",
	    "Calls refused by max_rate without running: neither a failure "
	    "nor a rejection.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_rate_limited_total", pr, NULL, NULL);
		prom_u64(o, pr->rate_limited);
	}
	prom_family(o, "cbexec_timeouts_total", "counter",
	    "Runs that timed out, also counted in cbexec_calls_total under "
	    "the outcome timeout_is gives them.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_timeouts_total", pr, NULL, NULL);
		prom_u64(o, pr->timeouts);
	}
	prom_family(o, "cbexec_transitions_total", "counter",
	    "Transitions by the state they entered.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (s = 0; s < STATE_COUNT; s++) {
			PROM_SAMPLE(o, "cbexec_transitions_total", pr,
			    "to", record_state_name((enum cb_state)s));
			prom_u64(o, pr->trans[s]);
		}
	}
}

/* The gauges besides the state. */
static void
prom_gauges(struct status_walk *w)
{
	struct obuf			*o = w->ob;
	const struct status_prow	*pr;
	size_t				 i;

	prom_family(o, "cbexec_consecutive_failures", "gauge",
	    "Failures in a row since the last success.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_consecutive_failures", pr, NULL, NULL);
		prom_u64(o, pr->consecutive);
	}
	prom_family(o, "cbexec_open_until_seconds", "gauge",
	    "When an open breaker lets the next probe through, as Unix "
	    "time; 0 when not open.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_open_until_seconds", pr, NULL, NULL);
		prom_time(o, pr->open_until_ms);
	}
	prom_family(o, "cbexec_last_transition_seconds", "gauge",
	    "When the breaker last changed state, as Unix time; 0 when it "
	    "never did.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_last_transition_seconds", pr, NULL,
		    NULL);
		prom_time(o, pr->last_transition_ms);
	}
	prom_family(o, "cbexec_manual", "gauge",
	    "1 while the current state was set by cbexec trip or reset "
	    "(maintenance, not an outage), else 0.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_manual", pr, NULL, NULL);
		prom_u64(o, (uint64_t)pr->manual);
	}
	prom_family(o, "cbexec_running", "gauge",
	    "Run slots held by live holders (max_concurrent).");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_running", pr, NULL, NULL);
		prom_u64(o, pr->running);
	}
	prom_family(o, "cbexec_last_run_timestamp_seconds", "gauge",
	    "When the last guarded run ended, as Unix time; 0 before the "
	    "first.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_last_run_timestamp_seconds", pr, NULL,
		    NULL);
		prom_time(o, pr->last_run_ms);
	}
}

/* Freshness (SPEC 7): the last success and how long the last run took,
 * for "no success for a day". */
static void
prom_freshness(struct status_walk *w)
{
	const struct status_prow	*pr;
	struct obuf			*o = w->ob;
	size_t				 i;

	prom_family(o, "cbexec_last_success_timestamp_seconds", "gauge",
	    "When the last run that succeeded ended, as Unix time; 0 before "
	    "the first.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_last_success_timestamp_seconds", pr,
		    NULL, NULL);
		prom_time(o, pr->last_success_ms);
	}
	/* SPEC 7: one rule for a job of any period, cbexec_overdue == 1. */
	prom_family(o, "cbexec_expected_interval_seconds", "gauge",
	    "expect_every: a success is expected at least this often; 0 "
	    "when none is.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_expected_interval_seconds", pr, NULL,
		    NULL);
		prom_time(o, pr->expect_every_ms);
	}
	prom_family(o, "cbexec_overdue", "gauge",
	    "1 when expect_every has passed since the last success (or "
	    "since the breaker was made, if it never succeeded), else 0.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_overdue", pr, NULL, NULL);
		if (pr->overdue)
			OUT_LIT(o, "1\n");
		else
			OUT_LIT(o, "0\n");
	}
	prom_family(o, "cbexec_last_duration_seconds", "gauge",
	    "How long the last guarded run took; 0 before the first.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_last_duration_seconds", pr, NULL, NULL);
		if (pr->last_duration_ms > 0)
			prom_time(o, pr->last_duration_ms);
		else
			OUT_LIT(o, "0\n");
	}
}

void
status_prom_print(struct status_walk *w)
{
	prom_counters(w);
	prom_gauges(w);
	prom_freshness(w);
	/* SPEC section 4: an alert when the config file cannot be used. */
	prom_family(w->ob, "cbexec_config_ok", "gauge",
	    "1 when the config file is fine (or there is none), 0 when it "
	    "has a problem and each breaker runs under the policy it last "
	    "ran under.");
	if (w->ctx->cfg_broken)
		OUT_LIT(w->ob, "cbexec_config_ok 0\n");
	else
		OUT_LIT(w->ob, "cbexec_config_ok 1\n");
	/* SPEC 7: an exporter outside the group cbexec exports nothing. */
	prom_family(w->ob, "cbexec_state_readable", "gauge",
	    "0 when the shared state /var/lib/cbexec/state.mdb is there but "
	    "not readable to this user (not in group cbexec) and the state "
	    "shown is empty, else 1.");
	if (w->unreadable_shared)
		OUT_LIT(w->ob, "cbexec_state_readable 0\n");
	else
		OUT_LIT(w->ob, "cbexec_state_readable 1\n");
}

void
status_prom_free(struct status_walk *w)
{
	size_t	i;

	for (i = 0; i < w->nprows; i++)
		free(w->prows[i].name);
	free(w->prows);
}
