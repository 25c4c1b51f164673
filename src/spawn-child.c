/* SPDX-License-Identifier: ISC */
/*
 * spawn-child.c: the child's side of spawn.c's fork, from the fork to the
 * exec: put back the caller's signal dispositions and mask, die with
 * cbexec, lead a process group, set up the descriptors and the environment
 * a helper gets, and exec.  An error before the exec goes back to the
 * parent as an errno on the exec-error pipe (git's run-command.c), and the
 * child exits 127 or 126.
 */
#include <sys/types.h>
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn-opts.h"
#include "spawn-child.h"

/* Where a helper's child keeps the exec-error pipe between fork and exec. */
#define SPAWN_ERRFD	3

const int spawn_fwd[SPAWN_NFWD] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/*
 * Give sig in the child the disposition exec would leave it: ignored stays
 * ignored, anything else is the default.  Done before the mask is restored
 * so that no handler of cbexec's ever runs in the child.
 */
static void
spawn_child_reset(int sig, const struct sigaction *old)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = spawn_ignored(old) ? SIG_IGN : SIG_DFL;
	/* Valid signal and action: cannot fail. */
	(void)sigaction(sig, &sa, NULL);
}

static void __attribute__((noreturn))
spawn_child_fail(int fd, int e)
{
	/* Nobody else writes to the pipe, and 4 bytes are written at once. */
	while (write(fd, &e, sizeof e) == -1 && errno == EINTR)
		continue;
	_exit(e == ENOENT ? 127 : 126);
}

/*
 * Forked ahead (spawn_hold): its group, now led, is in the store's slot.
 * Wait for the byte that starts it; anything else (EOF, an error) means it
 * is not to run, and it ends as a command that could not be run would.
 */
static void
spawn_child_go(int go, int wfd)
{
	ssize_t	n;
	char	c;

	do
		n = read(go, &c, 1);
	while (n == -1 && errno == EINTR);
	if (n != 1)
		spawn_child_fail(wfd, n == -1 ? errno : ECANCELED);
	(void)close(go);
}

/* Point to (stdin or stdout) at /dev/null.  Returns 0 or -1 (errno set). */
static int
spawn_child_null(int to, int flags)
{
	int	fd;

	if ((fd = open("/dev/null", flags)) == -1)
		return -1;
	if (fd != to) {
		if (dup2(fd, to) == -1)
			return -1;
		(void)close(fd);
	}
	return 0;
}

/* What hooks and probe commands must never see (SPEC section 5), and the
 * job's marker, which is the job's alone (SPEC 2b). */
static const char *const spawn_secrets[] = {
	"CBEXEC_REDIS_PASSWORD", "CBEXEC_SENTINEL_PASSWORD", "CBEXEC_JOB", NULL
};

/* Remove the secrets from the environment.  Returns 0 or -1 (errno set). */
static int
spawn_child_scrub(void)
{
	size_t	i;

	for (i = 0; spawn_secrets[i] != NULL; i++)
		if (unsetenv(spawn_secrets[i]) == -1)
			return -1;
	return 0;
}

void
spawn_child(const struct spawn_opts *opts, const struct spawn_saved *saved,
    pid_t parent, int rfd, int wfd)
{
	size_t	i;

	(void)close(rfd);

	for (i = 0; i < SPAWN_NFWD; i++)
		spawn_child_reset(spawn_fwd[i], &saved->fwd[i]);
	/*
	 * SIGCHLD stays SIG_DFL even if cbexec inherited it ignored: timeout(1)
	 * hands its command the default too, and an ignored SIGCHLD makes every
	 * wait(2) in the command fail.
	 */

	/*
	 * Die with cbexec: if it is SIGKILLed, nothing else would ever time
	 * the command out.  PDEATHSIG fires when the forking thread exits
	 * (cbexec has one) and is dropped by exec of a set-user-ID program.
	 * Checking the parent afterwards closes the window in which it died
	 * before the prctl.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		spawn_child_fail(wfd, errno);
	if (getppid() != parent)
		_exit(126);

	/*
	 * A group of our own lets a timeout reach the whole tree while cbexec,
	 * outside it, survives to record the outcome.  When stdin and stdout
	 * are the terminal and cbexec's group has its foreground, that group
	 * becomes the foreground one, so that the command can read the tty (a
	 * password prompt) and gets ^C and ^Z itself, as it would under
	 * timeout(1) (see spawn_tty in spawn.c).  SIGTTOU is ignored here
	 * (spawn_enter), which tcsetpgrp from outside the foreground needs;
	 * the reset below comes after.
	 */
	if (!opts->foreground && setpgid(0, 0) == -1)
		spawn_child_fail(wfd, errno);
	if (saved->go != -1)
		spawn_child_go(saved->go, wfd);
	if (saved->tty != -1) {
		/* A held child was forked before spawn_enter ignored it. */
		(void)signal(SIGTTOU, SIG_IGN);
		(void)tcsetpgrp(saved->tty, getpid());
	}
	spawn_child_reset(SIGTTIN, &saved->ttin);
	spawn_child_reset(SIGTTOU, &saved->ttou);

	if (opts->stdin_null && spawn_child_null(STDIN_FILENO, O_RDONLY) == -1)
		spawn_child_fail(wfd, errno);
	if (opts->stdout_null && spawn_child_null(STDOUT_FILENO,
	    O_WRONLY) == -1)
		spawn_child_fail(wfd, errno);
	if (opts->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) == -1)
		spawn_child_fail(wfd, errno);
	if (opts->held_out > STDERR_FILENO && (dup2(opts->held_out,
	    STDOUT_FILENO) == -1 || dup2(opts->held_err, STDERR_FILENO) == -1))
		spawn_child_fail(wfd, errno);
	for (i = 0; opts->env != NULL && opts->env[i] != NULL; i++)
		if (putenv(opts->env[i]) != 0)
			spawn_child_fail(wfd, errno);

	/* The job carries its own marker, never one it inherited. */
	if (!opts->helper) {
		if (opts->job_marker != NULL && opts->job_marker[0] != '\0') {
			if (putenv((char *)opts->job_marker) != 0)
				spawn_child_fail(wfd, errno);
		} else if (unsetenv("CBEXEC_JOB") == -1)
			spawn_child_fail(wfd, errno);
	}

	/*
	 * The wrapped command keeps every descriptor the caller passed (a
	 * 3>file, make's jobserver pipe, LISTEN_FDS), as with timeout(1).
	 * cbexec's own are all close-on-exec: the state and lock files, the
	 * Redis socket, syslog's socket and this pipe.  A helper gets none.
	 */
	if (opts->helper) {
		if (spawn_child_scrub() == -1)
			spawn_child_fail(wfd, errno);
		if (wfd != SPAWN_ERRFD) {
			if (dup3(wfd, SPAWN_ERRFD, O_CLOEXEC) == -1)
				spawn_child_fail(wfd, errno);
			wfd = SPAWN_ERRFD;
		}
		closefrom(SPAWN_ERRFD + 1);
	}

	if (sigprocmask(SIG_SETMASK, opts->mask != NULL ? opts->mask :
	    &saved->mask, NULL) == -1)
		spawn_child_fail(wfd, errno);
	/*
	 * No shell of ours; execvp itself hands a file without "#!" that the
	 * kernel refuses (ENOEXEC) to /bin/sh, as env(1) and timeout(1) do.
	 */
	execvp(opts->argv[0], opts->argv);
	spawn_child_fail(wfd, errno);
}
