/* SPDX-License-Identifier: ISC */
/*
 * statefile.c: the checks a local state file and its lock file pass before
 * any store library opens them (SPEC section 10): the directories above
 * them, each file opened by cbexec first, never through a symlink, and
 * names pinned to the very descriptors checked, so that the library
 * reopens those files whatever happens to the directory meanwhile, and
 * afterwards a look at the descriptors it added.  There is no fallback to
 * the real names: a state that cannot be pinned is not opened.  Plain
 * POSIX and Linux (/proc/self/fd); no lmdb.h.  store-lmdb-open.c is the
 * caller.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statefile.h"
#include "util.h"

/*
 * Mode of a directory created for the state file: rwx for the owner, and
 * for group and others read/write where the file mode grants them, plus
 * search wherever they get either, and the sticky bit wherever they may
 * write (statefile_check_dirs demands it).  0600 -> 0700, 0640 -> 0750,
 * 0660 -> 1770, 0644 -> 0755.
 */
mode_t
statefile_dir_mode(mode_t mode)
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
int
statefile_make_parents(const char *path, mode_t dmode, struct cb_err *err)
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
 * Check the directory that holds the state file and every directory above
 * it, as OpenSSH's safe_path() does, except that a directory others may
 * write passes when it is sticky, as /tmp does for tmux: each must be
 * owned by root or by us, and one that its group or others can write must
 * have the sticky bit, so that nobody else can rename, remove or replace
 * the files in it that are not theirs.  /tmp (1777) and the shared
 * /var/lib/cbexec (root:cbexec 3770) pass; a 0770 or 0777 directory does
 * not.  The first directory's stat goes to dirst.
 */
int
statefile_check_dirs(const char *path, struct stat *dirst,
    struct cb_err *err)
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
int
statefile_open(const char *path, const char *what, int flags, int create,
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
		if (e == ELOOP && lstat(path, &lst) == 0 &&
		    S_ISLNK(lst.st_mode))
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
int
statefile_same_file(int fd, const struct stat *st)
{
	struct stat	now;

	return fstat(fd, &now) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino;
}

/* Is path, not followed, the file that was checked (st)? */
int
statefile_same_path(const char *path, const struct stat *st)
{
	struct stat	now;

	return lstat(path, &now) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino;
}

void
statefile_unpin(struct statefile_pin *pin)
{
	if (pin->have_lock)
		(void)unlink(pin->lock);
	(void)unlink(pin->path);
	(void)rmdir(pin->dir);
}

int
statefile_pin(int dfd, const struct stat *dst, int lfd,
    const struct stat *lst, struct statefile_pin *pin)
{
	static const char *const	 tmpl[] = {
		"/dev/shm/cbexec-open.XXXXXX",	/* tmpfs: no disk write */
		"/tmp/cbexec-open.XXXXXX"
	};
	char				 target[64];
	size_t				 i;
	int				 e;

	memset(pin, 0, sizeof *pin);
	for (i = 0; i < sizeof tmpl / sizeof tmpl[0]; i++) {
		(void)snprintf(pin->dir, sizeof pin->dir, "%s", tmpl[i]);
		if (mkdtemp(pin->dir) != NULL)
			break;
	}
	/* Nowhere to pin (ENOSPC: full): the caller refuses the state. */
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

		errno = 0;
		if (stat(pin->path, &st) == -1 || st.st_dev != dst->st_dev ||
		    st.st_ino != dst->st_ino)
			goto fail;
		if (lfd != -1 && (stat(pin->lock, &st) == -1 ||
		    st.st_dev != lst->st_dev || st.st_ino != lst->st_ino))
			goto fail;
	}
	return 0;
fail:
	e = errno != 0 ? errno : EINVAL;
	statefile_unpin(pin);
	errno = e;
	return -1;
}

void
statefile_fds_free(struct statefile_fds *l)
{
	free(l->fd);
	memset(l, 0, sizeof *l);
}

int
statefile_fds(struct statefile_fds *l)
{
	struct dirent	*de;
	DIR		*d;
	char		*end;
	long		 v;
	int		 e;

	memset(l, 0, sizeof *l);
	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((errno = 0, de = readdir(d)) != NULL) {
		v = strtol(de->d_name, &end, 10);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    *end != '\0' || v < 0 || v > INT_MAX || v == dirfd(d))
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap != 0 ? l->cap * 2 : 32;
			l->fd = xrealloc(l->fd, l->cap * sizeof *l->fd);
		}
		l->fd[l->n++] = (int)v;
	}
	e = errno;
	(void)closedir(d);
	if (e != 0 || l->n == 0) {
		statefile_fds_free(l);
		errno = e != 0 ? e : ENOENT;
		return -1;
	}
	return 0;
}


static int
statefile_fds_has(const struct statefile_fds *l, int fd)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (l->fd[i] == fd)
			return 1;
	return 0;
}

int
statefile_fds_check(const struct statefile_fds *before,
    const struct stat *dst, const struct stat *lst)
{
	struct statefile_fds	 now;
	struct stat		 st;
	size_t			 i;
	int			 ndata = 0, nlock = 0, rc = -1;

	if (statefile_fds(&now) != 0)
		return -1;
	for (i = 0; i < now.n; i++) {
		if (statefile_fds_has(before, now.fd[i]))
			continue;
		if (fstat(now.fd[i], &st) == -1)
			goto out;
		if (st.st_dev == dst->st_dev && st.st_ino == dst->st_ino)
			ndata++;
		else if (lst != NULL && st.st_dev == lst->st_dev &&
		    st.st_ino == lst->st_ino)
			nlock++;
		else
			goto out;	/* a file nobody checked */
	}
	if (ndata > 0 && (lst == NULL || nlock > 0))
		rc = 0;
out:
	statefile_fds_free(&now);
	return rc;
}

int
statefile_cloexec(int fd)
{
	int	flags;

	if ((flags = fcntl(fd, F_GETFD)) == -1)
		return errno;
	if ((flags & FD_CLOEXEC) == 0 &&
	    fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == -1)
		return errno;
	return 0;
}


/* ---- a user's private state (SPEC section 5) ---------------------------- */

/*
 * Can the state at path be made?  The nearest directory above it that
 * exists must be one we may write and search (a service account's home
 * may be /nonexistent, or /var/www owned by root).
 */
int
statefile_usable(const char *path)
{
	struct stat	 st;
	char		*dir, *p;
	int		 ok = 0;

	dir = xstrdup(path);
	while ((p = strrchr(dir, '/')) != NULL && p != dir) {
		*p = '\0';
		if (stat(dir, &st) == 0) {
			ok = S_ISDIR(st.st_mode) && faccessat(AT_FDCWD, dir,
			    W_OK | X_OK, AT_EACCESS) == 0;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			break;
	}
	free(dir);
	return ok;
}

/* $XDG_STATE_HOME if set and absolute, else HOME/.local/state. */
char *
statefile_home(void)
{
	const char	*xdg, *home;
	struct passwd	*pw;
	char		*s;

	xdg = getenv("XDG_STATE_HOME");
	if (xdg != NULL && xdg[0] == '/') {
		xasprintf(&s, "%s/cbexec/state.mdb", xdg);
		return s;
	}
	home = getenv("HOME");
	if (home == NULL || home[0] != '/') {
		if ((pw = getpwuid(getuid())) == NULL ||
		    pw->pw_dir == NULL || pw->pw_dir[0] != '/')
			return NULL;
		home = pw->pw_dir;
	}
	xasprintf(&s, "%s/.local/state/cbexec/state.mdb", home);
	return s;
}

/* "user 'www-data' (uid 33)", or "uid 33" when it has no name. */
static const char *
user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd	*pw;

	if ((pw = getpwuid(uid)) != NULL && pw->pw_name != NULL)
		snprintf(buf, len, "user '%s' (uid %u)", pw->pw_name,
		    (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

/*
 * The state of a user with no usable home: /var/tmp/cbexec-UID, made 0700
 * and checked as tmux checks /tmp/tmux-UID (a directory, not a symlink,
 * ours, and nobody else's to read or write), so that another user cannot
 * have made it first and hold our breakers.  Only a command that writes
 * (create) makes it; a read-only one is given the path of a file that is
 * not there.  Returns NULL with err filled when it cannot be used:
 * CB_ERR_PLANTED when it is there but not as we make it, which another
 * user may have arranged (SPEC 5: run refuses, whatever on_store_error
 * says), else CB_ERR_OTHER.
 */
char *
statefile_fallback(int create, int *unmade, struct cb_err *err)
{
	struct stat	 st;
	uid_t		 uid = geteuid();
	char		*dir, *s = NULL, owner[96], self[96];
	int		 there;

	xasprintf(&dir, "/var/tmp/cbexec-%u", (unsigned)uid);
	there = lstat(dir, &st) == 0;
	if (!there && errno == ENOENT && !create) {
		xasprintf(&s, "%s/state.mdb", dir);
		*unmade = 1;
		goto out;
	}
	if (!there && errno == ENOENT) {
		if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
			err_set(err, "cannot create directory '%s': %s", dir,
			    strerror(errno));
			goto out;
		}
		there = lstat(dir, &st) == 0;
	}
	if (!there)
		err_set(err, "cannot use directory '%s': %s", dir,
		    strerror(errno));
	else if (S_ISLNK(st.st_mode))
		err_set(err, "cannot use directory '%s': it is a symbolic "
		    "link", dir);
	else if (!S_ISDIR(st.st_mode))
		err_set(err, "cannot use directory '%s': not a directory",
		    dir);
	else if (st.st_uid != uid)
		err_set(err, "cannot use directory '%s': owned by %s, not by "
		    "%s; remove it, or give this user a state (-s, "
		    "$CBEXEC_STATE or the config's state)", dir,
		    user_name(st.st_uid, owner, sizeof owner),
		    user_name(uid, self, sizeof self));
	else if ((st.st_mode & 077) != 0)
		err_set(err, "cannot use directory '%s': mode %04o, not 0700",
		    dir, (unsigned)(st.st_mode & 07777));
	else
		xasprintf(&s, "%s/state.mdb", dir);
	if (s == NULL && there)
		err->code = CB_ERR_PLANTED;
out:
	free(dir);
	return s;
}
