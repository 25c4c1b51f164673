/* SPDX-License-Identifier: ISC */
/*
 * spawn-child.h: what spawn.c, spawn-run.c, spawn-job.c and spawn-child.c,
 * the parts of one module, share: the signals cbexec forwards, what the parent saves
 * before the fork, the child's side of it, and a few helpers.  Not for
 * other callers; spawn.h is the interface.
 */
#ifndef CBEXEC_SPAWN_CHILD_H
#define CBEXEC_SPAWN_CHILD_H

#include <sys/types.h>

#include <signal.h>

#include "spawn-opts.h"
#include "util.h"

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
	/* Held (spawn_hold): the socket the child reads one byte from
	 * before it goes on to exec, or -1. */
	int			go;
};

/*
 * The controlling terminal and the command's group.  A job at a shell
 * prompt is one process group, which the terminal's foreground is; under
 * timeout(1) the command stays in that group, so it can read the terminal
 * and takes ^C and ^Z.  cbexec's command leads a group of its own, so
 * while it runs the terminal follows it: at once when standard input and
 * output both are the terminal and cbexec's group has the foreground (the
 * command is then the job's only user of the terminal), otherwise only
 * once the command touches the terminal (SIGTTIN, SIGTTOU), so that a
 * pager at the other end of a pipe keeps it until then.  From cron, a
 * service or anything else without the foreground nothing changes.
 */
struct spawn_term {
	int	fd;	/* the controlling terminal, or -1 until needed */
	int	own;	/* fd was opened here, and is closed at the end */
	int	held;	/* the command's group has the foreground */
	int	had;	/* and has had it at some time */
	int	wants;	/* it asked from the background: give it at fg */
};

/*
 * spawn.c's parts of spawn_run, for spawn-run.c.  spawn_enter blocks the
 * forwarded signals, SIGCHLD and SIGCONT and saves and sets what the run
 * changes in the caller (wait: the signals to wait for), returning 0 or an
 * errno with the failed call in *what; spawn_leave puts it back.
 * spawn_tty is the terminal to hand the command's group at its start, or
 * -1; spawn_term_back gives it back to cbexec's group.  spawn_wait waits
 * for the child, firing deadlines and forwarding signals, until it is
 * reaped into *wstatus: 0, or -1 with err filled.
 */
int	spawn_enter(struct spawn_saved *saved, sigset_t *wait,
	    const char **what);
void	spawn_leave(const struct spawn_saved *saved);
int	spawn_tty(const struct spawn_opts *opts);
void	spawn_term_back(struct spawn_term *t, pid_t pid);
int	spawn_wait(const struct spawn_opts *opts, pid_t pid,
	    struct spawn_term *t, const sigset_t *set, int64_t start,
	    struct spawn_result *res, int *wstatus, struct cb_err *err);

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
