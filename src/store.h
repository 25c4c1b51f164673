/* SPDX-License-Identifier: ISC */
/*
 * store.h: where breaker records live.  A store maps a breaker NAME to the
 * opaque bytes of its record (record.h); it knows nothing of their meaning.
 * Its one write operation is update(): an atomic read-modify-write of one
 * record through a callback.  LMDB runs it in one write transaction; a
 * networked backend (SPEC section 9) may run the callback several times, so
 * the callback must be pure: same input bytes, same output, no side effects
 * beyond its own `arg`.
 *
 * Bounded stores (max_records) evict on creation; see below.
 *
 * No function here prints.  Every function that fails returns -1 and fills
 * err with a message naming the state file (and the breaker, where one is
 * involved).
 */
#ifndef CBEXEC_STORE_H
#define CBEXEC_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

/* What an update callback asks the store to do. */
enum store_action {
	STORE_KEEP,	/* leave the record as it was (no write) */
	STORE_PUT,	/* replace (or create) the record with `out` */
	STORE_DELETE	/* remove the record */
};

/*
 * The update callback.  old/oldlen are the current record bytes, or NULL/0
 * when NAME has no record; they are valid only during the call.  Returns an
 * enum store_action (with the new bytes in out for STORE_PUT), or -1 after
 * filling err, which aborts the update and makes store_update() return -1
 * with err as the callback left it.
 */
typedef int (*store_update_fn)(const uint8_t *old, size_t oldlen,
    struct cb_buf *out, void *arg, struct cb_err *err);

/*
 * The each callback: one record, valid only during the call (name is not
 * NUL-terminated).  Return 0 to go on, 1 to stop early, -1 to fail (after
 * filling err).
 */
typedef int (*store_each_fn)(const char *name, size_t namelen,
    const uint8_t *data, size_t len, void *arg, struct cb_err *err);

/*
 * The prune callback: like store_each_fn, but returns 1 to remove the
 * record, 0 to keep it, -1 to fail.  It runs inside a write transaction and
 * may see a record again if that transaction has to be retried, so it must
 * decide from its arguments alone.
 */
typedef int (*store_prune_fn)(const char *name, size_t namelen,
    const uint8_t *data, size_t len, void *arg, struct cb_err *err);

/*
 * Bounded stores.  The store keeps at most max_records records: an update
 * that creates a record when there are already that many removes others
 * first, in the same atomic step.  It chooses them through rank(), which
 * reads the few facts eviction needs out of the opaque bytes, so the store
 * never learns the record format:
 *
 *	pinned		evict only when every record is pinned (an open or
 *			half-open breaker);
 *	last_used_ms	among equals, the least recently used goes first.
 *
 * rank() returns 0, or -1 for bytes it cannot read; such a record is never
 * evicted (cbexec does not destroy what it does not understand), and when
 * nothing can be evicted the new record is created anyway, over the limit.
 * rank() must be pure and cheap: it may be called for dozens of records.
 *
 * The victims are exactly the least recently used when the store holds at
 * most STORE_EXACT_SCAN records.  Above that, the choice is approximate
 * (like Redis's maxmemory-policy allkeys-lru): the oldest unpinned record
 * among a sample of about STORE_SAMPLE records read at random places of
 * the key order (LMDB: random bisection of the key space, so that names
 * bunched in one corner are found as often as the rest); only if the
 * sample holds no unpinned record is the whole store scanned, so that a
 * pinned record still goes only when every one is pinned.  Measured with
 * 1M records: about 0.7 ms per creation that evicts, against 0.05 ms for
 * one that does not, and some 4 ms for a whole `cbexec run`.  This keeps the common path free: updating an existing record
 * costs nothing extra (no secondary index to maintain on every run), and
 * creating one reads a bounded number of records, not the whole file.
 */
#define STORE_EXACT_SCAN	1024
#define STORE_SAMPLE		64
/* Bound on victims of one creation: lowering max_records shrinks the
 * store gradually (or at once with a prune). */
#define STORE_MAX_EVICT		8
#define STORE_NAME_MAX		511

struct store_rank {
	int		pinned;
	int64_t		last_used_ms;
};

typedef int (*store_rank_fn)(const uint8_t *data, size_t len,
    struct store_rank *);

/* What the last update() evicted, for the caller to report. */
struct store_evicted {
	int			n;
	struct {
		char			name[STORE_NAME_MAX + 1];
		struct store_rank	rank;
	}			rec[STORE_MAX_EVICT];
};

struct store;

/*
 * Every store fills every slot: each operation works on each store, and
 * an operation a store cannot do in some state (a read-only LMDB asked to
 * write) fails with an error saying so.  No slot is NULL.
 */
struct store_ops {
	const char	*kind;	/* "lmdb", "redis" */
	/* Records shared by processes of several hosts: a probe holder
	 * from another boot may be alive elsewhere, and only its lease can
	 * tell.  0: one host, where another boot's holder is gone. */
	int		 multi_host;
	/* Atomic read-modify-write of NAME's record.  A STORE_PUT that
	 * creates the record in a bounded store first evicts (see above);
	 * s->evicted then lists the victims (n is 0 otherwise). */
	int	(*update)(struct store *, const char *name, store_update_fn,
		    void *arg, struct cb_err *);
	/* The same contract as update, but fn runs first on a read-only
	 * snapshot, and only when it asks for a change again inside the
	 * write transaction (Redis: a plain GET, then update's loop). */
	int	(*update_peek)(struct store *, const char *name,
		    store_update_fn, void *arg, struct cb_err *);
	/* Copy NAME's record into out (replacing its contents).  Returns 1
	 * found, 0 not found, -1 error. */
	int	(*get)(struct store *, const char *name, struct cb_buf *out,
		    struct cb_err *);
	/* Every record in name order, from one consistent snapshot. */
	int	(*each)(struct store *, store_each_fn, void *arg,
		    struct cb_err *);
	/* Remove the records fn selects, appending each removed name and a
	 * NUL to removed.  Several short write transactions rather than one
	 * long one, so runs are not held up behind a large prune: a record
	 * created meanwhile may or may not be seen.  Redis: SCAN and MGET as
	 * each() does, then one conditional delete per selected key (WATCH,
	 * GET, fn again on the current bytes, MULTI / DEL / EXEC). */
	int	(*prune)(struct store *, store_prune_fn, void *arg,
		    struct cb_buf *removed, struct cb_err *);
	void	(*close)(struct store *);
};

struct store {
	const struct store_ops	*ops;
	char			*path;	/* for messages */
	struct store_evicted	 evicted;	/* by the last update() */
	/*
	 * Set by a networked store when its last operation failed because
	 * the server could not be used (no answer within the timeout, no
	 * connection, an error reply); cleared when an operation starts.  A
	 * callback's own failure leaves it 0.  LMDB never sets it.
	 */
	int			 down;
};

enum store_sync {
	STORE_SYNC_FULL,	/* fsync data and meta page at every commit */
	STORE_SYNC_META,	/* MDB_NOMETASYNC */
	STORE_SYNC_NONE		/* MDB_NOSYNC */
};

struct store_opts {
	const char	*path;		/* data file; lock file: PATH-lock */
	mode_t		 mode;		/* new files get exactly this mode */
	enum store_sync	 sync;
	int		 readonly;	/* open for reading only (status):
					 * a missing file is then not created
					 * and store_open returns NULL with
					 * err->code CB_ERR_MISSING */
	uint64_t	 max_records;	/* 0: no bound */
	store_rank_fn	 rank;		/* required with max_records */
	int64_t		 lock_timeout_ms;	/* the longest wait for a lock
					 * (0: 10s); past it the operation
					 * fails, and so does every later one */
	void		(*on_signal)(int);	/* called with SIGINT, SIGTERM,
					 * SIGHUP or SIGQUIT taken while
					 * waiting for the store; may exit */
	int		 keep_open;	/* LMDB: keep it open between
					 * operations, for a program that
					 * does nothing else (bench/gen.c);
					 * never cbexec (SPEC 5) */
};

/*
 * Open the LMDB store at opts->path, creating missing parent directories
 * (mode 0700 plus the group/other bits state_mode implies, sticky where
 * they may write) and the file itself.  Refuses, without writing a byte, a
 * file that is not LMDB or is shorter than the pages LMDB records as used
 * (a truncated copy, which would raise SIGBUS).  Never follows a symlink
 * to the data or lock file: either one that is a symlink, a hard link, not
 * a regular file, or owned by someone else (see lmdb_open_file) is refused
 * with an error naming it; so is a state directory, or one above it, that
 * is owned by another user than root or that others may write without the
 * sticky bit.  LMDB is made to reopen exactly the files checked (through
 * /proc/self/fd), and what LMDB opened is verified by descriptor; a state
 * that cannot be pinned so is refused, never opened by name.  Waits on
 * the store's locks are bounded (lock_timeout_ms, on_signal).  The
 * returned store's descriptors are all close-on-exec; it holds two more
 * than LMDB's own (the checked data and lock files).  They are open only
 * during an operation: each one ends by closing the environment and both
 * files, and the next opens them again, with every check, as they are
 * named then (SPEC 5, Containers: LMDB's lock on the byte at offset pid
 * of the lock file is held from a process's first read until it closes
 * the environment, and a process of another PID namespace can have the
 * same pid; one that finds it held waits, within lock_timeout_ms).  The
 * program's own pthread_mutex_lock is LMDB's (store-lmdb-wait.c).
 */
struct store	*store_lmdb_open(const struct store_opts *, struct cb_err *);

/* Options of the Redis store (SPEC section 9). */
struct store_redis_opts {
	const char	*url;		/* redis://[user@]host[:port][/db],
					 * unix:/path/to/redis.sock[?db=N] or
					 * redis-sentinel://... (redis-url.h) */
	const char	*prefix;	/* prepended to every NAME: "cbexec:" */
	int64_t		 timeout_ms;	/* connect and command timeout */
	int64_t		 scan_timeout_ms;	/* a whole walk of the keys
					 * (each, prune); eviction's has
					 * timeout_ms */
	const char	*password;	/* AUTH [user] password, or NULL */
	const char	*sentinel_password;	/* AUTH to sentinels, or NULL */
	uint64_t	 max_records;	/* 0: no bound */
	store_rank_fn	 rank;		/* required with max_records */
};

/* Is path the URL of a Redis store rather than an LMDB file path? */
int		 store_is_redis(const char *path);

/*
 * Connect to the Redis store at opts->url (AUTH and SELECT as the URL
 * says) and return it, with kind "redis" and the URL as its path.  Records
 * are the same bytes as in LMDB, under the key prefix + NAME.  update() is
 * an optimistic WATCH / GET / MULTI / SET or DEL / EXEC loop: the callback
 * runs again when another writer changed the key in between, a bounded
 * number of times.  each() walks the keys with SCAN (never KEYS) and reads
 * them with MGET: every record is read atomically, but not all of them
 * from one snapshot.  A dropped connection is re-made once, before anything
 * is written.  With max_records, a creation is followed by an eviction
 * step (not in the same transaction: approximate, see redis_evict):
 * DBSIZE, and only when the database holds more keys than the bound, a
 * SCAN of the prefix and conditional deletes of the victims chosen as
 * above.  The connection's descriptor is close-on-exec, and SIGPIPE
 * is held off while talking to the server.
 *
 * Returns NULL with err filled when the URL is invalid (a password in it is
 * refused without printing it), the server cannot be reached or refuses
 * AUTH/SELECT, or cbexec was built without hiredis (WITH_REDIS=0).
 */
struct store	*store_redis_open(const struct store_redis_opts *,
		    struct cb_err *);

/*
 * For `config show`: with a redis-sentinel:// state, the master in use
 * and the sentinel that named it ("10.0.0.5:6379, named by sentinel
 * 10.0.0.7:26379") into buf; 0, or -1 when s is no Sentinel store or
 * has found no master.
 */
int		 store_redis_master(struct store *s, char *buf, size_t len);

/* For --version: "LMDB 0.9.24", the library in use (mdb_version). */
const char	*store_lmdb_version(void);
/* For --version: "hiredis 0.14.1", or NULL when built without Redis. */
const char	*store_redis_version(void);

static inline int
store_update(struct store *s, const char *name, store_update_fn fn, void *arg,
    struct cb_err *err)
{
	return s->ops->update(s, name, fn, arg, err);
}

/*
 * store_update for a callback that usually returns STORE_KEEP (admitting a
 * call to a closed breaker changes nothing): fn first runs on a read-only
 * snapshot, which takes no writer lock, so such calls neither wait for nor
 * block the writers of other processes.  A KEEP or -1 from that run is the
 * answer (the snapshot was the latest committed state when it was taken);
 * a PUT or DELETE discards it and the update runs as store_update does, fn
 * called again on the then current record.  fn must therefore tolerate
 * being called twice, which the purity rule above already demands.
 */
static inline int
store_update_peek(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	return s->ops->update_peek(s, name, fn, arg, err);
}

static inline int
store_prune(struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, struct cb_err *err)
{
	return s->ops->prune(s, fn, arg, removed, err);
}

static inline int
store_get(struct store *s, const char *name, struct cb_buf *out,
    struct cb_err *err)
{
	return s->ops->get(s, name, out, err);
}

static inline int
store_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
{
	return s->ops->each(s, fn, arg, err);
}

static inline void
store_close(struct store *s)
{
	if (s != NULL)
		s->ops->close(s);
}

#endif
