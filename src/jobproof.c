/* SPDX-License-Identifier: ISC */
/*
 * jobproof.c: jobproof.h's proof that a process group is a slot's job.
 * /proc is walked for the group's members; each is opened once as a
 * directory (O_NOFOLLOW), and its stat (the group), status (the real uid)
 * and environ (the marker) are read through that descriptor, so that all
 * three are one process's even if its pid is reused meanwhile.  environ is
 * streamed a page at a time, entry by entry, never more than
 * JOBPROOF_ENVIRON_MAX bytes, and only a CBEXEC_JOB entry is kept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmark.h"
#include "jobproof.h"
#include "name.h"

/* Read at most len - 1 bytes of dir's file into buf, NUL-terminated:
 * the length, or -1. */
static ssize_t
read_at(int dir, const char *file, char *buf, size_t len)
{
	ssize_t	n;
	size_t	got = 0;
	int	fd;

	if ((fd = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	(void)close(fd);
	buf[got] = '\0';
	return got > 0 ? (ssize_t)got : -1;
}

/* The process group in dir's stat (field 5, after the command's ")"). */
static long
group_of(int dir)
{
	char		 buf[1024], *p;
	long		 pgrp;
	char		 state;
	long		 ppid;

	if (read_at(dir, "stat", buf, sizeof buf) == -1 ||
	    (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 ||
	    state == 'Z' || state == 'X')
		return -1;
	return pgrp;
}

/* The real uid in dir's status ("Uid:\treal\teffective..."), or -1. */
static long long
real_uid_of(int dir)
{
	char		 buf[4096], *p, *end;
	long long	 uid;

	if (read_at(dir, "status", buf, sizeof buf) == -1 ||
	    (p = strstr(buf, "\nUid:")) == NULL)
		return -1;
	errno = 0;
	uid = strtoll(p + 5, &end, 10);
	if (errno != 0 || end == p + 5 || uid < 0)
		return -1;
	return uid;
}

/* Does dir's environ hold a CBEXEC_JOB entry that is the marker? */
static int
environ_proves(int dir, const char *name, uint64_t job)
{
	static const char	 var[] = JOBMARK_VAR "=";
	char			 page[4096];
	char			 val[NAME_MAX_LEN + 1 + JOBMARK_TOKEN_HEX + 1];
	size_t			 pos = 0, vlen = 0, total = 0;
	ssize_t			 n, i;
	int			 fd, ours = 1, too_long = 0, found = 0;

	if ((fd = openat(dir, "environ", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	while (!found && total < JOBPROOF_ENVIRON_MAX) {
		n = read(fd, page, sizeof page);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		for (i = 0; i < n && !found; i++) {
			if (page[i] == '\0') {
				found = ours && pos >= sizeof var - 1 &&
				    !too_long && jobmark_matches(val, vlen,
				    name, job);
				pos = vlen = 0;
				ours = 1;
				too_long = 0;
				continue;
			}
			if (pos < sizeof var - 1)
				ours = ours && page[i] == var[pos];
			else if (ours && vlen < sizeof val)
				val[vlen++] = page[i];
			else
				too_long = 1;
			pos++;
		}
	}
	(void)close(fd);
	return found;
}

pid_t
jobproof_group(pid_t pgid, uid_t uid, const char *name, uint64_t job)
{
	struct dirent	*de;
	DIR		*d;
	const char	*p;
	long		 pid;
	pid_t		 who = 0;
	int		 dir;

	if (job == 0 || pgid <= 1 || (d = opendir("/proc")) == NULL)
		return 0;
	while (who == 0 && (de = readdir(d)) != NULL) {
		pid = 0;
		for (p = de->d_name; *p >= '0' && *p <= '9' &&
		    pid < INT32_MAX / 10; p++)
			pid = pid * 10 + (*p - '0');
		if (*p != '\0' || pid <= 0)
			continue;
		if ((dir = openat(dirfd(d), de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		if (group_of(dir) == (long)pgid &&
		    real_uid_of(dir) == (long long)uid &&
		    environ_proves(dir, name, job))
			who = (pid_t)pid;
		(void)close(dir);
	}
	(void)closedir(d);
	return who;
}
