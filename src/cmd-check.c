/*
 * cmd-check.c: `cbexec check NAME`: would a call be admitted now?  Exits 0
 * or open_exit_code, for ExecCondition= in systemd units and `if` in
 * scripts.  Reads only: takes no probe slot and writes nothing.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "record.h"

static int
cmd_check_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	static struct cb_record	 r;
	struct policy_builder	 b;
	struct cb_policy	 p;
	struct cb_env		 env;
	struct cb_slot		 self;
	struct cb_ticket	 t;
	struct cb_buf		 buf = { 0 };
	struct cb_err		 err;
	struct store		*store;
	int			 missing, found, status;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		printf("usage: cbexec check %s\n%s", cmd_check_entry.usage,
		    cmd_check_entry.help);
		return EXIT_OK;
	}
	if (argc != 2)
		return cmd_usage(&cmd_check_entry, EXIT_USAGE);
	if (cmd_name_valid(argv[1], &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_USAGE;
	}
	policy_init(&b);
	if (cmd_policy(ctx, argv[1], &b) == -1)
		return EXIT_FAIL;
	if (policy_finish(&b, &p, &err) == -1) {
		cmd_warnx("%s: %s", argv[1], err.msg);
		return EXIT_FAIL;
	}
	if ((store = cmd_store(ctx, 1, &missing, &err)) == NULL) {
		if (missing)
			return EXIT_OK;
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	if ((found = store_get(store, argv[1], &buf, &err)) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	if (found == 0) {
		buf_free(&buf);
		return EXIT_OK;
	}
	if (cmd_decode(ctx, argv[1], buf.data, buf.len, &r, &err) == -1) {
		buf_free(&buf);
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	buf_free(&buf);

	/* Admit a copy that is never written back: no slot is taken. */
	cmd_env(ctx, &env);
	memset(&self, 0, sizeof self);
	self.lease_until_ms = env.now_ms + 1;
	breaker_admit(&r, &p, &env, &self, &t, NULL);
	status = t.admitted ? EXIT_OK : p.open_exit_code;
	if (ctx->verbose)
		cmd_warnx("%s: %s", argv[1], t.admitted ? "would be admitted" :
		    "would be refused");
	return status;
}

const struct cmd_entry cmd_check_entry = {
	"check",
	"NAME",
	"exit 0 if a call would be admitted now, 75 if not",
	"Exits 0 when a call to NAME would run now and open_exit_code (75)\n"
	"when it would be refused.  Takes no probe slot, changes nothing.\n",
	cmd_check_exec
};
