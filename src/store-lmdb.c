/*
 * store-lmdb.c: the local store, one LMDB environment shared by every cbexec
 * on the machine, and the only file that includes lmdb.h.  The data file is
 * the state path itself and the lock file sits beside it as PATH-lock
 * (MDB_NOSUBDIR); records live in the unnamed main database, keyed by the
 * breaker NAME bytes.  Each update() is one write transaction, so concurrent
 * invocations serialise on LMDB's writer lock and never lose an update.  The
 * map starts small and doubles when it fills; another process growing it is
 * picked up on the next transaction.  A file that is not LMDB is refused and
 * never written: LMDB reads the meta pages before it writes anything, and
 * an existing file is never truncated, chmod'ed or repaired here; nor is
 * one shorter than its used pages, nor a symlink in place of either file
 * (both files are opened and checked here first, and LMDB is handed names
 * that lead only to them).  Not for threads; a process must not open the
 * same state twice at once (closing one would drop LMDB's POSIX record
 * locks of the other), and the callbacks
 * of update() and each() run inside a transaction and must not call back
 * into the store.
 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Bytes of the lock file LMDB 0.9 maps for its default 126 readers
 * (125 x 64-byte reader slots + the 192-byte header).
 */
#define LMDB_LOCK_BYTES	8192

/* Bound on restarts of one operation (map growth, map resized elsewhere). */
#define LMDB_RETRIES	32

/* Records one prune transaction visits before it commits. */
#define LMDB_PRUNE_BATCH	4096

/* Sampling for eviction: seeks at random keys, records read at each. */
#define LMDB_SEEKS		8
#define LMDB_RUN		8

struct store_lmdb {
	struct store	 s;		/* first: what we hand out */
	MDB_env		*env;		/* NULL: read-only, 0-byte file */
	int		 dfd;		/* the data file, as checked */
	int		 lfd;		/* the lock file, as checked, or -1 */
	MDB_dbi		 dbi;
	int		 readonly;
	int		 broken;	/* a map resize failed: no map left */
	struct cb_buf	 out;		/* update callback output, reused */
	uint64_t	 max_records;	/* 0: unbounded */
	store_rank_fn	 rank;
	uint64_t	 rnd;		/* xorshift state for sampling */
};

/* An eviction candidate: the name is copied out of the map. */
struct lmdb_cand {
	size_t			len;
	char			name[STORE_NAME_MAX + 1];
	struct store_rank	rank;
};

/* The best (oldest) victims seen so far, best first. */
struct lmdb_victims {
	int			want;	/* how many to evict */
	int			n;
	struct lmdb_cand	c[STORE_MAX_EVICT];
};

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
 * Mode of a directory created for the state file: rwx for the owner, and
 * for group and others read/write where the file mode grants them, plus
 * search wherever they get either, and the sticky bit wherever they may
 * write (lmdb_check_dirs demands it).  0600 -> 0700, 0640 -> 0750,
 * 0660 -> 1770, 0644 -> 0755.
 */
static mode_t
lmdb_dir_mode(mode_t mode)
{
	mode_t	dmode;

	dmode = 0700 | (mode & 0066);
	if (mode & 0060)
		dmode |= 0010;
	if (mode & 0006)
		dmode |= 0001;
	if (mode & 0022)
		dmode |= S_ISVTX;
	return dmode;
}

/*
 * mkdir -p of the directory holding path.  Existing directories are left
 * as they are; the caller has set the umask to 0 so new ones get exactly
 * dmode.  Returns 0 or an errno value (err filled).
 */
static int
lmdb_make_parents(const char *path, mode_t dmode, struct cb_err *err)
{
	struct stat	 st;
	char		*dir, *p, c;
	int		 rc = 0;

	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) == NULL)
		goto out;	/* a name in the current directory */
	*p = '\0';
	if (*dir == '\0' || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		goto out;
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, dmode) == -1) {
			rc = errno;
			/* EEXIST: fine if a directory (a racing mkdir). */
			if (rc == EEXIST && stat(dir, &st) == 0)
				rc = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
			if (rc != 0) {
				err_set(err, "cannot create directory '%s': %s",
				    dir, strerror(rc));
				goto out;
			}
		}
		*p = c;
		if (c == '\0')
			break;
	}
out:
	free(dir);
	return rc;
}

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
 * Check the directory that holds the state file and every directory above
 * it, as OpenSSH's safe_path() does, except that a directory others may
 * write passes when it is sticky, as /tmp does for tmux: each must be
 * owned by root or by us, and one that its group or others can write must
 * have the sticky bit, so that nobody else can rename, remove or replace
 * the files in it that are not theirs.  /tmp (1777) and the shared
 * /var/lib/cbexec (root:cbexec 3770) pass; a 0770 or 0777 directory does
 * not.  The first directory's stat goes to dirst.
 */
static int
lmdb_check_dirs(const char *path, struct stat *dirst, struct cb_err *err)
{
	struct stat	 st;
	char		*dir, *real = NULL, *p;
	uid_t		 euid = geteuid();
	int		 first = 1, rc = -1;

	dir = xdirname(path);
	if ((real = realpath(dir, NULL)) == NULL) {
		err_set(err, "cannot open state '%s': directory '%s': %s",
		    path, dir, strerror(errno));
		goto out;
	}
	for (;;) {
		if (stat(real, &st) == -1) {
			err_set(err, "cannot open state '%s': directory "
			    "'%s': %s", path, real, strerror(errno));
			goto out;
		}
		if (first)
			*dirst = st;
		first = 0;
		if (st.st_uid != 0 && st.st_uid != euid) {
			err_set(err, "cannot open state '%s': directory '%s' "
			    "is owned by uid %u, not by root or uid %u", path,
			    real, (unsigned)st.st_uid, (unsigned)euid);
			goto out;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
		    (st.st_mode & S_ISVTX) == 0) {
			err_set(err, "cannot open state '%s': directory '%s' "
			    "is writable by %s and not sticky (chmod +t)",
			    path, real, (st.st_mode & S_IWOTH) != 0 ?
			    "others" : "its group");
			goto out;
		}
		if (strcmp(real, "/") == 0)
			break;
		p = strrchr(real, '/');
		if (p == real)
			p[1] = '\0';
		else
			*p = '\0';
	}
	rc = 0;
out:
	free(real);
	free(dir);
	if (rc != 0)
		errno = EACCES;
	return rc;
}

/*
 * Open one of the two files LMDB will use, before LMDB does, never through
 * a symlink: O_NOFOLLOW, and with create, O_CREAT | O_EXCL and exactly
 * mode.  Then check what was opened: a regular file with one link (a hard
 * link could be anybody's file), owned by us or by root, or, in a shared
 * (sticky, group- or other-writable) directory, by a user of that
 * directory's group.  Returns the descriptor (close-on-exec), or -1 with
 * err filled and errno set.
 */
static int
lmdb_open_file(const char *path, const char *what, int flags, int create,
    mode_t mode, const struct stat *dirst, int *created, struct stat *st,
    struct cb_err *err)
{
	struct stat	lst;
	mode_t		omask;
	uid_t		euid = geteuid();
	int		fd, e, tries, shared;

	*created = 0;
	flags |= O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	for (tries = 0;; tries++) {
		if ((fd = open(path, flags)) != -1 || errno != ENOENT ||
		    !create || tries == 3)
			break;
		omask = umask(0);
		fd = open(path, flags | O_CREAT | O_EXCL, mode);
		e = errno;
		umask(omask);
		errno = e;
		if (fd != -1) {
			*created = 1;
			break;
		}
		if (errno != EEXIST)
			break;
		/* Made by another process meanwhile: open that one. */
	}
	if (fd == -1) {
		e = errno;
		if (e == ELOOP && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			err_set(err, "state %s '%s' is a symbolic link; "
			    "refusing to follow it", what, path);
		else
			err_set(err, "cannot open state %s '%s': %s", what,
			    path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, st) == -1) {
		e = errno;
		err_set(err, "cannot open state %s '%s': %s", what, path,
		    strerror(e));
		goto fail;
	}
	if (S_ISDIR(st->st_mode)) {
		e = EISDIR;
		err_set(err, "cannot open state %s '%s': %s", what, path,
		    strerror(e));
		goto fail;
	}
	e = EINVAL;
	if (!S_ISREG(st->st_mode)) {
		err_set(err, "state %s '%s' is not a regular file", what,
		    path);
		goto fail;
	}
	if (st->st_nlink != 1) {
		err_set(err, "state %s '%s' has %lu hard links; refusing it",
		    what, path, (unsigned long)st->st_nlink);
		goto fail;
	}
	shared = (dirst->st_mode & (S_IWGRP | S_IWOTH)) != 0;
	/*
	 * A new file of a shared directory gets the directory's group, as
	 * a setgid directory would give it, so that the group can use it.
	 */
	if (*created && shared && st->st_gid != dirst->st_gid &&
	    fchown(fd, (uid_t)-1, dirst->st_gid) == 0)
		st->st_gid = dirst->st_gid;
	if (st->st_uid != euid && st->st_uid != 0 &&
	    !(shared && st->st_gid == dirst->st_gid)) {
		err_set(err, "state %s '%s' is owned by uid %u, not by root "
		    "or uid %u; refusing it", what, path,
		    (unsigned)st->st_uid, (unsigned)euid);
		goto fail;
	}
	return fd;
fail:
	(void)close(fd);
	if (*created)
		(void)unlink(path);
	*created = 0;
	errno = e;
	return -1;
}

/* Is fd still the file that was checked (st)? */
static int
lmdb_same_file(int fd, const struct stat *st)
{
	struct stat	now;

	return fstat(fd, &now) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino;
}

/* Is path, not followed, the file that was checked (st)? */
static int
lmdb_same_path(const char *path, const struct stat *st)
{
	struct stat	now;

	return lstat(path, &now) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino;
}

/*
 * LMDB opens its two files by name (PATH and PATH-lock), so the checks
 * above would hold only until somebody who may rename files in the state
 * directory swaps one for a symlink.  Hand LMDB names nobody else can
 * redirect instead: a fresh directory under /dev/shm (else /tmp) that
 * only we can write (mkdtemp, 0700), holding "state" and "state-lock" as symlinks to
 * /proc/self/fd/N of the descriptors opened and checked above.  LMDB then
 * reopens exactly those files, whatever happens to the state directory
 * meanwhile.  Returns 0 with the directory in tmp and LMDB's path in pin,
 * or -1 when this cannot be done here (no /proc, nowhere to write); the
 * caller then opens by the real path and compares afterwards.
 */
struct lmdb_pin {
	char	dir[40];
	char	path[64];
	char	lock[80];
	int	have_lock;
};

static void
lmdb_unpin(struct lmdb_pin *pin)
{
	if (pin->have_lock)
		(void)unlink(pin->lock);
	(void)unlink(pin->path);
	(void)rmdir(pin->dir);
}

static int
lmdb_pin(int dfd, const struct stat *dst, int lfd, const struct stat *lst,
    struct lmdb_pin *pin)
{
	char	target[64];

	static const char *const	 tmpl[] = {
		"/dev/shm/cbexec-open.XXXXXX",	/* tmpfs: no disk write */
		"/tmp/cbexec-open.XXXXXX"
	};
	size_t				 i;

	memset(pin, 0, sizeof *pin);
	for (i = 0; i < sizeof tmpl / sizeof tmpl[0]; i++) {
		(void)snprintf(pin->dir, sizeof pin->dir, "%s", tmpl[i]);
		if (mkdtemp(pin->dir) != NULL)
			break;
	}
	if (i == sizeof tmpl / sizeof tmpl[0])
		return -1;
	(void)snprintf(pin->path, sizeof pin->path, "%s/state", pin->dir);
	(void)snprintf(pin->lock, sizeof pin->lock, "%s-lock", pin->path);
	(void)snprintf(target, sizeof target, "/proc/self/fd/%d", dfd);
	if (symlink(target, pin->path) == -1)
		goto fail;
	if (lfd != -1) {
		(void)snprintf(target, sizeof target, "/proc/self/fd/%d", lfd);
		if (symlink(target, pin->lock) == -1)
			goto fail;
		pin->have_lock = 1;
	}
	/* Followed, the names must reach the very files checked. */
	{
		struct stat	st;

		if (stat(pin->path, &st) == -1 || st.st_dev != dst->st_dev ||
		    st.st_ino != dst->st_ino)
			goto fail;
		if (lfd != -1 && (stat(pin->lock, &st) == -1 ||
		    st.st_dev != lst->st_dev || st.st_ino != lst->st_ino))
			goto fail;
	}
	return 0;
fail:
	lmdb_unpin(pin);
	return -1;
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

static int
lmdb_cloexec(int fd)
{
	int	flags;

	if ((flags = fcntl(fd, F_GETFD)) == -1)
		return errno;
	if ((flags & FD_CLOEXEC) == 0 &&
	    fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == -1)
		return errno;
	return 0;
}

/*
 * Begin a transaction, adopting a map another process has grown
 * (MDB_MAP_RESIZED) and clearing the reader slots of dead processes once
 * if the reader table is full.
 */
static int
lmdb_begin(struct store_lmdb *sl, unsigned int flags, MDB_txn **txn)
{
	int	rc, resized = 0, checked = 0;

	for (;;) {
		rc = mdb_txn_begin(sl->env, NULL, flags, txn);
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

/* Eviction order: unpinned first, then least recently used, then name. */
static int
lmdb_cand_cmp(const struct lmdb_cand *a, const struct lmdb_cand *b)
{
	size_t	n;
	int	c;

	if (a->rank.pinned != b->rank.pinned)
		return a->rank.pinned ? 1 : -1;
	if (a->rank.last_used_ms != b->rank.last_used_ms)
		return a->rank.last_used_ms < b->rank.last_used_ms ? -1 : 1;
	n = a->len < b->len ? a->len : b->len;
	if ((c = memcmp(a->name, b->name, n)) != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/*
 * Offer one record to the victim list (kept sorted, at most v->want
 * long).  A record rank() cannot read is never a candidate, and one
 * already on the list (the samples may overlap) is not added twice.
 */
static void
lmdb_offer(struct store_lmdb *sl, struct lmdb_victims *v, const MDB_val *key,
    const MDB_val *val)
{
	struct lmdb_cand	c;
	int			i, j;

	if (key->mv_size == 0 || key->mv_size > STORE_NAME_MAX)
		return;
	if (sl->rank(val->mv_data, val->mv_size, &c.rank) != 0)
		return;
	c.len = key->mv_size;
	memcpy(c.name, key->mv_data, c.len);
	c.name[c.len] = '\0';
	for (i = 0; i < v->n; i++)
		if (lmdb_cand_cmp(&c, &v->c[i]) <= 0)
			break;
	if (i < v->n && lmdb_cand_cmp(&c, &v->c[i]) == 0)
		return;		/* the same record, seen again */
	if (i >= v->want)
		return;
	j = v->n < v->want ? v->n : v->want - 1;
	memmove(&v->c[i + 1], &v->c[i], (size_t)(j - i) * sizeof v->c[0]);
	v->c[i] = c;
	if (v->n < v->want)
		v->n++;
}

/* How many victims on the list are unpinned. */
static int
lmdb_unpinned(const struct lmdb_victims *v)
{
	int	i, n = 0;

	for (i = 0; i < v->n; i++)
		if (!v->c[i].rank.pinned)
			n++;
	return n;
}

static uint64_t
lmdb_random(struct store_lmdb *sl)
{
	uint64_t	x;

	if (sl->rnd == 0) {
		if (getrandom(&sl->rnd, sizeof sl->rnd, GRND_NONBLOCK) !=
		    (ssize_t)sizeof sl->rnd || sl->rnd == 0)
			sl->rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL |
			    1;
	}
	/* xorshift64: plenty for picking places to sample. */
	x = sl->rnd;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	sl->rnd = x;
	return x;
}

/* Every record: exact. */
static int
lmdb_scan(struct store_lmdb *sl, MDB_cursor *cur, struct lmdb_victims *v)
{
	MDB_val		key, val;
	MDB_cursor_op	op;
	int		rc;

	for (op = MDB_FIRST;; op = MDB_NEXT) {
		if ((rc = mdb_cursor_get(cur, &key, &val, op)) != 0)
			return rc == MDB_NOTFOUND ? 0 : rc;
		lmdb_offer(sl, v, &key, &val);
	}
}

/* A key-space bound, copied out of the map (a little longer than a key). */
struct lmdb_bound {
	size_t	len;
	uint8_t	b[STORE_NAME_MAX + 2 + 32];
};

static int
lmdb_bound_cmp(const struct lmdb_bound *a, const void *k, size_t klen)
{
	size_t	n = a->len < klen ? a->len : klen;
	int	c;

	if ((c = memcmp(a->b, k, n)) != 0)
		return c;
	return a->len < klen ? -1 : a->len > klen;
}

static void
lmdb_bound_set(struct lmdb_bound *a, const void *k, size_t klen)
{
	a->len = klen < sizeof a->b ? klen : sizeof a->b;
	memcpy(a->b, k, a->len);
}

/*
 * The midpoint of lo and hi read as base-256 fractions, one byte longer
 * than the longer of them (so that it lies strictly between them).
 */
static void
lmdb_mid(const struct lmdb_bound *lo, const struct lmdb_bound *hi,
    struct lmdb_bound *m)
{
	unsigned	sum[sizeof m->b + 1];
	size_t		i, len;
	unsigned	carry = 0, a, b;

	len = (lo->len > hi->len ? lo->len : hi->len) + 1;
	if (len > sizeof m->b)
		len = sizeof m->b;
	for (i = len; i-- > 0;) {
		a = i < lo->len ? lo->b[i] : 0;
		b = i < hi->len ? hi->b[i] : 0;
		sum[i] = a + b + carry;
		carry = sum[i] >> 8;
		sum[i] &= 0xff;
	}
	/* (carry:sum) / 2 */
	for (i = 0; i < len; i++) {
		m->b[i] = (uint8_t)((carry << 7) | (sum[i] >> 1));
		carry = sum[i] & 1;
	}
	m->len = len;
}

/*
 * One random position in key order, by descent: the range [lo, hi) starts
 * as the whole store and is halved (in key space) up to 48 times, each
 * time keeping a random half that holds a key, until one key is left.
 * Unlike a single random key, this finds the dense corners of the name
 * space as often as the sparse ones.  Leaves the cursor on that key.
 */
static int
lmdb_descend(struct store_lmdb *sl, MDB_cursor *cur, const MDB_val *first,
    const MDB_val *last, MDB_val *key, MDB_val *val)
{
	struct lmdb_bound	lo, hi, m;
	MDB_val			k, v;
	int			step, rc;

	lmdb_bound_set(&lo, first->mv_data, first->mv_size);
	lmdb_bound_set(&hi, last->mv_data, last->mv_size);
	hi.b[hi.len < sizeof hi.b ? hi.len++ : hi.len - 1] = 0x01;
	for (step = 0; step < 48; step++) {
		lmdb_mid(&lo, &hi, &m);
		k.mv_data = m.b;
		k.mv_size = m.len;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
		if (rc == MDB_NOTFOUND ||
		    lmdb_bound_cmp(&hi, k.mv_data, k.mv_size) <= 0) {
			hi = m;		/* nothing in [m, hi) */
			continue;
		}
		if (lmdb_random(sl) & 1)
			lmdb_bound_set(&lo, k.mv_data, k.mv_size);
		else
			hi = m;
		/* One key left in [lo, hi)? */
		k.mv_data = lo.b;
		k.mv_size = lo.len;
		if ((rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE)) != 0)
			return rc;
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
		if (rc == MDB_NOTFOUND ||
		    lmdb_bound_cmp(&hi, k.mv_data, k.mv_size) <= 0)
			break;
	}
	key->mv_data = lo.b;
	key->mv_size = lo.len;
	return mdb_cursor_get(cur, key, val, MDB_SET_RANGE);
}

/*
 * A bounded sample: LMDB_SEEKS random positions (lmdb_descend), reading
 * LMDB_RUN records from each, then walking on until STORE_SAMPLE records
 * have been read.
 */
static int
lmdb_sample(struct store_lmdb *sl, MDB_cursor *cur, struct lmdb_victims *v)
{
	MDB_val		key, val, first, last;
	uint8_t		f[STORE_NAME_MAX + 1], l[STORE_NAME_MAX + 1];
	int		seek, n, seen = 0, rc;

	if ((rc = mdb_cursor_get(cur, &first, &val, MDB_FIRST)) != 0)
		return rc == MDB_NOTFOUND ? 0 : rc;
	if (first.mv_size > STORE_NAME_MAX)
		first.mv_size = STORE_NAME_MAX;
	memcpy(f, first.mv_data, first.mv_size);
	first.mv_data = f;
	if ((rc = mdb_cursor_get(cur, &last, &val, MDB_LAST)) != 0)
		return rc;
	if (last.mv_size > STORE_NAME_MAX)
		last.mv_size = STORE_NAME_MAX;
	memcpy(l, last.mv_data, last.mv_size);
	last.mv_data = l;

	rc = 0;
	for (seek = 0; seek < LMDB_SEEKS; seek++) {
		rc = lmdb_descend(sl, cur, &first, &last, &key, &val);
		for (n = 0; n < LMDB_RUN; n++) {
			if (rc == MDB_NOTFOUND)	/* past the last: wrap */
				rc = mdb_cursor_get(cur, &key, &val,
				    MDB_FIRST);
			if (rc != 0)
				return rc;
			lmdb_offer(sl, v, &key, &val);
			seen++;
			rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
		}
	}
	/* Walk on from the last seek: overlapping runs still add up. */
	while (seen < STORE_SAMPLE) {
		if (rc == MDB_NOTFOUND)
			rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
		if (rc != 0)
			return rc;
		lmdb_offer(sl, v, &key, &val);
		seen++;
		rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
	}
	return 0;
}

/*
 * Make room for one new record in txn (called before it is put): when the
 * store already holds max_records, choose victims as store.h describes
 * and delete them, listing them in s->evicted.
 */
static int
lmdb_evict(struct store_lmdb *sl, MDB_txn *txn)
{
	struct lmdb_victims	 v;
	struct store_evicted	*ev = &sl->s.evicted;
	MDB_cursor		*cur;
	MDB_stat		 st;
	MDB_val			 key;
	int			 i, rc;

	if ((rc = mdb_stat(txn, sl->dbi, &st)) != 0)
		return rc;
	if (st.ms_entries < sl->max_records)
		return 0;
	memset(&v, 0, sizeof v);
	v.want = (int)(st.ms_entries - sl->max_records + 1 > STORE_MAX_EVICT ?
	    STORE_MAX_EVICT : st.ms_entries - sl->max_records + 1);

	if ((rc = mdb_cursor_open(txn, sl->dbi, &cur)) != 0)
		return rc;
	if (st.ms_entries <= STORE_EXACT_SCAN)
		rc = lmdb_scan(sl, cur, &v);
	else {
		rc = lmdb_sample(sl, cur, &v);
		/* Pinned ones go only if nothing else is left anywhere. */
		if (rc == 0 && lmdb_unpinned(&v) < v.want) {
			v.n = 0;
			rc = lmdb_scan(sl, cur, &v);
		}
	}
	mdb_cursor_close(cur);
	if (rc != 0)
		return rc;

	for (i = 0; i < v.n; i++) {
		key.mv_data = v.c[i].name;
		key.mv_size = v.c[i].len;
		if ((rc = mdb_del(txn, sl->dbi, &key, NULL)) != 0)
			return rc;
		memcpy(ev->rec[ev->n].name, v.c[i].name, v.c[i].len + 1);
		ev->rec[ev->n].rank = v.c[i].rank;
		ev->n++;
	}
	return 0;
}

static int
lmdb_update(struct store *s, const char *name, store_update_fn fn, void *arg,
    struct cb_err *err)
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
lmdb_update_peek(struct store *s, const char *name, store_update_fn fn,
    void *arg, struct cb_err *err)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;
	MDB_txn			*txn;
	MDB_val			 key, val;
	int			 action;

	if (lmdb_key(sl, name, &key) != 0 || sl->readonly || sl->broken ||
	    sl->env == NULL || lmdb_begin(sl, MDB_RDONLY, &txn) != 0)
		return lmdb_update(s, name, fn, arg, err);
	switch (mdb_get(txn, sl->dbi, &key, &val)) {
	case 0:
		break;
	case MDB_NOTFOUND:
		val.mv_data = NULL;
		val.mv_size = 0;
		break;
	default:
		mdb_txn_abort(txn);
		return lmdb_update(s, name, fn, arg, err);
	}
	buf_reset(&sl->out);
	action = fn(val.mv_data, val.mv_size, &sl->out, arg, err);
	mdb_txn_abort(txn);
	if (action == STORE_KEEP)
		return 0;
	if (action == -1)
		return -1;
	return lmdb_update(s, name, fn, arg, err);
}

static int
lmdb_get(struct store *s, const char *name, struct cb_buf *out,
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
lmdb_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
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
lmdb_prune(struct store *s, store_prune_fn fn, void *arg,
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

static void
lmdb_close(struct store *s)
{
	struct store_lmdb	*sl = (struct store_lmdb *)s;

	mdb_env_close(sl->env);		/* NULL is fine */
	/*
	 * Only now: closing any descriptor of the lock file drops every
	 * POSIX record lock this process holds on it, LMDB's included.
	 */
	if (sl->lfd != -1)
		(void)close(sl->lfd);
	if (sl->dfd != -1)
		(void)close(sl->dfd);
	buf_free(&sl->out);
	free(s->path);
	free(sl);
}

/* Fill err for a failed mdb_env_open (or setup after it) and set errno. */
static void
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

struct store *
store_lmdb_open(const struct store_opts *opts, struct cb_err *err)
{
	struct store_lmdb	*sl = NULL;
	struct stat		 st, dirst, dst, lst;
	struct lmdb_pin		 pin;
	MDB_env			*env = NULL;
	MDB_txn			*txn;
	mode_t			 mode, omask;
	const char		*path = opts->path, *envpath;
	char			*lockpath = NULL;
	size_t			 len, mapsize = 0;
	unsigned int		 flags;
	int			 fd, rc, exists, dcreated = 0, lcreated = 0;
	int			 pinned;

	memset(&lst, 0, sizeof lst);
	mode = opts->mode & 0777;
	len = path != NULL ? strlen(path) : 0;
	if (len == 0 || path[len - 1] == '/') {
		err_set(err, "invalid state path '%s'",
		    path != NULL ? path : "");
		errno = EINVAL;
		return NULL;
	}

	/* Not followed: a symlink is refused below, by name. */
	if (lstat(path, &st) == 0)
		exists = 1;
	else if (errno == ENOENT) {
		/* readonly: create nothing, not even a directory. */
		if (opts->readonly) {
			lmdb_open_error(path, ENOENT, err);
			if (err != NULL)
				err->code = CB_ERR_MISSING;
			return NULL;
		}
		exists = 0;
	} else {
		lmdb_open_error(path, errno, err);
		return NULL;
	}

	sl = xcalloc(1, sizeof *sl);
	sl->s.ops = &lmdb_ops;
	sl->s.path = xstrdup(path);
	sl->readonly = opts->readonly;
	sl->dfd = sl->lfd = -1;
	if (opts->rank != NULL) {
		sl->max_records = opts->max_records;
		sl->rank = opts->rank;
	}
	xasprintf(&lockpath, "%s-lock", path);

	if (!exists) {
		omask = umask(0);
		rc = lmdb_make_parents(path, lmdb_dir_mode(mode), err);
		umask(omask);
		if (rc != 0)
			goto fail;
	}
	if (lmdb_check_dirs(path, &dirst, err) != 0)
		goto fail;

	sl->dfd = lmdb_open_file(path, "file",
	    opts->readonly ? O_RDONLY : O_RDWR, !opts->readonly, mode, &dirst,
	    &dcreated, &dst, err);
	if (sl->dfd == -1)
		goto fail;

	/*
	 * Read-only of a 0-byte file: the team treats it as a new, empty
	 * store, but initialising it would be a write, so serve it empty
	 * without an environment.
	 */
	if (opts->readonly && dst.st_size == 0) {
		free(lockpath);
		return &sl->s;
	}

	/*
	 * LMDB wants the lock file read-write (creating it if missing), even
	 * for MDB_RDONLY.  A reader that cannot have it reads without the
	 * reader table (MDB_NOLOCK, below).
	 */
	sl->lfd = lmdb_open_file(lockpath, "lock file", O_RDWR, 1, mode,
	    &dirst, &lcreated, &lst, err);
	if (sl->lfd == -1 && (!opts->readonly ||
	    (errno != EACCES && errno != EPERM && errno != EROFS)))
		goto fail;
	if (sl->lfd != -1 && (rc = lmdb_reserve_lock(sl->lfd, &lst)) != 0) {
		lmdb_open_error(path, rc, err);
		goto fail;
	}

	/*
	 * A new (or empty) file starts with a small map; an existing one
	 * keeps the size recorded in it (0 = use the file's), which LMDB
	 * never lets fall below the data already there.
	 */
	if (dst.st_size == 0)
		mapsize = LMDB_MAP_START;

	pinned = lmdb_pin(sl->dfd, &dst, sl->lfd, &lst, &pin) == 0;
	envpath = pinned ? pin.path : path;
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
		if (sl->lfd == -1)
			flags |= MDB_NOLOCK;
		rc = lmdb_env_open(envpath, flags, mode, mapsize, &env);
		if ((rc == EACCES || rc == EPERM) && sl->lfd != -1)
			rc = lmdb_env_open(envpath, flags | MDB_NOLOCK, mode,
			    mapsize, &env);
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
		rc = lmdb_env_open(envpath, flags, mode, mapsize, &env);
	}
	if (pinned)
		lmdb_unpin(&pin);
	if (rc != 0)
		goto fail_rc;
	sl->env = env;

	/*
	 * LMDB 0.9.24 opens the lock file and the meta-page descriptor with
	 * O_CLOEXEC, but not the data file (mdb_env_get_fd hands it out for
	 * sharing), so the command would inherit that one.
	 */
	if ((rc = mdb_env_get_fd(env, &fd)) != 0 ||
	    (rc = lmdb_cloexec(fd)) != 0)
		goto fail_rc;

	/*
	 * Whichever way LMDB opened them, the files must be those checked.
	 * Pinned, they are; by the real path (no /proc or /tmp), a swap in
	 * between is at least caught here, after the fact.
	 */
	if (!lmdb_same_file(fd, &dst) || (!pinned && ((sl->lfd != -1 &&
	    !lmdb_same_path(lockpath, &lst)) || !lmdb_same_path(path, &dst)))) {
		err_set(err, "state '%s' was replaced while it was opened; "
		    "refusing it", path);
		errno = EINVAL;
		goto fail;
	}

	if (lmdb_check_size(env, sl->dfd, path, err) != 0) {
		errno = EINVAL;
		goto fail_invalid;
	}

	/* Cheap: frees slots whose pid holds no lock any more. */
	if ((rc = mdb_reader_check(env, NULL)) != 0)
		goto fail_rc;

	if ((rc = lmdb_begin(sl, MDB_RDONLY, &txn)) != 0)
		goto fail_rc;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &sl->dbi)) != 0) {
		mdb_txn_abort(txn);
		goto fail_rc;
	}
	/* Commit (not abort) keeps the handle for later transactions. */
	if ((rc = mdb_txn_commit(txn)) != 0)
		goto fail_rc;

	free(lockpath);
	return &sl->s;

fail_rc:
	lmdb_open_error(path, rc, err);
	if (rc != MDB_INVALID && rc != MDB_VERSION_MISMATCH)
		goto fail;
	errno = EINVAL;
fail_invalid:
	/*
	 * Not LMDB: nobody can use this file, so a lock file we just
	 * created beside it is only litter.  (Any other failure may leave a
	 * lock file another process already shares.)
	 */
	if (lcreated && lmdb_same_path(lockpath, &lst))
		(void)unlink(lockpath);
	lcreated = 0;
	errno = EINVAL;
fail:
	rc = errno;
	if ((lcreated || dcreated) && sl->env == NULL) {
		/* Nothing was written: leave no empty files behind. */
		if (lcreated && lmdb_same_path(lockpath, &lst))
			(void)unlink(lockpath);
		if (dcreated && lmdb_same_path(path, &dst) &&
		    lmdb_same_file(sl->dfd, &dst) && fstat(sl->dfd, &st) == 0 &&
		    st.st_size == 0)
			(void)unlink(path);
	}
	free(lockpath);
	lmdb_close(&sl->s);
	errno = rc > 0 ? rc : EINVAL;
	return NULL;
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
