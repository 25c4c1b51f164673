/* SPDX-License-Identifier: ISC */
/*
 * config.c: finds the libconfig file (SPEC section 4), checks all of it and
 * turns it into plain data, so that a mistake anywhere in it, even in a
 * breakers entry no NAME has matched yet, is reported on the first run with
 * its file, line and key.  This file reads the top level; config-layer.c
 * the policy layers, whose values policy.c validates exactly as on the
 * command line.  The two are the only files that include libconfig.h
 * (config-int.h).
 *
 * libconfig 1.5 needs guarding.  It stores an integer literal that does
 * not fit in an int without a word (3000000000 reads as -1294967296), so
 * conftext.c scans the text for integer literals first and each one
 * libconfig cannot hold is tied here to the setting made of it, which then
 * reports it.  config_read() exits the process on a read error (flex's
 * fatal error handler), so conftext.c reads the file, at most 1 MiB, and
 * it is handed over with config_read_string(); a NUL byte, where libconfig
 * would silently stop, is an error, and a final newline is added because
 * 1.5 rejects a comment on a last line without one.  @include is refused:
 * it would read a file none of these checks (nor the root ownership check)
 * sees.
 */
#include <sys/types.h>

#include <libconfig.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-int.h"
#include "conftext.h"
#include "redis-url.h"

#define CONFIG_ETC		"/etc/cbexec.conf"
#define CONFIG_XDG		"cbexec/cbexec.conf"

static const char *const sync_names[] = { "full", "meta", "none", NULL };
static const char *const store_error_names[] = { "open", "closed", NULL };
static const char *const log_names[] = { "syslog", "stderr", "none", NULL };
static const char *const fallback_names[] = { "local", "none", NULL };

static void
config_defaults(struct cb_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->state_mode = 0600;
	cfg->sync = SYNC_META;
	cfg->max_breakers = 100000;
	cfg->on_store_error = STORE_ERROR_OPEN;
	cfg->log = CB_LOG_SYSLOG;
	cfg->store_timeout_ms = 250;
	cfg->lock_timeout_ms = 10000;
	cfg->scan_timeout_ms = 30000;
	cfg->fallback = FALLBACK_LOCAL;
}

void
config_free(struct cb_config *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	free(cfg->path);
	free(cfg->state);
	free(cfg->redis_prefix);
	for (i = 0; i < cfg->nsearched; i++)
		free(cfg->searched[i]);
	free(cfg->unreachable);
	if (cfg->on_transition != NULL) {
		for (i = 0; cfg->on_transition[i] != NULL; i++)
			free(cfg->on_transition[i]);
		free(cfg->on_transition);
	}
	config_layer_free(&cfg->defaults);
	for (i = 0; i < cfg->nbreakers; i++)
		config_layer_free(&cfg->breakers[i]);
	free(cfg->breakers);
	config_defaults(cfg);
}

/*
 * A file with problems keeps what of its top level was read right (the
 * state and how to reach it, sync, log, ...), never a command
 * (on_transition) nor a policy layer (SPEC section 4).
 */
static void
config_salvage(struct cb_config *cfg)
{
	size_t	i;

	if (cfg->on_transition != NULL) {
		for (i = 0; cfg->on_transition[i] != NULL; i++)
			free(cfg->on_transition[i]);
		free(cfg->on_transition);
		cfg->on_transition = NULL;
	}
	config_layer_free(&cfg->defaults);
	for (i = 0; i < cfg->nbreakers; i++)
		config_layer_free(&cfg->breakers[i]);
	free(cfg->breakers);
	cfg->breakers = NULL;
	cfg->nbreakers = 0;
}

/* ---- integers libconfig cannot hold (conftext.c finds them) ------------ */

static void
collect_ints(config_setting_t *s, config_setting_t ***v, size_t *n,
    size_t *cap)
{
	int	i, len;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (*n == *cap) {
			*cap = *cap == 0 ? 64 : *cap * 2;
			*v = xrealloc(*v, *cap * sizeof **v);
		}
		(*v)[(*n)++] = s;
		break;
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		len = config_setting_length(s);
		for (i = 0; i < len; i++)
			collect_ints(config_setting_get_elem(s,
			    (unsigned int)i), v, n, cap);
		break;
	}
}

/*
 * Tie each literal libconfig could not hold to its setting (both lists are
 * in document order), so that reading the setting reports it.
 */
static int
mark_bad_ints(struct loader *ld, config_t *lc)
{
	config_setting_t	**v = NULL;
	size_t			  n = 0, cap = 0, i;

	if (ld->lits.nbad == 0)
		return 0;
	collect_ints(config_root_setting(lc), &v, &n, &cap);
	if (n != ld->lits.n) {
		/* Cannot happen; still never use a wrapped value. */
		free(v);
		for (i = 0; i < ld->lits.n && !ld->lits.v[i].bad; i++)
			;
		err_set(ld->err, "%s:%u: integer %s is out of range",
		    ld->path, ld->lits.v[i].line, ld->lits.v[i].text);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (ld->lits.v[i].bad)
			config_setting_set_hook(v[i], &ld->lits.v[i]);
	}
	free(v);
	return 0;
}

/* ---- values ------------------------------------------------------------ */

static int
get_enum(struct loader *ld, const config_setting_t *s, const char *key,
    const char *const *names, int *out)
{
	char		 list[128];
	const char	*v;
	size_t		 off = 0;
	int		 i;

	list[0] = '\0';
	for (i = 0; names[i] != NULL; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
		    i == 0 ? "" : ", ", names[i]);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return config_fail(ld, s, "%s: must be one of %s, not %s", key,
		    list, config_type_name(s));
	v = config_setting_get_string(s);
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(names[i], v) == 0) {
			*out = i;
			return 0;
		}
	}
	return config_fail(ld, s, "%s: must be one of %s, not '%.80s'", key,
	    list, v);
}

/*
 * state: an absolute path or a Redis URL (SPEC sections 5 and 9).  A
 * relative path would depend on the working directory, which under cron
 * is not the user's; an unknown SCHEME:// is a typo, not a path.
 */
static int
get_state(struct loader *ld, const config_setting_t *s, const char *v)
{
	struct cb_err	e;

	if (v[0] == '\0' || redis_state_check(v, 1, &e) == 0)
		return 0;
	return config_fail(ld, s, "state: %s", e.msg);
}

static int
get_state_mode(struct loader *ld, const config_setting_t *s, mode_t *out)
{
	const char	*v, *p;
	unsigned	 mode = 0;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return config_fail(ld, s, "state_mode: must be a string such "
		    "as \"0660\" (libconfig has no octal numbers), not %s",
		    config_type_name(s));
	v = config_setting_get_string(s);
	for (p = v; *p >= '0' && *p <= '7' && p - v < 4; p++)
		mode = mode * 8 + (unsigned)(*p - '0');
	if (p == v || *p != '\0' || mode > 0777 || (mode & 0600) != 0600)
		return config_fail(ld, s, "state_mode: must be an octal mode "
		    "from \"0600\" to \"0775\" that lets the owner read and "
		    "write, not '%.80s'", v);
	/* Anyone could then open or close every breaker. */
	if (mode & 0002)
		return config_fail(ld, s, "state_mode: others may not write "
		    "the state, not '%.80s': share it through a group "
		    "(\"0660\")", v);
	*out = (mode_t)mode;
	return 0;
}

static int
get_max_breakers(struct loader *ld, const config_setting_t *s,
    long long *out)
{
	long long	v;

	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return config_fail(ld, s, "max_breakers: must be an integer, "
		    "not %s", config_type_name(s));
	if (config_check_int(ld, s, "max_breakers") != 0)
		return -1;
	v = config_setting_get_int64(s);
	if (v < 1)
		return config_fail(ld, s, "max_breakers: must be at least 1, "
		    "not %lld", v);
	*out = v;
	return 0;
}

/* Redis key prefix: 1 to 64 printable bytes, no space. */
static int
get_redis_prefix(struct loader *ld, const config_setting_t *s, char **out)
{
	const char	*v, *p;

	if (config_get_string(ld, s, "redis_prefix", &v) != 0)
		return -1;
	for (p = v; *p > 0x20 && *p < 0x7f; p++)
		;
	if (*p != '\0' || p - v > 64)
		return config_fail(ld, s, "redis_prefix: must be 1 to 64 "
		    "printable bytes without spaces, not '%.80s'", v);
	free(*out);
	*out = xstrdup(v);
	return 0;
}

/*
 * store_timeout (1ms to 60s), lock_timeout and scan_timeout (1ms to 1h): a
 * DURATION from
 * 1ms to max seconds (a bare integer: seconds).
 */
static int
get_timeout(struct loader *ld, const config_setting_t *s, const char *name,
    long long max, int64_t *out)
{
	struct cb_err	perr;
	int64_t		ms;
	long long	v;
	const char	*most = max == 60 ? "60s" : "1h";

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (config_check_int(ld, s, name) != 0)
			return -1;
		v = config_setting_get_int64(s);
		if (v < 0 || v > max)
			return config_fail(ld, s, "%s: must be a duration "
			    "from 1ms to %s, not %lld", name, most, v);
		ms = (int64_t)v * 1000;
		break;
	case CONFIG_TYPE_STRING:
		if (parse_duration(config_setting_get_string(s), &ms,
		    &perr) != 0)
			return config_fail(ld, s, "%s: %s", name, perr.msg);
		break;
	default:
		return config_fail(ld, s, "%s: must be a duration such as "
		    "\"250ms\", not %s", name, config_type_name(s));
	}
	if (ms < 1 || ms > max * 1000)
		return config_fail(ld, s, "%s: must be a duration from 1ms "
		    "to %s, not '%.80s'", name, most, config_setting_type(s) ==
		    CONFIG_TYPE_STRING ? config_setting_get_string(s) : "0");
	*out = ms;
	return 0;
}

static int
get_argv(struct loader *ld, const config_setting_t *s, char ***out)
{
	config_setting_t	*e;
	char			**argv;
	int			  i, n;

	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST)
		return config_fail(ld, s, "on_transition: must be a list of "
		    "strings such as [ \"/usr/local/bin/cb-alert\" ], not %s",
		    config_type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return config_fail(ld, s, "on_transition: must name a command");
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return config_fail(ld, e, "on_transition: element %d "
			    "must be a string, not %s", i + 1,
			    config_type_name(e));
	}
	if (*config_setting_get_string_elem(s, 0) == '\0')
		return config_fail(ld, s, "on_transition: the command must not "
		    "be empty");
	argv = xcalloc((size_t)n + 1, sizeof *argv);
	for (i = 0; i < n; i++)
		argv[i] = xstrdup(config_setting_get_string_elem(s, i));
	*out = argv;
	return 0;
}

static int
load_top(struct loader *ld, config_t *lc)
{
	struct cb_config	*cfg = ld->cfg;
	config_setting_t	*root = config_root_setting(lc), *s;
	const char		*name, *str;
	char			 hint[160];
	int			 i, n, e, bad = 0;

	n = config_setting_length(root);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(root, (unsigned int)i);
		name = config_setting_name(s);
		for (e = 0; e < CONFIG_TOP_MAX &&
		    config_top_keys[e] != NULL; e++)
			if (strcmp(name, config_top_keys[e]) == 0)
				cfg->top_line[e] =
				    config_setting_source_line(s);
		if (strcmp(name, "state") == 0) {
			if (config_get_string(ld, s, name, &str) != 0 ||
			    get_state(ld, s, str) != 0)
				bad = -1;
			else
				cfg->state = xstrdup(str);
		} else if (strcmp(name, "state_mode") == 0) {
			if (get_state_mode(ld, s, &cfg->state_mode) != 0)
				bad = -1;
			else
				cfg->state_mode_set = 1;
		} else if (strcmp(name, "sync") == 0) {
			if (get_enum(ld, s, name, sync_names, &e) != 0)
				bad = -1;
			else
				cfg->sync = (enum cb_sync)e;
		} else if (strcmp(name, "max_breakers") == 0) {
			if (get_max_breakers(ld, s, &cfg->max_breakers) != 0)
				bad = -1;
		} else if (strcmp(name, "on_store_error") == 0) {
			if (get_enum(ld, s, name, store_error_names, &e) != 0)
				bad = -1;
			else
				cfg->on_store_error = (enum cb_store_error)e;
		} else if (strcmp(name, "log") == 0) {
			if (get_enum(ld, s, name, log_names, &e) != 0)
				bad = -1;
			else
				cfg->log = (enum cb_log)e;
		} else if (strcmp(name, "redis_prefix") == 0) {
			if (get_redis_prefix(ld, s, &cfg->redis_prefix) != 0)
				bad = -1;
		} else if (strcmp(name, "store_timeout") == 0) {
			if (get_timeout(ld, s, name, 60,
			    &cfg->store_timeout_ms) != 0)
				bad = -1;
		} else if (strcmp(name, "lock_timeout") == 0) {
			if (get_timeout(ld, s, name, 3600,
			    &cfg->lock_timeout_ms) != 0)
				bad = -1;
		} else if (strcmp(name, "scan_timeout") == 0) {
			if (get_timeout(ld, s, name, 3600,
			    &cfg->scan_timeout_ms) != 0)
				bad = -1;
		} else if (strcmp(name, "fallback") == 0) {
			if (get_enum(ld, s, name, fallback_names, &e) != 0)
				bad = -1;
			else
				cfg->fallback = (enum cb_fallback)e;
		} else if (strcmp(name, "on_transition") == 0) {
			if (get_argv(ld, s, &cfg->on_transition) != 0)
				bad = -1;
		} else if (strcmp(name, "defaults") == 0) {
			if (config_setting_type(s) != CONFIG_TYPE_GROUP)
				bad = config_fail(ld, s, "defaults: must be a "
				    "group such as { open_timeout = \"30s\"; "
				    "}, not %s", config_type_name(s));
			else if (config_load_layer(ld, &cfg->defaults, s,
			    0) != 0)
				bad = -1;
			cfg->defaults.line = config_setting_source_line(s);
		} else if (strcmp(name, "breakers") == 0) {
			if (config_load_breakers(ld, s) != 0)
				bad = -1;
		} else if (policy_key_lookup(name) >= 0 ||
		    strcmp(name, "trip") == 0)
			bad = config_fail(ld, s, "%s: unknown key (policy keys "
			    "go in defaults or a breakers entry)", name);
		else
			bad = config_fail(ld, s, "%s: unknown key%s", name,
			    config_key_hint(name, HINT_TOP, hint, sizeof hint));
	}
	if (config_check_layers(ld, lc) != 0)
		bad = -1;
	return bad;
}

/* Parse and check text; fills ld->cfg.  Returns 0 or -1. */
static int
load_text(struct loader *ld, const char *text)
{
	config_t	lc;
	unsigned int	line;
	int		rc = -1;

	if (conftext_scan(text, &ld->lits, &line) != 0) {
		err_set(ld->err, "%s:%u: @include is not supported", ld->path,
		    line);
		return -1;
	}
	config_init(&lc);
	if (config_read_string(&lc, text) != CONFIG_TRUE) {
		err_set(ld->err, "%s:%d: %s", ld->path, config_error_line(&lc),
		    config_error_text(&lc) != NULL ? config_error_text(&lc) :
		    "syntax error");
		goto out;
	}
	if (mark_bad_ints(ld, &lc) != 0 || load_top(ld, &lc) != 0)
		goto out;
	rc = 0;
out:
	config_destroy(&lc);
	return rc;
}

/*
 * Load path if it exists (or must); returns 1, 0 when absent, 2 when it
 * is the null device (no config file, as `ssh -F /dev/null`), or -1.
 */
static int
load_path(const char *path, int required, struct cb_config *cfg,
    struct config_msgs *msgs, struct cb_err *err)
{
	struct loader	 ld;
	char		*text = NULL, *nul, *p;
	size_t		 len;
	unsigned int	 line = 1;
	int		 rc;

	if ((rc = conftext_read(path, required, &text, &len,
	    &cfg->content_hash, err)) == 3) {
		if (cfg->unreachable == NULL)
			cfg->unreachable = xstrdup(path);
		return 0;
	}
	if (rc != 1) {
		/* What cannot be read names the state of nothing. */
		if (rc == -1)
			cfg->path = xstrdup(path);
		return rc;
	}
	/* libconfig would stop reading at a NUL and ignore the rest. */
	if ((nul = memchr(text, '\0', len)) != NULL) {
		for (p = text; p < nul; p++)
			line += *p == '\n';
		err_set(err, "%s:%u: syntax error: NUL byte", path, line);
		free(text);
		cfg->path = xstrdup(path);
		return -1;
	}
	memset(&ld, 0, sizeof ld);
	ld.path = path;
	ld.cfg = cfg;
	ld.err = err;
	ld.msgs = msgs;
	rc = load_text(&ld, text);
	conftext_free(&ld.lits);
	free(text);
	cfg->path = xstrdup(path);
	if (rc != 0) {
		config_salvage(cfg);
		return -1;
	}
	return 1;
}

static int
load_any(const char *path, struct cb_config *cfg, struct config_msgs *msgs,
    struct cb_err *err)
{
	const char	*env, *home;
	char		*xdg;
	int		 rc;

	config_defaults(cfg);
	if (path != NULL) {
		cfg->source = CONFIG_OPTION;
		return load_path(path, 1, cfg, msgs, err) >= 1 ? 0 : -1;
	}
	if ((env = getenv("CBEXEC_CONFIG")) != NULL && *env != '\0') {
		cfg->source = CONFIG_ENV;
		return load_path(env, 1, cfg, msgs, err) >= 1 ? 0 : -1;
	}

	/* XDG: a relative $XDG_CONFIG_HOME is to be ignored. */
	xdg = NULL;
	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env == '/')
		xasprintf(&xdg, "%s/%s", env, CONFIG_XDG);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&xdg, "%s/.config/%s", home, CONFIG_XDG);
	if (xdg != NULL) {
		cfg->searched[cfg->nsearched++] = xdg;
		if ((rc = load_path(xdg, 0, cfg, msgs, err)) != 0)
			return rc >= 1 ? 0 : -1;
	}
	cfg->searched[cfg->nsearched++] = xstrdup(CONFIG_ETC);
	return load_path(CONFIG_ETC, 0, cfg, msgs, err) == -1 ? -1 : 0;
}

int
config_load(const char *path, struct cb_config *cfg, struct cb_err *err)
{
	return load_any(path, cfg, NULL, err);
}

int
config_check(const char *path, struct cb_config *cfg,
    struct config_msgs *msgs, struct cb_err *err)
{
	memset(msgs, 0, sizeof *msgs);
	return load_any(path, cfg, msgs, err);
}

void
config_msgs_free(struct config_msgs *msgs)
{
	size_t	i;

	for (i = 0; i < msgs->n; i++)
		free(msgs->v[i]);
	free(msgs->v);
	memset(msgs, 0, sizeof *msgs);
}

unsigned int
config_line(const struct cb_config *cfg, const char *key)
{
	size_t	i;

	for (i = 0; i < CONFIG_TOP_MAX && config_top_keys[i] != NULL; i++)
		if (strcmp(key, config_top_keys[i]) == 0)
			return cfg->top_line[i];
	return 0;
}

const char *
config_lib_version(void)
{
	static char	buf[32];

	snprintf(buf, sizeof buf, "libconfig %d.%d.%d", LIBCONFIG_VER_MAJOR,
	    LIBCONFIG_VER_MINOR, LIBCONFIG_VER_REVISION);
	return buf;
}
