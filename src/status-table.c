/* SPDX-License-Identifier: ISC */
/*
 * status-table.c: the table of `status` for people (NAME, STATE,
 * FAILURES, CALLS, REJECTED, CHANGED, RETRY-IN), kept row by row and
 * written after the walk so that its columns fit.  STATE marks a state
 * set by hand ("open (manual)") and the runs in flight that hold a slot
 * ("closed, 1 running").  Colour only when status.c says the output is a
 * terminal that wants it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "config.h"
#include "esc.h"
#include "record.h"
#include "status.h"

struct status_row {
	char	*name;
	char	 state[64];
	char	 failures[48];
	char	 calls[24];
	char	 rejected[24];
	char	 changed[24];
	char	 retry[24];
	int	 st;
};

#define C_RESET		"\033[0m"

static const char *const state_colour[STATE_COUNT] = {
	"\033[32m", "\033[31m", "\033[33m"
};

/* The runs in flight: live run slots, and live probe slots that hold no
 * run slot too (a closed run without max_concurrent holds none). */
static unsigned
table_running(const struct status_walk *w)
{
	const struct cb_record	*r = &w->rec;
	unsigned		 i, j, n = 0;

	for (i = 0; i < r->nrunning; i++)
		if (breaker_slot_live(&r->running[i], &w->env))
			n++;
	for (i = 0; i < r->nslots; i++) {
		for (j = 0; j < r->nrunning; j++)
			if (r->running[j].token == r->slots[i].token)
				break;
		if (j == r->nrunning && breaker_slot_live(&r->slots[i],
		    &w->env))
			n++;
	}
	return n;
}

int
status_table_add(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_policy	*cfg;
	struct cb_policy	 p;
	struct status_row		*row;
	unsigned		 n;
	int64_t			 late, next;
	char			 d[32];

	if ((cfg = status_row_policy(w, name)) == NULL)
		return -1;
	breaker_policy(r, cfg, &p);
	if (w->nrows == w->caprows) {
		w->caprows = w->caprows ? w->caprows * 2 : 64;
		w->rows = xrealloc(w->rows, w->caprows * sizeof *w->rows);
	}
	row = &w->rows[w->nrows++];
	row->name = xstrdup(esc(name));	/* a NAME: as it is (keys.c) */
	row->st = r->state;
	/* Opened by trip: maintenance, not an outage.  Runs in flight: those
	 * holding a slot (SPEC 7). */
	n = table_running(w);
	snprintf(row->state, sizeof row->state, "%s%s", record_state_name(
	    r->state), r->manual && r->state == STATE_OPEN ? " (manual)" : "");
	if (n > 0)
		snprintf(row->state + strlen(row->state), sizeof row->state -
		    strlen(row->state), ", %u running", n);
	if ((late = breaker_overdue(r, &p, w->now)) > 0) {
		format_duration(late - late % 60000 > 0 ? late - late % 60000 :
		    late - late % 1000, d, sizeof d);
		snprintf(row->state + strlen(row->state), sizeof row->state -
		    strlen(row->state), ", overdue %s", d);
	}
	breaker_progress(r, &p, w->now, row->failures, sizeof row->failures);
	snprintf(row->calls, sizeof row->calls, "%llu",
	    (unsigned long long)r->calls);
	snprintf(row->rejected, sizeof row->rejected, "%llu",
	    (unsigned long long)r->rejected);
	/* CHANGED: "-" for a breaker that never made a transition. */
	status_ago(w->now, breaker_never_changed(r) ? 0 : r->changed_at_ms,
	    row->changed, sizeof row->changed);
	status_retry_in(r, w->now, row->retry, sizeof row->retry);
	/* Closed, but max_rate's next turn is later (SPEC 2d). */
	if (r->state == STATE_CLOSED && (next = breaker_rate_next(r,
	    w->now)) > w->now)
		breaker_rate_wait_text(next - w->now, row->retry,
		    sizeof row->retry);
	return 0;
}

void
status_table_print(struct status_walk *w)
{
	static const char	*hdr[] = { "NAME", "STATE", "FAILURES",
	    "CALLS", "REJECTED", "CHANGED", "RETRY-IN" };
	FILE			*f = w->out;
	size_t			 i, wd[7];
	struct status_row		*r;

	for (i = 0; i < 7; i++)
		wd[i] = strlen(hdr[i]);
	for (i = 0; i < w->nrows; i++) {
		r = &w->rows[i];
		if (strlen(r->name) > wd[0])
			wd[0] = strlen(r->name);
		if (strlen(r->failures) > wd[2])
			wd[2] = strlen(r->failures);
		if (strlen(r->calls) > wd[3])
			wd[3] = strlen(r->calls);
		if (strlen(r->rejected) > wd[4])
			wd[4] = strlen(r->rejected);
		if (strlen(r->changed) > wd[5])
			wd[5] = strlen(r->changed);
		if (strlen(r->state) > wd[1])
			wd[1] = strlen(r->state);
	}
	if (wd[1] < 9)
		wd[1] = 9;
	fprintf(f, "%-*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", (int)wd[0],
	    hdr[0], (int)wd[1], hdr[1], (int)wd[2], hdr[2], (int)wd[3],
	    hdr[3], (int)wd[4], hdr[4], (int)wd[5], hdr[5], hdr[6]);
	for (i = 0; i < w->nrows; i++) {
		r = &w->rows[i];
		fprintf(f, "%-*s  %s%-*s%s  %-*s  %*s  %*s  %-*s  %s\n",
		    (int)wd[0], r->name, w->colour ? state_colour[r->st] : "",
		    (int)wd[1], r->state, w->colour ? C_RESET : "",
		    (int)wd[2], r->failures, (int)wd[3], r->calls,
		    (int)wd[4], r->rejected, (int)wd[5], r->changed,
		    r->retry);
	}
}

void
status_table_free(struct status_walk *w)
{
	size_t	i;

	for (i = 0; i < w->nrows; i++)
		free(w->rows[i].name);
	free(w->rows);
	free(w->pol);
	free(w->polset);
}
