/* SPDX-License-Identifier: ISC */
/*
 * spawn.h: run the wrapped command the way timeout(1) does.  fork + execvp
 * (never a shell), the child leading its own process group unless
 * foreground, SIGINT/SIGTERM/SIGHUP/SIGQUIT forwarded to that group, a
 * timeout that sends SIGTERM to the group and SIGKILL kill_after later.
 * Deadlines use the monotonic clock.  The child inherits every descriptor
 * the caller passed (stdin, stdout, stderr, a 3>file, a jobserver pipe,
 * LISTEN_FDS), as with timeout(1); cbexec's own descriptors are all
 * close-on-exec and so never reach it.
 */
#ifndef CBEXEC_SPAWN_H
#define CBEXEC_SPAWN_H

#include <sys/types.h>

#include <signal.h>
#include <stdint.h>

#include "util.h"

struct spawn_opts {
	char *const	*argv;		/* argv[0] is looked up in PATH */
	int64_t		 timeout_ms;	/* 0: none */
	int64_t		 kill_after_ms;	/* 0: never send SIGKILL */
	int		 foreground;	/* no new process group */
	/* The signal mask the command starts with; NULL: the caller's.  For
	 * a caller that blocks signals around the whole call. */
	const sigset_t	*mask;
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

/*
 * Run the command and wait for it.  Returns 0 with res filled once the child
 * has been reaped, or -1 with err filled when it could not even be started
 * (fork or pipe failed); a failed exec is not an error here but
 * res->exec_failed.
 */
int	spawn_run(const struct spawn_opts *, struct spawn_result *,
	    struct cb_err *);

/*
 * The wrapped command forked ahead of its start, so that the run slot the
 * call takes can name its process group (SPEC 2b) in the store update that
 * admits it: spawn_hold forks opts->argv (not foreground), whose child
 * leads its own group at once and dies with cbexec, and returns its pid,
 * the group's id (the one held already, if any), or -1 with err filled.
 * spawn_run_held starts it and does what spawn_run does (spawn_run itself
 * when none is held); spawn_drop kills and reaps it unstarted (nothing when
 * none is held).  opts must be the same for all three.  One at a time.
 */
pid_t	spawn_hold(const struct spawn_opts *, struct cb_err *);
int	spawn_run_held(const struct spawn_opts *, struct spawn_result *,
	    struct cb_err *);
void	spawn_drop(void);

/*
 * Sleep ms milliseconds on the monotonic clock (run --retries), ending
 * early when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives (those cbexec
 * inherited ignored excepted).  Returns 0 after the full sleep, the signal
 * number when one cut it short (the signal is then consumed), or -1 with
 * err filled.
 */
int	spawn_sleep(int64_t ms, struct cb_err *);

/*
 * A command started without waiting for it (the on_transition hooks, which
 * run alongside the wrapped command).  It leads its own process group.
 */
struct spawn_job {
	pid_t		 pid;		/* 0: none */
	int		 errfd;		/* exec-error pipe, read end */
	int64_t		 start_ms;	/* monotonic */
	int64_t		 deadline_ms;	/* monotonic: its group is killed */
	const char	*argv0;		/* for messages; not owned */
};

/*
 * Start opts->argv (foreground must be 0; the forwarded signals are not
 * forwarded to it) and return at once.  A small supervisor process starts
 * it and SIGKILLs its process group at start + opts->timeout_ms (0: never),
 * whatever the caller is doing meanwhile.  Returns 0, or -1 with err
 * filled when it could not be started.
 */
int	spawn_start(const struct spawn_opts *, struct spawn_job *,
	    struct cb_err *);

/*
 * Wait for a started job's supervisor, which ends by the job's deadline:
 * processes the job left in its group when it exited (a backgrounded
 * grandchild) are waited for until the same deadline and then killed too,
 * so a job never outlives its deadline.  Fills res (exec_failed and
 * exec_errno; timed_out: something had to be killed) and clears the job.
 */
void	spawn_finish(struct spawn_job *, struct spawn_result *);

/*
 * Block SIGINT, SIGTERM, SIGHUP and SIGQUIT (those not ignored), saving
 * the previous mask in old.  A caller that must not die half-way (run,
 * between admission and the recorded outcome) blocks them, gives old to
 * spawn_run as opts->mask, and restores old when done: spawn_run forwards
 * what arrives while the command runs, and what arrives outside it then
 * acts.  Returns 0, or -1 with err filled.
 */
int	spawn_block(sigset_t *old, struct cb_err *);

#endif
