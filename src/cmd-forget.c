/* SPDX-License-Identifier: ISC */
/*
 * cmd-forget.c: `cbexec forget NAME|GLOB...`: remove breakers and all
 * they remember.  A run in flight when its breaker is forgotten counts nowhere.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

struct forget_step {
	int	found;
};

static int
forget_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct forget_step	*st = arg;

	(void)oldlen;
	(void)out;
	(void)err;
	st->found = old != NULL;
	return st->found ? STORE_DELETE : STORE_KEEP;
}

static int
cmd_forget_exec(struct cb_ctx *ctx, struct cmd_args *ca)
{
	struct admin_args	 a;
	struct admin_targets	 t;
	struct forget_step	 st;
	struct cb_err		 err;
	struct store		*store;
	size_t			 i;
	int			 r, status = EXIT_OK;

	if (admin_parse(ca, &a) == -1)
		return EXIT_USAGE;
	if ((store = cmd_store(ctx, 0, &err)) == NULL) {
		cmd_store_error(ctx, &err);
		return EXIT_FAIL;
	}
	if ((r = admin_targets(ctx, store, &a, &t)) == -1)
		return EXIT_FAIL;
	if (r == 1)
		status = EXIT_FAIL;
	for (i = 0; i < t.n; i++) {
		memset(&st, 0, sizeof st);
		if (store_update(store, t.v[i].name, forget_cb, &st,
		    &err) == -1) {
			cmd_warnx("%s", err.msg);
			status = EXIT_FAIL;
		} else if (st.found)
			admin_done(ctx, &t.v[i]);
		else if (t.v[i].exact) {
			cmd_warnx("no such breaker '%s'", t.v[i].name);
			status = EXIT_FAIL;
		}
	}
	admin_targets_free(&t);
	if (fflush(stdout) == EOF) {
		cmd_warn("forget: stdout");
		status = EXIT_FAIL;
	}
	return status;
}

const struct cmd_entry cmd_forget_entry = {
	"forget",
	"NAME|GLOB...",
	"remove breakers and their history",
	"Removes each NAME from the state file; a NAME that is not there\n"
	"exits 1.  A GLOB (fnmatch pattern: *, ? or [) removes every breaker\n"
	"it matches, naming each on stdout (not with -q); one that matches\n"
	"nothing exits 1.\n",
	{ NULL, 1, -1, 0, NULL },
	0,
	NULL,
	cmd_forget_exec
};
