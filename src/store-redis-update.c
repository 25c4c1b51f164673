/* SPDX-License-Identifier: ISC */
/*
 * store-redis-update.c: the fleet store's read-modify-write of one key
 * (SPEC section 9), what store-redis.c's update() and store-redis-scan.c's
 * prune both run: WATCH the key, GET it, let the callback compute the new
 * bytes, then MULTI / SET (or DEL) / EXEC, which Redis refuses when
 * another writer touched the key after the WATCH; the loop then runs the
 * callback again on the new bytes, a bounded number of times with a short
 * random pause.
 */
#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "clock.h"
#include "store.h"
#include "store-redis-int.h"
#include "util.h"

/* Optimistic update attempts before giving up on a hot key. */
#define REDIS_RETRIES	100

/* prefix + NAME into sr->key. */
int
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
	struct cb_err	 e;

	if (sr->c != NULL && (r = redis_call(sr, "UNWATCH", 1, argv, NULL,
	    &e)) != NULL)
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

	redis_begin(sr);
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

	redis_begin(sr);
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
	/* A replica refuses SET at once (READONLY): say that, not EXEC's
	 * EXECABORT. */
	if (rc == 0 && r->type == REDIS_REPLY_ERROR) {
		redis_bad_reply(sr, msg, r, err);
		rc = -1;
	}
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
int
redis_update_loop(struct store_redis *sr, const char *name,
    store_update_fn fn, void *arg, struct cb_err *err)
{
	struct store	*s = &sr->s;
	sigset_t	 old;
	int		 attempt, rc = -1, reconnected = 0;

	s->down = 0;
	sr->timedout = 0;
	sr->readonly = 0;
	if (redis_key(sr, name, "cannot update breaker", err) == -1)
		return -1;
	redis_pipe_block(&old);
	for (attempt = 0; attempt < REDIS_RETRIES; attempt++) {
		if (redis_connect(sr, err) == -1) {
			rc = -1;
			break;
		}
		rc = redis_try_update(sr, name, fn, arg, err);
		/* Sentinel: the master we had became a replica (a failover
		 * after we connected); nothing was written: find the new. */
		if (rc == -1 && sr->readonly && sr->u.master != NULL &&
		    !reconnected)
			rc = 2;
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
	redis_pipe_restore(&old);
	return rc;
}
