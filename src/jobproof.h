/* SPDX-License-Identifier: ISC */
/*
 * jobproof.h: the proof, from the kernel, that a process group is the job
 * of a slot (SPEC 2b), which cbexec asks before it signals a group it did
 * not start in this process.  Nothing read from the state is proof: a
 * member of the state's group can write any pid, group, start time, boot
 * id and namespace into a slot, and pids are reused.
 */
#ifndef CBEXEC_JOBPROOF_H
#define CBEXEC_JOBPROOF_H

#include <stdint.h>
#include <sys/types.h>

/* The most of a process's /proc/PID/environ read: a marker past it is not
 * found (not proven: nothing is signalled). */
#define JOBPROOF_ENVIRON_MAX	(1 << 20)

/*
 * Is a member of process group pgid (of this boot and PID namespace: the
 * caller's to check) running with real uid uid, and started with
 * CBEXEC_JOB=NAME:TOKEN in its environment (/proc/PID/environ, read
 * through O_NOFOLLOW descriptors, at most JOBPROOF_ENVIRON_MAX bytes)
 * for this name, whose hash (jobmark.h) is job?  Returns that member's
 * pid, or 0: not proven (job 0, no such member, /proc unreadable).
 */
pid_t	jobproof_group(pid_t pgid, uid_t uid, const char *name, uint64_t job);

#endif
