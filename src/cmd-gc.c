/* SPDX-License-Identifier: ISC */
/*
 * cmd-gc.c: `cbexec gc [--idle D] [--dry-run]`: remove the closed breakers nobody has
 * used (run, check, acquire, release or an admin command) for D, default
 * 30 days.  Open and half-open breakers are kept whatever their age: they
 * hold an outage's state, and an operator asked for it.  So is one with a
 * live run slot (SPEC 2b; breaker_removable decides).  So is a record
 * this cbexec cannot read (a newer version): gc never deletes what it
 * does not understand, nor a key that is not a NAME (keys.c names it on
 * stderr).  Prints each removed name on stdout, one a line (nothing with
 * -q), and exits 0; 1 when the state cannot be used or holds such a key.
 * --dry-run prints "would remove NAME" for each breaker gc would remove
 * now, and removes nothing.
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "esc.h"
#include "record.h"

#define GC_IDLE_DEFAULT	(30LL * 24 * 3600 * 1000)

struct gc_step {
	int64_t		 cutoff_ms;	/* last used before this: remove */
	unsigned long	 unreadable;	/* kept because unreadable */
	int		 quiet;		/* --dry-run: print nothing */
	struct cb_env	 env;		/* judges run slot holders */
	struct cb_record rec;
};

static int
gc_cb(const char *name, size_t namelen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct gc_step	*st = arg;
	struct cb_err	 e;

	(void)name;
	(void)namelen;
	(void)err;
	if (record_decode(data, len, &st->rec, &e) != RECORD_OK) {
		st->unreadable++;
		return 0;
	}
	return breaker_removable(&st->rec, &st->env) &&
	    breaker_last_used(&st->rec) < st->cutoff_ms;
}

/* --dry-run: the names gc_cb would pick, from one snapshot. */
static int
gc_dry_cb(const char *name, size_t namelen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct gc_step	*st = arg;

	if (gc_cb(name, namelen, data, len, arg, err) == 1 && !st->quiet)
		printf("would remove %s\n", esc_n(name, namelen));
	return 0;
}

static const struct cmd_opt gc_grammar[] = {
	{ "idle",	0, 'i', required_argument },
	{ "dry-run",	0, 'n', no_argument },
	{ NULL,		0, 0,   0 }
};

static int
cmd_gc_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	static struct gc_step		 st;	/* large: off the stack */
	struct cb_buf			 removed = { 0 };
	struct cb_err			 err;
	struct store			*store;
	struct stat			 sb;
	const char			*path, *v;
	int64_t				 idle = GC_IDLE_DEFAULT;
	size_t				 off;
	unsigned long			 bad = 0;
	int				 dry, status = EXIT_OK;

	if ((v = cmd_arg(a, 'i')) != NULL &&
	    parse_duration(v, &idle, &err) == -1) {
		cmd_warnx("gc: --idle: %s", err.msg);
		return EXIT_USAGE;
	}
	dry = cmd_has(a, 'n');

	if (cmd_config(ctx) == -1 || (path = cmd_state_path(ctx)) == NULL)
		return EXIT_FAIL;
	/* No state file: nothing to collect, and nothing to create. */
	if (!ctx->state_redis && stat(path, &sb) == -1 && errno == ENOENT)
		return EXIT_OK;
	if ((store = cmd_store(ctx, 0, &err)) == NULL) {
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}

	memset(&st, 0, sizeof st);
	cmd_env(ctx, &st.env);
	st.cutoff_ms = st.env.now_ms - idle;
	st.quiet = ctx->quiet;
	if (dry) {
		if (cmd_each(ctx, store, NULL, 0, gc_dry_cb, &st, &bad,
		    &err) == -1) {
			cmd_warnx("%s", err.msg);
			status = EXIT_FAIL;
		}
		goto out;
	}
	/* On failure, what was removed before it is still gone: list it. */
	if (cmd_prune(ctx, store, gc_cb, &st, &removed, &bad, &err) == -1) {
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
	}
	for (off = 0; off < removed.len; off += strlen((char *)removed.data +
	    off) + 1)
		if (!ctx->quiet)
			printf("%s\n", esc((char *)removed.data + off));
out:
	if (st.unreadable > 0 && !ctx->quiet)
		cmd_warnx("gc: kept %lu record%s this cbexec cannot read",
		    st.unreadable, st.unreadable == 1 ? "" : "s");
	if (bad > 0)
		status = EXIT_FAIL;	/* named by cmd_each, cmd_prune */
	buf_free(&removed);
	if (fflush(stdout) == EOF) {
		cmd_warn("gc: stdout");
		return EXIT_FAIL;
	}
	return status;
}

const struct cmd_entry cmd_gc_entry = {
	"gc",
	"[--idle D] [--dry-run]",
	"remove closed breakers unused for a while",
	"      --idle D   unused for longer than D (default 30d)\n"
	"      --dry-run  print what would be removed; remove nothing\n"
	"Removes closed breakers not used (run, check, acquire, release,\n"
	"reset, trip) for D and prints their names, one a line.  Open and\n"
	"half-open breakers are never removed, nor one whose run slot a live\n"
	"holder has.  A run in flight whose breaker went makes it anew.\n",
	{ gc_grammar, 0, 0, 0, NULL },
	0,
	NULL,
	cmd_gc_exec
};
