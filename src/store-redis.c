/*
 * store-redis.c: the fleet store (SPEC section 9), breaker records shared by
 * many hosts through one Redis server, and the only file that includes
 * hiredis.h.  It holds no breaker logic: a record is the same opaque bytes
 * as in LMDB, stored as a Redis string under prefix + NAME, and update() is
 * the store interface's read-modify-write done optimistically: WATCH the
 * key, GET it, let the callback compute the new bytes, then MULTI / SET (or
 * DEL) / EXEC, which Redis refuses when another writer touched the key
 * after the WATCH; the loop then runs the callback again on the new bytes,
 * a bounded number of times with a short random pause.  Each round trip is
 * bounded by store_timeout, so a Redis that does not answer costs at most a
 * few timeouts and the caller can fall back to the local store.  Built
 * without hiredis (WITH_REDIS=0), the URL is still parsed, and opening
 * fails with a message that says so.
 */
#include <sys/time.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CBEXEC_REDIS
#include <hiredis/hiredis.h>
#endif

#include "clock.h"
#include "redis-url.h"
#include "resolve.h"
#include "store.h"
#include "util.h"

/* Optimistic update attempts before giving up on a hot key. */
#define REDIS_RETRIES	100
/* Keys per SCAN step and per MGET. */
#define REDIS_SCAN_COUNT	"500"
#define REDIS_MGET_BATCH	200

int
store_is_redis(const char *path)
{
	return path != NULL && (strncmp(path, "redis://", 8) == 0 ||
	    strncmp(path, "unix:", 5) == 0);
}

#ifndef CBEXEC_REDIS

const char *
store_redis_version(void)
{
	return NULL;
}

struct store *
store_redis_open(const struct store_redis_opts *opts, struct cb_err *err)
{
	struct redis_url	u;

	if (redis_url_parse(opts->url, &u, err) == -1)
		return NULL;
	redis_url_free(&u);
	err_set(err, "cannot use Redis state '%s': cbexec was built without "
	    "Redis support (hiredis; make WITH_REDIS=1)", opts->url);
	return NULL;
}

#else

const char *
store_redis_version(void)
{
	static char	buf[32];

	snprintf(buf, sizeof buf, "hiredis %d.%d.%d", HIREDIS_MAJOR,
	    HIREDIS_MINOR, HIREDIS_PATCH);
	return buf;
}

struct store_redis {
	struct store	 s;		/* first: what we hand out */
	struct redis_url u;
	char		*password;
	struct timeval	 tv;
	int64_t		 timeout_ms;
	redisContext	*c;		/* NULL: not connected */
	int		 timedout;	/* the last I/O error was a timeout */
	struct cb_buf	 key;		/* prefix + NAME */
	size_t		 prefixlen;
	struct cb_buf	 out;		/* update callback output, reused */
	struct cb_buf	 peek;		/* update_peek's snapshot */
	int		 created;	/* the last update made its record */
	uint64_t	 max_records;	/* 0: no bound */
	store_rank_fn	 rank;
};

static int	redis_update(struct store *, const char *, store_update_fn,
		    void *, struct cb_err *);
static int	redis_update_peek(struct store *, const char *,
		    store_update_fn, void *, struct cb_err *);
static int	redis_get(struct store *, const char *, struct cb_buf *,
		    struct cb_err *);
static int	redis_each(struct store *, store_each_fn, void *,
		    struct cb_err *);
static int	redis_prune(struct store *, store_prune_fn, void *,
		    struct cb_buf *, struct cb_err *);
static void	redis_close(struct store *);
static void	redis_evict(struct store_redis *, const char *);
static int	redis_fetch(struct store_redis *, const char *, const char *,
		    struct cb_buf *, struct cb_err *);

static const struct store_ops redis_ops = {
	.kind = "redis",
	.multi_host = 1,
	.update = redis_update,
	.update_peek = redis_update_peek,
	.get = redis_get,
	.each = redis_each,
	.prune = redis_prune,
	.close = redis_close
};

/*
 * hiredis writes with write(2): a server gone away would kill us with
 * SIGPIPE.  Hold it blocked while we talk, and swallow one that arrived.
 */
static void
pipe_block(sigset_t *old)
{
	sigset_t	set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
pipe_restore(const sigset_t *old)
{
	struct timespec	zero = { 0, 0 };
	sigset_t	set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (!sigismember(old, SIGPIPE) && sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE)) {
		while (sigtimedwait(&set, NULL, &zero) == -1 &&
		    errno == EINTR)
			;
	}
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Why the connection failed, in words a user can act on. */
static void
redis_io_error(struct store_redis *sr, const char *what, struct cb_err *err)
{
	const char	*why = "connection lost";

	sr->timedout = 0;
	if (sr->c != NULL && sr->c->err != 0) {
		why = sr->c->errstr;
		if (strstr(why, "temporarily unavailable") != NULL ||
		    strstr(why, "timed out") != NULL)
			why = NULL;
	}
	if (why == NULL) {
		sr->timedout = 1;
		err_set(err, "%s in state '%s': no answer within %lldms", what,
		    sr->s.path, (long long)sr->timeout_ms);
	} else
		err_set(err, "%s in state '%s': %s", what, sr->s.path, why);
	sr->s.down = 1;
	/* The reply stream is out of step now: start afresh next time. */
	if (sr->c != NULL) {
		redisFree(sr->c);
		sr->c = NULL;
	}
}

/* A reply of the wrong kind: the server answered, but not usefully. */
static void
redis_bad_reply(struct store_redis *sr, const char *what, redisReply *r,
    struct cb_err *err)
{
	size_t	len;

	if (r != NULL && r->type == REDIS_REPLY_ERROR) {
		/* The server's sentence, without the full stop that some
		 * end with: our line may go on with "; using ...". */
		len = strnlen(r->str, 200);
		while (len > 0 && r->str[len - 1] == '.')
			len--;
		err_set(err, "%s in state '%s': %.*s", what, sr->s.path,
		    (int)len, r->str);
	} else
		err_set(err, "%s in state '%s': unexpected reply (type %d)",
		    what, sr->s.path, r != NULL ? r->type : -1);
	sr->s.down = 1;
}

/* One command, waiting for its reply; NULL after filling err. */
static redisReply *
redis_call(struct store_redis *sr, const char *what, int argc,
    const char **argv, const size_t *lens, struct cb_err *err)
{
	redisReply	*r;

	r = redisCommandArgv(sr->c, argc, argv, lens);
	if (r == NULL)
		redis_io_error(sr, what, err);
	return r;
}

/* Read the next pipelined reply; NULL after filling err. */
static redisReply *
redis_next(struct store_redis *sr, const char *what, struct cb_err *err)
{
	void	*r = NULL;

	if (redisGetReply(sr->c, &r) != REDIS_OK || r == NULL) {
		redis_io_error(sr, what, err);
		return NULL;
	}
	return r;
}

static int
redis_expect_ok(struct store_redis *sr, const char *what, redisReply *r,
    struct cb_err *err)
{
	if (r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0)
		return 0;
	redis_bad_reply(sr, what, r, err);
	return -1;
}

/* Connecting took longer than store_timeout. */
static int
redis_slow(struct store_redis *sr, struct cb_err *err)
{
	err_set(err, "cannot connect to Redis in state '%s': no answer "
	    "within %lldms", sr->s.path, (long long)sr->timeout_ms);
	sr->timedout = 1;
	sr->s.down = 1;
	return -1;
}

/*
 * A TCP connection to one of the host's addresses, the lookup and every
 * attempt together within store_timeout; NULL after filling err.
 */
static int
redis_connect_tcp(struct store_redis *sr, struct cb_err *err)
{
	struct resolved		ad;
	struct cb_err		why;
	struct timeval		tv;
	int64_t			deadline, left;
	int			i;

	deadline = clock_mono_ms() + sr->timeout_ms;
	switch (resolve_host(sr->u.host, deadline, &ad, &why)) {
	case RESOLVE_LATE:
		return redis_slow(sr, err);
	case RESOLVE_FAILED:
		err_set(err, "cannot connect to Redis in state '%s': %s",
		    sr->s.path, why.msg);
		sr->s.down = 1;
		return -1;
	}
	for (i = 0; i < ad.n; i++) {
		if (sr->c != NULL) {
			redisFree(sr->c);
			sr->c = NULL;
		}
		if ((left = deadline - clock_mono_ms()) <= 0)
			return redis_slow(sr, err);
		tv.tv_sec = (time_t)(left / 1000);
		tv.tv_usec = (suseconds_t)(left % 1000 * 1000);
		sr->c = redisConnectWithTimeout(ad.addr[i], sr->u.port, tv);
		if (sr->c == NULL || sr->c->err == 0)
			break;
	}
	return 0;
}

/* Connect, AUTH and SELECT, unless a healthy connection exists. */
static int
redis_connect(struct store_redis *sr, struct cb_err *err)
{
	redisReply	*r;
	const char	*argv[3];
	char		 db[16];
	int		 flags, n;

	if (sr->c != NULL) {
		if (sr->c->err == 0)
			return 0;
		redisFree(sr->c);
		sr->c = NULL;
	}
	if (sr->u.sock != NULL)
		sr->c = redisConnectUnixWithTimeout(sr->u.sock, sr->tv);
	else if (redis_connect_tcp(sr, err) == -1)
		return -1;
	if (sr->c == NULL) {
		err_set(err, "cannot connect to Redis state '%s': out of "
		    "memory", sr->s.path);
		sr->s.down = 1;
		return -1;
	}
	if (sr->c->err != 0) {
		redis_io_error(sr, "cannot connect to Redis", err);
		return -1;
	}
	/* The wrapped command must inherit no cbexec descriptor. */
	if ((flags = fcntl(sr->c->fd, F_GETFD)) == -1 ||
	    fcntl(sr->c->fd, F_SETFD, flags | FD_CLOEXEC) == -1 ||
	    redisSetTimeout(sr->c, sr->tv) != REDIS_OK) {
		err_set(err, "cannot set up the connection to Redis state "
		    "'%s': %s", sr->s.path, strerror(errno));
		sr->s.down = 1;
		redisFree(sr->c);
		sr->c = NULL;
		return -1;
	}

	if (sr->password != NULL) {
		n = 0;
		argv[n++] = "AUTH";
		if (sr->u.user != NULL)
			argv[n++] = sr->u.user;
		argv[n++] = sr->password;
		if ((r = redis_call(sr, "cannot authenticate to Redis", n,
		    argv, NULL, err)) == NULL)
			return -1;
		n = redis_expect_ok(sr, "Redis refused AUTH", r, err);
		freeReplyObject(r);
		if (n == -1)
			goto drop;
	}
	if (sr->u.db != 0) {
		snprintf(db, sizeof db, "%ld", sr->u.db);
		argv[0] = "SELECT";
		argv[1] = db;
		if ((r = redis_call(sr, "cannot select the Redis database", 2,
		    argv, NULL, err)) == NULL)
			return -1;
		n = redis_expect_ok(sr, "Redis refused SELECT", r, err);
		freeReplyObject(r);
		if (n == -1)
			goto drop;
	}
	return 0;
drop:
	redisFree(sr->c);
	sr->c = NULL;
	return -1;
}

/* prefix + NAME into sr->key. */
static int
redis_key(struct store_redis *sr, const char *name, const char *what,
    struct cb_err *err)
{
	size_t	len;

	if (name == NULL || (len = strnlen(name, 1025)) == 0 || len > 1024) {
		err_set(err, "%s '%s' in state '%s': invalid name", what,
		    name == NULL ? "" : name, sr->s.path);
		return -1;
	}
	sr->key.len = sr->prefixlen;
	buf_add(&sr->key, name, len);
	return 0;
}

/* A short random pause after a lost race, growing with the attempts. */
static void
redis_backoff(int attempt)
{
	struct timespec	ts;
	uint64_t	cap_us;

	cap_us = 1000u * (uint64_t)(attempt < 8 ? attempt + 1 : 8);
	ts.tv_sec = 0;
	ts.tv_nsec = (long)(clock_random() % cap_us) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* UNWATCH, ignoring the answer: a failure costs only a reconnect. */
static void
redis_unwatch(struct store_redis *sr)
{
	const char	*argv[1] = { "UNWATCH" };
	redisReply	*r;

	if (sr->c != NULL && (r = redisCommandArgv(sr->c, 1, argv, NULL)) !=
	    NULL)
		freeReplyObject(r);
}

/*
 * WATCH and GET sr->key, pipelined: one round trip.  Returns 0 with *getp
 * the GET reply (nil or a string), 2 when the connection was found dead
 * before anything was written, -1 failed (err filled, the key unwatched).
 */
static int
redis_watch_get(struct store_redis *sr, const char *msg, redisReply **getp,
    struct cb_err *err)
{
	redisReply	*r, *get;
	const char	*argv[2];
	size_t		 lens[2];
	int		 rc;

	argv[0] = "WATCH";
	argv[1] = (const char *)sr->key.data;
	lens[0] = 5;
	lens[1] = sr->key.len;
	if (redisAppendCommandArgv(sr->c, 2, argv, lens) != REDIS_OK)
		return 2;
	argv[0] = "GET";
	lens[0] = 3;
	if (redisAppendCommandArgv(sr->c, 2, argv, lens) != REDIS_OK)
		return 2;
	if ((r = redis_next(sr, msg, err)) == NULL)
		return 2;
	rc = redis_expect_ok(sr, msg, r, err);
	freeReplyObject(r);
	if (rc == -1) {
		/* The GET reply is still due: drop the connection. */
		redisFree(sr->c);
		sr->c = NULL;
		return -1;
	}
	if ((get = redis_next(sr, msg, err)) == NULL)
		return 2;
	if (get->type != REDIS_REPLY_NIL && get->type != REDIS_REPLY_STRING) {
		if (get->type == REDIS_REPLY_ERROR)
			redis_bad_reply(sr, msg, get, err);
		else {
			err_set(err, "%s: Redis key '%.*s' of state '%s' is "
			    "not a string", msg, (int)sr->key.len,
			    (const char *)sr->key.data, sr->s.path);
			sr->s.down = 0;
		}
		freeReplyObject(get);
		redis_unwatch(sr);
		return -1;
	}
	*getp = get;
	return 0;
}

/*
 * The callback on a GET reply (nil or a string, which is freed): an
 * enum store_action with the new bytes in sr->out, or -1 (err filled).
 */
static int
redis_apply(struct store_redis *sr, const char *msg, redisReply *get,
    store_update_fn fn, void *arg, struct cb_err *err)
{
	int	action;

	buf_reset(&sr->out);
	if (get->type == REDIS_REPLY_NIL)
		action = fn(NULL, 0, &sr->out, arg, err);
	else
		action = fn((const uint8_t *)get->str, get->len, &sr->out, arg,
		    err);
	freeReplyObject(get);
	if (action != -1 && action != STORE_KEEP && action != STORE_PUT &&
	    action != STORE_DELETE) {
		err_set(err, "%s in state '%s': callback returned %d", msg,
		    sr->s.path, action);
		return -1;
	}
	return action;
}

/*
 * MULTI / SET sr->out (STORE_PUT) or DEL (STORE_DELETE) / EXEC on the
 * watched sr->key.  Returns 0 written, 1 another writer came first (EXEC
 * answered nil), -1 failed (err filled).
 */
static int
redis_exec(struct store_redis *sr, const char *msg, int action,
    struct cb_err *err)
{
	redisReply	*r;
	const char	*argv[3];
	size_t		 lens[3];
	int		 rc;

	argv[0] = "MULTI";
	if (redisAppendCommandArgv(sr->c, 1, argv, NULL) != REDIS_OK)
		goto io;
	argv[0] = action == STORE_PUT ? "SET" : "DEL";
	lens[0] = 3;
	argv[1] = (const char *)sr->key.data;
	lens[1] = sr->key.len;
	argv[2] = sr->out.len != 0 ? (const char *)sr->out.data : "";
	lens[2] = sr->out.len;
	if (redisAppendCommandArgv(sr->c, action == STORE_PUT ? 3 : 2, argv,
	    lens) != REDIS_OK)
		goto io;
	argv[0] = "EXEC";
	if (redisAppendCommandArgv(sr->c, 1, argv, NULL) != REDIS_OK)
		goto io;

	/* MULTI: +OK; SET/DEL: +QUEUED; EXEC: the results, or nil. */
	if ((r = redis_next(sr, msg, err)) == NULL)
		return -1;
	rc = redis_expect_ok(sr, msg, r, err);
	freeReplyObject(r);
	if ((r = redis_next(sr, msg, err)) == NULL)
		return -1;
	freeReplyObject(r);
	if ((r = redis_next(sr, msg, err)) == NULL)
		return -1;
	if (rc == -1) {
		freeReplyObject(r);
		return -1;
	}
	if (r->type == REDIS_REPLY_NIL) {
		freeReplyObject(r);
		return 1;
	}
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 ||
	    r->element[0]->type == REDIS_REPLY_ERROR) {
		redis_bad_reply(sr, msg, r->type == REDIS_REPLY_ARRAY &&
		    r->elements == 1 ? r->element[0] : r, err);
		freeReplyObject(r);
		return -1;
	}
	freeReplyObject(r);
	return 0;
io:
	redis_io_error(sr, msg, err);
	return -1;
}

/*
 * One optimistic attempt: WATCH and GET, the callback, then MULTI / EXEC.
 * Returns 0 done (sr->created says whether it made the record), 1 lost
 * the race (run again), 2 the connection was found dead before anything
 * was written (reconnect and run again), -1 failed (err filled).
 */
static int
redis_try_update(struct store_redis *sr, const char *name,
    store_update_fn fn, void *arg, struct cb_err *err)
{
	redisReply	*get;
	char		 msg[256];
	int		 action, missing, rc;

	snprintf(msg, sizeof msg, "cannot update breaker '%.200s'", name);
	sr->created = 0;
	if ((rc = redis_watch_get(sr, msg, &get, err)) != 0)
		return rc;
	missing = get->type == REDIS_REPLY_NIL;
	switch ((action = redis_apply(sr, msg, get, fn, arg, err))) {
	case -1:
		redis_unwatch(sr);
		return -1;
	case STORE_KEEP:
		redis_unwatch(sr);
		return 0;
	}
	if ((rc = redis_exec(sr, msg, action, err)) == 0)
		sr->created = missing && action == STORE_PUT;
	return rc;
}

/* The optimistic loop around redis_try_update (see store.h). */
static int
redis_update_loop(struct store_redis *sr, const char *name,
    store_update_fn fn, void *arg, struct cb_err *err)
{
	struct store	*s = &sr->s;
	sigset_t	 old;
	int		 attempt, rc = -1, reconnected = 0;

	s->down = 0;
	sr->timedout = 0;
	if (redis_key(sr, name, "cannot update breaker", err) == -1)
		return -1;
	pipe_block(&old);
	for (attempt = 0; attempt < REDIS_RETRIES; attempt++) {
		if (redis_connect(sr, err) == -1) {
			rc = -1;
			break;
		}
		rc = redis_try_update(sr, name, fn, arg, err);
		if (rc == 2 && !reconnected && !sr->timedout) {
			/* Dropped while idle (a restart): once more. */
			reconnected = 1;
			if (sr->c != NULL) {
				redisFree(sr->c);
				sr->c = NULL;
			}
			s->down = 0;
			attempt--;
			continue;
		}
		if (rc == 2) {
			if (sr->c != NULL)
				redis_io_error(sr, "cannot update breaker",
				    err);
			rc = -1;
		}
		if (rc != 1)
			break;
		redis_backoff(attempt);
	}
	if (rc == 1) {
		err_set(err, "cannot update breaker '%s' in state '%s': still "
		    "contended after %d attempts", name, s->path,
		    REDIS_RETRIES);
		rc = -1;
	}
	pipe_restore(&old);
	return rc;
}

static int
redis_update(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct store_redis	*sr = (struct store_redis *)s;
	int			 rc;

	s->evicted.n = 0;
	rc = redis_update_loop(sr, name, fn, arg, err);
	if (rc == 0 && sr->created && sr->max_records > 0)
		redis_evict(sr, name);
	return rc;
}

/*
 * A plain GET first (one round trip, no WATCH): when fn keeps the record
 * or fails, that is the answer; otherwise the optimistic update runs.
 */
static int
redis_update_peek(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct store_redis	*sr = (struct store_redis *)s;
	char			 msg[256];
	int			 action;

	s->evicted.n = 0;
	snprintf(msg, sizeof msg, "cannot update breaker '%.200s'", name);
	switch (redis_fetch(sr, name, msg, &sr->peek, err)) {
	case -1:
		return -1;
	case 0:
		buf_reset(&sr->out);
		action = fn(NULL, 0, &sr->out, arg, err);
		break;
	default:
		buf_reset(&sr->out);
		action = fn(sr->peek.data, sr->peek.len, &sr->out, arg, err);
		break;
	}
	if (action == -1 || action == STORE_KEEP)
		return action == -1 ? -1 : 0;
	if (action != STORE_PUT && action != STORE_DELETE) {
		err_set(err, "%s in state '%s': callback returned %d", msg,
		    s->path, action);
		return -1;
	}
	return redis_update(s, name, fn, arg, err);
}

/*
 * GET NAME into out, reconnecting once when the connection was dropped (a
 * read can always be repeated); what starts the messages.  Returns 1
 * found, 0 not found, -1 error.
 */
static int
redis_fetch(struct store_redis *sr, const char *name, const char *what,
    struct cb_buf *out, struct cb_err *err)
{
	redisReply	*r = NULL;
	sigset_t	 old;
	const char	*argv[2];
	size_t		 lens[2];
	int		 rc = -1, tries;

	buf_reset(out);
	sr->s.down = 0;
	sr->timedout = 0;
	if (redis_key(sr, name, what, err) == -1)
		return -1;
	argv[0] = "GET";
	argv[1] = (const char *)sr->key.data;
	lens[0] = 3;
	lens[1] = sr->key.len;
	pipe_block(&old);
	for (tries = 0; tries < 2 && r == NULL; tries++) {
		if ((tries > 0 && sr->timedout) ||
		    redis_connect(sr, err) == -1)
			goto out;
		r = redis_call(sr, what, 2, argv, lens, err);
	}
	if (r == NULL)
		goto out;
	if (r->type == REDIS_REPLY_STRING) {
		buf_add(out, r->str, r->len);
		rc = 1;
	} else if (r->type == REDIS_REPLY_NIL)
		rc = 0;
	else
		redis_bad_reply(sr, what, r, err);
	freeReplyObject(r);
out:
	pipe_restore(&old);
	return rc;
}

static int
redis_get(struct store *s, const char *name, struct cb_buf *out,
    struct cb_err *err)
{
	char	msg[256];

	/* Name the breaker, as the LMDB store and an update do. */
	snprintf(msg, sizeof msg, "cannot read breaker '%.200s'",
	    name == NULL ? "" : name);
	return redis_fetch((struct store_redis *)s, name, msg, out, err);
}

struct redis_name {
	char	*key;
	size_t	 len;
};

static int
name_cmp(const void *a, const void *b)
{
	const struct redis_name	*x = a, *y = b;
	size_t			 n;
	int			 c;

	n = x->len < y->len ? x->len : y->len;
	if ((c = memcmp(x->key, y->key, n)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* The SCAN MATCH pattern: the prefix with glob bytes escaped, then '*'. */
static char *
redis_pattern(const struct store_redis *sr)
{
	char	*pat, *p;
	size_t	 i;

	p = pat = xmalloc(2 * sr->prefixlen + 2);
	for (i = 0; i < sr->prefixlen; i++) {
		if (strchr("*?[]\\", sr->key.data[i]) != NULL)
			*p++ = '\\';
		*p++ = (char)sr->key.data[i];
	}
	*p++ = '*';
	*p = '\0';
	return pat;
}

/* Every key under the prefix, sorted, without SCAN's duplicates. */
static int
redis_scan(struct store_redis *sr, struct redis_name **namesp, size_t *np,
    struct cb_err *err)
{
	static const char	 what[] = "cannot list breakers";
	struct redis_name	*names = NULL;
	redisReply		*r, *keys;
	const char		*argv[6];
	char			 cursor[32], *pat;
	size_t			 n = 0, cap = 0, i, j;
	int			 rc = -1;

	pat = redis_pattern(sr);
	snprintf(cursor, sizeof cursor, "0");
	for (;;) {
		argv[0] = "SCAN";
		argv[1] = cursor;
		argv[2] = "MATCH";
		argv[3] = pat;
		argv[4] = "COUNT";
		argv[5] = REDIS_SCAN_COUNT;
		if ((r = redis_call(sr, what, 6, argv, NULL, err)) == NULL)
			goto out;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		    r->element[0]->type != REDIS_REPLY_STRING ||
		    r->element[0]->len >= sizeof cursor ||
		    r->element[1]->type != REDIS_REPLY_ARRAY) {
			redis_bad_reply(sr, what, r, err);
			freeReplyObject(r);
			goto out;
		}
		memcpy(cursor, r->element[0]->str, r->element[0]->len);
		cursor[r->element[0]->len] = '\0';
		keys = r->element[1];
		for (i = 0; i < keys->elements; i++) {
			if (keys->element[i]->type != REDIS_REPLY_STRING ||
			    keys->element[i]->len <= sr->prefixlen)
				continue;
			if (n == cap) {
				cap = cap == 0 ? 64 : cap * 2;
				names = xrealloc(names, cap * sizeof *names);
			}
			names[n].len = keys->element[i]->len;
			names[n].key = xmalloc(names[n].len);
			memcpy(names[n].key, keys->element[i]->str,
			    names[n].len);
			n++;
		}
		freeReplyObject(r);
		if (strcmp(cursor, "0") == 0)
			break;
	}
	if (n > 1) {
		qsort(names, n, sizeof *names, name_cmp);
		for (i = 1, j = 1; i < n; i++) {
			if (name_cmp(&names[i], &names[j - 1]) == 0)
				free(names[i].key);
			else
				names[j++] = names[i];
		}
		n = j;
	}
	rc = 0;
out:
	free(pat);
	if (rc == -1) {
		for (i = 0; i < n; i++)
			free(names[i].key);
		free(names);
		names = NULL;
		n = 0;
	}
	*namesp = names;
	*np = n;
	return rc;
}

static int
redis_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
{
	struct store_redis	*sr = (struct store_redis *)s;
	struct redis_name	*names = NULL;
	redisReply		*r, *v;
	sigset_t		 old;
	const char		**argv;
	size_t			*lens, n = 0, i, j, batch;
	int			 rc = -1, stop = 0, tries;

	s->down = 0;
	sr->timedout = 0;
	pipe_block(&old);
	argv = xcalloc(REDIS_MGET_BATCH + 1, sizeof *argv);
	lens = xcalloc(REDIS_MGET_BATCH + 1, sizeof *lens);
	for (tries = 0; tries < 2; tries++) {
		s->down = 0;
		if (redis_connect(sr, err) == -1)
			goto out;
		if ((rc = redis_scan(sr, &names, &n, err)) == 0)
			break;
		if (sr->c != NULL || sr->timedout)
			goto out;	/* an error reply, or no answer */
	}
	if (rc == -1)
		goto out;
	rc = -1;
	for (i = 0; i < n && !stop; i += batch) {
		batch = n - i < REDIS_MGET_BATCH ? n - i : REDIS_MGET_BATCH;
		argv[0] = "MGET";
		lens[0] = 4;
		for (j = 0; j < batch; j++) {
			argv[j + 1] = names[i + j].key;
			lens[j + 1] = names[i + j].len;
		}
		if ((r = redis_call(sr, "cannot read breakers", (int)batch + 1,
		    argv, lens, err)) == NULL)
			goto out;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != batch) {
			redis_bad_reply(sr, "cannot read breakers", r, err);
			freeReplyObject(r);
			goto out;
		}
		for (j = 0; j < batch && !stop; j++) {
			v = r->element[j];
			/* Gone since the SCAN, or not a string: skip it. */
			if (v->type != REDIS_REPLY_STRING)
				continue;
			switch (fn(names[i + j].key + sr->prefixlen,
			    names[i + j].len - sr->prefixlen,
			    (const uint8_t *)v->str, v->len, arg, err)) {
			case 0:
				break;
			case 1:
				stop = 1;
				break;
			default:
				freeReplyObject(r);
				goto out;
			}
		}
		freeReplyObject(r);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i].key);
	free(names);
	free(argv);
	free(lens);
	pipe_restore(&old);
	return rc;
}

/*
 * gc and eviction delete a record only if it still holds the bytes they
 * judged: an atomic conditional delete, the WATCH of update() making sure
 * that nobody changed it in between.
 */
struct redis_cond {
	const uint8_t	*data;		/* the bytes judged */
	size_t		 len;
	store_prune_fn	 fn;		/* or: judge again (gc) */
	void		*arg;
	const char	*name;
	size_t		 namelen;
	int		 deleted;	/* the last call asked for DEL */
};

static int
cond_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct redis_cond	*c = arg;
	int			 rc;

	(void)out;
	c->deleted = 0;
	if (old == NULL)
		return STORE_KEEP;
	if (c->fn != NULL) {
		if ((rc = c->fn(c->name, c->namelen, old, oldlen, c->arg,
		    err)) == -1)
			return -1;
		c->deleted = rc == 1;
	} else
		c->deleted = oldlen == c->len && memcmp(old, c->data,
		    oldlen) == 0;
	return c->deleted ? STORE_DELETE : STORE_KEEP;
}

/* A store name from a key: NUL-terminated, or -1 for one we cannot use. */
static int
redis_name(const struct store_redis *sr, const char *key, size_t keylen,
    char name[STORE_NAME_MAX + 1])
{
	size_t	len = keylen - sr->prefixlen;

	if (keylen <= sr->prefixlen || len > STORE_NAME_MAX ||
	    memchr(key + sr->prefixlen, '\0', len) != NULL)
		return -1;
	memcpy(name, key + sr->prefixlen, len);
	name[len] = '\0';
	return 0;
}

struct redis_prune_step {
	struct store_redis	*sr;
	store_prune_fn		 fn;
	void			*arg;
	struct cb_buf		*removed;
};

/* Each record as read by MGET: those fn selects are deleted if still so. */
static int
prune_cb(const char *name, size_t namelen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct redis_prune_step	*ps = arg;
	struct redis_cond	 c;
	char			 nm[STORE_NAME_MAX + 1];
	int			 rc;

	if ((rc = ps->fn(name, namelen, data, len, ps->arg, err)) != 1)
		return rc;
	if (namelen > STORE_NAME_MAX || memchr(name, '\0', namelen) != NULL)
		return 0;
	memcpy(nm, name, namelen);
	nm[namelen] = '\0';
	memset(&c, 0, sizeof c);
	c.fn = ps->fn;
	c.arg = ps->arg;
	c.name = nm;
	c.namelen = namelen;
	if (redis_update_loop(ps->sr, nm, cond_cb, &c, err) == -1)
		return -1;
	if (c.deleted)
		buf_add(ps->removed, nm, namelen + 1);
	return 0;
}

/*
 * gc: walk the records as each() does, and delete each one that fn
 * selects with a conditional delete, fn judging the then current bytes
 * again (so a breaker used meanwhile stays).
 */
static int
redis_prune(struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, struct cb_err *err)
{
	struct redis_prune_step	ps;

	ps.sr = (struct store_redis *)s;
	ps.fn = fn;
	ps.arg = arg;
	ps.removed = removed;
	return redis_each(s, prune_cb, &ps, err);
}

/* An eviction candidate. */
struct redis_cand {
	char			 name[STORE_NAME_MAX + 1];
	struct store_rank	 rank;
	uint8_t			*data;
	size_t			 len;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct redis_cand	*x = a, *y = b;

	if (x->rank.pinned != y->rank.pinned)
		return x->rank.pinned - y->rank.pinned;
	return x->rank.last_used_ms < y->rank.last_used_ms ? -1 :
	    x->rank.last_used_ms > y->rank.last_used_ms;
}

/*
 * MGET the keys names[idx[0..n-1]] and rank them into cand (skipping
 * the record just made, gone ones and unreadable ones); the number added.
 */
static size_t
redis_rank(struct store_redis *sr, const struct redis_name *names,
    const size_t *idx, size_t n, const char *made, struct redis_cand *cand,
    struct cb_err *err)
{
	redisReply	*r, *v;
	const char	**argv;
	size_t		*lens, i, j, batch, nc = 0;

	argv = xcalloc(REDIS_MGET_BATCH + 1, sizeof *argv);
	lens = xcalloc(REDIS_MGET_BATCH + 1, sizeof *lens);
	for (i = 0; i < n; i += batch) {
		batch = n - i < REDIS_MGET_BATCH ? n - i : REDIS_MGET_BATCH;
		argv[0] = "MGET";
		lens[0] = 4;
		for (j = 0; j < batch; j++) {
			argv[j + 1] = names[idx[i + j]].key;
			lens[j + 1] = names[idx[i + j]].len;
		}
		if ((r = redis_call(sr, "cannot evict", (int)batch + 1, argv,
		    lens, err)) == NULL)
			break;
		for (j = 0; r->type == REDIS_REPLY_ARRAY && j < r->elements &&
		    j < batch; j++) {
			v = r->element[j];
			if (v->type != REDIS_REPLY_STRING ||
			    redis_name(sr, names[idx[i + j]].key,
			    names[idx[i + j]].len, cand[nc].name) == -1 ||
			    strcmp(cand[nc].name, made) == 0 ||
			    sr->rank((const uint8_t *)v->str, v->len,
			    &cand[nc].rank) == -1)
				continue;
			cand[nc].data = xmalloc(v->len + 1);
			memcpy(cand[nc].data, v->str, v->len);
			cand[nc].len = v->len;
			nc++;
		}
		freeReplyObject(r);
	}
	free(argv);
	free(lens);
	return nc;
}

/*
 * After a creation: when the prefix holds more than max_records keys,
 * delete up to STORE_MAX_EVICT of the least recently used, chosen as
 * store.h says (exact up to STORE_EXACT_SCAN keys, else from a random
 * sample of STORE_SAMPLE, the whole set only when the sample holds no
 * unpinned record).  DBSIZE first, so that a database holding no more
 * keys than the bound costs one round trip.  Unlike LMDB this is a step
 * after the creation, not in its transaction: a failure leaves the store
 * over its bound until the next creation, and the creation stands.
 */
static void
redis_evict(struct store_redis *sr, const char *made)
{
	struct store_evicted	*ev = &sr->s.evicted;
	struct redis_name	*names = NULL;
	struct redis_cand	*cand = NULL;
	struct redis_cond	 c;
	struct cb_err		 err;
	redisReply		*r;
	const char		*argv[1] = { "DBSIZE" };
	sigset_t		 old;
	size_t			*idx = NULL, n = 0, nc = 0, ns, i, want, k;

	pipe_block(&old);
	if (redis_connect(sr, &err) == -1 ||
	    (r = redis_call(sr, "cannot evict", 1, argv, NULL, &err)) == NULL)
		goto out;
	k = r->type == REDIS_REPLY_INTEGER ? (size_t)r->integer : SIZE_MAX;
	freeReplyObject(r);
	if (k <= sr->max_records || redis_scan(sr, &names, &n, &err) == -1 ||
	    n <= sr->max_records)
		goto out;
	want = n - sr->max_records;
	if (want > STORE_MAX_EVICT)
		want = STORE_MAX_EVICT;
	idx = xcalloc(n, sizeof *idx);
	cand = xcalloc(n < STORE_SAMPLE ? STORE_SAMPLE : n, sizeof *cand);
	if (n <= STORE_EXACT_SCAN) {
		for (i = 0; i < n; i++)
			idx[i] = i;
		ns = n;
	} else {
		for (i = 0; i < STORE_SAMPLE; i++)
			idx[i] = (size_t)(clock_random() % n);
		ns = STORE_SAMPLE;
	}
	nc = redis_rank(sr, names, idx, ns, made, cand, &err);
	qsort(cand, nc, sizeof *cand, cand_cmp);
	if (ns < n && (nc == 0 || cand[0].rank.pinned)) {
		/* Pinned ones go only if nothing else is left anywhere. */
		for (i = 0; i < nc; i++)
			free(cand[i].data);
		for (i = 0; i < n; i++)
			idx[i] = i;
		nc = redis_rank(sr, names, idx, n, made, cand, &err);
		qsort(cand, nc, sizeof *cand, cand_cmp);
	}
	for (i = 0; i < nc && ev->n < (int)want; i++) {
		if (i > 0 && !cand[0].rank.pinned && cand[i].rank.pinned)
			break;
		memset(&c, 0, sizeof c);
		c.data = cand[i].data;
		c.len = cand[i].len;
		if (redis_update_loop(sr, cand[i].name, cond_cb, &c, &err) ==
		    -1)
			break;
		if (!c.deleted)
			continue;
		memcpy(ev->rec[ev->n].name, cand[i].name,
		    sizeof ev->rec[ev->n].name);
		ev->rec[ev->n].rank = cand[i].rank;
		ev->n++;
	}
out:
	for (i = 0; i < nc; i++)
		free(cand[i].data);
	for (i = 0; i < n; i++)
		free(names[i].key);
	free(names);
	free(cand);
	free(idx);
	/* The creation stands: eviction's trouble is not the caller's. */
	sr->s.down = 0;
	pipe_restore(&old);
}

static void
redis_close(struct store *s)
{
	struct store_redis	*sr = (struct store_redis *)s;

	if (sr->c != NULL)
		redisFree(sr->c);
	if (sr->password != NULL) {
		explicit_bzero(sr->password, strlen(sr->password));
		free(sr->password);
	}
	redis_url_free(&sr->u);
	buf_free(&sr->key);
	buf_free(&sr->out);
	buf_free(&sr->peek);
	free(s->path);
	free(sr);
}

struct store *
store_redis_open(const struct store_redis_opts *opts, struct cb_err *err)
{
	struct store_redis	*sr;
	sigset_t		 old;
	int			 rc;

	sr = xcalloc(1, sizeof *sr);
	if (redis_url_parse(opts->url, &sr->u, err) == -1) {
		free(sr);
		return NULL;
	}
	sr->s.ops = &redis_ops;
	sr->s.path = xstrdup(opts->url);
	if (opts->password != NULL)
		sr->password = xstrdup(opts->password);
	else if (sr->u.user != NULL) {
		err_set(err, "Redis state '%s' names a user but "
		    "CBEXEC_REDIS_PASSWORD is not set", opts->url);
		redis_close(&sr->s);
		return NULL;
	}
	sr->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 250;
	sr->tv.tv_sec = (time_t)(sr->timeout_ms / 1000);
	sr->tv.tv_usec = (suseconds_t)(sr->timeout_ms % 1000 * 1000);
	sr->prefixlen = strlen(opts->prefix);
	if (opts->rank != NULL) {
		sr->max_records = opts->max_records;
		sr->rank = opts->rank;
	}
	buf_add(&sr->key, opts->prefix, sr->prefixlen);

	pipe_block(&old);
	rc = redis_connect(sr, err);
	pipe_restore(&old);
	if (rc == -1) {
		redis_close(&sr->s);
		return NULL;
	}
	return &sr->s;
}

#endif /* CBEXEC_REDIS */
