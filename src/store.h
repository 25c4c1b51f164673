/*
 * store.h: where breaker records live.  A store maps a breaker NAME to the
 * opaque bytes of its record (record.h); it knows nothing of their meaning.
 * Its one write operation is update(): an atomic read-modify-write of one
 * record through a callback.  LMDB runs it in one write transaction; a
 * networked backend (SPEC section 9) may run the callback several times, so
 * the callback must be pure: same input bytes, same output, no side effects
 * beyond its own `arg`.
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

struct store;

struct store_ops {
	const char	*kind;	/* "lmdb" */
	int	(*update)(struct store *, const char *name, store_update_fn,
		    void *arg, struct cb_err *);
	/* Optional (NULL: store_update_peek falls back to update): the
	 * same contract as update, but fn runs first on a read-only
	 * snapshot, and only when it asks for a change again inside the
	 * write transaction. */
	int	(*update_peek)(struct store *, const char *name,
		    store_update_fn, void *arg, struct cb_err *);
	/* Copy NAME's record into out (replacing its contents).  Returns 1
	 * found, 0 not found, -1 error. */
	int	(*get)(struct store *, const char *name, struct cb_buf *out,
		    struct cb_err *);
	/* Every record in name order, from one consistent snapshot. */
	int	(*each)(struct store *, store_each_fn, void *arg,
		    struct cb_err *);
	void	(*close)(struct store *);
};

struct store {
	const struct store_ops	*ops;
	char			*path;	/* for messages */
};

enum store_sync {
	STORE_SYNC_FULL,	/* fsync data and meta page at every commit */
	STORE_SYNC_META,	/* MDB_NOMETASYNC */
	STORE_SYNC_NONE		/* MDB_NOSYNC */
};

struct store_opts {
	const char	*path;		/* data file; the lock file is PATH-lock */
	mode_t		 mode;		/* new files get exactly this mode */
	enum store_sync	 sync;
	int		 readonly;	/* open for reading only (status):
					 * a missing file is then not created
					 * and store_open returns NULL with
					 * errno ENOENT and err filled */
};

/*
 * Open the LMDB store at opts->path, creating missing parent directories
 * (mode 0700 plus the group/other search bits state_mode implies) and the
 * file itself.  Refuses, without writing a byte, a file that is not LMDB.
 * The returned store's descriptors are all close-on-exec.
 */
struct store	*store_lmdb_open(const struct store_opts *, struct cb_err *);

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
	if (s->ops->update_peek == NULL)
		return s->ops->update(s, name, fn, arg, err);
	return s->ops->update_peek(s, name, fn, arg, err);
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
