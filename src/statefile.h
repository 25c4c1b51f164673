/* SPDX-License-Identifier: ISC */
/*
 * statefile.h: the safety checks of a local state file and its lock file,
 * made before the store library opens them (statefile.c).  Every function
 * that can fail returns as it says below; those given an err fill it with
 * one line naming the path and what is wrong.
 */
#ifndef CBEXEC_STATEFILE_H
#define CBEXEC_STATEFILE_H

#include <sys/stat.h>
#include <sys/types.h>

#include "util.h"

/*
 * Mode of a directory created for the state file: rwx for the owner, and
 * for group and others read/write where the file mode grants them, plus
 * search wherever they get either, and the sticky bit wherever they may
 * write (statefile_check_dirs demands it).  0600 -> 0700, 0640 -> 0750,
 * 0660 -> 1770, 0644 -> 0755.
 */
mode_t	statefile_dir_mode(mode_t);

/*
 * mkdir -p of the directory holding path.  Existing directories are left
 * as they are; the caller sets the umask to 0 so new ones get exactly
 * dmode.  Returns 0 or an errno value (err filled).
 */
int	statefile_make_parents(const char *path, mode_t dmode,
	    struct cb_err *);

/*
 * The directory holding path and every one above it must be owned by root
 * or by us, and sticky where group or others may write (OpenSSH's
 * safe_path(), with /tmp's exception).  Returns 0 with the first
 * directory's stat in dirst, or -1 (err filled, errno EACCES or the
 * failed call's).
 */
int	statefile_check_dirs(const char *path, struct stat *dirst,
	    struct cb_err *);

/*
 * Open path (a state file or its lock file: what names it in messages)
 * with flags, O_NOFOLLOW and close-on-exec; with create, make it if it is
 * missing (O_EXCL, exactly mode) and set *created.  Then check it: a
 * regular file with one link, owned by us or root, or by a member of a
 * shared directory's group (dirst).  Returns the descriptor with its stat
 * in st, or -1 with err filled, errno set and nothing left created.
 */
int	statefile_open(const char *path, const char *what, int flags,
	    int create, mode_t mode, const struct stat *dirst, int *created,
	    struct stat *st, struct cb_err *);

/* Is fd, or path not followed, still the file that was checked (st)? */
int	statefile_same_file(int fd, const struct stat *st);
int	statefile_same_path(const char *path, const struct stat *st);

/*
 * LMDB opens its two files by name (PATH and PATH-lock), so the checks
 * above would hold only until somebody who may rename files in the state
 * directory swaps one for a symlink.  Hand LMDB names nobody else can
 * redirect instead: a fresh directory under /dev/shm (else /tmp) that only
 * we can write (mkdtemp, 0700), holding "state" and "state-lock" as
 * symlinks to /proc/self/fd/N of the descriptors opened and checked
 * above.  LMDB then reopens exactly those files, whatever happens to the
 * state directory meanwhile.
 */
struct statefile_pin {
	char	dir[40];
	char	path[64];	/* the name to open the data file by */
	char	lock[80];
	int	have_lock;
};

/*
 * Pin dfd (stat dst) and, unless lfd is -1, lfd (lst).  Returns 0 with the
 * names in pin, to remove with statefile_unpin once the library has opened
 * them (always: statefile_unpin removes every name made), or -1 with errno
 * when this cannot be done here (no /proc, nowhere to write: ENOSPC when
 * /dev/shm and /tmp are full).  There is no fallback: opened by its real
 * names, a file could be swapped for a symlink between the checks and the
 * library's open(2), so the caller must refuse such a state.
 */
int	statefile_pin(int dfd, const struct stat *dst, int lfd,
	    const struct stat *lst, struct statefile_pin *);
void	statefile_unpin(struct statefile_pin *);

/*
 * The descriptors open in this process (/proc/self/fd), to tell which ones
 * a library call added: statefile_fds before it, statefile_fds_check
 * after it.  The check passes (0) when every descriptor added is the data
 * file checked (dst) or, unless lst is NULL, the lock file (lst), by
 * device and inode, and both are among them; else -1.  statefile_fds
 * returns 0, or -1 with errno (no /proc); free the list with
 * statefile_fds_free.  Not for threads that open files meanwhile.
 */
struct statefile_fds {
	int	*fd;
	size_t	 n;
	size_t	 cap;
};

int	statefile_fds(struct statefile_fds *);
int	statefile_fds_check(const struct statefile_fds *before,
	    const struct stat *dst, const struct stat *lst);
void	statefile_fds_free(struct statefile_fds *);

/* Set FD_CLOEXEC on fd.  Returns 0 or an errno value. */
int	statefile_cloexec(int fd);

/*
 * A user's private state (SPEC 5).  statefile_home: $XDG_STATE_HOME (if
 * absolute) or HOME's .local/state, "/cbexec/state.mdb" appended, in new
 * memory, or NULL when there is no home to name.  statefile_usable: can
 * the state at path be made (the nearest directory above it that exists
 * is one we may write and search)?  statefile_fallback: the state of a
 * user with no usable home, /var/tmp/cbexec-UID/state.mdb, in new memory;
 * the directory is made only with create (else *unmade is set when it is
 * not there), and must be a directory, not a symlink, the user's own,
 * mode 0700; NULL with err filled when it is not, its code
 * CB_ERR_PLANTED when it is there but not as we make it (another user
 * may have made it), CB_ERR_OTHER otherwise.
 */
char	*statefile_home(void);
int	 statefile_usable(const char *path);
char	*statefile_fallback(int create, int *unmade, struct cb_err *err);

#endif
