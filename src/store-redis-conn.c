/* SPDX-License-Identifier: ISC */
/*
 * store-redis-conn.c: the fleet store's connection (store-redis.c): the
 * TCP or Unix socket connection with its AUTH and SELECT, made again when
 * it was lost, one command or one pipelined reply at a time, and the
 * messages for a server that went away, does not answer within
 * store_timeout, or answers with an error.  The socket is non-blocking
 * and every wait is ours, in poll(2) against one deadline: that of the
 * connection (the lookup, every address, AUTH and SELECT; with Sentinel
 * the sentinels and ROLE too), then one per command, its whole reply
 * included, so that a server dripping one byte at a time costs at most
 * store_timeout.  SIGINT, SIGTERM, SIGHUP and SIGQUIT act during a wait
 * even where run holds them blocked: they end cbexec at once, with
 * nothing recorded.  SIGPIPE stays blocked while we talk.  One of the
 * files that include hiredis.h (store-redis-int.h).
 */
#include <sys/time.h>
#include <sys/types.h>

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
	if (sr->late)
		why = NULL;
	else if (sr->c != NULL && sr->c->err != 0) {
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
		/* A replica now: with Sentinel, look for the master again. */
		if (strncmp(r->str, "READONLY", 8) == 0)
			sr->readonly = 1;
	} else
		err_set(err, "%s in state '%s': unexpected reply (type %d)",
		    what, sr->s.path, r != NULL ? r->type : -1);
	sr->s.down = 1;
}

/* The signals that end a wait for the store (SPEC section 5). */
static const int redis_quit[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/*
 * Wait until the socket is ready for events, or the deadline.  The four
 * quitting signals are let through for the wait: their default action
 * ends cbexec at once (a handler's EINTR only makes us look again).
 * Returns 0 ready, -1 late (sr->late set).
 */
static int
redis_wait(struct store_redis *sr, short events)
{
	struct pollfd	pfd;
	struct timespec	ts;
	sigset_t	mask;
	int64_t		left;
	size_t		i;
	int		n;

	(void)sigprocmask(SIG_SETMASK, NULL, &mask);
	for (i = 0; i < sizeof redis_quit / sizeof redis_quit[0]; i++)
		sigdelset(&mask, redis_quit[i]);
	for (;;) {
		if ((left = sr->deadline - clock_mono_ms()) <= 0) {
			sr->late = 1;
			return -1;
		}
		pfd.fd = sr->c->fd;
		pfd.events = events;
		pfd.revents = 0;
		ts.tv_sec = (time_t)(left / 1000);
		ts.tv_nsec = (long)(left % 1000) * 1000000;
		if ((n = ppoll(&pfd, 1, &ts, &mask)) > 0)
			return 0;
		if (n == -1 && errno != EINTR) {
			sr->late = 1;
			return -1;
		}
	}
}

void
redis_begin(struct store_redis *sr)
{
	if (!sr->connecting) {
		sr->deadline = clock_mono_ms() + sr->timeout_ms;
		if (sr->walk_deadline != 0 && sr->walk_deadline < sr->deadline)
			sr->deadline = sr->walk_deadline;
	}
}

/* Write out what is queued, within the deadline; 0 or -1. */
static int
redis_flush(struct store_redis *sr)
{
	int	done = 0;

	for (;;) {
		if (redisBufferWrite(sr->c, &done) != REDIS_OK)
			return -1;
		if (done)
			return 0;
		if (redis_wait(sr, POLLOUT) == -1)
			return -1;
	}
}

/* Read the next pipelined reply; NULL after filling err. */
redisReply *
redis_next(struct store_redis *sr, const char *what, struct cb_err *err)
{
	void	*r = NULL;

	sr->late = 0;
	if (sr->c == NULL || sr->c->err != 0 || redis_flush(sr) == -1)
		goto io;
	for (;;) {
		if (redisGetReplyFromReader(sr->c, &r) != REDIS_OK)
			goto io;
		if (r != NULL)
			return r;
		if (redis_wait(sr, POLLIN) == -1 ||
		    redisBufferRead(sr->c) != REDIS_OK)
			goto io;
	}
io:
	redis_io_error(sr, what, err);
	return NULL;
}

/* One command, waiting for its reply; NULL after filling err. */
redisReply *
redis_call(struct store_redis *sr, const char *what, int argc,
    const char **argv, const size_t *lens, struct cb_err *err)
{
	redis_begin(sr);
	if (sr->c == NULL ||
	    redisAppendCommandArgv(sr->c, argc, argv, lens) != REDIS_OK) {
		redis_io_error(sr, what, err);
		return NULL;
	}
	return redis_next(sr, what, err);
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

/* Connecting took longer than the deadline. */
static int
redis_slow(struct store_redis *sr, const char *what, struct cb_err *err)
{
	err_set(err, "%s in state '%s': no answer within %lldms", what,
	    sr->s.path, (long long)sr->timeout_ms);
	sr->timedout = 1;
	sr->s.down = 1;
	return -1;
}

/*
 * Finish a non-blocking connect in sr->c within the deadline: 0, or -1
 * with sr->c freed and err filled.
 */
int
redis_connected(struct store_redis *sr, const char *what, struct cb_err *err)
{
	socklen_t	len;
	int		e = 0, flags;

	if (sr->c == NULL) {
		err_set(err, "%s in state '%s': out of memory", what,
		    sr->s.path);
		sr->s.down = 1;
		return -1;
	}
	if (sr->c->err != 0) {
		redis_io_error(sr, what, err);
		return -1;
	}
	sr->late = 0;
	if (redis_wait(sr, POLLOUT) == -1) {
		redisFree(sr->c);
		sr->c = NULL;
		return redis_slow(sr, what, err);
	}
	len = sizeof e;
	if (getsockopt(sr->c->fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		e = errno;
	/* The wrapped command must inherit no cbexec descriptor. */
	if (e == 0 && ((flags = fcntl(sr->c->fd, F_GETFD)) == -1 ||
	    fcntl(sr->c->fd, F_SETFD, flags | FD_CLOEXEC) == -1))
		e = errno;
	if (e != 0) {
		err_set(err, "%s in state '%s': %s", what, sr->s.path,
		    strerror(e));
		sr->s.down = 1;
		redisFree(sr->c);
		sr->c = NULL;
		return -1;
	}
	/* Every wait is redis_wait's: hiredis must never block. */
	sr->c->flags &= ~REDIS_BLOCK;
	return 0;
}

int
redis_open_tcp(struct store_redis *sr, const char *host, int port,
    const char *what, struct cb_err *err)
{
	struct resolved		ad;
	struct cb_err		why;
	int			i;

	if (sr->c != NULL) {
		redisFree(sr->c);
		sr->c = NULL;
	}
	switch (resolve_host(host, sr->deadline, &ad, &why)) {
	case RESOLVE_LATE:
		return redis_slow(sr, what, err);
	case RESOLVE_FAILED:
		err_set(err, "%s in state '%s': %s", what, sr->s.path,
		    why.msg);
		sr->s.down = 1;
		return -1;
	}
	for (i = 0; i < ad.n; i++) {
		if (clock_mono_ms() >= sr->deadline)
			return redis_slow(sr, what, err);
		sr->c = redisConnectNonBlock(ad.addr[i], port);
		if (redis_connected(sr, what, err) == 0)
			return 0;
		if (sr->timedout)
			return -1;
	}
	return -1;
}

int
redis_session(struct store_redis *sr, const char *who, const char *user,
    const char *password, long db, struct cb_err *err)
{
	redisReply	*r;
	const char	*argv[3];
	char		 dbs[16], what[400];
	int		 n;

	if (password != NULL) {
		n = 0;
		argv[n++] = "AUTH";
		if (user != NULL)
			argv[n++] = user;
		argv[n++] = password;
		snprintf(what, sizeof what, "cannot authenticate to %s", who);
		if ((r = redis_call(sr, what, n, argv, NULL, err)) == NULL)
			return -1;
		snprintf(what, sizeof what, "%s refused AUTH", who);
		n = redis_expect_ok(sr, what, r, err);
		freeReplyObject(r);
		if (n == -1)
			goto drop;
	}
	if (db != 0) {
		snprintf(dbs, sizeof dbs, "%ld", db);
		argv[0] = "SELECT";
		argv[1] = dbs;
		snprintf(what, sizeof what, "cannot select the database of %s",
		    who);
		if ((r = redis_call(sr, what, 2, argv, NULL, err)) == NULL)
			return -1;
		snprintf(what, sizeof what, "%s refused SELECT", who);
		n = redis_expect_ok(sr, what, r, err);
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
