/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb-int.h: what the three files of the local store share:
 * store-lmdb.c (the operations), store-lmdb-open.c (opening, with the file
 * and directory safety checks) and store-lmdb-evict.c (choosing victims
 * when max_records is reached).  These three, and only these, include
 * lmdb.h; store.h is the interface for everyone else.
 */
#ifndef CBEXEC_STORE_LMDB_INT_H
#define CBEXEC_STORE_LMDB_INT_H

#include <stdint.h>

#include <lmdb.h>

#include "store.h"
#include "util.h"

/* First map of a new store; it doubles on MDB_MAP_FULL up to the cap. */
#define LMDB_MAP_START	((size_t)1 << 20)
#if SIZE_MAX > 0xffffffffu
#define LMDB_MAP_MAX	((size_t)1 << 32)
#else
#define LMDB_MAP_MAX	((size_t)1 << 29)
#endif

struct store_lmdb {
	struct store	 s;		/* first: what we hand out */
	struct store_opts opts;		/* as opened; path is s.path */
	int		 resting;	/* nothing open: the next operation
					 * opens it again (lmdb_open) */
	MDB_env		*env;		/* NULL: read-only, 0-byte file */
	int		 dfd;		/* the data file, as checked */
	int		 lfd;		/* the lock file, as checked, or -1 */
	MDB_dbi		 dbi;
	int		 dbi_open;	/* dbi is open (lmdb_begin) */
	int		 readers_checked;	/* once a process */
	int		 readonly;
	int		 broken;	/* a map resize failed: no map left */
	struct cb_buf	 out;		/* update callback output, reused */
	uint64_t	 max_records;	/* 0: unbounded */
	store_rank_fn	 rank;
	uint64_t	 rnd;		/* xorshift state for sampling */
	int64_t		 lock_timeout_ms;	/* longest wait for a lock */
	void		(*on_signal)(int);	/* store_opts */
	int		 pid_wait;	/* the wait was for our pid's byte */
};

/*
 * Begin a transaction on sl->env; an LMDB error code, or 0 with *txn to
 * commit or abort.  Adopts a map grown elsewhere (store-lmdb.c).
 */
int	lmdb_begin(struct store_lmdb *, unsigned int flags, MDB_txn **);

/* Fill err for a failed mdb_env_open, or the setup after it (the main
 * database's handle, on the first operation), and set errno
 * (store-lmdb-open.c). */
void	lmdb_open_error(const char *path, int rc, struct cb_err *);

/*
 * Open a resting sl as sl->opts says, with every check, on the files its
 * path names now: 0, or -1 with err, sl still resting.  Each operation
 * opens it so, and lets go of it at its end (lmdb_rest), so that no
 * process holds LMDB's lock on its pid's byte of the lock file longer
 * than an operation (store-lmdb-open.c).
 */
int	lmdb_open(struct store_lmdb *, struct cb_err *);

/*
 * Close the environment and both files, and with them drop every lock
 * this process holds on the lock file; sl itself stays, resting
 * (store-lmdb-open.c).
 */
void	lmdb_rest(struct store_lmdb *);

/*
 * In write transaction txn, when the store already holds max_records,
 * choose victims as store.h describes, delete them and list them in
 * sl->s.evicted.  Returns 0 or an LMDB error code (store-lmdb-evict.c).
 */
int	lmdb_evict(struct store_lmdb *, MDB_txn *);

/*
 * The waits on LMDB's locks (store-lmdb-wait.c).  lmdb_wait_call runs
 * fn(sl, arg, err) with SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked; in
 * it a wait for a lock lasts at most sl->lock_timeout_ms in any one
 * stretch between lmdb_wait_enter and lmdb_wait_leave.  Returns what fn
 * returned (err as fn filled it), or -1 with err filled when that wait
 * lasted too long (errno ETIMEDOUT; every later call then fails at once),
 * or when one of the four came first (after sl->on_signal, if set and if
 * it returns; errno EINTR).  fn calls lmdb_wait_enter before anything
 * that may wait for a lock and lmdb_wait_leave after it; each returns -1
 * once the wait is over, and fn then lets go of what it holds and
 * returns.  A wait of our own (a POSIX record lock) sleeps in
 * lmdb_wait_pause between tries: -1 when it is over.
 */
typedef int (*lmdb_wait_fn)(struct store_lmdb *, void *, struct cb_err *);

int	lmdb_wait_call(struct store_lmdb *, lmdb_wait_fn, void *,
	    struct cb_err *);
int	lmdb_wait_enter(void);
int	lmdb_wait_leave(void);
int	lmdb_wait_pause(void);

#endif
