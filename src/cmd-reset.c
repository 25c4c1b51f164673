/*
 * cmd-reset.c: `cbexec reset NAME|GLOB... [--reason TEXT]`: close
 * breakers by hand, clearing their failure counts and backoff.
 */
#include <stdio.h>

#include "breaker.h"
#include "cmd.h"

static void
reset_one(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct admin_args *a, const char *reason,
    struct cb_effects *fx)
{
	(void)a;
	breaker_reset(r, p, env, reason, cmd_user(), fx);
}

static int
cmd_reset_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	struct admin_args	a = { .want_reason = 1 };
	int			r;

	if ((r = admin_parse(&cmd_reset_entry, argc, argv, &a)) != 0)
		return r == 1 ? EXIT_OK : EXIT_USAGE;
	return admin_each(ctx, &a, "reset", 0, reset_one);
}

const struct cmd_entry cmd_reset_entry = {
	"reset",
	"NAME|GLOB... [--reason TEXT]",
	"close breakers by hand",
	"      --reason TEXT  why, kept with the transition\n"
	"Closes each NAME, clearing its failure counts and backoff; a NAME\n"
	"that is not there exits 1.  A GLOB (fnmatch pattern: *, ? or [)\n"
	"closes every breaker it matches, naming each on stdout (not with\n"
	"-q); one that matches nothing exits 1.\n",
	cmd_reset_exec
};
