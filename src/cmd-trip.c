/* SPDX-License-Identifier: ISC */
/*
 * cmd-trip.c: `cbexec trip NAME|GLOB... [--for D] [--reason TEXT]`: open
 * breakers by hand, for a maintenance window or a known outage.  A NAME
 * not yet known is created open; a GLOB opens the breakers it matches.
 */
#include <stdio.h>

#include "breaker.h"
#include "cmd.h"

static void
trip_one(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct admin_args *a, const char *reason,
    struct cb_effects *fx)
{
	breaker_trip(r, p, env, a->for_ms, reason, cmd_user(), fx);
}

static int
cmd_trip_exec(struct cb_ctx *ctx, struct cmd_args *ca)
{
	struct admin_args	a;

	if (admin_parse(ca, &a) == -1)
		return EXIT_USAGE;
	return admin_each(ctx, &a, "trip", 1, trip_one);
}

const struct cmd_entry cmd_trip_entry = {
	"trip",
	"NAME|GLOB... [--for D] [--reason TEXT]",
	"open breakers by hand",
	"      --for D        stay open for D, more than 0 (default: the\n"
	"                     current cool-down)\n"
	"      --reason TEXT  why, kept with the transition\n"
	"Opens each NAME (creating it if unknown); the usual half-open cycle\n"
	"follows.  Calls running under the old state are counted as stale.\n"
	"A GLOB (fnmatch pattern: *, ? or [) opens every existing breaker it\n"
	"matches, naming each on stdout (not with -q); one that matches\n"
	"nothing exits 1.\n",
	{ admin_grammar_trip, 1, -1, 0, NULL },
	0,
	NULL,
	cmd_trip_exec
};
