/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb-wait.c: every wait on the local store's locks is bounded by
 * lock_timeout and ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT (SPEC 5:
 * whoever may write the state cannot hang cbexec).
 *
 * LMDB's writer and reader-table locks are process-shared robust mutexes
 * in the lock file, and pthread_mutex_lock has no deadline and ignores
 * signals.  A lock of our own with a deadline, taken in front of LMDB's,
 * would bound only cbexec against cbexec: a member of the group that opens
 * the file with another LMDB program (or locks the mutex in the shared map
 * by hand) never takes it, and we would block in LMDB's mutex behind that
 * member for ever all the same.  A timer signal cannot help either: the
 * mutex wait restarts after the handler, and jumping out of LMDB leaves
 * its state undefined.  So each store operation runs whole on one worker
 * thread, while the calling thread waits for it with a deadline and the
 * four signals (signalfd).  The worker marks the stretches in which it
 * may block on a lock (lmdb_wait_enter .. lmdb_wait_leave); one that lasts
 * longer than lock_timeout abandons the worker: the caller gets an error
 * (on_store_error decides), and the worker, if it ever gets the lock,
 * sees that it was abandoned, lets go of it at once and touches nothing
 * of the caller's again.  Neither does the caller touch the environment
 * again: every later operation fails at once, and close leaves it be.
 * Cost: a thread per process and two wake-ups per operation (bench).
 */
#include <sys/eventfd.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store-lmdb-int.h"
#include "units.h"
#include "util.h"

/* The one worker of the process, and the operation handed to it. */
static struct {
	pthread_mutex_t		 m;
	pthread_cond_t		 cv;
	pthread_t		 thr;
	int			 started;
	int			 lost;		/* abandoned in a wait */
	int			 efd;		/* worker -> caller: done */
	int			 sfd;		/* the four signals, or -1 */
	sigset_t		 sigs;
	/* Under m: */
	lmdb_wait_fn		 fn;
	struct store_lmdb	*sl;
	void			*arg;
	struct cb_err		 err;		/* the worker's, copied on -1 */
	int			 rc;
	int			 pending;
	int			 done;
	int			 waiting;	/* in a wait for a lock */
	int			 cancelled;
	int64_t			 since;		/* that wait began, ms */
} w = {
	.m = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.efd = -1,
	.sfd = -1
};

static int64_t
mono_ms(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
lmdb_wait_enter(void)
{
	int	cancelled;

	(void)pthread_mutex_lock(&w.m);
	w.waiting = 1;
	w.since = mono_ms();
	cancelled = w.cancelled;
	(void)pthread_mutex_unlock(&w.m);
	return cancelled ? -1 : 0;
}

int
lmdb_wait_leave(void)
{
	int	cancelled;

	(void)pthread_mutex_lock(&w.m);
	w.waiting = 0;
	cancelled = w.cancelled;
	(void)pthread_mutex_unlock(&w.m);
	return cancelled ? -1 : 0;
}

static void *
lmdb_worker(void *unused)
{
	int		rc;
	uint64_t	one = 1;

	(void)unused;
	(void)pthread_mutex_lock(&w.m);
	for (;;) {
		while (!w.pending)
			(void)pthread_cond_wait(&w.cv, &w.m);
		w.pending = 0;
		(void)pthread_mutex_unlock(&w.m);
		rc = w.fn(w.sl, w.arg, &w.err);
		(void)pthread_mutex_lock(&w.m);
		w.rc = rc;
		w.done = 1;
		if (w.cancelled)
			break;		/* nobody waits for us any more */
		(void)pthread_mutex_unlock(&w.m);
		while (write(w.efd, &one, sizeof one) == -1 && errno == EINTR)
			continue;
		(void)pthread_mutex_lock(&w.m);
	}
	(void)pthread_mutex_unlock(&w.m);
	return NULL;
}

/*
 * Start the worker with every signal blocked (the caller's thread takes
 * them), and a signalfd for those of the four that are not ignored (nohup
 * and `&` leave them to be ignored).
 */
static int
lmdb_wait_start(struct cb_err *err, const char *path)
{
	static const int	 fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction	 sa;
	sigset_t		 all, old;
	size_t			 i;
	int			 rc;

	sigemptyset(&w.sigs);
	for (i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
		if (sigaction(fwd[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN)
			sigaddset(&w.sigs, fwd[i]);
	if ((w.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1 ||
	    (w.sfd = signalfd(-1, &w.sigs, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		goto fail;
	sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_SETMASK, &all, &old)) != 0) {
		errno = rc;
		goto fail;
	}
	/* The worker allocates from the main arena, as the caller waits
	 * meanwhile: an arena of its own is a 64 MB mapping, three system
	 * calls and its page faults per run.  Failing costs only that. */
	(void)mallopt(M_ARENA_MAX, 1);
	rc = pthread_create(&w.thr, NULL, lmdb_worker, NULL);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		goto fail;
	}
	w.started = 1;
	return 0;
fail:
	rc = errno;
	err_set(err, "cannot open state '%s': %s", path, strerror(rc));
	if (w.efd != -1)
		(void)close(w.efd);
	w.efd = -1;
	errno = rc;
	return -1;
}

/* A signal taken while waiting: 0 if none. */
static int
lmdb_wait_signal(void)
{
	struct signalfd_siginfo	si;

	if (w.sfd == -1 || read(w.sfd, &si, sizeof si) != (ssize_t)sizeof si)
		return 0;
	return (int)si.ssi_signo;
}

/* What lmdb_wait_call returns once the wait is over. */
static int
lmdb_wait_result(struct store_lmdb *sl, int sig, struct cb_err *err)
{
	char	d[32];

	if (sig != 0) {
		err_set(err, "state '%s': %s while waiting for it", sl->s.path,
		    strsignal(sig));
		errno = EINTR;
		return -1;
	}
	if (w.lost) {
		format_duration(sl->lock_timeout_ms, d, sizeof d);
		err_set(err, "state '%s' stayed locked by another process "
		    "for lock_timeout (%s)", sl->s.path, d);
		errno = ETIMEDOUT;
		return -1;
	}
	if (w.rc == -1 && err != NULL) {
		*err = w.err;
		errno = EIO;
	}
	return w.rc;
}

int
lmdb_wait_call(struct store_lmdb *sl, lmdb_wait_fn fn, void *arg,
    struct cb_err *err)
{
	struct pollfd	pfd[2];
	sigset_t	old;
	uint64_t	n;
	int64_t		now, left;
	char		d[32];
	int		done, sig = 0;

	if (w.lost) {
		format_duration(sl->lock_timeout_ms, d, sizeof d);
		err_set(err, "state '%s' is still locked by another process "
		    "(lock_timeout %s passed)", sl->s.path, d);
		errno = ETIMEDOUT;
		return -1;
	}
	if (!w.started && lmdb_wait_start(err, sl->s.path) != 0)
		return -1;

	(void)pthread_mutex_lock(&w.m);
	w.fn = fn;
	w.sl = sl;
	w.arg = arg;
	w.done = 0;
	w.waiting = 0;
	w.pending = 1;
	(void)pthread_cond_signal(&w.cv);
	(void)pthread_mutex_unlock(&w.m);

	/* Blocked, the four wait in the signalfd instead of acting. */
	(void)pthread_sigmask(SIG_BLOCK, &w.sigs, &old);
	pfd[0].fd = w.efd;
	pfd[0].events = POLLIN;
	pfd[1].fd = w.sfd;
	pfd[1].events = POLLIN;
	for (;;) {
		now = mono_ms();
		(void)pthread_mutex_lock(&w.m);
		done = w.done;
		left = sl->lock_timeout_ms;
		if (!done && w.waiting) {
			left = w.since + sl->lock_timeout_ms - now;
			if (left <= 0)
				w.cancelled = w.lost = 1;
		}
		(void)pthread_mutex_unlock(&w.m);
		/* Done first: a signal that came meanwhile acts later. */
		if (done || w.lost)
			break;
		if (left > INT32_MAX)
			left = INT32_MAX;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, w.sfd != -1 ? 2 : 1, (int)left) == -1 &&
		    errno != EINTR)
			(void)usleep(1000);	/* cannot happen; never spin */
		/* Emptied: a stale count costs one more turn, no more. */
		if ((pfd[0].revents & POLLIN) != 0 &&
		    read(w.efd, &n, sizeof n) == -1 && errno != EAGAIN)
			(void)usleep(1000);
		/* Past a signal, nothing: the caller exits 128+N. */
		if ((pfd[1].revents & POLLIN) != 0 &&
		    (sig = lmdb_wait_signal()) != 0) {
			(void)pthread_mutex_lock(&w.m);
			done = w.done;
			(void)pthread_mutex_unlock(&w.m);
			if (!done)
				break;
			/* Done after all: pending again, it acts later. */
			(void)raise(sig);
			sig = 0;
		}
	}
	if (sig != 0) {
		/* The worker may hold the lock: leave it for good. */
		(void)pthread_mutex_lock(&w.m);
		w.cancelled = w.lost = 1;
		(void)pthread_mutex_unlock(&w.m);
		if (sl->on_signal != NULL)
			sl->on_signal(sig);
	}
	/* A caller that blocked the four itself (cmd-run does, for the
	 * whole call) gets its mask back unchanged: no call to make. */
	if (sigismember(&old, SIGINT) != 1 || sigismember(&old, SIGTERM) != 1 ||
	    sigismember(&old, SIGHUP) != 1 || sigismember(&old, SIGQUIT) != 1)
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return lmdb_wait_result(sl, sig, err);
}

int
lmdb_wait_lost(void)
{
	return w.lost;
}
