/* SPDX-License-Identifier: ISC */
/*
 * store-redis-int.h: what the four files of the fleet store share:
 * store-redis.c (the operations: opening, the optimistic update, get),
 * store-redis-conn.c (connecting, and the calls and replies under every
 * command), store-redis-sentinel.c (finding the master through Redis
 * Sentinel) and store-redis-scan.c (SCAN of the prefix and what walks it:
 * each, prune and max_records eviction).  These four, and only these,
 * include hiredis.h, and only when built with it (CBEXEC_REDIS); store.h
 * is the interface for everyone else.
 */
#ifndef CBEXEC_STORE_REDIS_INT_H
#define CBEXEC_STORE_REDIS_INT_H

#include <sys/time.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "redis-url.h"
#include "store.h"
#include "util.h"

struct store_redis {
	struct store	 s;		/* first: what we hand out */
	struct redis_url u;
	char		*password;
	char		*sentinel_password;
	int64_t		 timeout_ms;
	int64_t		 deadline;	/* monotonic ms: the current command's,
					 * or the connection's, end */
	int64_t		 scan_timeout_ms;
	int64_t		 walk_deadline;	/* monotonic ms: a walk's end, which
					 * no command's outlasts; 0: none */
	int		 connecting;	/* keep the connection's deadline */
	int		 late;		/* the last wait passed the deadline */
	int		 readonly;	/* an error reply said READONLY */
	redisContext	*c;		/* NULL: not connected */
	int		 timedout;	/* the last I/O error was a timeout */
	char		 master[300];	/* Sentinel: host:port of the master */
	char		 named_by[300];	/* ... and the sentinel that named it */
	struct cb_buf	 key;		/* prefix + NAME */
	size_t		 prefixlen;
	struct cb_buf	 out;		/* update callback output, reused */
	struct cb_buf	 peek;		/* update_peek's snapshot */
	int		 created;	/* the last update made its record */
	uint64_t	 max_records;	/* 0: no bound */
	store_rank_fn	 rank;
};

/*
 * The connection (store-redis-conn.c).  Every call below fills err and
 * sets sr->s.down when the server is unreachable or answered badly; an
 * I/O error also frees the connection (sr->c = NULL), so that the next
 * redis_connect starts afresh, and sets sr->timedout when it was a
 * timeout.  Callers hold SIGPIPE blocked around them.
 */

/* Block SIGPIPE into *old; restore it, swallowing one that arrived. */
void		 redis_pipe_block(sigset_t *old);
void		 redis_pipe_restore(const sigset_t *old);

/*
 * Connect, AUTH and SELECT, unless a healthy connection exists; 0 or -1.
 * Everything it does shares one store_timeout: the name lookup, each
 * address, AUTH and SELECT, and with Sentinel the sentinels and ROLE
 * (store-redis-sentinel.c).
 */
int		 redis_connect(struct store_redis *, struct cb_err *);

/*
 * The pieces of a connection, for store-redis-sentinel.c, within
 * sr->deadline: a TCP connection to host:port into sr->c (what starts
 * the messages), and AUTH [user] password (when password is not NULL)
 * and SELECT db (when not 0) on it, who ("Redis", "sentinel H:P") named
 * in the messages.  0, or -1 with err filled and sr->c NULL.
 * redis_connected finishes the non-blocking connect of a Unix socket
 * already in sr->c the same way.
 */
int		 redis_open_tcp(struct store_redis *, const char *host,
		    int port, const char *what, struct cb_err *);
int		 redis_session(struct store_redis *, const char *who,
		    const char *user, const char *password, long db,
		    struct cb_err *);
int		 redis_connected(struct store_redis *, const char *what,
		    struct cb_err *);

/*
 * Ask the sentinels of sr->u in turn for the master's address, connect
 * to it (AUTH, SELECT), and check with ROLE that it is the master; fill
 * sr->master and sr->named_by.  0, or -1 with err filled and sr->s.down
 * set (store-redis-sentinel.c).
 */
int		 redis_sentinel_connect(struct store_redis *, struct cb_err *);

/*
 * Start the deadline of one command (or one pipeline of them) to come:
 * store_timeout from now, its whole reply included.  redis_call does it
 * itself; whoever pipelines calls it before the redis_next calls.
 * During redis_connect the connection's deadline holds instead.
 */
void		 redis_begin(struct store_redis *);

/*
 * One command and its reply, or the next reply of a pipeline; NULL after
 * an I/O error.  The reply is the caller's to freeReplyObject.  what
 * starts the message ("cannot read breaker").
 */
redisReply	*redis_call(struct store_redis *, const char *what, int argc,
		    const char **argv, const size_t *lens, struct cb_err *);
redisReply	*redis_next(struct store_redis *, const char *what,
		    struct cb_err *);

/* 0 for +OK, else -1 as redis_bad_reply. */
int		 redis_expect_ok(struct store_redis *, const char *what,
		    redisReply *, struct cb_err *);

/* The message for an I/O error, and for a reply of the wrong kind. */
void		 redis_io_error(struct store_redis *, const char *what,
		    struct cb_err *);
void		 redis_bad_reply(struct store_redis *, const char *what,
		    redisReply *, struct cb_err *);

/* prefix + NAME into sr->key; 0, or -1 with err (store-redis-update.c). */
int		 redis_key(struct store_redis *, const char *name,
		    const char *what, struct cb_err *);

/*
 * The optimistic read-modify-write of NAME, retried on lost races, with
 * no eviction after it (store-redis.c): store.h's update().
 */
int		 redis_update_loop(struct store_redis *, const char *name,
		    store_update_fn, void *, struct cb_err *);

/* The walks (store-redis-scan.c): store.h's each() and prune(). */
int		 redis_each(struct store *, store_each_fn, void *,
		    struct cb_err *);
int		 redis_prune(struct store *, store_prune_fn, void *,
		    struct cb_buf *, struct cb_err *);

/*
 * After the creation of made: when the prefix holds more than
 * max_records keys, delete victims as store.h says and list them in
 * sr->s.evicted.  A failure leaves the store over its bound, the
 * creation standing, and sr->s.down clear (store-redis-scan.c).
 */
void		 redis_evict(struct store_redis *, const char *made);

#endif
