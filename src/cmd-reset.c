/* SPDX-License-Identifier: ISC */
/*
 * cmd-reset.c: `cbexec reset NAME|GLOB... [--reason TEXT]`: close
 * breakers by hand, clearing their failure counts and backoff.
 */
#include <stdio.h>

#include "breaker.h"
#include "cmd.h"

static int
reset_one(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct admin_args *a, const char *reason,
    struct cb_effects *fx)
{
	(void)a;
	return breaker_reset(r, p, env, reason, cmd_user(), fx);
}

static int
cmd_reset_exec(struct cb_ctx *ctx, struct cmd_args *ca)
{
	struct admin_args	a;

	if (admin_parse(ca, &a) == -1)
		return EXIT_USAGE;
	return admin_each(ctx, &a, "reset", 0, reset_one);
}

const struct cmd_entry cmd_reset_entry = {
	"reset",
	"NAME|GLOB... [--reason TEXT]",
	"close breakers by hand",
	"      --reason TEXT  why, kept with the transition\n"
	"Closes each NAME, clearing its failure counts and backoff, and names\n"
	"it on stdout (not with -q); a closed one is left as it is (\"NAME:\n"
	"already closed\"); a NAME that is not there exits 1.  A GLOB\n"
	"(fnmatch pattern: *, ? or [) closes every breaker it matches; one\n"
	"that matches nothing exits 1.\n",
	{ admin_grammar_reason, 1, -1, 0, NULL },
	0,
	NULL,
	cmd_reset_exec
};
