/* SPDX-License-Identifier: ISC */
/*
 * clock.h: the only reader of clocks and of the process facts that probe
 * leases rest on (process start times, the boot id).  Stored times are
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
