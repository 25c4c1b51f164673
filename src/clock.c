/* SPDX-License-Identifier: ISC */
/*
 * clock.c: the only reader of clocks and of the process facts probe leases
 * rest on.  Stored times are CLOCK_REALTIME milliseconds, deadlines
 * CLOCK_MONOTONIC milliseconds.  A slot holder is identified by its pid, the
 * pid's start time (/proc/PID/stat), the boot id and the PID namespace,
 * so a reused pid, a reboot or a container never passes for the holder;
 * the job's process group is found by its members' /proc entries.  Nothing here prints: a fact that
 * cannot be read comes back as 0 (or zeros), which callers treat as "gone"
 * or "unknown".
 */
#include <sys/types.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "util.h"

static int64_t
clock_read(clockid_t id)
{
	struct timespec	ts;

	/* Cannot fail for these clock ids; 0 keeps callers total. */
	if (clock_gettime(id, &ts) == -1)
		return 0;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_wall_ms(void)
{
	return clock_read(CLOCK_REALTIME);
}

int64_t
clock_mono_ms(void)
{
	return clock_read(CLOCK_MONOTONIC);
}

/*
 * Read at most size bytes of a small file (procfs files are read in one
 * go, but a short read is not an error).  Returns the length or -1.
 */
static ssize_t
clock_read_file(const char *path, char *buf, size_t size)
{
	ssize_t	n;
	size_t	len = 0;
	int	fd, saved_errno;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd == -1 && errno == EINTR);
	if (fd == -1)
		return -1;
	while (len < size) {
		n = read(fd, buf + len, size - len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			saved_errno = errno;
			(void)close(fd);
			errno = saved_errno;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* Read-only descriptor: a failing close loses nothing. */
	(void)close(fd);
	return (ssize_t)len;
}

/* A decimal field of /proc/PID/stat at *pp, up to end; *pp moves past
 * it.  Returns 0, or -1 when there is no number there. */
static int
clock_stat_num(const char **pp, const char *end, uint64_t *out)
{
	const char	*p = *pp;
	uint64_t	 v = 0;

	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p != end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* The field must end here, not at the end of a truncated read. */
	if (p == end || (*p != ' ' && *p != '\n'))
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

/*
 * /proc/PID/stat is "pid (comm) state ppid pgrp ... starttime ...", where
 * comm is whatever the process called itself: it may hold spaces and
 * parentheses, but no field after it holds a ')', so the last ')' ends it.
 * Field 3 (state) follows it, field 5 is the process group, field 22 the
 * start time.  A zombie (Z) or dead (X) process still has a stat file but
 * will never release anything, so it counts as gone.  Returns 0 with the
 * group and start time, or -1 (gone, a zombie, unreadable, malformed).
 */
static int
clock_proc_stat(pid_t pid, uint64_t *pgrp, uint64_t *start)
{
	char		 path[64], buf[1024];
	const char	*p, *end;
	ssize_t		 n;
	int		 field, len;

	if (pid <= 0)
		return -1;
	len = snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (len < 0 || (size_t)len >= sizeof path)
		return -1;
	if ((n = clock_read_file(path, buf, sizeof buf)) <= 0)
		return -1;
	end = buf + n;
	if ((p = memrchr(buf, ')', (size_t)n)) == NULL)
		return -1;
	p++;
	for (field = 3; field < 22; field++) {
		if (p == end || *p != ' ')
			return -1;
		p++;
		if (field == 3 && p != end && (*p == 'Z' || *p == 'X'))
			return -1;
		if (field == 5) {
			if (clock_stat_num(&p, end, pgrp) == -1)
				return -1;
			continue;
		}
		while (p != end && *p != ' ')
			p++;
	}
	if (p == end || *p++ != ' ')
		return -1;
	return clock_stat_num(&p, end, start);
}

uint64_t
clock_proc_start(pid_t pid)
{
	uint64_t	pgrp, start;

	if (clock_proc_stat(pid, &pgrp, &start) == -1)
		return 0;
	return start;
}

uint64_t
clock_pidns(void)
{
	struct stat	st;

	if (stat("/proc/self/ns/pid", &st) == -1)
		return 0;
	return (uint64_t)st.st_ino;
}

int
clock_group_members(pid_t pgid, uint64_t since, unsigned *seen,
    unsigned *older)
{
	struct dirent	*de;
	DIR		*d;
	const char	*p;
	uint64_t	 pgrp, start;
	long		 pid;

	*seen = *older = 0;
	if (pgid <= 1 || (d = opendir("/proc")) == NULL)
		return -1;
	while (*older == 0 && (de = readdir(d)) != NULL) {
		pid = 0;
		for (p = de->d_name; *p >= '0' && *p <= '9' &&
		    pid < INT32_MAX / 10; p++)
			pid = pid * 10 + (*p - '0');
		if (*p != '\0' || pid <= 0 ||
		    clock_proc_stat((pid_t)pid, &pgrp, &start) == -1 ||
		    pgrp != (uint64_t)pgid)
			continue;
		(*seen)++;
		if (start < since)
			(*older)++;
	}
	(void)closedir(d);
	return 0;
}

void
clock_host_name(char *buf, size_t len)
{
	if (len == 0)
		return;
	if (gethostname(buf, len) == -1)
		buf[0] = '\0';
	buf[len - 1] = '\0';
}

/* "6569f9b5-9580-48ea-ba98-6d1530c245cf\n": 32 hex digits, 4 dashes. */
void
clock_boot_id(uint8_t id[16])
{
	uint8_t	out[16];
	char	buf[64];
	ssize_t	n;
	size_t	i, j;
	int	hi, lo;

	memset(id, 0, 16);
	if ((n = clock_read_file("/proc/sys/kernel/random/boot_id", buf,
	    sizeof buf)) == -1)
		return;
	if (n != 36 && !(n == 37 && buf[36] == '\n'))
		return;
	for (i = 0, j = 0; i < 36; ) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (buf[i++] != '-')
				return;
			continue;
		}
		if ((hi = hex_digit(buf[i])) == -1 ||
		    (lo = hex_digit(buf[i + 1])) == -1)
			return;
		out[j++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	memcpy(id, out, sizeof out);
}

/* splitmix64's finaliser: spreads every input bit over the output. */
static uint64_t
clock_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * getrandom(2) without blocking: early in boot, before the pool is ready,
 * a cron job should not hang for entropy.  The values feed jitter and name
 * slots; they need to differ between processes and calls, not to be
 * secret, so the fallback mixes both clocks, the pid and a counter.
 */
uint64_t
clock_random(void)
{
	static uint64_t	counter;
	struct timespec	ts;
	uint64_t	v = 0, x;
	ssize_t		n;

	do
		n = getrandom(&v, sizeof v, GRND_NONBLOCK);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof v)
		return v;

	x = v ^ (++counter * 0x9e3779b97f4a7c15ULL);
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		x = clock_mix(x ^ ((uint64_t)ts.tv_sec * 1000000000ULL +
		    (uint64_t)ts.tv_nsec));
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		x = clock_mix(x ^ ((uint64_t)ts.tv_sec * 1000000000ULL +
		    (uint64_t)ts.tv_nsec));
	return clock_mix(x ^ (uint64_t)getpid() << 32);
}

void
clock_random2(uint64_t out[2])
{
	ssize_t	n;

	do
		n = getrandom(out, 2 * sizeof out[0], GRND_NONBLOCK);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)(2 * sizeof out[0]))
		return;
	out[0] = clock_random();
	out[1] = clock_random();
}
