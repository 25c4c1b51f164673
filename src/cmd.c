/*
 * cmd.c: the command table and the services every command shares: config
 * and store opened once on demand, the state path rules of SPEC section 5,
 * name validation, and the reporting of transitions.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <paths.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "name.h"
#include "record.h"
#include "spawn.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_check_entry,
	&cmd_status_entry,
	&cmd_reset_entry,
	&cmd_trip_entry,
	&cmd_forget_entry,
	&cmd_acquire_entry,
	&cmd_release_entry,
	&cmd_config_entry,
	&cmd_gc_entry,
	&cmd_help_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry *const	*e;

	for (e = cmd_table; *e != NULL; e++)
		if (strcmp((*e)->name, name) == 0)
			return *e;
	return NULL;
}

void
cmd_warnx(const char *fmt, ...)
{
	va_list	ap;

	fputs("cbexec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
cmd_warn(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	fputs("cbexec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
}

int
cmd_usage(const struct cmd_entry *e, int status)
{
	fprintf(stderr, "usage: cbexec %s %s\n", e->name, e->usage);
	return status;
}

int
cmd_config(struct cb_ctx *ctx)
{
	struct config_msgs	 msgs;
	struct cb_err		 err;
	struct stat		 sb;
	const char		*named;
	size_t			 i;

	if (ctx->cfg_loaded)
		return 0;
	if (ctx->cfg_failed)
		return -1;
	if (config_check(ctx->config_path, &ctx->cfg, &msgs, &err) == 0) {
		config_msgs_free(&msgs);
		ctx->cfg_loaded = 1;
		return 0;
	}
	if (msgs.n == 0)
		cmd_warnx("%s", err.msg);
	for (i = 0; i < msgs.n; i++)
		cmd_warnx("%s", msgs.v[i]);
	config_msgs_free(&msgs);
	ctx->cfg_failed = 1;
	named = ctx->config_path != NULL ? ctx->config_path :
	    getenv("CBEXEC_CONFIG");
	if (named != NULL && *named != '\0' && stat(named, &sb) == -1 &&
	    (errno == ENOENT || errno == ENOTDIR))
		ctx->cfg_missing = 1;
	return -1;
}

/*
 * The shared system state (SPEC section 10): root's, and that of the
 * members of the group cbexec, whose new files there get mode 0660.
 */
#define STATE_SYSTEM_DIR	"/var/lib/cbexec"
#define STATE_SYSTEM		STATE_SYSTEM_DIR "/state.mdb"
#define STATE_GROUP		"cbexec"

/*
 * The group cbexec's id, looked up once (NSS may load modules and open
 * sockets: about a millisecond), or -1 when there is no such group.
 */
static long long
state_group(void)
{
	static int		 done;
	static long long	 gid = -1;
	struct group		*gr;

	if (!done && (gr = getgrnam(STATE_GROUP)) != NULL)
		gid = gr->gr_gid;
	done = 1;
	return gid;
}

/* Is gid the process's effective group or one of its supplementary ones? */
static int
state_in_group(gid_t gid)
{
	gid_t	*groups;
	int	 n, i, found = 0;

	if (getegid() == gid)
		return 1;
	if ((n = getgroups(0, NULL)) <= 0)
		return 0;
	groups = xcalloc((size_t)n, sizeof *groups);
	if ((n = getgroups(n, groups)) > 0) {
		for (i = 0; i < n && !found; i++)
			found = groups[i] == gid;
	}
	free(groups);
	return found;
}

/*
 * Does a user who is not root share root's state (SPEC section 10)?  Yes
 * when /var/lib/cbexec exists, its group is cbexec, and the user is in
 * that group.  The name is looked up only for a user in the directory's
 * group, so other users pay two system calls.
 */
static int
state_shared(void)
{
	struct stat	st;

	return stat(STATE_SYSTEM_DIR, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_gid != 0 && state_in_group(st.st_gid) &&
	    state_group() == (long long)st.st_gid;
}

/*
 * Can the state at path be made?  The nearest directory above it that
 * exists must be one we may write and search (a service account's home
 * may be /nonexistent, or /var/www owned by root).
 */
static int
state_usable(const char *path)
{
	struct stat	 st;
	char		*dir, *p;
	int		 ok = 0;

	dir = xstrdup(path);
	while ((p = strrchr(dir, '/')) != NULL && p != dir) {
		*p = '\0';
		if (stat(dir, &st) == 0) {
			ok = S_ISDIR(st.st_mode) && faccessat(AT_FDCWD, dir,
			    W_OK | X_OK, AT_EACCESS) == 0;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			break;
	}
	free(dir);
	return ok;
}

/* $XDG_STATE_HOME if set and absolute, else HOME/.local/state. */
static char *
state_home(void)
{
	const char	*xdg, *home;
	struct passwd	*pw;
	char		*s;

	xdg = getenv("XDG_STATE_HOME");
	if (xdg != NULL && xdg[0] == '/') {
		xasprintf(&s, "%s/cbexec/state.mdb", xdg);
		return s;
	}
	home = getenv("HOME");
	if (home == NULL || home[0] != '/') {
		if ((pw = getpwuid(getuid())) == NULL ||
		    pw->pw_dir == NULL || pw->pw_dir[0] != '/')
			return NULL;
		home = pw->pw_dir;
	}
	xasprintf(&s, "%s/.local/state/cbexec/state.mdb", home);
	return s;
}

/*
 * The state of a user with no usable home: /var/tmp/cbexec-UID, made 0700
 * and checked as tmux checks /tmp/tmux-UID (a directory, not a symlink,
 * ours, and nobody else's to read or write), so that another user cannot
 * have made it first and hold our breakers.
 */
static char *
state_fallback(void)
{
	struct stat	 st;
	uid_t		 uid = geteuid();
	char		*dir, *s = NULL;

	xasprintf(&dir, "/var/tmp/cbexec-%u", (unsigned)uid);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		cmd_warn("cannot create directory '%s'", dir);
	else if (lstat(dir, &st) == -1)
		cmd_warn("cannot use directory '%s'", dir);
	else if (!S_ISDIR(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & 077) != 0)
		cmd_warnx("cannot use directory '%s': not a directory of "
		    "uid %u's alone (mode 0700)", dir, (unsigned)uid);
	else
		xasprintf(&s, "%s/state.mdb", dir);
	free(dir);
	return s;
}

/*
 * The state path by the rules of SPEC sections 5 and 10; with local_only,
 * the first candidate that is not a Redis URL (the fallback's LMDB file).
 */
static char *
state_resolve(struct cb_ctx *ctx, int local_only)
{
	const char	*c[3];
	char		*s;
	int		 i;

	c[0] = ctx->state_path;
	c[1] = getenv("CBEXEC_STATE");
	c[2] = cmd_config(ctx) == 0 ? ctx->cfg.state : NULL;
	for (i = 0; i < 3; i++) {
		/* An empty -s is kept, to be refused as a path. */
		if (c[i] == NULL || (i > 0 && c[i][0] == '\0') ||
		    (local_only && store_is_redis(c[i])))
			continue;
		return xstrdup(c[i]);
	}
	if (geteuid() == 0 || state_shared())
		return xstrdup(STATE_SYSTEM);
	if ((s = state_home()) != NULL && state_usable(s))
		return s;
	free(s);
	return state_fallback();
}

const char *
cmd_state_path(struct cb_ctx *ctx)
{
	if (ctx->state == NULL)
		ctx->state = state_resolve(ctx, 0);
	return ctx->state;
}

/* Eviction's view of a record (store.h): open and half-open are pinned. */
static int
rank_record(const uint8_t *data, size_t len, struct store_rank *rk)
{
	enum cb_state	st;

	if (record_peek(data, len, &st, &rk->last_used_ms) == -1)
		return -1;
	rk->pinned = st != STATE_CLOSED;
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
	char		*dir, *lock;
	mode_t		 mode = ctx->cfg.state_mode;
	int		 made;

	if (ctx->cfg.state_mode_set)
		return mode;
	xasprintf(&lock, "%s-lock", path);
	made = lstat(path, &st) == 0 && lstat(lock, &st) == 0;
	free(lock);
	if (made)
		return mode;
	dir = xdirname(path);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_gid != 0 &&
	    state_group() == (long long)st.st_gid)
		mode = 0660;
	free(dir);
	return mode;
}

static struct store *
store_open_lmdb(struct cb_ctx *ctx, const char *path, int readonly,
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
	return store_lmdb_open(&opts, err);
}

struct store *
cmd_store(struct cb_ctx *ctx, int readonly, int *missing, struct cb_err *err)
{
	struct store_redis_opts	 ropts;
	const char		*path;

	if (missing != NULL)
		*missing = 0;
	if (ctx->store != NULL)
		return ctx->store;
	if (cmd_config(ctx) == -1) {
		err_set(err, "no usable config");
		return NULL;
	}
	if ((path = cmd_state_path(ctx)) == NULL) {
		err_set(err, "no state file path");
		return NULL;
	}
	if (store_is_redis(path)) {
		memset(&ropts, 0, sizeof ropts);
		ropts.url = path;
		ropts.prefix = ctx->cfg.redis_prefix != NULL ?
		    ctx->cfg.redis_prefix : "cbexec:";
		ropts.timeout_ms = ctx->cfg.store_timeout_ms;
		ropts.password = getenv("CBEXEC_REDIS_PASSWORD");
		if (ropts.password != NULL && ropts.password[0] == '\0')
			ropts.password = NULL;
		ropts.max_records = (uint64_t)ctx->cfg.max_breakers;
		ropts.rank = rank_record;
		ctx->store = store_redis_open(&ropts, err);
		return ctx->store;
	}
	errno = 0;
	ctx->store = store_open_lmdb(ctx, path, readonly, err);
	if (ctx->store == NULL && readonly && errno == ENOENT &&
	    missing != NULL)
		*missing = 1;
	return ctx->store;
}

struct store *
cmd_store_local(struct cb_ctx *ctx, struct cb_err *err)
{
	char	*path;

	if (cmd_config(ctx) == -1) {
		err_set(err, "no usable config");
		return NULL;
	}
	if ((path = state_resolve(ctx, 1)) == NULL) {
		err_set(err, "no state file path");
		return NULL;
	}
	store_close(ctx->store);
	ctx->store = NULL;
	free(ctx->state);
	ctx->state = path;
	ctx->store = store_open_lmdb(ctx, path, 0, err);
	return ctx->store;
}

int
cmd_policy(struct cb_ctx *ctx, const char *name, struct policy_builder *b)
{
	struct cb_err	err;

	if (cmd_config(ctx) == -1)
		return -1;
	if (config_policy(&ctx->cfg, name, b, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return -1;
	}
	return 0;
}

int
cmd_name_valid(const char *name, struct cb_err *err)
{
	return name_valid(name, err);
}

const char *
cmd_user(void)
{
	static char	 buf[64];
	struct passwd	*pw;

	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name != NULL)
		snprintf(buf, sizeof buf, "%s", pw->pw_name);
	else
		snprintf(buf, sizeof buf, "uid %u", (unsigned)getuid());
	return buf;
}

int
cmd_decode(struct cb_ctx *ctx, const char *name, const uint8_t *data,
    size_t len, struct cb_record *r, struct cb_err *err)
{
	struct cb_err	e;

	if (record_decode(data, len, r, &e) == RECORD_OK)
		return 0;
	err_set(err, "breaker '%s' in state '%s': %s", name,
	    ctx->state != NULL ? ctx->state : "?", e.msg);
	return -1;
}

#define HOOK_TIMEOUT_MS	5000
#define HOOK_MAX	8

/*
 * Hooks started and not yet finished.  They run alongside whatever cbexec
 * does next (the wrapped command, for a transition made at admission) and
 * are finished, each no later than five seconds after its start, by
 * cmd_hooks_wait() before cbexec exits.  So a hook never delays the start
 * of the command, and delays cbexec's exit by at most five seconds after
 * the last transition.  Hooks start in the order of the transitions; two of
 * one invocation may overlap, and CBEXEC_EPOCH tells their order.
 */
static struct spawn_job	hooks[HOOK_MAX];
static int		nhooks;

static void
hook_report(struct cb_ctx *ctx, const struct spawn_job *job,
    const struct spawn_result *res)
{
	if (ctx->quiet)
		return;
	if (res->exec_failed)
		cmd_warnx("warning: on_transition: cannot run '%s': %s",
		    job->argv0, strerror(res->exec_errno));
	else if (res->timed_out)
		cmd_warnx("warning: on_transition: '%s' killed after %ds",
		    job->argv0, HOOK_TIMEOUT_MS / 1000);
}

static void
hook_finish(struct cb_ctx *ctx, struct spawn_job *job)
{
	struct spawn_job	copy = *job;
	struct spawn_result	res;

	spawn_finish(job, &res);
	hook_report(ctx, &copy, &res);
}

void
cmd_hooks_wait(struct cb_ctx *ctx)
{
	int	i;

	for (i = 0; i < nhooks; i++)
		hook_finish(ctx, &hooks[i]);
	nhooks = 0;
}

/*
 * Start the on_transition hook for t: argv without a shell, the CBEXEC_*
 * variables but never CBEXEC_REDIS_PASSWORD, no descriptor above 2, stdin
 * from /dev/null, its output on our stderr, its own process group, killed
 * with that group five seconds after it started.  Its result changes
 * nothing; only a hook that could not run or had to be killed is
 * reported.
 */
static void
run_hook(struct cb_ctx *ctx, const char *name, const struct cb_transition *t)
{
	struct spawn_opts	 so;
	struct cb_err		 err;
	char			*env[6];
	int			 i;

	if (nhooks == HOOK_MAX) {
		hook_finish(ctx, &hooks[0]);
		memmove(&hooks[0], &hooks[1], (HOOK_MAX - 1) * sizeof hooks[0]);
		nhooks--;
	}
	xasprintf(&env[0], "CBEXEC_NAME=%s", name);
	xasprintf(&env[1], "CBEXEC_FROM=%s", record_state_name(t->from));
	xasprintf(&env[2], "CBEXEC_TO=%s", record_state_name(t->to));
	xasprintf(&env[3], "CBEXEC_REASON=%s", t->reason);
	xasprintf(&env[4], "CBEXEC_EPOCH=%llu", (unsigned long long)t->epoch);
	env[5] = NULL;
	memset(&so, 0, sizeof so);
	so.argv = ctx->cfg.on_transition;
	so.timeout_ms = HOOK_TIMEOUT_MS;
	so.env = env;
	so.stdin_null = 1;
	so.stdout_to_stderr = 1;
	so.helper = 1;
	so.mask = ctx->have_mask ? &ctx->mask : NULL;
	if (spawn_start(&so, &hooks[nhooks], &err) == -1)
		cmd_warnx("warning: on_transition: %s", err.msg);
	else
		nhooks++;
	/* The child has its own copy. */
	for (i = 0; i < 5; i++)
		free(env[i]);
}

/*
 * Can syslog(3) deliver?  glibc drops messages silently when /dev/log is
 * missing or nobody listens on it (a container), so connect to it once per
 * run, as syslog(3) would, and say so when it cannot.
 */
static int
syslog_usable(struct cb_ctx *ctx)
{
	static int		 usable = -1;
	struct sockaddr_un	 sun;
	int			 fd, e = 0;

	if (usable != -1)
		return usable;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", _PATH_LOG);
	usable = 0;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		e = errno;
	else {
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
			usable = 1;
		else
			e = errno;
		(void)close(fd);
	}
	/* glibc tries a stream socket when the datagram one is refused. */
	if (!usable && e == EPROTOTYPE &&
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1) {
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
			usable = 1;
		else
			e = errno;
		(void)close(fd);
	}
	if (!usable && !ctx->quiet)
		cmd_warnx("warning: cannot log to syslog (%s: %s); "
		    "transitions go to stderr", _PATH_LOG, strerror(e));
	return usable;
}

void
cmd_transitions(struct cb_ctx *ctx, const char *name,
    const struct cb_effects *fx)
{
	const struct cb_transition	*t;
	int				 i;
	enum cb_log			 log;

	log = ctx->cfg_loaded ? ctx->cfg.log : CB_LOG_SYSLOG;
	/* -q asked for no chatter on stderr: it gets none from a fallback. */
	if (log == CB_LOG_SYSLOG && fx->ntrans > 0 && !syslog_usable(ctx))
		log = ctx->quiet ? CB_LOG_NONE : CB_LOG_STDERR;
	for (i = 0; i < fx->ntrans; i++) {
		t = &fx->trans[i];
		if (log == CB_LOG_SYSLOG) {
			openlog("cbexec", LOG_PID, LOG_USER);
			syslog(t->to == STATE_OPEN ? LOG_WARNING : LOG_NOTICE,
			    "%s: %s -> %s (%s)", name,
			    record_state_name(t->from),
			    record_state_name(t->to), t->reason);
		}
		if (log == CB_LOG_STDERR || ctx->verbose)
			cmd_warnx("%s: %s -> %s (%s)", name,
			    record_state_name(t->from),
			    record_state_name(t->to), t->reason);
		if (ctx->cfg_loaded && ctx->cfg.on_transition != NULL)
			run_hook(ctx, name, t);
	}
	if (log == CB_LOG_SYSLOG && fx->ntrans > 0)
		closelog();
}

void
cmd_evictions(struct cb_ctx *ctx)
{
	const struct store_evicted	*ev;
	int				 i;

	if (ctx->store == NULL)
		return;
	ev = &ctx->store->evicted;
	for (i = 0; i < ev->n; i++) {
		if (ev->rec[i].rank.pinned && !ctx->quiet)
			cmd_warnx("warning: max_breakers (%lld) reached and "
			    "every breaker is open: evicted open breaker "
			    "'%s'", ctx->cfg.max_breakers, ev->rec[i].name);
		else if (ctx->verbose)
			cmd_warnx("%s: evicted (max_breakers %lld, least "
			    "recently used)", ev->rec[i].name,
			    ctx->cfg.max_breakers);
	}
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

/*
 * A local state file's holder from another boot is gone; within this boot
 * the pid must still exist with the start time it had.  In the fleet store
 * another boot id is most likely another host, whose pids we cannot see:
 * only its lease can free the slot.
 */
static enum cb_liveness
holder_alive(const struct cb_slot *s, void *arg)
{
	struct cb_ctx	*ctx = arg;

	if (memcmp(s->boot_id, cmd_boot_id(ctx), sizeof s->boot_id) != 0)
		return ctx->store != NULL && ctx->store->ops->multi_host ?
		    HOLDER_UNKNOWN : HOLDER_DEAD;
	if (s->pid <= 0)
		return HOLDER_UNKNOWN;
	if (clock_proc_start(s->pid) == s->start_time)
		return HOLDER_ALIVE;
	/*
	 * A process of another user may be hidden from us (/proc mounted
	 * with hidepid): one that exists but is not ours to signal cannot be
	 * judged, so its lease decides.
	 */
	if (kill(s->pid, 0) == -1 && errno == EPERM)
		return HOLDER_UNKNOWN;
	return HOLDER_DEAD;
}

void
cmd_env(struct cb_ctx *ctx, struct cb_env *env)
{
	memset(env, 0, sizeof *env);
	env->now_ms = clock_wall_ms();
	/* 53 random bits: a uniform double in [0, 1). */
	env->jitter_u = (double)(clock_random() >> 11) / 9007199254740992.0;
	env->alive = holder_alive;
	env->alive_ctx = ctx;
}

int
cmd_admit_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out,
    void *arg, struct cb_err *err)
{
	struct cmd_call	*c = arg;
	int		 changed;

	memset(&c->fx, 0, sizeof c->fx);
	if (old == NULL)
		record_init(&c->rec, c->env.now_ms);
	else if (cmd_decode(c->ctx, c->name, old, oldlen, &c->rec, err) == -1)
		return -1;
	if (c->rec.state != STATE_CLOSED && c->fill_self != NULL)
		c->fill_self(c);
	changed = breaker_admit(&c->rec, c->p, &c->env, &c->self, &c->ticket,
	    &c->fx);
	if (old != NULL && !changed)
		return STORE_KEEP;
	record_encode(&c->rec, out);
	return STORE_PUT;
}

int
cmd_record_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out,
    void *arg, struct cb_err *err)
{
	struct cmd_call	*c = arg;

	memset(&c->fx, 0, sizeof c->fx);
	if (old == NULL) {
		/* Forgotten in the meantime: nothing to count in. */
		c->counted = OUTCOME_STALE;
		return STORE_KEEP;
	}
	if (cmd_decode(c->ctx, c->name, old, oldlen, &c->rec, err) == -1)
		return -1;
	c->counted = breaker_record(&c->rec, c->p, &c->env, &c->ticket,
	    &c->run, &c->fx);
	record_encode(&c->rec, out);
	return STORE_PUT;
}

void
cmd_format_wait(int64_t ms, char *buf, size_t len)
{
	format_duration((ms + 999) / 1000 * 1000, buf, len);
}
