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

#include "spawn-opts.h"
#include "util.h"

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
