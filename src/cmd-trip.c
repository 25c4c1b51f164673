/* SPDX-License-Identifier: ISC */
/*
 * cmd-trip.c: `cbexec trip NAME|GLOB... [--for D] [--reason TEXT]
 * [--on-open fail|skip]`: open breakers by hand, for a maintenance window
 * or a known outage.  A NAME not yet known is created open; a GLOB opens
 * the breakers it matches.  Without --for a trip never shortens a window
 * already open; --on-open skip makes the calls refused during this
 * manual window exit 0 silently (SPEC section 1).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "record.h"

static const struct cmd_opt trip_grammar[] = {
	{ "for",	0, 'f', required_argument },
	{ "reason",	0, 'r', required_argument },
	{ "on-open",	0, 'O', required_argument },
	{ NULL,		0, 0,   0 }
};

static int
trip_one(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct admin_args *a, const char *reason,
    struct cb_effects *fx)
{
	breaker_trip(r, p, env, a->for_ms, reason, cmd_user(), fx);
	breaker_trip_on_open(r, a->on_open);
	return 1;
}

static int
cmd_trip_exec(struct cb_ctx *ctx, struct cmd_args *ca)
{
	struct admin_args	 a;
	const char		*v;

	if (admin_parse(ca, &a) == -1)
		return EXIT_USAGE;
	if ((v = cmd_arg(ca, 'O')) != NULL) {
		if (strcmp(v, "fail") == 0)
			a.on_open = MANUAL_ON_OPEN_FAIL;
		else if (strcmp(v, "skip") == 0)
			a.on_open = MANUAL_ON_OPEN_SKIP;
		else {
			cmd_warnx("trip: --on-open must be fail or skip, not "
			    "'%.80s'", v);
			return cmd_usage(&cmd_trip_entry, EXIT_USAGE);
		}
	}
	return admin_each(ctx, &a, "trip", 1, trip_one);
}

const struct cmd_entry cmd_trip_entry = {
	"trip",
	"NAME|GLOB... [--for D] [--reason TEXT] [--on-open fail|skip]",
	"open breakers by hand",
	"      --for D          stay open for D exactly, more than 0\n"
	"                       (default: the current cool-down, never less\n"
	"                       than a window already open)\n"
	"      --reason TEXT    why, kept with the transition\n"
	"      --on-open fail|skip\n"
	"                       how calls refused in this window exit: as\n"
	"                       on_open fail, or 0 silently (a maintenance\n"
	"                       window that mails nothing); the breaker's own\n"
	"                       on_open again once it leaves the window\n"
	"Opens each NAME (creating it if unknown) and names it on stdout (not\n"
	"with -q); the usual half-open cycle follows.  Calls running under\n"
	"the old state are counted as stale.  A GLOB (fnmatch pattern: *, ?\n"
	"or [) opens every existing breaker it matches; one that matches\n"
	"nothing exits 1.\n",
	{ trip_grammar, 1, -1, 0, NULL },
	0,
	NULL,
	cmd_trip_exec
};
