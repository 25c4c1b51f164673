/* SPDX-License-Identifier: ISC */
/*
 * cmd-config.c: `cbexec config check` and `cbexec config show [NAME]`.
 * check reads the config file the way every command does and reports every
 * problem in it, not only the first.  show NAME prints NAME's effective
 * policy, one key a line with its value as the file would spell it and
 * where it came from (built-in, FILE:LINE, command line); it takes run's
 * options after NAME, so that one can see what a command line would give.
 * show alone prints where everything is: the config file (or the paths
 * searched), the state and its store, the top-level settings and the
 * breakers entries, each with its origin.  Both print three columns sized
 * to their widest cell, so that a long code list does not push the origin
 * out of line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "name.h"
#include "redis-url.h"

/* One line of config show: KEY VALUE ORIGIN. */
struct show_row {
	char	key[64];
	char	value[1100];
	char	origin[600];
};

struct show_table {
	struct show_row	*v;
	size_t		 n;
	size_t		 cap;
};

static struct show_row *
show_add(struct show_table *t, const char *key, const char *origin)
{
	struct show_row	*r;

	if (t->n == t->cap) {
		t->cap = t->cap == 0 ? 32 : t->cap * 2;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	r = &t->v[t->n++];
	snprintf(r->key, sizeof r->key, "%s", key);
	snprintf(r->origin, sizeof r->origin, "%s", origin);
	r->value[0] = '\0';
	return r;
}

/*
 * Print t: the key column at least 20 wide and the value column at least
 * 24 (the 0.1 layout, which short values keep), each widened to its
 * widest cell.
 */
static int
show_print(const char *what, struct show_table *t)
{
	size_t	i, kw = 20, vw = 24;

	for (i = 0; i < t->n; i++) {
		if (strlen(t->v[i].key) > kw)
			kw = strlen(t->v[i].key);
		if (strlen(t->v[i].value) > vw)
			vw = strlen(t->v[i].value);
	}
	for (i = 0; i < t->n; i++)
		printf("%-*s %-*s %s\n", (int)kw, t->v[i].key, (int)vw,
		    t->v[i].value, t->v[i].origin);
	free(t->v);
	memset(t, 0, sizeof *t);
	if (fflush(stdout) == EOF) {
		cmd_warn("%s", what);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* s as a libconfig string: quoted, with \ and " escaped, and what esc.h
 * escapes (controls, C1, invalid UTF-8) as libconfig's \xNN. */
static void
show_quote(const char *s, char *buf, size_t len)
{
	size_t	o = 0, k, j, n = strlen(s);
	int	keep;

	if (len < 3) {
		buf[0] = '\0';
		return;
	}
	buf[o++] = '"';
	while (n > 0) {
		k = esc_unit(s, n, &keep);
		if (*s == '"' || *s == '\\') {
			if (o + 2 + 2 > len)
				break;
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (keep) {
			if (o + k + 2 > len)
				break;
			memcpy(buf + o, s, k);
			o += k;
		} else {
			if (o + 4 * k + 2 > len)
				break;
			for (j = 0; j < k; j++)
				o += (size_t)snprintf(buf + o, len - o,
				    "\\x%02x", (unsigned char)s[j]);
		}
		s += k;
		n -= k;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/*
 * The state path for printing: a Redis URL's password (which cbexec
 * refuses, but a config may hold) replaced by "***", so that no message
 * ever shows it.
 */
static void
show_state(const char *state, char *buf, size_t len)
{
	const char	*auth, *at, *colon, *end;

	snprintf(buf, len, "%s", state);
	if (!store_is_redis(state) || (auth = strstr(state, "//")) == NULL)
		return;
	auth += 2;
	end = auth + strcspn(auth, "/?");
	if ((at = memchr(auth, '@', (size_t)(end - auth))) == NULL ||
	    (colon = memchr(auth, ':', (size_t)(at - auth))) == NULL)
		return;
	snprintf(buf, len, "%.*s***%s", (int)(colon + 1 - state), state, at);
}

/* Where top-level KEY came from: FILE:LINE or built-in. */
static const char *
show_origin(const struct cb_config *cfg, const char *key, char *buf,
    size_t len)
{
	unsigned int	line;

	if (cfg->path == NULL || (line = config_line(cfg, key)) == 0)
		return "built-in";
	snprintf(buf, len, "%s:%u", cfg->path, line);
	return buf;
}

static int
config_check_cmd(struct cb_ctx *ctx, struct cmd_args *a)
{
	struct cb_config	cfg;
	struct config_msgs	msgs;
	struct cb_err		err;
	size_t			i;
	int			rc;

	(void)a;
	rc = config_check(ctx->config_path, &cfg, &msgs, &err);
	if (rc == -1) {
		if (msgs.n == 0)
			cmd_warnx("%s", err.msg);
		for (i = 0; i < msgs.n; i++)
			cmd_warnx("%s", msgs.v[i]);
		config_msgs_free(&msgs);
		config_free(&cfg);
		return EXIT_FAIL;
	}
	config_msgs_free(&msgs);
	if (!ctx->quiet) {
		if (cfg.path != NULL)
			printf("%s: ok\n", cfg.path);
		else {
			printf("no config file: built-in defaults\n");
			for (i = 0; i < cfg.nsearched; i++)
				printf("searched %s: not found\n",
				    cfg.searched[i]);
		}
	}
	config_free(&cfg);
	return EXIT_OK;
}

static const char *const show_sync[] = { "full", "meta", "none" };
static const char *const show_store_error[] = { "open", "closed" };
static const char *const show_log[] = { "syslog", "stderr", "none" };
static const char *const show_fallback[] = { "local", "none" };

/* config show with no NAME: where everything is. */
/* Where the config and the state come from. */
static void
show_sources(struct cb_ctx *ctx, struct show_table *t, const char *state)
{
	struct cb_config	*cfg = &ctx->cfg;
	struct show_row		*row;
	struct cb_err		 err;
	struct store		*s;
	const char		*env;
	char			 o[600], *local;
	size_t			 i;

	switch (cfg->source) {
	case CONFIG_OPTION:
		row = show_add(t, "config", "command line (-c)");
		break;
	case CONFIG_ENV:
		row = show_add(t, "config", "$CBEXEC_CONFIG");
		break;
	default:
		row = show_add(t, "config", "searched");
		break;
	}
	snprintf(row->value, sizeof row->value, "%s", cfg->path != NULL ?
	    cfg->path : "none: built-in defaults");
	for (i = 0; i < cfg->nsearched; i++) {
		row = show_add(t, "searched", cfg->path != NULL &&
		    strcmp(cfg->path, cfg->searched[i]) == 0 ? "found" :
		    "not found");
		snprintf(row->value, sizeof row->value, "%s",
		    cfg->searched[i]);
	}

	/* The rules of cmd_state_path, in its order. */
	env = getenv("CBEXEC_STATE");
	if (ctx->state_path != NULL)
		row = show_add(t, "state", "command line (-s)");
	else if (env != NULL && env[0] != '\0')
		row = show_add(t, "state", "$CBEXEC_STATE");
	else if (cfg->state != NULL && cfg->state[0] != '\0')
		row = show_add(t, "state", show_origin(cfg, "state", o,
		    sizeof o));
	else
		row = show_add(t, "state", "built-in");
	show_state(state, row->value, sizeof row->value);
	row = show_add(t, "store", "the state path");
	snprintf(row->value, sizeof row->value, "%s",
	    ctx->state_redis ? "redis" : "lmdb");
	if (!ctx->state_redis)
		return;
	if (redis_state_kind(state) == STATE_SENTINEL) {
		/* Which master the sentinels name now, and who said so. */
		row = show_add(t, "master", "asked now");
		if ((s = cmd_store(ctx, 1, &err)) == NULL ||
		    store_redis_master(s, row->value, sizeof row->value) == -1)
			snprintf(row->value, sizeof row->value, "none: %s",
			    s == NULL ? err.msg : "not found");
	}
	/* Where run and check keep the breakers while Redis is down. */
	row = show_add(t, "local state", cfg->fallback == FALLBACK_LOCAL ?
	    "if Redis does not answer (fallback)" :
	    "unused: fallback is \"none\"");
	if ((local = cmd_state_local(ctx, &err)) == NULL)
		snprintf(row->value, sizeof row->value, "none: %s", err.msg);
	else
		snprintf(row->value, sizeof row->value, "%s", local);
	free(local);
}

/* The top-level settings, each with where it came from; state_mode as
 * new files at state get it. */
static void
show_settings(struct cb_ctx *ctx, const char *state, struct show_table *t)
{
	const struct cb_config	*cfg = &ctx->cfg;
	struct show_row		*row;
	char			 o[600], q[1100];
	size_t			 i, off;
	mode_t			 mode = cfg->state_mode;
	int			 shared = 0;

	if (!ctx->state_redis)
		mode = cmd_state_mode(ctx, state, &shared);
	row = show_add(t, "state_mode", shared ?
	    "built-in, for group cbexec's shared state" :
	    show_origin(cfg, "state_mode", o, sizeof o));
	snprintf(row->value, sizeof row->value, "\"%04o\"", (unsigned)mode);
	row = show_add(t, "sync", show_origin(cfg, "sync", o, sizeof o));
	snprintf(row->value, sizeof row->value, "\"%s\"",
	    show_sync[cfg->sync]);
	row = show_add(t, "max_breakers", show_origin(cfg, "max_breakers",
	    o, sizeof o));
	snprintf(row->value, sizeof row->value, "%lld", cfg->max_breakers);
	row = show_add(t, "on_store_error", show_origin(cfg,
	    "on_store_error", o, sizeof o));
	snprintf(row->value, sizeof row->value, "\"%s\"",
	    show_store_error[cfg->on_store_error]);
	row = show_add(t, "lock_timeout", show_origin(cfg, "lock_timeout",
	    o, sizeof o));
	format_duration(cfg->lock_timeout_ms, q, sizeof q);
	snprintf(row->value, sizeof row->value, "\"%.64s\"", q);
	row = show_add(t, "log", show_origin(cfg, "log", o, sizeof o));
	snprintf(row->value, sizeof row->value, "\"%s\"",
	    show_log[cfg->log]);
	row = show_add(t, "on_transition", show_origin(cfg, "on_transition",
	    o, sizeof o));
	if (cfg->on_transition == NULL)
		snprintf(row->value, sizeof row->value, "none");
	else {
		off = 0;
		for (i = 0; cfg->on_transition[i] != NULL; i++) {
			show_quote(cfg->on_transition[i], q, sizeof q);
			if (off + strlen(q) + 8 >= sizeof row->value)
				break;
			off += (size_t)snprintf(row->value + off,
			    sizeof row->value - off, "%s%s", i == 0 ? "[ " :
			    ", ", q);
		}
		snprintf(row->value + off, sizeof row->value - off, " ]");
	}
	row = show_add(t, "redis_prefix", show_origin(cfg, "redis_prefix",
	    o, sizeof o));
	show_quote(cfg->redis_prefix != NULL ? cfg->redis_prefix : "cbexec:",
	    row->value, sizeof row->value);
	row = show_add(t, "store_timeout", show_origin(cfg, "store_timeout",
	    o, sizeof o));
	format_duration(cfg->store_timeout_ms, q, sizeof q);
	snprintf(row->value, sizeof row->value, "\"%s\"", q);
	row = show_add(t, "scan_timeout", show_origin(cfg, "scan_timeout",
	    o, sizeof o));
	format_duration(cfg->scan_timeout_ms, q, sizeof q);
	snprintf(row->value, sizeof row->value, "\"%s\"", q);
	row = show_add(t, "fallback", show_origin(cfg, "fallback", o,
	    sizeof o));
	snprintf(row->value, sizeof row->value, "\"%s\"",
	    show_fallback[cfg->fallback]);
}

static int
config_show_all(struct cb_ctx *ctx)
{
	struct cb_config	*cfg = &ctx->cfg;
	struct show_table	 t = { 0 };
	struct show_row		*row;
	const char		*state;
	char			 o[600], q[1100];
	size_t			 i;

	if (cmd_config(ctx) == -1 || (state = cmd_state_path(ctx)) == NULL)
		return EXIT_FAIL;
	show_sources(ctx, &t, state);
	show_settings(ctx, state, &t);
	row = show_add(&t, "defaults", show_origin(cfg, "defaults", o,
	    sizeof o));
	snprintf(row->value, sizeof row->value, "%zu value%s",
	    cfg->defaults.nitems, cfg->defaults.nitems == 1 ? "" : "s");
	for (i = 0; i < cfg->nbreakers; i++) {
		snprintf(o, sizeof o, "%s:%u", cfg->path,
		    cfg->breakers[i].line);
		snprintf(q, sizeof q, "breakers[%zu]", i + 1);
		row = show_add(&t, q, o);
		memcpy(row->value, "match ", 6);
		show_quote(cfg->breakers[i].match, row->value + 6,
		    sizeof row->value - 6);
	}
	return show_print("config show", &t);
}

/* NAME's policy as run would have it: a broken config leaves it the one
 * it last ran under (SPEC section 4). */
static int
config_show_name(struct cb_ctx *ctx, const char *name,
    const struct run_opts *ro)
{
	struct policy_builder	 b;
	struct show_table	 t = { 0 };
	struct show_row		*row;
	struct cb_err		 err;
	int			 k;

	if (cmd_call_builder(ctx, name, CALL_STORE_RO, &b) == -1)
		return EXIT_FAIL;
	if (run_apply("config show", ro, &b) == -1)
		return EXIT_USAGE;
	if (policy_finish(&b, NULL, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return EXIT_FAIL;
	}
	for (k = 0; k < PK_COUNT; k++) {
		row = show_add(&t, policy_key_name((enum policy_key)k),
		    b.origin[k]);
		policy_format(&b, (enum policy_key)k, row->value,
		    sizeof row->value);
	}
	return show_print("config show", &t);
}

static int
config_show_cmd(struct cb_ctx *ctx, struct cmd_args *a)
{
	struct run_opts		 ro;
	struct cb_err		 err;
	const char		*name;
	int			 status;

	/* A broken file: shown as far as it is used, and exit 1 as config
	 * check does. */
	if (a->argc == 0) {
		status = config_show_all(ctx);
		return status == EXIT_OK && ctx->cfg_broken ? EXIT_FAIL :
		    status;
	}
	name = a->argv[0];
	if (name_valid(name, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_USAGE;
	}
	if (run_options(a, &ro) == -1)
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	status = config_show_name(ctx, name, &ro);
	run_options_free(&ro);
	return status == EXIT_OK && ctx->cfg_broken ? EXIT_FAIL : status;
}

/* The subcommands: their grammars; usage and help are config's. */
static const struct cmd_entry config_check_entry = {
	"check", "", "", "",
	{ NULL, 0, 0, 0, NULL },
	0, NULL, config_check_cmd
};
static const struct cmd_entry config_show_entry = {
	"show", "", "", "",
	{ run_grammar, 0, 1, CMD_NAME_FIRST, NULL },
	0, NULL, config_show_cmd
};
static const struct cmd_entry *const config_subs[] = {
	&config_check_entry,
	&config_show_entry,
	NULL
};

const struct cmd_entry cmd_config_entry = {
	"config",
	"check | show [NAME [RUN-OPTIONS]]",
	"check the config file, or show where things are or NAME's policy",
	"  check            report every problem of the config file with its\n"
	"                   FILE:LINE; exit 0 when there is none, 1 otherwise;\n"
	"                   with no file, list the paths searched\n"
	"  show             print where everything is: the config file (or\n"
	"                   every path searched), the state and its store\n"
	"                   (for Redis, the local state of its fallback),\n"
	"                   the top-level settings and the breakers entries\n"
	"                   in order, each with where it came from\n"
	"  show NAME        print NAME's effective policy: key, value, and\n"
	"                   where it came from (built-in, FILE:LINE, command\n"
	"                   line); run's options after NAME (-t, --preset,\n"
	"                   -o KEY=VALUE, ...) are applied as run would\n",
	{ NULL, 1, -1, 0, NULL },
	0,
	config_subs,
	NULL
};
