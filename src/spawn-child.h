/* SPDX-License-Identifier: ISC */
/*
 * spawn-child.h: what spawn.c, spawn-job.c and spawn-child.c, the parts of
 * one module, share: the signals cbexec forwards, what the parent saves
 * before the fork, the child's side of it, and a few helpers.  Not for
 * other callers; spawn.h is the interface.
 */
#ifndef CBEXEC_SPAWN_CHILD_H
#define CBEXEC_SPAWN_CHILD_H

#include <sys/types.h>

#include <signal.h>

#include "spawn.h"

/* Received by cbexec, passed on to the command. */
#define SPAWN_NFWD	4
extern const int spawn_fwd[SPAWN_NFWD];	/* INT, TERM, HUP, QUIT */

/* What spawn_run changes in the caller, to put back (and to give the child). */
struct spawn_saved {
	sigset_t		mask;
	struct sigaction	fwd[SPAWN_NFWD];
	struct sigaction	chld;
	struct sigaction	ttin;
	struct sigaction	ttou;
	/* The terminal (stdin) the child hands to its own group at once, or
	 * -1 (see spawn_tty in spawn.c). */
	int			tty;
};

static inline int
spawn_ignored(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_IGN;
}

/*
 * In the child of a fork: reset the signals saved in saved, apply opts,
 * and exec opts->argv.  rfd and wfd are the exec-error pipe's ends (both
 * close-on-exec); parent is the pid that forked.  Never returns: on any
 * failure the errno goes to wfd and the child exits 127 (ENOENT) or 126.
 */
void	spawn_child(const struct spawn_opts *opts,
	    const struct spawn_saved *saved, pid_t parent, int rfd, int wfd)
	    __attribute__((noreturn));

#define SPAWN_NEVER	INT64_MAX

/* The forwarded signals not ignored on entry into set, their dispositions
 * into old (when not NULL).  Returns 0, or -1 with errno. */
int	spawn_fwd_set(sigset_t *set, struct sigaction *old);
/* res from the exec-error pipe fd and, when reaped, the wait status. */
void	spawn_conclude(int fd, int reaped, int wstatus,
	    struct spawn_result *res);
/* now + ms on the monotonic clock, SPAWN_NEVER on overflow. */
int64_t	spawn_after(int64_t now, int64_t ms);

#endif
