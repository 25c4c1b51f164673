/* SPDX-License-Identifier: ISC */
/*
 * spawn-opts.h: what a spawn is asked to do (struct spawn_opts) and what
 * it found (struct spawn_result), the types spawn.h's interface and the
 * child's side of the fork (spawn-child.c) are both written in.
 */
#ifndef CBEXEC_SPAWN_OPTS_H
#define CBEXEC_SPAWN_OPTS_H

#include <sys/types.h>

#include <signal.h>
#include <stdint.h>

struct spawn_opts {
	char *const	*argv;		/* argv[0] is looked up in PATH */
	int64_t		 timeout_ms;	/* 0: none */
	int64_t		 kill_after_ms;	/* 0: never send SIGKILL */
	int		 foreground;	/* no new process group */
	/* The signal mask the command starts with; NULL: the caller's.  For
	 * a caller that blocks signals around the whole call. */
	const sigset_t	*mask;
	/*
	 * For the wrapped command: "CBEXEC_JOB=NAME:TOKEN", the marker of
	 * the slot it holds (jobmark.h, SPEC 2b), put in its environment;
	 * NULL or "": none, and a CBEXEC_JOB it would inherit is removed.
	 * Never given to a helper, whose environment loses CBEXEC_JOB.
	 */
	const char	*job_marker;
	/*
	 * Held output (held.h, SPEC 6.5): the wrapped command's stdout and
	 * stderr go to these, each above 2; 0: the caller's own.
	 */
	int		 held_out;
	int		 held_err;
	/* For hooks (on_transition) and probe commands; all zero for the
	 * wrapped command. */
	char *const	*env;		/* NAME=VALUE added to the child's */
	int		 stdin_null;	/* stdin from /dev/null */
	int		 stdout_to_stderr;
	int		 stdout_null;	/* stdout to /dev/null (probes) */
	/* When the command exits, SIGKILL what it left in its process group
	 * (a probe command's background processes): spawn_run only. */
	int		 sweep_group;
	int		 timeout_signal;	/* 0: SIGTERM */
	/*
	 * Set for every command that is not the wrapped one (on_transition
	 * hooks, probe commands): CBEXEC_REDIS_PASSWORD is removed from its
	 * environment (SPEC section 5), and it gets no descriptor above 2,
	 * since those the caller passed were meant for the wrapped command.
	 */
	int		 helper;
	/*
	 * Called in the parent as a deadline sends sig (the timeout's signal,
	 * then kill_after's SIGKILL) to pid's process group (group set) or to
	 * pid alone (foreground).  For run -v; NULL: nothing is said.
	 */
	void		(*on_kill)(void *arg, int sig, pid_t pid, int group);
	void		*on_kill_arg;
};

struct spawn_result {
	int		exec_failed;	/* execvp failed: exec_errno says why */
	int		exec_errno;
	int		timed_out;	/* the timeout fired */
	int		killed;		/* ... and SIGKILL was sent too */
	int		interrupted;	/* a signal of ours was forwarded */
	int		signal;		/* it died of this signal, or 0 */
	int		exit_code;	/* its exit code when signal == 0 */
	int64_t		duration_ms;	/* monotonic, fork to reap */
	/*
	 * What cbexec should exit with (SPEC section 6): the command's own
	 * code; 128+N for death by signal N; 124 after a timeout; 126 or 127
	 * when it could not be executed or found.
	 */
	int		status;
};

#endif
