/* SPDX-License-Identifier: ISC */
/*
 * store-redis-conn.c: the fleet store's connection (store-redis.c): the
 * TCP or Unix socket connection with its AUTH and SELECT, made again when
 * it was lost, one command or one pipelined reply at a time, and the
 * messages for a server that went away, does not answer within
 * store_timeout, or answers with an error.  SIGPIPE stays blocked while
 * we talk.  One of the three files that include hiredis.h
 * (store-redis-int.h).
 */
#include <sys/time.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "clock.h"
#include "redis-url.h"
#include "resolve.h"
#include "store.h"
#include "store-redis-int.h"
#include "util.h"

/*
 * hiredis writes with write(2): a server gone away would kill us with
 * SIGPIPE.  Hold it blocked while we talk, and swallow one that arrived.
 */
void
redis_pipe_block(sigset_t *old)
{
	sigset_t	set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, old);
}

void
redis_pipe_restore(const sigset_t *old)
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
void
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
void
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
redisReply *
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
redisReply *
redis_next(struct store_redis *sr, const char *what, struct cb_err *err)
{
	void	*r = NULL;

	if (redisGetReply(sr->c, &r) != REDIS_OK || r == NULL) {
		redis_io_error(sr, what, err);
		return NULL;
	}
	return r;
}

int
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
int
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
