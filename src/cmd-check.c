/* SPDX-License-Identifier: ISC */
/*
 * cmd-check.c: `cbexec check NAME`: would a call be admitted now?  Exits 0
 * or open_exit_code, for ExecCondition= in systemd units and `if` in
 * scripts; refused, it says so in run's words unless -q.  Takes no probe
 * slot and changes no state.  The one write is the record's last use,
 * which gc goes by (SPEC: check is a use): written only
 * when the stored one is a minute old or more, so a tight loop of checks
 * does not write at every call, and skipped silently when the state file
 * is not writable for this user (check then still answers).  A Redis
 * state that does not answer makes check ask the local breaker, as run
 * does (fallback = "local").
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "name.h"
#include "record.h"

/* A check writes its use only when the stored last use is this old. */
#define CHECK_TOUCH_MS	60000

/* Bring NAME's last use up to now, unless it is recent or gone. */
static int
touch_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	const struct cb_env	*env = arg;
	/* Large (a record): static, see struct cb_record. */
	static struct cb_record	 r;

	if (old == NULL)
		return STORE_KEEP;
	if (record_decode(old, oldlen, &r, err) != RECORD_OK)
		return STORE_KEEP;	/* not ours to judge here */
	if (env->now_ms - r.last_used_ms < CHECK_TOUCH_MS)
		return STORE_KEEP;
	r.last_used_ms = env->now_ms;
	record_encode(&r, out);
	return STORE_PUT;
}

/*
 * Record the use of NAME if due.  The store was opened read-only (a check
 * must work where the state is only readable): reopen it for writing,
 * which creates nothing as the file exists.  Failures are not the caller's
 * business: the answer is already known.
 */
static void
check_touch(struct cb_ctx *ctx, const char *name, const struct cb_env *env)
{
	struct cb_err	 err;
	struct store	*store;

	store_close(ctx->store);
	ctx->store = NULL;
	if ((store = cmd_store(ctx, 0, &err)) == NULL) {
		if (ctx->verbose)
			cmd_warnx("%s: use not recorded: %s", name, err.msg);
		return;
	}
	if (store_update(store, name, touch_cb, (void *)env, &err) == -1 &&
	    ctx->verbose)
		cmd_warnx("%s: use not recorded: %s", name, err.msg);
}

/*
 * Read NAME's record into buf: 1 found, 0 not (or no state file yet), -1
 * failed (err filled).  A Redis state that cannot be used, with fallback
 * = "local", is replaced by the local breaker after one warning, as run
 * does (SPEC section 9).
 */
static int
check_read(struct cb_ctx *ctx, const char *name, struct cb_buf *buf,
    struct cb_err *err)
{
	struct store	*store;
	int		 found = -1;

	if ((store = cmd_store(ctx, 1, err)) == NULL &&
	    err->code == CB_ERR_MISSING)
		return 0;
	if (store != NULL && (found = store_get(store, name, buf, err)) != -1)
		return found;
	if (ctx->state == NULL || !ctx->state_redis ||
	    ctx->cfg.fallback != FALLBACK_LOCAL ||
	    (store != NULL && !store->down))
		return -1;
	if (!ctx->quiet)
		cmd_warnx("warning: %s; using the local breaker", err->msg);
	if ((store = cmd_store_local(ctx, err)) == NULL)
		return -1;
	return store_get(store, name, buf, err);
}

static int
cmd_check_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	/* Large (a record): static, see struct cb_record. */
	static struct cb_record	 r;
	struct cb_policy	 p;
	struct cb_env		 env;
	struct cb_slot		 self;
	struct cb_ticket	 t;
	struct cb_buf		 buf = { 0 };
	struct cb_err		 err;
	struct run_opts		 ro;
	int64_t			 used;
	int			 found, status, rc;

	if (name_valid(a->argv[0], &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_USAGE;
	}
	/* run's options: the policy a cron line's run would have.  A broken
	 * config: the policy the breaker last ran under, as run would (SPEC
	 * sections 1 and 4). */
	if (run_options(a, &ro) == -1)
		return EXIT_USAGE;
	rc = cmd_call_policy(ctx, "check", a->argv[0], CALL_STORE_RO, &ro, &p);
	run_options_free(&ro);
	if (rc == -1)
		return ctx->cfg_missing ? EXIT_USAGE : EXIT_FAIL;
	if ((found = check_read(ctx, a->argv[0], &buf, &err)) == -1) {
		buf_free(&buf);
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	if (found == 0) {
		buf_free(&buf);
		return EXIT_OK;
	}
	if (cmd_decode(ctx, a->argv[0], buf.data, buf.len, &r, &err) == -1) {
		buf_free(&buf);
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	buf_free(&buf);

	/* Admit a copy that is never written back: no slot is taken. */
	cmd_env(ctx, &env);
	memset(&self, 0, sizeof self);
	self.lease_until_ms = env.now_ms + 1;
	used = r.last_used_ms;
	breaker_admit(&r, &p, &env, &self, &t, NULL);
	status = t.admitted ? EXIT_OK : p.open_exit_code;
	if (!t.admitted)
		run_refusal(ctx, a->argv[0], &t);
	if (env.now_ms - used >= CHECK_TOUCH_MS)
		check_touch(ctx, a->argv[0], &env);
	if (ctx->verbose)
		cmd_warnx("%s: %s", a->argv[0], t.admitted ? "would be admitted" :
		    "would be refused");
	return status;
}

const struct cmd_entry cmd_check_entry = {
	"check",
	"NAME [RUN-OPTIONS]",
	"exit 0 if a call would be admitted now, 75 if not",
	"Exits 0 when a call to NAME would run now and open_exit_code (75)\n"
	"when it would be refused.  Takes no probe slot and changes no state\n"
	"(it records its use for gc at most once a minute).  Takes run's\n"
	"options after NAME (-o KEY=VALUE, --preset, -t, the code classes,\n"
	"--on-open) and answers for a run with them: -o max_concurrent=1 is\n"
	"the limit it tests.  --wait, --retries and --foreground change\n"
	"nothing of the answer.\n",
	/* NAME first: "check -x" is a name that is not valid. */
	{ run_grammar, 1, 1, CMD_NAME_FIRST, NULL },
	0,
	NULL,
	cmd_check_exec
};
