/* SPDX-License-Identifier: ISC */
/*
 * spawn.c: run the wrapped command the way timeout(1) does, without signal
 * handlers.  The signals cbexec forwards, SIGCHLD and SIGCONT are blocked
 * before the fork; the parent then takes them one at a time with
 * sigtimedwait(2), whose timeout is the next monotonic deadline (the
 * timeout's SIGTERM, then kill_after's SIGKILL), so there is no flag to
 * race against and no EINTR to lose.  The child restores the caller's
 * mask, leads a process group of its own unless foreground, keeps every
 * descriptor it inherited that is not close-on-exec (cbexec's own all
 * are; a hook keeps only 0, 1 and 2), and execs argv directly (execvp, no
 * shell).  Whether the exec happened
 * travels back on a close-on-exec pipe, as in git's run-command.c, so
 * "could not run" never looks like "ran and exited 127".  Only the child
 * is waited for: like OpenBSD's and coreutils' timeout, a grandchild that
 * outlives it is not waited for.  The child's side of the fork, up to
 * the exec, is spawn-child.c's; the fork and wait of spawn_run, and the
 * command forked ahead of its start, spawn-run.c's; hooks started in the
 * background are spawn-job.c's.
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

/*
 * The forwarded signals that are not ignored, into set (emptied first),
 * and when old is not NULL each one's disposition into old[SPAWN_NFWD].
 * A signal ignored on entry (nohup, or `&` in a script) is left out: the
 * command inherits it ignored too, and the user asked for it not to
 * matter.  Returns 0, or -1 with errno from sigaction(2).  cbexec never
 * changes these four's dispositions (only a child does, before exec): they
 * are read once per process, not by each caller (a run has four).
 */
int
spawn_fwd_set(sigset_t *set, struct sigaction *old)
{
	static struct sigaction	 disp[SPAWN_NFWD];
	static int		 known;
	size_t			 i;

	for (i = 0; !known && i < SPAWN_NFWD; i++)
		if (sigaction(spawn_fwd[i], NULL, &disp[i]) == -1)
			return -1;
	known = 1;
	sigemptyset(set);
	for (i = 0; i < SPAWN_NFWD; i++) {
		if (old != NULL)
			old[i] = disp[i];
		if (!spawn_ignored(&disp[i]))
			sigaddset(set, spawn_fwd[i]);
	}
	return 0;
}

/*
 * How the child ended, into res: the exec-error pipe fd (non-blocking; the
 * child is gone, so it holds the whole story: EOF when exec closed the
 * write end, an errno when exec failed), then wstatus when reaped, then
 * the documented status: 127 not found, 126 not executable, 124 timed
 * out, 128 + signal, or the exit code.
 */
void
spawn_conclude(int fd, int reaped, int wstatus, struct spawn_result *res)
{
	ssize_t	n;
	int	exec_errno;

	do
		n = read(fd, &exec_errno, sizeof exec_errno);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof exec_errno) {
		res->exec_failed = 1;
		res->exec_errno = exec_errno;
	}
	if (reaped && WIFSIGNALED(wstatus))
		res->signal = WTERMSIG(wstatus);
	else if (reaped && WIFEXITED(wstatus))
		res->exit_code = WEXITSTATUS(wstatus);

	if (res->exec_failed)
		res->status = res->exec_errno == ENOENT ? 127 : 126;
	else if (res->timed_out)
		res->status = 124;
	else if (res->signal != 0)
		res->status = 128 + res->signal;
	else
		res->status = res->exit_code;
}

/*
 * Send sig to the command: to its process group, and to the command itself
 * only if it has left that group (as coreutils does, but without sending
 * twice to a command that stayed, since many programs take a second SIGINT
 * as "quit now").  Before the reap the pid is ours even as a zombie, so it
 * cannot name anybody else.  A failure (all gone already) needs nothing.
 */
static void
spawn_signal(pid_t pid, int foreground, int sig)
{
	if (foreground || killpg(pid, sig) == -1 || getpgid(pid) != pid)
		(void)kill(pid, sig);
}

/*
 * A stopped process acts on SIGTERM only once continued, so every signal
 * short of SIGKILL is followed by SIGCONT, as coreutils does.
 */
static void
spawn_send(pid_t pid, int foreground, int sig)
{
	spawn_signal(pid, foreground, sig);
	if (sig != SIGKILL)
		spawn_signal(pid, foreground, SIGCONT);
}

int64_t
spawn_after(int64_t now, int64_t ms)
{
	if (ms > SPAWN_NEVER - now)
		return SPAWN_NEVER;
	return now + ms;
}

/*
 * The descriptor to hand to the command's group at its start, or -1.  Off
 * a terminal (cron, a service) this costs the one failing ioctl.
 */
int
spawn_tty(const struct spawn_opts *opts)
{
	pid_t	fg;

	if (opts->foreground || opts->helper ||
	    (fg = tcgetpgrp(STDIN_FILENO)) == -1 || fg != getpgrp() ||
	    tcgetpgrp(STDOUT_FILENO) != fg)
		return -1;
	return STDIN_FILENO;
}

/*
 * Give the terminal to the command's group if cbexec's group has the
 * foreground.  Returns 1 when given.
 */
static int
spawn_term_give(struct spawn_term *t, pid_t pid)
{
	if (t->fd == -1) {
		t->fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (t->fd == -1)
			return 0;
		t->own = 1;
	}
	if (tcgetpgrp(t->fd) != getpgrp() || tcsetpgrp(t->fd, pid) == -1)
		return 0;
	t->held = t->had = 1;
	t->wants = 0;
	return 1;
}

/* Give the terminal back to cbexec's group, if the command's has it. */
void
spawn_term_back(struct spawn_term *t, pid_t pid)
{
	if (t->held && tcgetpgrp(t->fd) == pid)
		(void)tcsetpgrp(t->fd, getpgrp());
	t->held = 0;
}

/*
 * Stop cbexec's own group with sig, as the terminal would have stopped
 * the whole job, and return once it is continued.  SIGTTIN and SIGTTOU,
 * which spawn_enter ignores, act by default for this one signal.  Returns
 * 1 when stopped and continued (the shell's SIGCONT is then taken), 0 when
 * the kernel discarded the stop, as it does in an orphaned process group.
 */
static int
spawn_stop_job(int sig)
{
	struct sigaction	sa, old;
	struct timespec		zero = { 0, 0 };
	sigset_t		cont;
	int			dfl;

	dfl = sig == SIGTTIN || sig == SIGTTOU;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	if (dfl && sigaction(sig, &sa, &old) == -1)
		return 0;
	(void)killpg(getpgrp(), sig);
	if (dfl)
		(void)sigaction(sig, &old, NULL);
	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	return sigtimedwait(&cont, NULL, &zero) == SIGCONT;
}

/*
 * The command's group stopped with sig.  Reading the terminal (or setting
 * it) from the background: give it the terminal and continue it; when
 * cbexec's own group is in the background, stop that group too, as the
 * job would have stopped, and once fg continues it do the same.  ^Z while
 * the command has the terminal: stop cbexec's group too, with the
 * terminal back, so that the shell sees the job stop.  Once continued,
 * the command gets the terminal again if fg gave it to cbexec, and is
 * continued in any case (after bg it runs on in the background, and
 * stops again if it reads the terminal).  A stop the kernel discards
 * leaves the command stopped until fg (SIGCONT, spawn_cont) or the
 * timeout.  A stop nobody asked cbexec about (kill -STOP) is left alone.
 * SIGTTOU is ignored while spawn_run runs, as tcsetpgrp from the
 * background needs.
 */
static void
spawn_stopped(struct spawn_term *t, pid_t pid, int sig)
{
	if (sig == SIGTTIN || sig == SIGTTOU) {
		if (!spawn_term_give(t, pid)) {
			if (!spawn_stop_job(sig)) {
				t->wants = 1;
				return;
			}
			(void)spawn_term_give(t, pid);
		}
		(void)killpg(pid, SIGCONT);
		return;
	}
	if (!t->held)
		return;
	spawn_term_back(t, pid);
	(void)spawn_stop_job(SIGTSTP);
	(void)spawn_term_give(t, pid);
	(void)killpg(pid, SIGCONT);
}

/* cbexec was continued: by fg, if the command waits for the terminal. */
static void
spawn_cont(struct spawn_term *t, pid_t pid)
{
	if (t->wants && spawn_term_give(t, pid))
		(void)killpg(pid, SIGCONT);
}

/*
 * opts->sweep_group: once the leader has exited, and before it is reaped,
 * SIGKILL what it left in its group.  Until the reap its zombie holds the
 * group's id, so the signal cannot reach a group that took the id since.
 * Returns 1 when the caller may reap (waitpid), 0 when the leader is
 * still running.
 */
static int
spawn_sweep(const struct spawn_opts *opts, pid_t pid)
{
	siginfo_t	wi;

	if (!opts->sweep_group || opts->foreground)
		return 1;
	memset(&wi, 0, sizeof wi);
	if (waitid(P_PID, (id_t)pid, &wi, WEXITED | WNOHANG | WNOWAIT) == -1)
		return errno != EINTR;
	if (wi.si_pid != pid)
		return 0;
	(void)killpg(pid, SIGKILL);
	return 1;
}

/*
 * Fire the deadline due at now, if one is: the timeout's signal (kill_after
 * then falls due), or kill_after's SIGKILL.  Returns 1 if one fired.
 */
static int
spawn_deadline(const struct spawn_opts *opts, pid_t pid, int64_t now,
    int64_t *term_at, int64_t *kill_at, struct spawn_result *res)
{
	int	sig;

	if (now >= *term_at) {
		*term_at = SPAWN_NEVER;
		res->timed_out = 1;
		sig = opts->timeout_signal != 0 ? opts->timeout_signal :
		    SIGTERM;
		if (opts->on_kill != NULL)
			opts->on_kill(opts->on_kill_arg, sig, pid,
			    !opts->foreground);
		spawn_send(pid, opts->foreground, sig);
		if (opts->kill_after_ms > 0)
			*kill_at = spawn_after(now, opts->kill_after_ms);
		return 1;
	}
	if (now >= *kill_at) {
		*kill_at = SPAWN_NEVER;
		res->killed = 1;
		if (opts->on_kill != NULL)
			opts->on_kill(opts->on_kill_arg, SIGKILL, pid,
			    !opts->foreground);
		spawn_send(pid, opts->foreground, SIGKILL);
		return 1;
	}
	return 0;
}

/*
 * Wait for the child, firing deadlines and forwarding signals, until it is
 * reaped into *wstatus.  Returns 0, or -1 with err filled if waiting itself
 * fails (it cannot, short of a bug); the child is then killed first.
 */
int
spawn_wait(const struct spawn_opts *opts, pid_t pid, struct spawn_term *t,
    const sigset_t *set, int64_t start, struct spawn_result *res,
    int *wstatus, struct cb_err *err)
{
	struct timespec	 ts, *tsp;
	siginfo_t	 si;
	int64_t		 now, term_at, kill_at, next;
	pid_t		 r;
	int		 sig, e, untraced;

	untraced = opts->foreground || opts->helper ? 0 : WUNTRACED;
	term_at = SPAWN_NEVER;
	if (opts->timeout_ms > 0)
		term_at = spawn_after(start, opts->timeout_ms);
	kill_at = SPAWN_NEVER;

	for (;;) {
		/*
		 * Poll before every wait: a SIGCHLD that was already pending
		 * for someone else's child cannot hide ours, and a deadline
		 * is never fired at a child that has just exited.
		 */
		r = 0;
		if (spawn_sweep(opts, pid))
			r = waitpid(pid, wstatus, WNOHANG | untraced);
		if (r == pid && WIFSTOPPED(*wstatus)) {
			spawn_stopped(t, pid, WSTOPSIG(*wstatus));
			continue;
		}
		if (r == pid)
			return 0;
		if (r == -1 && errno != EINTR) {
			err_set(err, "cannot wait for '%s': %s", opts->argv[0],
			    strerror(errno));
			return -1;
		}

		now = clock_mono_ms();
		if (spawn_deadline(opts, pid, now, &term_at, &kill_at, res))
			continue;

		next = term_at < kill_at ? term_at : kill_at;
		tsp = NULL;
		if (next != SPAWN_NEVER) {
			ts.tv_sec = (time_t)((next - now) / 1000);
			ts.tv_nsec = (long)((next - now) % 1000) * 1000000;
			tsp = &ts;
		}
		sig = sigtimedwait(set, &si, tsp);
		if (sig == -1) {
			/* EAGAIN: a deadline; EINTR: a stop or a handler. */
			if (errno == EAGAIN || errno == EINTR)
				continue;
			e = errno;
			spawn_send(pid, opts->foreground, SIGKILL);
			while (waitpid(pid, wstatus, 0) == -1 && errno == EINTR)
				continue;
			err_set(err, "cannot wait for '%s': sigtimedwait: %s",
			    opts->argv[0], strerror(e));
			return -1;
		}
		if (sig == SIGCHLD)
			continue;
		if (sig == SIGCONT) {
			spawn_cont(t, pid);
			continue;
		}

		res->interrupted = 1;
		/*
		 * With --foreground the command shares cbexec's group, so a
		 * signal the kernel sent to the group (^C, ^\, the hangup of
		 * a closing session: si_code SI_KERNEL) has reached it
		 * already, and another would look like a second ^C.  The one
		 * such signal sent to a process alone is the SIGHUP a session
		 * leader gets when its tty hangs up; that one is passed on.
		 */
		if (opts->foreground && si.si_code == SI_KERNEL &&
		    (sig != SIGHUP || getsid(0) != getpid()))
			continue;
		spawn_send(pid, opts->foreground, sig);
	}
}

/*
 * Block the forwarded signals, SIGCHLD and SIGCONT, and save and set what
 * spawn_run changes in the caller; wait gets the signals to wait for.
 * Returns 0, or an errno with the failed call in *what and nothing
 * changed.
 */
int
spawn_enter(struct spawn_saved *saved, sigset_t *wait, const char **what)
{
	struct sigaction	sa;
	sigset_t		block;
	size_t			i;
	int			e;

	sigemptyset(&block);
	for (i = 0; i < SPAWN_NFWD; i++)
		sigaddset(&block, spawn_fwd[i]);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &block, &saved->mask) == -1) {
		*what = "sigprocmask";
		return errno;
	}
	*what = "sigaction";
	/* SIGCHLD and the forwarded signals but those ignored on entry. */
	if (spawn_fwd_set(wait, saved->fwd) == -1)
		goto out_mask;
	sigaddset(wait, SIGCHLD);
	sigaddset(wait, SIGCONT);

	/*
	 * SIGCHLD ignored, or SA_NOCLDWAIT, would have the kernel reap the
	 * child itself and leave waitpid nothing but ECHILD.
	 */
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	if (sigaction(SIGCHLD, &sa, &saved->chld) == -1)
		goto out_mask;
	/*
	 * With --foreground the command shares cbexec's group: if that group
	 * is in the background and the command touches the tty, the kernel
	 * stops the whole group, and a stopped cbexec times nothing out.
	 * timeout(1) ignores these two for the same reason.
	 */
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGTTIN, &sa, &saved->ttin) == -1)
		goto out_chld;
	if (sigaction(SIGTTOU, &sa, &saved->ttou) == -1)
		goto out_ttin;
	return 0;

	/* Putting back what was saved above cannot fail. */
out_ttin:
	e = errno;
	(void)sigaction(SIGTTIN, &saved->ttin, NULL);
	errno = e;
out_chld:
	e = errno;
	(void)sigaction(SIGCHLD, &saved->chld, NULL);
	errno = e;
out_mask:
	e = errno;
	(void)sigprocmask(SIG_SETMASK, &saved->mask, NULL);
	return e;
}

/* Put back what spawn_enter changed; cannot fail. */
void
spawn_leave(const struct spawn_saved *saved)
{
	(void)sigaction(SIGTTOU, &saved->ttou, NULL);
	(void)sigaction(SIGTTIN, &saved->ttin, NULL);
	(void)sigaction(SIGCHLD, &saved->chld, NULL);
	(void)sigprocmask(SIG_SETMASK, &saved->mask, NULL);
}

int
spawn_sleep(int64_t ms, struct cb_err *err)
{
	struct timespec		 ts;
	sigset_t		 set, saved;
	int64_t			 deadline, now;
	int			 sig, e;

	/* Wait only for the signals that would end cbexec: not ignored ones. */
	if (spawn_fwd_set(&set, NULL) == -1) {
		err_set(err, "cannot sleep: sigaction: %s", strerror(errno));
		return -1;
	}
	if (sigprocmask(SIG_BLOCK, &set, &saved) == -1) {
		err_set(err, "cannot sleep: sigprocmask: %s", strerror(errno));
		return -1;
	}
	deadline = spawn_after(clock_mono_ms(), ms);
	sig = 0;
	for (;;) {
		now = clock_mono_ms();
		if (now >= deadline)
			break;
		ts.tv_sec = (time_t)((deadline - now) / 1000);
		ts.tv_nsec = (long)((deadline - now) % 1000) * 1000000;
		if ((sig = sigtimedwait(&set, NULL, &ts)) > 0)
			break;
		sig = 0;
		if (errno == EAGAIN || errno == EINTR)
			continue;
		e = errno;
		(void)sigprocmask(SIG_SETMASK, &saved, NULL);
		err_set(err, "cannot sleep: sigtimedwait: %s", strerror(e));
		return -1;
	}
	/* A signal taken here is consumed: it does not act again. */
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	return sig;
}

int
spawn_block(sigset_t *old, struct cb_err *err)
{
	sigset_t	set;

	if (spawn_fwd_set(&set, NULL) == -1) {
		err_set(err, "sigaction: %s", strerror(errno));
		return -1;
	}
	if (sigprocmask(SIG_BLOCK, &set, old) == -1) {
		err_set(err, "sigprocmask: %s", strerror(errno));
		return -1;
	}
	return 0;
}
