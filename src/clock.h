/* SPDX-License-Identifier: ISC */
/*
 * clock.h: the only reader of clocks and of the process facts that probe
 * leases rest on (process start times and groups, the boot id, the PID
 * namespace).  Stored times are
 * wall-clock milliseconds since the epoch; deadlines are monotonic.
 */
#ifndef CBEXEC_CLOCK_H
#define CBEXEC_CLOCK_H

#include <stdint.h>
#include <sys/types.h>

/* CLOCK_REALTIME in milliseconds. */
int64_t	clock_wall_ms(void);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t	clock_mono_ms(void);

/*
 * Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat),
 * or 0 when the process does not exist.
 */
uint64_t	clock_proc_start(pid_t);

/* The inode of this process's PID namespace (/proc/self/ns/pid), or 0
 * when it cannot be read.  Pids mean something only within one. */
uint64_t	clock_pidns(void);

/*
 * The members of process group pgid that /proc shows (zombies are not
 * members): into *seen how many, into *older how many started before
 * since (clock ticks since boot, as clock_proc_start).  The walk stops at
 * the first older one.  Returns 0, or -1 when /proc cannot be listed (or
 * pgid is not a group's, <= 1).
 */
int		clock_group_members(pid_t pgid, uint64_t since,
		    unsigned *seen, unsigned *older);

/* This boot's id (/proc/sys/kernel/random/boot_id) as 16 bytes; all zero
 * when it cannot be read. */
void		clock_boot_id(uint8_t[16]);

/* This host's name (gethostname), cut to fit and NUL-terminated; "" when
 * it cannot be read.  For slot holders shown by status. */
void		clock_host_name(char *, size_t);

/* A uniformly random 64-bit value (getrandom). */
uint64_t	clock_random(void);
/* Two such draws with one getrandom(2), for a call's environment. */
void		clock_random2(uint64_t out[2]);

#endif
