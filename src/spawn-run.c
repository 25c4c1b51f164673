/* SPDX-License-Identifier: ISC */
/*
 * spawn-run.c: spawn_run, and the command forked ahead of its start
 * (spawn_hold), so that the slot run takes can name the job's process
 * group in the store update that admits the call (SPEC 2b): the child
 * leads its group at once, dies with cbexec (PDEATHSIG), and waits on a
 * socket for one byte (spawn_run_held) before it goes on as spawn_run's
 * child does; spawn_drop kills it unstarted.  What happens around the
 * child (signals, the terminal, the wait) is spawn.c's.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "spawn.h"
#include "spawn-child.h"

/* A command forked by spawn_run or spawn_hold, until it is reaped. */
struct spawn_proc {
	pid_t			pid;		/* 0: none */
	int			errfd;		/* exec-error pipe, read end */
	int			go;		/* held: go socket, else -1 */
	int64_t			start;		/* monotonic: fork, or go */
	int			entered;	/* spawn_enter done */
	sigset_t		set;		/* what spawn_wait takes */
	struct spawn_saved	saved;
	struct spawn_term	term;
};

/* The one command spawn_hold forked ahead, waiting for its start. */
static struct spawn_proc	spawn_held;

/*
 * What a held child resets from, read without changing anything: the
 * caller's mask and dispositions as they are.  spawn_enter comes only
 * when it is started, for a held child is forked inside a store update,
 * which may put back a mask of its own at its end (store-redis-conn.c).
 * Returns 0, or an errno with the failed call in *what.
 */
static int
spawn_snapshot(struct spawn_saved *saved, const char **what)
{
	sigset_t	unused;

	*what = "sigprocmask";
	if (sigprocmask(SIG_SETMASK, NULL, &saved->mask) == -1)
		return errno;
	*what = "sigaction";
	if (spawn_fwd_set(&unused, saved->fwd) == -1 ||
	    sigaction(SIGCHLD, NULL, &saved->chld) == -1 ||
	    sigaction(SIGTTIN, NULL, &saved->ttin) == -1 ||
	    sigaction(SIGTTOU, NULL, &saved->ttou) == -1)
		return errno;
	return 0;
}

/*
 * Fork opts->argv into sp.  Held, the child leads its group at once and
 * then waits for one byte on a socket (spawn_proc_finish sends it) before it
 * goes on to exec.  Returns 0, or -1 with err filled and nothing changed.
 */
static int
spawn_proc_fork(const struct spawn_opts *opts, struct spawn_proc *sp, int hold,
    struct cb_err *err)
{
	const char	*what = NULL;
	pid_t		 parent;
	int		 fds[2], go[2] = { -1, -1 }, e = 0;

	memset(sp, 0, sizeof *sp);
	sp->term.fd = -1;
	if (opts->argv == NULL || opts->argv[0] == NULL) {
		err_set(err, "cannot run an empty command");
		return -1;
	}
	/*
	 * Non-blocking, so that reading it after the reap can never hang,
	 * whoever might still hold the write end.  The go socket, unlike a
	 * pipe, is written without a SIGPIPE (MSG_NOSIGNAL).
	 */
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == -1) {
		what = "pipe";
		e = errno;
		goto out;
	}
	if (hold && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    go) == -1) {
		what = "socketpair";
		e = errno;
		goto out_pipe;
	}
	if ((e = hold ? spawn_snapshot(&sp->saved, &what) :
	    spawn_enter(&sp->saved, &sp->set, &what)) != 0)
		goto out_pipe;
	sp->entered = !hold;
	sp->saved.go = go[0];
	if ((sp->saved.tty = spawn_tty(opts)) != -1) {
		sp->term.fd = sp->saved.tty;
		sp->term.held = sp->term.had = 1;
	}

	/* Output cbexec buffered belongs before the command's. */
	(void)fflush(NULL);

	parent = getpid();
	sp->start = clock_mono_ms();
	switch (sp->pid = fork()) {
	case -1:
		what = "fork";
		e = errno;
		if (sp->entered)
			spawn_leave(&sp->saved);
		goto out_pipe;
	case 0:
		if (go[1] != -1)
			(void)close(go[1]);
		spawn_child(opts, &sp->saved, parent, fds[0], fds[1]);
		/* NOTREACHED */
	}
	(void)close(fds[1]);
	sp->errfd = fds[0];
	if (go[0] != -1)
		(void)close(go[0]);
	sp->go = go[1];

	/*
	 * The child does this itself; doing it here too means the group
	 * exists before the first killpg, whoever runs first.  EACCES (it
	 * has exec'd, so it has done it) and ESRCH (gone) are fine, and so is
	 * anything else: the child's own call decides.
	 */
	if (!opts->foreground)
		(void)setpgid(sp->pid, sp->pid);
	return 0;

out_pipe:
	(void)close(fds[0]);
	(void)close(fds[1]);
	if (go[0] != -1) {
		(void)close(go[0]);
		(void)close(go[1]);
	}
	sp->pid = 0;
out:
	err_set(err, "cannot run '%s': %s: %s", opts->argv[0], what,
	    strerror(e));
	return -1;
}

/* Put back what spawn_proc_fork changed, sp's child reaped. */
static void
spawn_proc_done(struct spawn_proc *sp)
{
	if (sp->term.own)
		(void)close(sp->term.fd);
	if (sp->entered)
		spawn_leave(&sp->saved);
	(void)close(sp->errfd);
	if (sp->go != -1)
		(void)close(sp->go);
	sp->pid = 0;
}

/*
 * Start sp's child if held, and wait for it.  Signals that arrive after
 * the reap stay pending until the caller's mask is restored and then act
 * as they would have a moment later (by default they end cbexec); they are
 * not the command's to receive any more.
 */
static int
spawn_proc_finish(const struct spawn_opts *opts, struct spawn_proc *sp,
    struct spawn_result *res, struct cb_err *err)
{
	const char	*what;
	int		 wstatus, e, rv = -1;

	if (sp->go != -1) {
		sp->start = clock_mono_ms();
		if ((e = spawn_enter(&sp->saved, &sp->set, &what)) == 0) {
			sp->entered = 1;
			what = "send";
			if (send(sp->go, "", 1, MSG_NOSIGNAL) != 1)
				e = errno;
		}
		if (e != 0) {
			err_set(err, "cannot run '%s': %s: %s",
			    opts->argv[0], what, strerror(e));
			(void)kill(sp->pid, SIGKILL);
			while (waitpid(sp->pid, NULL, 0) == -1 &&
			    errno == EINTR)
				continue;
			spawn_proc_done(sp);
			return -1;
		}
	}
	if (spawn_wait(opts, sp->pid, &sp->term, &sp->set, sp->start, res,
	    &wstatus, err) == -1)
		goto out;
	spawn_term_back(&sp->term, sp->pid);
	res->duration_ms = clock_mono_ms() - sp->start;
	spawn_conclude(sp->errfd, 1, wstatus, res);
	/* With the terminal, the tty's ^C, ^\ and hangup went to the command
	 * itself, not through cbexec: an interruption all the same. */
	if (sp->term.had && (res->signal == SIGINT ||
	    res->signal == SIGQUIT || res->signal == SIGHUP))
		res->interrupted = 1;
	rv = 0;
out:
	spawn_term_back(&sp->term, sp->pid);
	spawn_proc_done(sp);
	return rv;
}

int
spawn_run(const struct spawn_opts *opts, struct spawn_result *res,
    struct cb_err *err)
{
	struct spawn_proc	sp;

	memset(res, 0, sizeof *res);
	if (spawn_proc_fork(opts, &sp, 0, err) == -1)
		return -1;
	return spawn_proc_finish(opts, &sp, res, err);
}

pid_t
spawn_hold(const struct spawn_opts *opts, struct cb_err *err)
{
	if (spawn_held.pid == 0 && spawn_proc_fork(opts, &spawn_held, 1,
	    err) == -1)
		return -1;
	return spawn_held.pid;
}

int
spawn_run_held(const struct spawn_opts *opts, struct spawn_result *res,
    struct cb_err *err)
{
	if (spawn_held.pid == 0)
		return spawn_run(opts, res, err);
	memset(res, 0, sizeof *res);
	return spawn_proc_finish(opts, &spawn_held, res, err);
}

void
spawn_drop(void)
{
	if (spawn_held.pid == 0)
		return;
	/* Ours and unreaped: the pid cannot name anybody else. */
	(void)kill(spawn_held.pid, SIGKILL);
	while (waitpid(spawn_held.pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	spawn_proc_done(&spawn_held);
}
