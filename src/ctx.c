/* SPDX-License-Identifier: ISC */
/*
 * ctx.c: the context of one invocation.  The config is loaded once (a
 * file with a problem leaves the top level it could read, and each call
 * the policy its breaker last ran under: SPEC section 4); the
 * state path and the kind of store it names are decided once, by the
 * rules of SPEC sections 5 and 10; the store is opened on demand, once;
 * the boot id is read once.  Nothing here prints but cmd_config and
 * cmd_state_path, the two entry points a command calls to have a problem
 * reported, and the one note of a state that splits from the shared one
 * (cmd_store, cmd_state_path); everything else fills a struct cb_err for
 * its caller.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "confmemo.h"
#include "lastgood.h"
#include "record.h"
#include "redis-url.h"
#include "statefile.h"

int
ctx_config_load(struct cb_ctx *ctx, struct cb_err *err)
{
	struct stat	 sb;
	const char	*named;

	if (ctx->cfg_loaded)
		return 0;
	if (!ctx->cfg_failed) {
		if (config_check(ctx->config_path, &ctx->cfg, &ctx->cfg_msgs,
		    &ctx->cfg_err) == 0) {
			config_msgs_free(&ctx->cfg_msgs);
			ctx->cfg_loaded = 1;
			return 0;
		}
		if (ctx->cfg_msgs.n > 0)
			err_set(&ctx->cfg_err, "%s", ctx->cfg_msgs.v[0]);
		ctx->cfg_err.code = CB_ERR_CONFIG;
		named = ctx->config_path != NULL ? ctx->config_path :
		    getenv("CBEXEC_CONFIG");
		if (named == NULL || *named == '\0' || stat(named, &sb) == 0 ||
		    (errno != ENOENT && errno != ENOTDIR)) {
			/* SPEC section 4: the file's problems are said, and
			 * nothing it names is used but its top level. */
			ctx->cfg_broken = 1;
			ctx->cfg_loaded = 1;
			return 0;
		}
		config_free(&ctx->cfg);
		ctx->cfg_failed = 1;
		ctx->cfg_missing = 1;
	}
	if (err != NULL)
		*err = ctx->cfg_err;
	return -1;
}

/* Print every problem the config has, once per invocation, even with -q. */
static void
config_report(struct cb_ctx *ctx)
{
	size_t	i;

	if (ctx->cfg_reported)
		return;
	ctx->cfg_reported = 1;
	if (ctx->cfg_msgs.n == 0)
		cmd_warnx("%s", ctx->cfg_err.msg);
	for (i = 0; i < ctx->cfg_msgs.n; i++)
		cmd_warnx("%s", ctx->cfg_msgs.v[i]);
}

int
cmd_config(struct cb_ctx *ctx)
{
	static int	said;

	if (ctx_config_load(ctx, NULL) == -1) {
		config_report(ctx);
		return -1;
	}
	/* A default path we may not reach is no problem, but say it. */
	if (ctx->verbose && ctx->cfg.unreachable != NULL && !said++)
		cmd_warnx("config '%s' is behind a directory this user may "
		    "not search (is HOME another user's?); taken as not there",
		    ctx->cfg.unreachable);
	if (ctx->cfg_broken && !ctx->cfg_reported) {
		config_report(ctx);
		cmd_config_log(ctx);
	}
	return 0;
}


int
cmd_state_outside(struct cb_ctx *ctx, const char **who)
{
	static char	 name[64];
	struct passwd	*pw;
	struct stat	 st;

	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name != NULL)
		snprintf(name, sizeof name, "%s", pw->pw_name);
	else
		snprintf(name, sizeof name, "uid %u", (unsigned)getuid());
	*who = name;
	return geteuid() != 0 && ctx->state != NULL &&
	    strcmp(ctx->state, STATE_SYSTEM) != 0 &&
	    stat(STATE_SYSTEM_DIR, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_gid != 0 &&
	    stategroup_gid() == (long long)st.st_gid &&
	    !stategroup_member(st.st_gid);
}

/* Say once that the state split (state_split), with the fix. */
static void
state_split_note(struct cb_ctx *ctx)
{
	if (!ctx->state_split || ctx->state_split_said || ctx->quiet)
		return;
	ctx->state_split_said = 1;
	cmd_warnx("you are in group '%s' but this process is not (a session "
	    "older than 'usermod -aG', or a unit without "
	    "SupplementaryGroups=); using the private state %s; log in again "
	    "or add SupplementaryGroups=%s", STATE_GROUP, ctx->state,
	    STATE_GROUP);
}

/*
 * The state path by the rules of SPEC sections 5 and 10; with local_only,
 * the first candidate that is not a Redis URL (the fallback's LMDB file).
 * A config that cannot be used names no state.  The directory of a user
 * with no usable home is made only with create (ctx->state_unmade says
 * it is not there yet).  Returns the path in new memory, or NULL with err
 * filled.
 */
/* The state with no -s, $CBEXEC_STATE or config naming one. */
static char *
state_default(struct cb_ctx *ctx, int local_only, int create,
    struct cb_err *err)
{
	char	*s;

	if (geteuid() == 0 || stategroup_shared())
		return xstrdup(STATE_SYSTEM);
	if (!local_only)
		ctx->state_split = stategroup_split();
	if ((s = statefile_home()) != NULL && statefile_usable(s))
		return s;
	free(s);
	return statefile_fallback(create, &ctx->state_unmade, err);
}

/*
 * The config's say in the state: its `state` when it was read that far,
 * remembered (confmemo.c) when the file loaded cleanly; else, for a file
 * that could not be read, the state it named when it last loaded (SPEC
 * 4).  NULL: the config names none.  *dflt is the default state, made
 * here when needed (NULL when it cannot be had).
 */
static char *
state_of_config(struct cb_ctx *ctx, int local_only, int create, char **dflt,
    struct cb_err *err)
{
	const char	*named;
	char		*s = NULL;

	if (ctx_config_load(ctx, NULL) != 0 || ctx->cfg.path == NULL)
		return NULL;
	named = ctx->cfg.state != NULL && ctx->cfg.state[0] != '\0' ?
	    ctx->cfg.state : NULL;
	if (named != NULL)
		return xstrdup(named);
	/* A file that could not be read that far: the state it named when
	 * it last loaded cleanly, remembered beside the default one. */
	if (ctx->cfg_broken &&
	    (*dflt = state_default(ctx, local_only, create, err)) != NULL)
		s = confmemo_recall(*dflt, ctx->cfg.path);
	return s;
}

/*
 * A clean config, at the first write: remembered beside the state in use
 * (its policies, for breakers that never ran), and beside the default
 * state too when the file names another (which state it named, for when
 * it cannot be read).
 */
static void
ctx_memo_write(struct cb_ctx *ctx)
{
	const char	*used, *dflt;
	int64_t		 now = clock_wall_ms();

	ctx->memo_written = 1;
	if ((used = cmd_memo_base(ctx)) != NULL)
		lastgood_remember(used, &ctx->cfg, now, 0);
	/* The default state (a group lookup, maybe) only when it matters:
	 * the file names another state, which a broken file must recall. */
	if (ctx->cfg.state == NULL || ctx->cfg.state[0] == '\0')
		return;
	if ((dflt = cmd_memo_default(ctx)) != NULL &&
	    (used == NULL || strcmp(used, dflt) != 0))
		lastgood_remember(dflt, &ctx->cfg, now, 1);
}

const char *
cmd_memo_base(struct cb_ctx *ctx)
{
	if (ctx->state != NULL && !ctx->state_redis)
		return ctx->state;
	return cmd_memo_default(ctx);
}

const char *
cmd_memo_default(struct cb_ctx *ctx)
{
	struct cb_err	e;

	/* Whatever -s or $CBEXEC_STATE say: the memo is the config's. */
	if (ctx->memo_default == NULL)
		ctx->memo_default = state_default(ctx, 1, 0, &e);
	return ctx->memo_default;
}

static char *
state_resolve(struct cb_ctx *ctx, int local_only, int create,
    struct cb_err *err)
{
	struct cb_err	 e;
	char		*c[3], *dflt = NULL, *s;
	int		 i;

	c[0] = (char *)ctx->state_path;
	c[1] = getenv("CBEXEC_STATE");
	c[2] = NULL;
	for (i = 0; i < 3; i++) {
		if (i == 2)
			c[2] = state_of_config(ctx, local_only, create, &dflt,
			    err);
		/* An empty one is unset (main refuses an empty -s). */
		if (c[i] == NULL || c[i][0] == '\0' ||
		    (local_only && store_is_redis(c[i])))
			continue;
		/* A typo'd URL is no relative path (the file's own
		 * `state` was checked with the file). */
		if (redis_state_kind(c[i]) == STATE_UNKNOWN) {
			(void)redis_state_check(c[i], 0, &e);
			err_set(err, "state from %s: %s", i == 0 ? "-s" :
			    i == 1 ? "$CBEXEC_STATE" : "the config", e.msg);
			s = NULL;
		} else
			s = xstrdup(c[i]);
		free(c[2]);
		free(dflt);
		return s;
	}
	free(c[2]);
	if (dflt != NULL)
		return dflt;
	return state_default(ctx, local_only, create, err);
}

int
ctx_state(struct cb_ctx *ctx, struct cb_err *err)
{
	if (!ctx->state_done) {
		ctx->state_done = 1;
		ctx->state = state_resolve(ctx, 0, 0, &ctx->state_err);
		ctx->state_redis = ctx->state != NULL &&
		    store_is_redis(ctx->state);
	}
	if (ctx->state != NULL)
		return 0;
	if (err != NULL)
		*err = ctx->state_err;
	return -1;
}

const char *
cmd_state_path(struct cb_ctx *ctx)
{
	(void)cmd_config(ctx);
	if (ctx_state(ctx, NULL) == 0) {
		state_split_note(ctx);
		return ctx->state;
	}
	if (!ctx->state_reported)
		cmd_warnx("%s", ctx->state_err.msg);
	ctx->state_reported = 1;
	return NULL;
}

/*
 * Eviction's view of a record (store.h): what breaker_removable keeps is
 * pinned (open, half-open, a live run slot: its lease decides, as no
 * holder is looked up here), and the least recently used goes first.
 */
static int
rank_record(const uint8_t *data, size_t len, struct store_rank *rk)
{
	static struct cb_record	 r;	/* large: off the stack */
	struct cb_env		 env;
	struct cb_err		 e;

	if (record_decode(data, len, &r, &e) != RECORD_OK)
		return -1;
	memset(&env, 0, sizeof env);
	env.now_ms = clock_wall_ms();
	rk->pinned = !breaker_removable(&r, &env);
	rk->last_used_ms = breaker_last_used(&r);
	return 0;
}

/*
 * Mode of new state files: state_mode if the config sets it, else 0660 in
 * a directory of the group cbexec (so that root and the group's members
 * share it), else 0600.  It matters only when a file is made, so the
 * group is looked up only then (and not for a directory of group root).
 */
static mode_t
state_mode(struct cb_ctx *ctx, const char *path)
{
	struct stat	 st;
	char		*lock;
	int		 made, shared;

	if (ctx->cfg.state_mode_set)
		return ctx->cfg.state_mode;
	xasprintf(&lock, "%s-lock", path);
	made = lstat(path, &st) == 0 && lstat(lock, &st) == 0;
	free(lock);
	if (made)
		return ctx->cfg.state_mode;
	return cmd_state_mode(ctx, path, &shared);
}

mode_t
cmd_state_mode(struct cb_ctx *ctx, const char *path, int *shared)
{
	struct stat	 st;
	char		*dir;
	mode_t		 mode = ctx->cfg.state_mode;

	*shared = 0;
	if (ctx->cfg.state_mode_set)
		return mode;
	dir = xdirname(path);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_gid != 0 &&
	    stategroup_gid() == (long long)st.st_gid) {
		mode = 0660;
		*shared = 1;
	}
	free(dir);
	return mode;
}

static struct store *
ctx_open_lmdb(struct cb_ctx *ctx, const char *path, int readonly,
    struct cb_err *err)
{
	struct store_opts	 opts;

	memset(&opts, 0, sizeof opts);
	opts.path = path;
	opts.mode = state_mode(ctx, path);
	switch (ctx->cfg.sync) {
	case SYNC_META:
		opts.sync = STORE_SYNC_META;
		break;
	case SYNC_NONE:
		opts.sync = STORE_SYNC_NONE;
		break;
	default:
		opts.sync = STORE_SYNC_FULL;
		break;
	}
	opts.readonly = readonly;
	opts.max_records = (uint64_t)ctx->cfg.max_breakers;
	opts.rank = rank_record;
	opts.lock_timeout_ms = ctx->cfg.lock_timeout_ms;
	opts.on_signal = cmd_store_signal;
	return store_lmdb_open(&opts, err);
}

static struct store *
ctx_open_redis(struct cb_ctx *ctx, const char *url, struct cb_err *err)
{
	struct store_redis_opts	 ropts;

	memset(&ropts, 0, sizeof ropts);
	ropts.url = url;
	ropts.prefix = ctx->cfg.redis_prefix != NULL ?
	    ctx->cfg.redis_prefix : "cbexec:";
	ropts.timeout_ms = ctx->cfg.store_timeout_ms;
	ropts.scan_timeout_ms = ctx->cfg.scan_timeout_ms;
	ropts.password = getenv("CBEXEC_REDIS_PASSWORD");
	if (ropts.password != NULL && ropts.password[0] == '\0')
		ropts.password = NULL;
	ropts.sentinel_password = getenv("CBEXEC_SENTINEL_PASSWORD");
	if (ropts.sentinel_password != NULL &&
	    ropts.sentinel_password[0] == '\0')
		ropts.sentinel_password = NULL;
	ropts.max_records = (uint64_t)ctx->cfg.max_breakers;
	ropts.rank = rank_record;
	return store_redis_open(&ropts, err);
}

struct store *
cmd_store(struct cb_ctx *ctx, int readonly, struct cb_err *err)
{
	if (ctx->store != NULL)
		return ctx->store;
	if (cmd_config(ctx) == -1) {
		*err = ctx->cfg_err;
		return NULL;
	}
	if (ctx_state(ctx, err) == -1)
		return NULL;
	if (ctx->state_unmade && !readonly) {
		/* A writer makes the directory a reader only named. */
		free(ctx->state);
		ctx->state_unmade = 0;
		if ((ctx->state = state_resolve(ctx, 0, 1, err)) == NULL) {
			ctx->state_err = *err;
			return NULL;
		}
	}
	state_split_note(ctx);
	if (ctx->state_redis)
		ctx->store = ctx_open_redis(ctx, ctx->state, err);
	else
		ctx->store = ctx_open_lmdb(ctx, ctx->state, readonly, err);
	/* After the open, which makes the state's directory as it should
	 * be, not before it. */
	if (ctx->store != NULL && !readonly && !ctx->cfg_broken &&
	    !ctx->memo_written && ctx->cfg.path != NULL)
		ctx_memo_write(ctx);
	return ctx->store;
}

struct store *
cmd_store_local(struct cb_ctx *ctx, struct cb_err *err)
{
	char	*path;

	if (ctx_config_load(ctx, err) == -1 ||
	    (path = state_resolve(ctx, 1, 1, err)) == NULL)
		return NULL;
	store_close(ctx->store);
	ctx->store = NULL;
	free(ctx->state);
	ctx->state = path;
	ctx->state_redis = 0;
	ctx->store = ctx_open_lmdb(ctx, path, 0, err);
	return ctx->store;
}

char *
cmd_state_local(struct cb_ctx *ctx, struct cb_err *err)
{
	if (ctx_config_load(ctx, err) == -1)
		return NULL;
	return state_resolve(ctx, 1, 0, err);
}

const uint8_t *
cmd_boot_id(struct cb_ctx *ctx)
{
	if (!ctx->have_boot_id) {
		clock_boot_id(ctx->boot_id);
		ctx->have_boot_id = 1;
	}
	return ctx->boot_id;
}

uint64_t
cmd_pidns(struct cb_ctx *ctx)
{
	if (!ctx->have_pidns) {
		ctx->pidns = clock_pidns();
		ctx->have_pidns = 1;
	}
	return ctx->pidns;
}

const char *
cmd_host(struct cb_ctx *ctx)
{
	if (!ctx->have_host) {
		clock_host_name(ctx->host, sizeof ctx->host);
		ctx->have_host = 1;
	}
	return ctx->host;
}

void
ctx_free(struct cb_ctx *ctx)
{
	store_close(ctx->store);
	ctx->store = NULL;
	if (ctx->cfg_loaded)
		config_free(&ctx->cfg);
	if (ctx->cfg_failed || ctx->cfg_broken)
		config_msgs_free(&ctx->cfg_msgs);
	free(ctx->state);
	ctx->state = NULL;
	free(ctx->memo_default);
	ctx->memo_default = NULL;
}

void
cmd_store_signal(int sig)
{
	(void)fflush(stdout);
	exit(128 + sig);
}


/* ---- a broken config's problems (SPEC section 4) ----------------------- */

#define CONFIG_LOGGED	"-config-logged"

static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char	*b = p;

	while (len-- > 0) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Which problems of which content: the text's hash and what was said. */
static uint64_t
config_fingerprint(const struct cb_ctx *ctx)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	size_t		i;

	h = fnv(h, &ctx->cfg.content_hash, sizeof ctx->cfg.content_hash);
	if (ctx->cfg_msgs.n == 0)
		h = fnv(h, ctx->cfg_err.msg, strlen(ctx->cfg_err.msg) + 1);
	for (i = 0; i < ctx->cfg_msgs.n; i++)
		h = fnv(h, ctx->cfg_msgs.v[i], strlen(ctx->cfg_msgs.v[i]) + 1);
	return h;
}

/*
 * The fingerprint last logged, from path: 0, or -1 when there is none (or
 * it is not a small regular file; a symbolic link is not followed, nor a
 * FIFO waited on).
 */
static int
logged_read(const char *path, uint64_t *h)
{
	struct stat	 st;
	char		 buf[32];
	ssize_t		 n;
	int		 fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (n = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[n] = '\0';
		rc = sscanf(buf, "%16" SCNx64 "\n", h) == 1 ? 0 : -1;
	}
	(void)close(fd);
	return rc;
}

/*
 * Remember h in path: a new file, never one that exists (a link planted
 * in a shared directory), renamed over the old.  Best effort: failing, the
 * problems are logged again next time.
 */
static void
logged_write(const char *path, uint64_t h)
{
	char	*tmp;
	char	 buf[32];
	int	 fd, len, ok;

	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		free(tmp);
		return;
	}
	len = snprintf(buf, sizeof buf, "%016" PRIx64 "\n", h);
	ok = fchmod(fd, 0644) == 0 && write(fd, buf, (size_t)len) == len;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) == -1)
		(void)unlink(tmp);
	free(tmp);
}

void
cmd_config_log(struct cb_ctx *ctx)
{
	struct cb_err	 err;
	uint64_t	 h, old;
	char		*state, *logged = NULL;
	size_t		 i;

	/* log = stderr: said there already, by every command. */
	if (ctx->cfg.log != CB_LOG_SYSLOG)
		return;
	h = config_fingerprint(ctx);
	if ((state = cmd_state_local(ctx, &err)) != NULL) {
		xasprintf(&logged, "%s" CONFIG_LOGGED, state);
		free(state);
		if (logged_read(logged, &old) == 0 && old == h) {
			free(logged);
			return;
		}
	}
	openlog("cbexec", LOG_PID, LOG_USER);
	if (ctx->cfg_msgs.n == 0)
		syslog(LOG_ERR, "config: %s", ctx->cfg_err.msg);
	for (i = 0; i < ctx->cfg_msgs.n; i++)
		syslog(LOG_ERR, "config: %s", ctx->cfg_msgs.v[i]);
	closelog();
	if (ctx->verbose)
		cmd_warnx("the config's problems were sent to syslog");
	if (logged != NULL)
		logged_write(logged, h);
	free(logged);
}
