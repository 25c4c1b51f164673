/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb-open.c: opening the local store (store.h, store_lmdb_open),
 * with the checks that come first.  A file that is not LMDB is refused and
 * never written: LMDB reads the meta pages before it writes anything, and
 * an existing file is never truncated, chmod'ed or repaired here; nor is
 * one shorter than its used pages, nor a symlink in place of either file
 * (both files are opened and checked here first, and LMDB is handed names
 * that lead only to them: statefile.c).  Each operation opens the store
 * so and closes it at its end (lmdb_open, lmdb_rest).  One of the three
 * files that include lmdb.h (store-lmdb-int.h).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "store.h"
#include "statefile.h"
#include "store-lmdb-int.h"
#include "util.h"

/*
 * Bytes of the lock file LMDB 0.9 maps for its default 126 readers
 * (125 x 64-byte reader slots + the 192-byte header).
 */
#define LMDB_LOCK_BYTES	8192

/*
 * One attempt at opening the environment.  On failure the handle is
 * discarded (LMDB does not allow a second mdb_env_open on it).
 */
static int
lmdb_env_open(const char *path, unsigned int flags, mode_t mode,
    size_t mapsize, MDB_env **envp)
{
	MDB_env	*env;
	mode_t	 omask;
	int	 rc;

	*envp = NULL;
	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	if (mapsize != 0 && (rc = mdb_env_set_mapsize(env, mapsize)) != 0)
		goto fail;

	/* New data and lock files get exactly `mode`, whatever the umask. */
	omask = umask(0);
	rc = mdb_env_open(env, path, flags, mode);
	umask(omask);
	if (rc != 0)
		goto fail;
	*envp = env;
	return 0;
fail:
	mdb_env_close(env);
	return rc;
}

/*
 * LMDB sizes its lock file with ftruncate and then writes to it through a
 * shared mapping: on a full file system the first store to a page that has
 * no block behind it kills the process with SIGBUS, before on_store_error
 * can say anything.  Reserving the blocks first turns that into ENOSPC.
 * fallocate(2), not posix_fallocate(3): glibc's emulation for file systems
 * without it writes zero bytes, which could race with live readers of a
 * lock file in use.  Returns 0, or an errno value for no space; anything
 * else (no fallocate) is left for LMDB to meet.
 */
static int
lmdb_reserve_lock(int fd, const struct stat *st)
{
	int	rc;

	/* The common case: a lock file whose blocks are all there. */
	if ((long long)st->st_blocks * 512 >= LMDB_LOCK_BYTES)
		return 0;
	rc = fallocate(fd, 0, 0, LMDB_LOCK_BYTES) == -1 ? errno : 0;
	return rc == ENOSPC || rc == EDQUOT ? rc : 0;
}

/*
 * A data file shorter than the pages LMDB's meta page says are in use (a
 * truncated copy) would kill the process with SIGBUS at the first read of
 * a page past its end.  Only the two meta pages have been read so far (by
 * read(2), not through the map), so refuse it now, like a file that is
 * not LMDB.
 */
static int
lmdb_check_size(MDB_env *env, int dfd, const char *path, struct cb_err *err)
{
	MDB_envinfo	info;
	MDB_stat	ms;
	struct stat	st;
	uint64_t	need;
	int		rc;

	if ((rc = mdb_env_info(env, &info)) != 0 ||
	    (rc = mdb_env_stat(env, &ms)) != 0) {
		err_set(err, "cannot open state '%s': %s", path,
		    mdb_strerror(rc));
		return -1;
	}
	if (fstat(dfd, &st) == -1) {
		err_set(err, "cannot open state '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	need = ((uint64_t)info.me_last_pgno + 1) * ms.ms_psize;
	if (st.st_size < 0 || (uint64_t)st.st_size < need) {
		err_set(err, "state '%s' is not a usable LMDB file: it has "
		    "%lld bytes, its pages need %llu (truncated?)", path,
		    (long long)st.st_size, (unsigned long long)need);
		return -1;
	}
	return 0;
}

/*
 * The path as given: 0 with *exists, or -1 with err (and errno) for an
 * invalid path, a failed lstat, or a missing file when readonly, which
 * creates nothing, not even a directory.  Not followed: a symlink is
 * refused later, by name.
 */
static int
lmdb_open_path(const struct store_opts *opts, int *exists, struct cb_err *err)
{
	struct stat	 st;
	const char	*path = opts->path;
	size_t		 len;

	len = path != NULL ? strlen(path) : 0;
	if (len == 0 || path[len - 1] == '/') {
		err_set(err, "invalid state path '%s'",
		    path != NULL ? path : "");
		errno = EINVAL;
		return -1;
	}
	if (lstat(path, &st) == 0)
		*exists = 1;
	else if (errno == ENOENT && !opts->readonly)
		*exists = 0;
	else {
		/* readonly: create nothing, not even a directory. */
		int	e = errno;

		lmdb_open_error(path, e, err);
		if (e == ENOENT && err != NULL)
			err->code = CB_ERR_MISSING;
		return -1;
	}
	return 0;
}

/* The files the open makes and checks, to undo on failure. */
struct lmdb_files {
	const char	*path;
	char		*lockpath;
	struct stat	 dst;		/* the data file, as checked */
	struct stat	 lst;		/* the lock file, as checked */
	int		 dcreated;
	int		 lcreated;
};

/*
 * Make the missing directories, check them, and open and check the data
 * file and the lock file into sl.  Returns 0, 1 for a read-only 0-byte
 * file (it counts as a new, empty store, but initialising it would be a
 * write, so it is served empty without an environment), or -1 with err.
 */
static int
lmdb_open_files(struct store_lmdb *sl, const struct store_opts *opts,
    int exists, struct lmdb_files *f, struct cb_err *err)
{
	struct stat	dirst;
	mode_t		mode = opts->mode & 0777, omask;
	int		rc;

	if (!exists) {
		omask = umask(0);
		rc = statefile_make_parents(f->path, statefile_dir_mode(mode),
		    err);
		umask(omask);
		if (rc != 0)
			return -1;
	}
	if (statefile_check_dirs(f->path, &dirst, err) != 0)
		return -1;

	sl->dfd = statefile_open(f->path, "file",
	    opts->readonly ? O_RDONLY : O_RDWR, !opts->readonly, mode, &dirst,
	    &f->dcreated, &f->dst, err);
	if (sl->dfd == -1)
		return -1;
	if (opts->readonly && f->dst.st_size == 0)
		return 1;

	/*
	 * LMDB wants the lock file read-write (creating it if missing), even
	 * for MDB_RDONLY.  A reader that cannot have it reads without the
	 * reader table (MDB_NOLOCK, below).
	 */
	sl->lfd = statefile_open(f->lockpath, "lock file", O_RDWR, 1, mode,
	    &dirst, &f->lcreated, &f->lst, err);
	if (sl->lfd == -1 && (!opts->readonly ||
	    (errno != EACCES && errno != EPERM && errno != EROFS)))
		return -1;
	if (sl->lfd != -1 && (rc = lmdb_reserve_lock(sl->lfd, &f->lst)) != 0) {
		lmdb_open_error(f->path, rc, err);
		return -1;
	}
	return 0;
}

/*
 * mdb_env_open takes a shared fcntl lock on the lock file's first byte,
 * and waits for it (F_SETLKW, restarted after signals) while another
 * process holds it exclusively, as anybody who may write the lock file
 * can.  Take it first: at once when it is free, as it nearly always is,
 * else tried again every slice of a wait that lock_timeout and the four
 * signals end (store-lmdb-wait.c).  POSIX locks are the process's, so
 * LMDB then finds it granted and never waits.
 */
static int
lmdb_share_lock(struct store_lmdb *sl, void *unused, struct cb_err *err)
{
	struct flock	fl;
	int		rc, e;

	(void)unused;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 1;
	if (lmdb_wait_enter() != 0)
		return -1;
	while ((rc = fcntl(sl->lfd, F_SETLK, &fl)) == -1 &&
	    (errno == EINTR || errno == EAGAIN || errno == EACCES) &&
	    lmdb_wait_pause() == 0)
		continue;
	e = errno;
	/* Given up: a shared lock left held is what every user holds. */
	if (lmdb_wait_leave() != 0)
		return -1;
	if (rc == -1) {
		err_set(err, "cannot open state '%s': lock file: %s",
		    sl->s.path, strerror(e));
		return -1;
	}
	return 0;
}

/*
 * Open the environment on the checked files, through the names pinned to
 * them (statefile_pin).  A state that cannot be pinned (no /proc, nowhere
 * to make the pin: a member may fill /dev/shm and /tmp) is not opened by
 * name: -1 with err, and on_store_error decides.  Then what LMDB opened
 * is verified by descriptor: every descriptor it added is the data file
 * or the lock file checked (statefile_fds_check).  Returns 0, -1 with
 * err, or an LMDB error code.
 */
static int
lmdb_open_env(struct store_lmdb *sl, const struct store_opts *opts,
    const struct lmdb_files *f, struct cb_err *err)
{
	struct statefile_pin	 pin;
	struct statefile_fds	 before;
	MDB_env		*env = NULL;
	mode_t		 mode = opts->mode & 0777;
	size_t		 mapsize = 0;
	unsigned int	 flags;
	int		 rc, e, lock;

	/*
	 * A new (or empty) file starts with a small map; an existing one
	 * keeps the size recorded in it (0 = use the file's), which LMDB
	 * never lets fall below the data already there.
	 */
	if (f->dst.st_size == 0)
		mapsize = LMDB_MAP_START;

	if (sl->lfd != -1 && lmdb_wait_call(sl, lmdb_share_lock, NULL,
	    err) != 0)
		return -1;
	if (statefile_pin(sl->dfd, &f->dst, sl->lfd, &f->lst, &pin) != 0) {
		e = errno;
		err_set(err, "cannot open state '%s': cannot pin it for LMDB "
		    "(%s); refusing to open it by name", f->path, strerror(e));
		errno = e;
		return -1;
	}
	if (statefile_fds(&before) != 0) {
		e = errno;
		statefile_unpin(&pin);
		err_set(err, "cannot open state '%s': /proc/self/fd: %s",
		    f->path, strerror(e));
		errno = e;
		return -1;
	}
	lock = sl->lfd != -1;
	if (opts->readonly) {
		/*
		 * MDB_RDONLY opens the data file O_RDONLY, so status works on
		 * a file we may read but not write, and can never write it.
		 * Without the lock file, read without the reader table:
		 * nothing is written, at the price that a writer committing
		 * twice during our read transaction could reuse pages we are
		 * reading.  Good enough for a status display; record_decode
		 * rejects what does not parse.
		 */
		flags = MDB_NOSUBDIR | MDB_NOTLS | MDB_RDONLY;
		if (!lock)
			flags |= MDB_NOLOCK;
		rc = lmdb_env_open(pin.path, flags, mode, mapsize, &env);
		if ((rc == EACCES || rc == EPERM) && lock) {
			lock = 0;
			rc = lmdb_env_open(pin.path, flags | MDB_NOLOCK, mode,
			    mapsize, &env);
		}
	} else {
		/*
		 * MDB_NOTLS ties a reader slot to a read transaction rather
		 * than to the thread, so a cbexec waiting minutes for its
		 * command holds no slot: the 126-slot reader table bounds
		 * concurrent reads, not concurrent runs.
		 */
		flags = MDB_NOSUBDIR | MDB_NOTLS;
		if (opts->sync == STORE_SYNC_META)
			flags |= MDB_NOMETASYNC;
		else if (opts->sync == STORE_SYNC_NONE)
			flags |= MDB_NOSYNC;
		rc = lmdb_env_open(pin.path, flags, mode, mapsize, &env);
	}
	statefile_unpin(&pin);
	if (rc == 0 && statefile_fds_check(&before, &f->dst,
	    lock ? &f->lst : NULL) != 0) {
		mdb_env_close(env);
		statefile_fds_free(&before);
		err_set(err, "state '%s': LMDB did not open the files checked; "
		    "refusing it", f->path);
		errno = EINVAL;
		return -1;
	}
	statefile_fds_free(&before);
	if (rc == 0)
		sl->env = env;
	return rc;
}

/*
 * A failed open leaves no empty files behind: nothing was written.  A lock
 * file beside a file that is not LMDB (invalid) is only litter too; after
 * any other failure it may be one another process already shares.
 */
static void
lmdb_open_undo(struct store_lmdb *sl, const struct lmdb_files *f,
    int invalid)
{
	struct stat	st;

	if (f->lcreated && (invalid || sl->env == NULL) &&
	    statefile_same_path(f->lockpath, &f->lst))
		(void)unlink(f->lockpath);
	if (f->dcreated && sl->env == NULL &&
	    statefile_same_path(f->path, &f->dst) &&
	    statefile_same_file(sl->dfd, &f->dst) && fstat(sl->dfd, &st) == 0 &&
	    st.st_size == 0)
		(void)unlink(f->path);
}

/*
 * A data file found shorter than its two meta pages may be one that
 * another process is making right now: LMDB writes the meta pages of a new
 * file after it opens it, and reads them without a lock, so a process
 * opening a new state at the same moment finds it "not LMDB".  That is no
 * reason to run unguarded, nor to unlink the lock file the maker shares:
 * try again a little later (lmdb_fresh_retry).
 */
#define LMDB_FRESH_TRIES	50
#define LMDB_FRESH_WAIT_NS	20000000L

static int
lmdb_fresh(const struct lmdb_files *f)
{
	long	page = sysconf(_SC_PAGESIZE);

	return f->dst.st_size < 2 * (off_t)(page > 0 ? page : 4096);
}

static int	lmdb_open_once(struct store_lmdb *, int *, struct cb_err *);

int
lmdb_open(struct store_lmdb *sl, struct cb_err *err)
{
	static int	 fixed;
	struct timespec	 ts = { 0, LMDB_FRESH_WAIT_NS };
	int		 again, tries;

	/*
	 * mdb_env_open callocs 2 MB (its dirty page list), which glibc maps
	 * afresh: zero pages that a short write transaction barely touches.
	 * Once that is freed, glibc would raise its threshold for mapping
	 * above it and serve the next open's from the heap, zeroing it all
	 * by hand (150,000 instructions).  A threshold set by hand stays.
	 */
	if (!fixed) {
		(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
		fixed = 1;
	}
	for (tries = 1;; tries++) {
		again = tries < LMDB_FRESH_TRIES;
		if (lmdb_open_once(sl, &again, err) == 0) {
			sl->resting = 0;
			return 0;
		}
		if (!again)
			return -1;
		(void)nanosleep(&ts, NULL);
	}
}

/*
 * *again in: a file being made may be waited for; out: it was found so,
 * and nothing was undone: try again.
 */
static int
lmdb_open_once(struct store_lmdb *sl, int *again, struct cb_err *err)
{
	const struct store_opts	*opts = &sl->opts;
	struct lmdb_files	 f;
	int			 fd, rc, exists, invalid = 0;

	if (lmdb_open_path(opts, &exists, err) != 0) {
		*again = 0;
		return -1;
	}
	memset(&f, 0, sizeof f);
	f.path = opts->path;
	xasprintf(&f.lockpath, "%s-lock", f.path);

	if ((rc = lmdb_open_files(sl, opts, exists, &f, err)) == 1)
		goto done;
	if (rc != 0) {
		*again = 0;
		goto fail;
	}
	if ((rc = lmdb_open_env(sl, opts, &f, err)) == -1)
		goto fail;
	if (rc != 0)
		goto fail_rc;

	/*
	 * LMDB 0.9.24 opens the lock file and the meta-page descriptor with
	 * O_CLOEXEC, but not the data file (mdb_env_get_fd hands it out for
	 * sharing), so the command would inherit that one.
	 */
	if ((rc = mdb_env_get_fd(sl->env, &fd)) != 0 ||
	    (rc = statefile_cloexec(fd)) != 0)
		goto fail_rc;

	/* The data file LMDB hands out is the one checked, by descriptor. */
	if (!statefile_same_file(fd, &f.dst)) {
		err_set(err, "state '%s' was replaced while it was opened; "
		    "refusing it", f.path);
		errno = EINVAL;
		goto fail;
	}
	if (lmdb_check_size(sl->env, sl->dfd, f.path, err) != 0) {
		invalid = 1;
		goto fail;
	}
	/* The main database's handle: in the operation's first transaction
	 * (lmdb_begin), whose wait for the locks lock_timeout bounds. */
done:
	free(f.lockpath);
	return 0;

fail_rc:
	lmdb_open_error(f.path, rc, err);
	invalid = rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH;
fail:
	rc = invalid ? EINVAL : errno;
	*again = *again && invalid && lmdb_fresh(&f);
	if (!*again)
		lmdb_open_undo(sl, &f, invalid);
	free(f.lockpath);
	lmdb_rest(sl);
	errno = rc > 0 ? rc : EINVAL;
	return -1;
}

void
lmdb_open_error(const char *path, int rc, struct cb_err *err)
{
	if (rc == MDB_INVALID)
		err_set(err, "state '%s' is not an LMDB file", path);
	else if (rc == MDB_VERSION_MISMATCH)
		err_set(err, "cannot open state '%s': "
		    "incompatible LMDB version", path);
	else
		err_set(err, "cannot open state '%s': %s", path,
		    mdb_strerror(rc));
	/* Never leave a stray ENOENT: the readonly caller trusts it. */
	errno = rc > 0 ? rc : EINVAL;
}

void
lmdb_rest(struct store_lmdb *sl)
{
	/* Clears this pid's reader slots while its byte is still ours. */
	mdb_env_close(sl->env);		/* NULL is fine */
	sl->env = NULL;
	/*
	 * Only now: closing any descriptor of the lock file drops every
	 * POSIX record lock this process holds on it, LMDB's included.
	 */
	if (sl->lfd != -1)
		(void)close(sl->lfd);
	if (sl->dfd != -1)
		(void)close(sl->dfd);
	sl->lfd = sl->dfd = -1;
	sl->dbi_open = sl->broken = 0;
	sl->resting = 1;
}

const char *
store_lmdb_version(void)
{
	static char	buf[32];
	int		major, minor, patch;

	(void)mdb_version(&major, &minor, &patch);
	snprintf(buf, sizeof buf, "LMDB %d.%d.%d", major, minor, patch);
	return buf;
}
