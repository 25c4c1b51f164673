/* SPDX-License-Identifier: ISC */
/*
 * spawn-job.c: a command started in the background and finished later
 * (spawn_start / spawn_finish, for on_transition hooks), under a small
 * supervisor process that holds it to its deadline and kills its whole
 * process group at the end, so that cbexec itself never waits longer than
 * the hook's five seconds.  The rest of the module: spawn.c (run, sleep,
 * the signal plumbing) and spawn-child.c (the child's side of the fork).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "spawn.h"
#include "spawn-child.h"

static int
spawn_launch(const struct spawn_opts *opts, struct spawn_job *job,
    struct cb_err *err)
{
	struct spawn_saved	 saved;
	struct sigaction	 sa;
	sigset_t		 unused;
	const char		*what;
	pid_t			 parent, pid;
	int			 fds[2], e;

	memset(job, 0, sizeof *job);
	job->errfd = -1;
	if (opts->argv == NULL || opts->argv[0] == NULL) {
		err_set(err, "cannot run an empty command");
		return -1;
	}
	/*
	 * What the child resets from: the caller's mask and dispositions as
	 * they are (nothing is blocked or changed in the caller here).
	 */
	memset(&saved, 0, sizeof saved);
	saved.tty = -1;
	saved.go = -1;
	what = "sigaction";
	if (sigprocmask(SIG_SETMASK, NULL, &saved.mask) == -1) {
		what = "sigprocmask";
		goto fail;
	}
	if (spawn_fwd_set(&unused, saved.fwd) == -1)
		goto fail;
	if (sigaction(SIGTTIN, NULL, &saved.ttin) == -1 ||
	    sigaction(SIGTTOU, NULL, &saved.ttou) == -1 ||
	    sigaction(SIGCHLD, NULL, &saved.chld) == -1)
		goto fail;
	/* An ignored SIGCHLD would have the kernel reap it behind our back. */
	if (spawn_ignored(&saved.chld) || (saved.chld.sa_flags &
	    SA_NOCLDWAIT)) {
		memset(&sa, 0, sizeof sa);
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = SIG_DFL;
		if (sigaction(SIGCHLD, &sa, NULL) == -1)
			goto fail;
	}
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == -1) {
		what = "pipe";
		goto fail;
	}
	(void)fflush(NULL);
	parent = getpid();
	job->start_ms = clock_mono_ms();
	switch (pid = fork()) {
	case -1:
		e = errno;
		(void)close(fds[0]);
		(void)close(fds[1]);
		errno = e;
		what = "fork";
		goto fail;
	case 0:
		spawn_child(opts, &saved, parent, fds[0], fds[1]);
		/* NOTREACHED */
	}
	(void)close(fds[1]);
	(void)setpgid(pid, pid);	/* as in spawn_run */
	job->pid = pid;
	job->errfd = fds[0];
	job->argv0 = opts->argv[0];
	job->deadline_ms = opts->timeout_ms > 0 ?
	    spawn_after(job->start_ms, opts->timeout_ms) : SPAWN_NEVER;
	return 0;
fail:
	err_set(err, "cannot run '%s': %s: %s", opts->argv[0], what,
	    strerror(errno));
	return -1;
}

/* Sleep up to 10ms, never past the deadline. */
static void
spawn_nap(int64_t deadline)
{
	struct timespec	ts;
	int64_t		ms;

	ms = deadline - clock_mono_ms();
	if (ms > 10)
		ms = 10;
	if (ms <= 0)
		return;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ms * 1000000;
	(void)nanosleep(&ts, NULL);
}

static void
spawn_settle(struct spawn_job *job, struct spawn_result *res)
{
	pid_t	r;
	int	wstatus = 0, reaped = 0;

	memset(res, 0, sizeof *res);
	if (job->pid <= 0)
		return;
	/* Polling: the job's SIGCHLD may have been taken by spawn_run. */
	for (;;) {
		r = waitpid(job->pid, &wstatus, WNOHANG);
		if (r == job->pid) {
			reaped = 1;
			break;
		}
		if (r == -1 && errno != EINTR)
			break;		/* ECHILD: reaped elsewhere */
		if (clock_mono_ms() >= job->deadline_ms) {
			res->timed_out = res->killed = 1;
			(void)killpg(job->pid, SIGKILL);
			(void)kill(job->pid, SIGKILL);
			while ((r = waitpid(job->pid, &wstatus, 0)) == -1 &&
			    errno == EINTR)
				continue;
			reaped = r == job->pid;
			break;
		}
		spawn_nap(job->deadline_ms);
	}
	res->duration_ms = clock_mono_ms() - job->start_ms;

	/* What it left behind in its group gets the rest of the time. */
	while (killpg(job->pid, 0) == 0) {
		if (clock_mono_ms() >= job->deadline_ms) {
			res->timed_out = res->killed = 1;
			(void)killpg(job->pid, SIGKILL);
			break;
		}
		spawn_nap(job->deadline_ms);
	}

	spawn_conclude(job->errfd, reaped, wstatus, res);
	(void)close(job->errfd);
	memset(job, 0, sizeof *job);
	job->errfd = -1;
}

/* How a supervisor reports its job through its exit status. */
enum {
	SUPERVISED_OK,		/* the job ran and ended in time */
	SUPERVISED_KILLED,	/* something had to be killed at the deadline */
	SUPERVISED_ENOENT,	/* the job could not be found */
	SUPERVISED_NOEXEC,	/* ... or executed */
	SUPERVISED_NOSTART	/* the supervisor could not start it */
};

int
spawn_start(const struct spawn_opts *opts, struct spawn_job *job,
    struct cb_err *err)
{
	struct spawn_job	 inner;
	struct spawn_result	 res;
	struct cb_err		 e;
	pid_t			 pid;

	memset(job, 0, sizeof *job);
	job->errfd = -1;
	if (opts->argv == NULL || opts->argv[0] == NULL) {
		err_set(err, "cannot run an empty command");
		return -1;
	}
	(void)fflush(NULL);
	switch (pid = fork()) {
	case -1:
		err_set(err, "cannot run '%s': fork: %s", opts->argv[0],
		    strerror(errno));
		return -1;
	case 0:
		/*
		 * The supervisor holds the job to its deadline while the
		 * caller waits for something else (the wrapped command).
		 */
		if (spawn_launch(opts, &inner, &e) == -1)
			_exit(SUPERVISED_NOSTART);
		spawn_settle(&inner, &res);
		if (res.exec_failed)
			_exit(res.exec_errno == ENOENT ? SUPERVISED_ENOENT :
			    SUPERVISED_NOEXEC);
		_exit(res.timed_out ? SUPERVISED_KILLED : SUPERVISED_OK);
	}
	job->pid = pid;
	job->start_ms = clock_mono_ms();
	job->deadline_ms = SPAWN_NEVER;
	job->argv0 = opts->argv[0];
	return 0;
}

void
spawn_finish(struct spawn_job *job, struct spawn_result *res)
{
	pid_t	r;
	int	wstatus = 0, code;

	memset(res, 0, sizeof *res);
	if (job->pid <= 0)
		return;
	while ((r = waitpid(job->pid, &wstatus, 0)) == -1 && errno == EINTR)
		continue;
	res->duration_ms = clock_mono_ms() - job->start_ms;
	code = r == job->pid && WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
	    SUPERVISED_NOSTART;
	switch (code) {
	case SUPERVISED_OK:
		break;
	case SUPERVISED_KILLED:
		res->timed_out = res->killed = 1;
		break;
	case SUPERVISED_ENOENT:
		res->exec_failed = 1;
		res->exec_errno = ENOENT;
		res->status = 127;
		break;
	default:
		res->exec_failed = 1;
		res->exec_errno = code == SUPERVISED_NOEXEC ? EACCES : EAGAIN;
		res->status = 126;
		break;
	}
	memset(job, 0, sizeof *job);
	job->errfd = -1;
}

