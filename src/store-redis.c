/* SPDX-License-Identifier: ISC */
/*
 * store-redis.c: the fleet store (SPEC section 9), breaker records shared by
 * many hosts through one Redis server.  It holds no breaker logic: a
 * record is the same opaque bytes as in LMDB, stored as a Redis string
 * under prefix + NAME, and update() is the store interface's
 * read-modify-write done optimistically: WATCH the key, GET it, let the
 * callback compute the new bytes, then MULTI / SET (or DEL) / EXEC, which
 * Redis refuses when another writer touched the key after the WATCH; the
 * loop then runs the callback again on the new bytes, a bounded number of
 * times with a short random pause.  Each round trip is bounded by
 * store_timeout, so a Redis that does not answer costs at most a few
 * timeouts and the caller can fall back to the local store.  Built
 * without hiredis (WITH_REDIS=0), the URL is still parsed, and opening
 * fails with a message that says so.  The connection is
 * store-redis-conn.c's; each, prune and eviction, which walk every key,
 * store-redis-scan.c's; these three files are the only ones that include
 * hiredis.h (store-redis-int.h).
 */
#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CBEXEC_REDIS
#include <hiredis/hiredis.h>
#endif

#include "clock.h"
#include "redis-url.h"
#include "store.h"
#ifdef CBEXEC_REDIS
#include "store-redis-int.h"
#endif
#include "util.h"

/* Optimistic update attempts before giving up on a hot key. */
#define REDIS_RETRIES	100

int
store_is_redis(const char *path)
{
	return path != NULL && (redis_state_kind(path) == STATE_REDIS ||
	    redis_state_kind(path) == STATE_SENTINEL);
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

int
store_redis_master(struct store *s, char *buf, size_t len)
{
	(void)s;
	(void)buf;
	(void)len;
	return -1;
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

static int	redis_update(struct store *, const char *, store_update_fn,
		    void *, struct cb_err *);
static int	redis_update_peek(struct store *, const char *,
		    store_update_fn, void *, struct cb_err *);
static int	redis_get(struct store *, const char *, struct cb_buf *,
		    struct cb_err *);
static void	redis_close(struct store *);
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
	redis_pipe_block(&old);
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
	redis_pipe_restore(&old);
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
	if (sr->sentinel_password != NULL) {
		explicit_bzero(sr->sentinel_password,
		    strlen(sr->sentinel_password));
		free(sr->sentinel_password);
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
	if (opts->sentinel_password != NULL)
		sr->sentinel_password = xstrdup(opts->sentinel_password);
	if (opts->password != NULL)
		sr->password = xstrdup(opts->password);
	else if (sr->u.user != NULL) {
		err_set(err, "Redis state '%s' names a user but "
		    "CBEXEC_REDIS_PASSWORD is not set", opts->url);
		redis_close(&sr->s);
		return NULL;
	}
	sr->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 250;
	sr->scan_timeout_ms = opts->scan_timeout_ms > 0 ?
	    opts->scan_timeout_ms : 30000;
	sr->prefixlen = strlen(opts->prefix);
	if (opts->rank != NULL) {
		sr->max_records = opts->max_records;
		sr->rank = opts->rank;
	}
	buf_add(&sr->key, opts->prefix, sr->prefixlen);

	redis_pipe_block(&old);
	rc = redis_connect(sr, err);
	redis_pipe_restore(&old);
	if (rc == -1) {
		redis_close(&sr->s);
		return NULL;
	}
	return &sr->s;
}

#endif /* CBEXEC_REDIS */
