/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb.c: the local store, one LMDB environment shared by every cbexec
 * on the machine.  The data file is the state path itself and the lock file
 * sits beside it as PATH-lock (MDB_NOSUBDIR); records live in the unnamed
 * main database, keyed by the breaker NAME bytes.  Each update() is one
 * write transaction, so concurrent invocations serialise on LMDB's writer
 * lock and never lose an update.  The environment is open only during an
 * operation (lmdb_op): LMDB locks the byte at offset pid of the lock file
 * from a process's first read until it closes the environment, and a
 * container's cbexec may have the same pid as ours.  The map starts small
 * and doubles when it fills; another process growing it is picked up on
 * the next transaction.
 * Not for threads; a process must not open the same state twice at once
 * (closing one would drop LMDB's POSIX record locks of the other), and the
 * callbacks of update() and each() run inside a transaction and must not
 * call back into the store.  Opening, with its checks, is
 * store-lmdb-open.c's, eviction store-lmdb-evict.c's; these three files
 * are the only ones that include lmdb.h (store-lmdb-int.h).
 */
#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "store.h"
#include "store-lmdb-int.h"
#include "util.h"

/* Bound on restarts of one operation (map growth, map resized elsewhere). */
#define LMDB_RETRIES	32

/* Records one prune transaction visits before it commits. */
#define LMDB_PRUNE_BATCH	4096

static int	lmdb_update(struct store *, const char *, store_update_fn,
		    void *, struct cb_err *);
static int	lmdb_update_peek(struct store *, const char *,
		    store_update_fn, void *, struct cb_err *);
static int	lmdb_get(struct store *, const char *, struct cb_buf *,
		    struct cb_err *);
static int	lmdb_each(struct store *, store_each_fn, void *,
		    struct cb_err *);
static int	lmdb_prune(struct store *, store_prune_fn, void *,
		    struct cb_buf *, struct cb_err *);
static void	lmdb_close(struct store *);

static const struct store_ops lmdb_ops = {
	.kind = "lmdb",
	.update = lmdb_update,
	.update_peek = lmdb_update_peek,
	.get = lmdb_get,
	.each = lmdb_each,
	.prune = lmdb_prune,
	.close = lmdb_close
};

/*
 * Begin a transaction, adopting a map another process has grown
 * (MDB_MAP_RESIZED) and clearing the reader slots of dead processes once
 * if the reader table is full.  A process's first read locks the byte at
 * offset pid of the lock file (F_SETLK), and fails with EAGAIN while a
 * process of another PID namespace with the same pid holds it (SPEC 5,
 * Containers): waited out like a lock, as that one lets go of it when it
 * closes the environment, at the end of its operation.
 */
static int
lmdb_begin_locked(struct store_lmdb *sl, unsigned int flags, MDB_txn **txn)
{
	int	rc, resized = 0, checked = 0;

	for (;;) {
		rc = mdb_txn_begin(sl->env, NULL, flags, txn);
		sl->pid_wait = (flags & MDB_RDONLY) != 0 &&
		    (rc == EAGAIN || rc == EACCES);
		if (sl->pid_wait) {
			if (lmdb_wait_pause() != 0)
				return rc;
			continue;
		}
		if (rc == MDB_MAP_RESIZED && resized++ < LMDB_RETRIES) {
			if ((rc = mdb_env_set_mapsize(sl->env, 0)) != 0) {
				sl->broken = 1;
				return rc;
			}
			continue;
		}
		if (rc == MDB_READERS_FULL && !checked) {
			checked = 1;
			if ((rc = mdb_reader_check(sl->env, NULL)) != 0)
				return rc;
			continue;
		}
		return rc;
	}
}

/*
 * mdb_txn_begin may wait for LMDB's writer lock or reader-table lock as
 * long as another process holds it: marked as a wait, which the caller
 * gives up after lock_timeout (store-lmdb-wait.c).  Given up, the
 * transaction just begun is let go at once.
 */
int
lmdb_begin(struct store_lmdb *sl, unsigned int flags, MDB_txn **txn)
{
	int	rc;

	if (lmdb_wait_enter() != 0)
		return ECANCELED;
	rc = lmdb_begin_locked(sl, flags, txn);
	if (lmdb_wait_leave() != 0) {
		if (rc == 0)
			mdb_txn_abort(*txn);
		return ECANCELED;
	}
	/*
	 * The main database's handle, once an environment, in the first
	 * transaction: no I/O, and no transaction of its own, which would
	 * take the reader table's lock once more an operation.
	 */
	if (rc == 0 && !sl->dbi_open) {
		if ((rc = mdb_dbi_open(*txn, NULL, 0, &sl->dbi)) != 0)
			mdb_txn_abort(*txn);
		else
			sl->dbi_open = 1;
	}
	return rc;
}

/*
 * Double the map (no transaction may be open).  The new size is recorded
 * in the file at the next commit, where other processes pick it up.
 */
static int
lmdb_grow(struct store_lmdb *sl)
{
	MDB_envinfo	info;
	size_t		size;
	int		rc;

	if ((rc = mdb_env_info(sl->env, &info)) != 0)
		return rc;
	if (info.me_mapsize >= LMDB_MAP_MAX)
		return MDB_MAP_FULL;
	if (info.me_mapsize > LMDB_MAP_MAX / 2)
		size = LMDB_MAP_MAX;
	else
		size = info.me_mapsize * 2;
	/* On failure LMDB has already unmapped the old map. */
	if ((rc = mdb_env_set_mapsize(sl->env, size)) != 0)
		sl->broken = 1;
	return rc;
}

/* NAME as a key: 1 byte up to LMDB's key limit (511 by default). */
static int
lmdb_key(struct store_lmdb *sl, const char *name, MDB_val *key)
{
	size_t	max, len;

	max = sl->env != NULL ? (size_t)mdb_env_get_maxkeysize(sl->env) : 511;
	if (name == NULL || (len = strnlen(name, max + 1)) == 0 || len > max)
		return -1;
	key->mv_data = (void *)name;
	key->mv_size = len;
	return 0;
}

static int
lmdb_do_update(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	static uint8_t		 empty;
	MDB_txn			*txn;
	MDB_val			 key, val;
	int			 action, attempt, created, rc;

	s->evicted.n = 0;
	if (lmdb_key(sl, name, &key) != 0) {
		err_set(err, "cannot update breaker '%s' in state '%s': "
		    "invalid name", name == NULL ? "" : name, s->path);
		return -1;
	}
	if (sl->readonly) {
		err_set(err, "cannot update breaker '%s' in state '%s': "
		    "state is open read-only", name, s->path);
		return -1;
	}

	if (sl->broken) {
		rc = ENOMEM;
		goto fail;
	}
	for (attempt = 0; attempt < LMDB_RETRIES; attempt++) {
		s->evicted.n = 0;
		if ((rc = lmdb_begin(sl, 0, &txn)) != 0)
			goto fail;
		rc = mdb_get(txn, sl->dbi, &key, &val);
		created = rc == MDB_NOTFOUND;
		if (rc == MDB_NOTFOUND) {
			val.mv_data = NULL;
			val.mv_size = 0;
		} else if (rc != 0) {
			mdb_txn_abort(txn);
			goto fail;
		}

		buf_reset(&sl->out);
		action = fn(val.mv_data, val.mv_size, &sl->out, arg, err);
		switch (action) {
		case -1:
			mdb_txn_abort(txn);
			return -1;
		case STORE_KEEP:
			mdb_txn_abort(txn);
			return 0;
		case STORE_PUT:
			rc = 0;
			if (created && sl->max_records > 0)
				rc = lmdb_evict(sl, txn);
			val.mv_data = sl->out.len != 0 ? sl->out.data : &empty;
			val.mv_size = sl->out.len;
			if (rc == 0)
				rc = mdb_put(txn, sl->dbi, &key, &val, 0);
			break;
		case STORE_DELETE:
			rc = mdb_del(txn, sl->dbi, &key, NULL);
			if (rc == MDB_NOTFOUND) {
				mdb_txn_abort(txn);
				return 0;
			}
			break;
		default:
			mdb_txn_abort(txn);
			err_set(err, "cannot update breaker '%s' in state "
			    "'%s': callback returned %d", name, s->path,
			    action);
			return -1;
		}

		/* mdb_txn_commit frees the transaction, failed or not. */
		if (rc == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
		if (rc == 0)
			return 0;
		s->evicted.n = 0;
		if (rc != MDB_MAP_FULL || (rc = lmdb_grow(sl)) != 0)
			goto fail;
		/* The map is bigger: run the whole read-modify-write again. */
	}
	rc = MDB_MAP_FULL;
fail:
	err_set(err, "cannot update breaker '%s' in state '%s': %s", name,
	    s->path, mdb_strerror(rc));
	return -1;
}

/*
 * update() after a look in a read transaction: a reader takes no writer
 * lock, so a callback that keeps the record (a closed breaker admitting a
 * call) costs neither a wait behind another process's commit and fsync
 * nor a hold on the lock.  Whatever the look cannot settle (a change, or
 * a read that failed) goes through lmdb_update, which reports errors.
 */
static int
lmdb_do_update_peek(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	MDB_txn			*txn;
	MDB_val			 key, val;
	int			 action;

	if (lmdb_key(sl, name, &key) != 0 || sl->readonly || sl->broken ||
	    sl->env == NULL || lmdb_begin(sl, MDB_RDONLY, &txn) != 0)
		return lmdb_do_update(s, name, fn, arg, err);
	switch (mdb_get(txn, sl->dbi, &key, &val)) {
	case 0:
		break;
	case MDB_NOTFOUND:
		val.mv_data = NULL;
		val.mv_size = 0;
		break;
	default:
		mdb_txn_abort(txn);
		return lmdb_do_update(s, name, fn, arg, err);
	}
	buf_reset(&sl->out);
	action = fn(val.mv_data, val.mv_size, &sl->out, arg, err);
	mdb_txn_abort(txn);
	if (action == STORE_KEEP)
		return 0;
	if (action == -1)
		return -1;
	return lmdb_do_update(s, name, fn, arg, err);
}

static int
lmdb_do_get(struct store *s, const char *name, struct cb_buf *out,
    struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	MDB_txn			*txn;
	MDB_val			 key, val;
	int			 rc, found = 0;

	buf_reset(out);
	if (lmdb_key(sl, name, &key) != 0) {
		err_set(err, "cannot read breaker '%s' in state '%s': "
		    "invalid name", name == NULL ? "" : name, s->path);
		return -1;
	}
	if (sl->env == NULL)
		return 0;
	if (sl->broken) {
		rc = ENOMEM;
		goto fail;
	}

	if ((rc = lmdb_begin(sl, MDB_RDONLY, &txn)) != 0)
		goto fail;
	rc = mdb_get(txn, sl->dbi, &key, &val);
	if (rc == 0) {
		buf_add(out, val.mv_data, val.mv_size);
		found = 1;
	} else if (rc == MDB_NOTFOUND)
		rc = 0;
	mdb_txn_abort(txn);
	if (rc != 0)
		goto fail;
	return found;
fail:
	err_set(err, "cannot read breaker '%s' in state '%s': %s", name,
	    s->path, mdb_strerror(rc));
	return -1;
}

static int
lmdb_do_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	MDB_txn			*txn;
	MDB_cursor		*cur;
	MDB_val			 key, val;
	MDB_cursor_op		 op;
	int			 rc, r;

	if (sl->env == NULL)
		return 0;
	if (sl->broken) {
		rc = ENOMEM;
		goto fail;
	}
	if ((rc = lmdb_begin(sl, MDB_RDONLY, &txn)) != 0)
		goto fail;
	if ((rc = mdb_cursor_open(txn, sl->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		goto fail;
	}
	for (op = MDB_FIRST;; op = MDB_NEXT) {
		if ((rc = mdb_cursor_get(cur, &key, &val, op)) != 0) {
			if (rc == MDB_NOTFOUND)
				rc = 0;
			break;
		}
		r = fn(key.mv_data, key.mv_size, val.mv_data, val.mv_size, arg,
		    err);
		if (r < 0) {
			mdb_cursor_close(cur);
			mdb_txn_abort(txn);
			return -1;
		}
		if (r > 0)
			break;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (rc != 0)
		goto fail;
	return 0;
fail:
	err_set(err, "cannot read state '%s': %s", s->path, mdb_strerror(rc));
	return -1;
}

/*
 * One prune transaction: from resume (the last name the previous batch
 * looked at; empty: from the start) through at most LMDB_PRUNE_BATCH
 * records.  Removed names go to batch; *done is set at the end of the
 * store, else resume holds where to go on.
 */
static int
lmdb_prune_batch(struct store_lmdb *sl, store_prune_fn fn, void *arg,
    struct cb_buf *resume, struct cb_buf *batch, int *done,
    struct cb_err *err, int *cbfail)
{
	MDB_txn		*txn;
	MDB_cursor	*cur;
	MDB_val		 key, val;
	int		 rc, r, n = 0;

	*done = 0;
	buf_reset(batch);
	if ((rc = lmdb_begin(sl, 0, &txn)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(txn, sl->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		return rc;
	}
	if (resume->len == 0)
		rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
	else {
		key.mv_data = resume->data;
		key.mv_size = resume->len;
		rc = mdb_cursor_get(cur, &key, &val, MDB_SET_RANGE);
		if (rc == 0 && key.mv_size == resume->len &&
		    memcmp(key.mv_data, resume->data, resume->len) == 0)
			rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
	}
	for (;;) {
		if (rc == MDB_NOTFOUND) {
			*done = 1;
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		if (n++ == LMDB_PRUNE_BATCH)
			break;		/* resume is the last one looked at */
		buf_reset(resume);
		buf_add(resume, key.mv_data, key.mv_size);
		r = fn(key.mv_data, key.mv_size, val.mv_data, val.mv_size, arg,
		    err);
		if (r < 0) {
			*cbfail = 1;
			rc = -1;
			break;
		}
		if (r > 0) {
			buf_add(batch, key.mv_data, key.mv_size);
			buf_add_u8(batch, 0);
			/* MDB_NEXT after a delete yields the record that
			 * followed the deleted one. */
			if ((rc = mdb_cursor_del(cur, 0)) != 0)
				break;
		}
		rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	if (rc != 0) {
		mdb_txn_abort(txn);
		return rc;
	}
	return mdb_txn_commit(txn);
}

static int
lmdb_do_prune(struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	struct cb_buf		 resume = { 0 }, batch = { 0 }, again = { 0 };
	int			 rc = 0, done = 0, cbfail = 0, attempt = 0;

	if (sl->readonly) {
		err_set(err, "cannot prune state '%s': state is open "
		    "read-only", s->path);
		return -1;
	}
	if (sl->env == NULL)
		return 0;
	while (!done) {
		if (sl->broken) {
			rc = ENOMEM;
			break;
		}
		buf_reset(&again);
		buf_add(&again, resume.data, resume.len);
		rc = lmdb_prune_batch(sl, fn, arg, &resume, &batch, &done,
		    err, &cbfail);
		if (rc == MDB_MAP_FULL && attempt++ < LMDB_RETRIES &&
		    (rc = lmdb_grow(sl)) == 0) {
			/* Bigger map: the same batch again. */
			buf_reset(&resume);
			buf_add(&resume, again.data, again.len);
			done = 0;
			continue;
		}
		if (rc != 0)
			break;
		buf_add(removed, batch.data, batch.len);
	}
	buf_free(&resume);
	buf_free(&batch);
	buf_free(&again);
	if (cbfail)
		return -1;
	if (rc != 0) {
		err_set(err, "cannot prune state '%s': %s", s->path,
		    mdb_strerror(rc));
		return -1;
	}
	return 0;
}

/* One operation, as lmdb_wait_call runs it. */
enum lmdb_op_kind {
	OP_UPDATE,
	OP_UPDATE_PEEK,
	OP_GET,
	OP_EACH,
	OP_PRUNE
};

struct lmdb_op {
	enum lmdb_op_kind	 kind;
	const char		*name;
	store_update_fn		 update;
	store_each_fn		 each;
	store_prune_fn		 prune;
	void			*arg;
	struct cb_buf		*buf;
};

/*
 * Free the reader slots whose pid holds no lock any more: cheap, but it
 * takes the reader table's lock (a wait), so once a process, not at
 * every operation's open.  0, or -1 with err.
 */
static int
lmdb_check_readers(struct store_lmdb *sl, struct cb_err *err)
{
	int	rc, cancelled;

	sl->readers_checked = 1;
	if (lmdb_wait_enter() != 0)
		return -1;
	rc = mdb_reader_check(sl->env, NULL);
	cancelled = lmdb_wait_leave();
	if (cancelled != 0)
		return -1;
	if (rc != 0) {
		lmdb_open_error(sl->s.path, rc, err);
		return -1;
	}
	return 0;
}

static int
lmdb_op_run(struct store_lmdb *sl, void *a, struct cb_err *err)
{
	struct lmdb_op	*op = a;

	if (sl->env != NULL && !sl->readers_checked &&
	    lmdb_check_readers(sl, err) != 0)
		return -1;
	switch (op->kind) {
	case OP_UPDATE:
		return lmdb_do_update(&sl->s, op->name, op->update, op->arg,
		    err);
	case OP_UPDATE_PEEK:
		return lmdb_do_update_peek(&sl->s, op->name, op->update,
		    op->arg, err);
	case OP_GET:
		return lmdb_do_get(&sl->s, op->name, op->buf, err);
	case OP_EACH:
		return lmdb_do_each(&sl->s, op->each, op->arg, err);
	case OP_PRUNE:
		return lmdb_do_prune(&sl->s, op->prune, op->arg, op->buf, err);
	}
	return -1;
}

/*
 * One operation with the environment open: opened again if it rests, and
 * let go of at the end (SPEC 5, Containers).  LMDB locks the byte at
 * offset pid of the lock file from a process's first read until it
 * closes the environment, and a process of another PID namespace may
 * have the same pid: one that kept it open while its command ran would
 * keep ours from reading for as long.
 */
static int
lmdb_op(struct store *s, struct lmdb_op *op, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	int			 rc, e;

	if (sl->resting && lmdb_open(sl, err) != 0)
		return -1;
	sl->pid_wait = 0;
	rc = lmdb_wait_call(sl, lmdb_op_run, op, err);
	if (!sl->opts.keep_open) {
		e = errno;
		lmdb_rest(sl);
		errno = e;
	}
	return rc;
}

static int
lmdb_update(struct store *s, const char *name, store_update_fn fn, void *arg,
    struct cb_err *err)
{
	struct lmdb_op	op = { OP_UPDATE, name, fn, NULL, NULL, arg, NULL };

	return lmdb_op(s, &op, err);
}

static int
lmdb_update_peek(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct lmdb_op	op = { OP_UPDATE_PEEK, name, fn, NULL, NULL, arg,
			    NULL };

	return lmdb_op(s, &op, err);
}

static int
lmdb_get(struct store *s, const char *name, struct cb_buf *out,
    struct cb_err *err)
{
	struct lmdb_op	op = { OP_GET, name, NULL, NULL, NULL, NULL, out };

	return lmdb_op(s, &op, err);
}

static int
lmdb_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
{
	struct lmdb_op	op = { OP_EACH, NULL, NULL, fn, NULL, arg, NULL };

	return lmdb_op(s, &op, err);
}

static int
lmdb_prune(struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, struct cb_err *err)
{
	struct lmdb_op	op = { OP_PRUNE, NULL, NULL, NULL, fn, arg, removed };

	return lmdb_op(s, &op, err);
}

struct store *
store_lmdb_open(const struct store_opts *opts, struct cb_err *err)
{
	struct store_lmdb	*sl;
	int			 e;

	sl = xcalloc(1, sizeof *sl);
	sl->s.ops = &lmdb_ops;
	sl->s.path = xstrdup(opts->path != NULL ? opts->path : "");
	sl->opts = *opts;
	sl->opts.path = sl->s.path;
	sl->readonly = opts->readonly;
	sl->dfd = sl->lfd = -1;
	sl->resting = 1;
	sl->lock_timeout_ms = opts->lock_timeout_ms > 0 ?
	    opts->lock_timeout_ms : 10000;
	sl->on_signal = opts->on_signal;
	if (opts->rank != NULL) {
		sl->max_records = opts->max_records;
		sl->rank = opts->rank;
	}
	if (lmdb_open(sl, err) != 0) {
		e = errno;
		lmdb_close(&sl->s);
		errno = e;
		return NULL;
	}
	return &sl->s;
}

static void
lmdb_close(struct store *s)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;

	lmdb_rest(sl);
	buf_free(&sl->out);
	free(s->path);
	free(sl);
}
