/* SPDX-License-Identifier: ISC */
/*
 * held.c: the command's output held in two unlinked temporary files
 * (held.h), one per stream, given to the command as its 1 and 2 by
 * spawn-child.c.  The files are made with O_TMPFILE where the file system
 * has it, else with mkostemp and an unlink at once, so that nothing is
 * left behind whatever kills cbexec.  Writing out reads each file from
 * its start through a 64 KB buffer, restarting reads and writes that a
 * signal cut short.  A command that fills the disk sees its own writes
 * fail (ENOSPC), as it would writing anywhere else; cbexec cannot see
 * those writes, so it looks at the file system afterwards and, if it is
 * full, tells its caller that the output may have been cut.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "held.h"

#define HELD_BUF	65536

/* One unlinked file in dir, close-on-exec.  Returns its fd, or -1. */
static int
held_file(const char *dir)
{
	char	path[PATH_MAX];
	int	fd, e;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd != -1 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd;
	if (snprintf(path, sizeof path, "%s/cbexec-out.XXXXXX", dir) >=
	    (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		return -1;
	if (unlink(path) == -1) {
		e = errno;
		(void)close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
held_open(struct held *h)
{
	const char	*dir;
	int		 i, e;

	memset(h, 0, sizeof *h);
	h->fd[0] = h->fd[1] = -1;
	if ((dir = getenv("TMPDIR")) == NULL || *dir == '\0')
		dir = "/tmp";
	for (i = 0; i < 2; i++) {
		if ((h->fd[i] = held_file(dir)) != -1)
			continue;
		e = errno;
		if (i == 1)
			(void)close(h->fd[0]);
		h->fd[0] = h->fd[1] = -1;
		h->err = e;
		return -1;
	}
	h->on = 1;
	return 0;
}

/* Copy from's whole content to to.  Returns 0 or -1 (errno set). */
static int
held_copy(int from, int to)
{
	static char	buf[HELD_BUF];
	ssize_t		n, w;
	size_t		off;

	if (lseek(from, 0, SEEK_SET) == -1)
		return -1;
	for (;;) {
		if ((n = read(from, buf, sizeof buf)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		for (off = 0; off < (size_t)n; off += (size_t)w) {
			w = write(to, buf + off, (size_t)n - off);
			if (w == -1 && errno == EINTR)
				w = 0;
			else if (w == -1)
				return -1;
		}
	}
}

/* Is the file system of fd full, for whoever wrote to it? */
static int
held_full(int fd)
{
	struct statvfs	sv;

	if (fstatvfs(fd, &sv) == -1)
		return 0;
	return (geteuid() == 0 ? sv.f_bfree : sv.f_bavail) == 0;
}

int
held_end(struct held *h, int show)
{
	int	i, rv = 0, e = 0;

	if (!h->on)
		return 0;
	if (show) {
		/* What cbexec said before belongs before the output. */
		(void)fflush(NULL);
		for (i = 0; i < 2; i++)
			if (held_copy(h->fd[i], i + 1) == -1 && rv == 0) {
				e = errno;
				rv = -1;
			}
		if (rv == 0 && (held_full(h->fd[0]) || held_full(h->fd[1])))
			rv = 1;
	}
	for (i = 0; i < 2; i++)
		if ((ftruncate(h->fd[i], 0) == -1 ||
		    lseek(h->fd[i], 0, SEEK_SET) == -1) && rv == 0) {
			e = errno;
			rv = -1;
		}
	if (rv == -1)
		errno = e;
	return rv;
}

void
held_close(struct held *h)
{
	int	i;

	if (!h->on)
		return;
	for (i = 0; i < 2; i++)
		(void)close(h->fd[i]);
	h->fd[0] = h->fd[1] = -1;
	h->on = 0;
}
