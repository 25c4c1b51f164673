/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb-wait.c: every wait on the local store's locks is bounded by
 * lock_timeout and ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT (SPEC 5:
 * whoever may write the state cannot hang cbexec).
 *
 * LMDB's writer and reader-table locks are process-shared robust mutexes
 * in the lock file, which LMDB takes with pthread_mutex_lock: no deadline,
 * and the wait restarts after a signal.  A lock of our own taken in front
 * of LMDB's would bound only cbexec against cbexec: a member of the group
 * that holds LMDB's mutex with another LMDB program never takes ours.  So
 * cbexec defines pthread_mutex_lock itself.  The dynamic linker binds
 * every call from a shared object to the program's own definition first,
 * so LMDB's calls come here whether liblmdb is linked in (make) or shared
 * (the Debian package); glibc's own calls use its internal name and never
 * do.  It takes a free mutex at once and waits for a held one in slices
 * (pthread_mutex_clocklock, which also lets go of a mutex that turns out
 * not recoverable, where trylock keeps it).  Inside a stretch marked by
 * lmdb_wait_enter .. lmdb_wait_leave, on the thread that called
 * lmdb_wait_call, the wait ends past lock_timeout (ETIMEDOUT) or on one of
 * the four signals (EINTR), which lmdb_wait_call blocks for the whole
 * operation; LMDB hands either back from mdb_txn_begin with nothing held.
 * One wait is never left by returning into LMDB: the one LMDB makes for
 * the reader table's lock while it repairs a writer lock whose owner died
 * (EOWNERDEAD), as LMDB would then unlock the writer lock unrepaired, not
 * recoverable for every process.  Past lock_timeout there, the call goes
 * on in a child process, which holds no LMDB lock and meets the wait as
 * timed out, and the thread that holds the writer lock ends without
 * letting go of it, leaving it owner-dead for the next writer to repair
 * (lmdb_wait_abandon); a signal ends the process (on_signal), which
 * leaves it so too.  Inside a marked stretch every mutex is one of LMDB's
 * two in the lock file, which whoever may write that file can turn into
 * a kind that glibc aborts on (priority protection): a mutex of any kind
 * but the robust, process-shared one LMDB makes is refused (EINVAL).
 * The shared lock on the lock file's first byte is ours
 * (store-lmdb-open.c), tried again each slice.  Cost: nothing while the
 * locks are free (bench/README.md); a held one wakes the waiter every
 * LMDB_WAIT_SLICE_MS.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spawn-child.h"
#include "store-lmdb-int.h"
#include "units.h"
#include "util.h"

/* How long a waiter sleeps between looks at the signals and the clock. */
#define LMDB_WAIT_SLICE_MS	20

/* The wait of this thread: one operation at a time.  Another thread's
 * calls (a resolver's) are never bounded. */
static _Thread_local struct {
	int64_t		 timeout_ms;	/* lock_timeout of the operation */
	int64_t		 since;		/* the marked stretch began, ms */
	void		(*on_signal)(int);
	int		 active;	/* inside a marked stretch */
	int		 recovering;	/* LMDB repairs a dead owner's lock */
	int		 stop;		/* that stretch's wait ended: sig, or
					 * timed out */
	int		 sig;
	int		 lost;		/* a wait lasted lock_timeout */
	int		 abandoned;	/* ... in LMDB's repair: this is the
					 * child that goes on */
	int		 bad_kind;	/* a mutex of a kind LMDB never makes */
	sigset_t	 sigs;		/* the four, unless ignored */
} w;

static int64_t
mono_ms(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int	lmdb_wait_abandon(void);

/*
 * Past one slice of a wait in a marked stretch: -1 (and w.stop) when
 * one of the four came, taken off the pending set, or lock_timeout
 * passed; 0 to go on waiting.  While LMDB recovers a lock, a signal ends
 * the process and lock_timeout goes on in a child (lmdb_wait_abandon).
 */
static int
wait_over(void)
{
	static const struct timespec	 now = { 0, 0 };
	int				 sig;

	if (w.recovering) {
		if ((sig = sigtimedwait(&w.sigs, NULL, &now)) > 0 &&
		    w.on_signal != NULL)
			w.on_signal(sig);
		if (mono_ms() - w.since >= w.timeout_ms)
			return lmdb_wait_abandon();
		return 0;
	}
	if (w.stop)
		return -1;
	if ((sig = sigtimedwait(&w.sigs, NULL, &now)) > 0) {
		w.sig = sig;
		w.stop = 1;
		return -1;
	}
	if (mono_ms() - w.since >= w.timeout_ms) {
		w.lost = w.stop = 1;
		return -1;
	}
	return 0;
}

/* What the parent's last thread needs: the child that goes on. */
struct lmdb_orphan {
	pid_t		child;
	sigset_t	sigs;		/* the four, passed on to it */
};

/*
 * The parent's thread after lmdb_wait_abandon: passes the four signals on
 * to the child and exits as it exits (128+N if a signal killed it).
 */
static void *
orphan_wait(void *a)
{
	struct lmdb_orphan	*o = a;
	pid_t			 r;
	int			 sig, st;

	for (;;) {
		if ((r = waitpid(o->child, &st, WNOHANG)) == o->child)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st));
		if (r == -1 && errno != EINTR)
			_exit(125);
		if ((sig = sigwaitinfo(&o->sigs, NULL)) > 0 && sig != SIGCHLD)
			(void)kill(o->child, sig);
	}
}

/*
 * lock_timeout passed while LMDB repairs a writer lock whose owner died,
 * waiting for the reader table's lock: this thread holds the writer lock,
 * not yet consistent, and must neither return into LMDB (which would
 * unlock it unrepaired) nor keep it while the call goes on.  A robust
 * mutex is a thread's and fcntl locks are not inherited, so a child holds
 * no LMDB lock: the child goes on with the call, the wait timed out (-1;
 * LMDB's unlock there is refused, EPERM), and in the parent this thread
 * ends, which leaves the writer lock owner-dead for the next writer to
 * repair, while a thread of its own waits for the child (orphan_wait).
 * If either cannot be had, the process ends (125), leaving it so too.
 */
static int
lmdb_wait_abandon(void)
{
	static struct lmdb_orphan	 o;
	struct sigaction		 sa, osa;
	sigset_t			 old;
	pthread_attr_t			 attr;
	pthread_t			 t;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	o.sigs = w.sigs;
	(void)sigaddset(&o.sigs, SIGCHLD);
	/* A child reaped behind our back would leave no status. */
	if (sigaction(SIGCHLD, &sa, &osa) == -1 ||
	    pthread_sigmask(SIG_BLOCK, &o.sigs, &old) != 0 ||
	    (o.child = fork()) == -1) {
		(void)dprintf(STDERR_FILENO, "cbexec: cannot leave LMDB's "
		    "repair of a dead writer's lock: %s\n", strerror(errno));
		_exit(125);
	}
	if (o.child == 0) {
		(void)sigaction(SIGCHLD, &osa, NULL);
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
		w.recovering = 0;
		w.abandoned = w.lost = w.stop = 1;
		return -1;
	}
	if (pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) != 0 ||
	    pthread_create(&t, &attr, orphan_wait, &o) != 0) {
		(void)kill(o.child, SIGKILL);
		_exit(125);
	}
	/* This thread only: its robust list marks the writer lock
	 * owner-dead; glibc's pthread_exit would unwind through LMDB. */
	for (;;)
		(void)syscall(SYS_exit, 0);
}

/*
 * The kind of the robust, process-shared mutex LMDB makes (mdb.c,
 * mdb_env_setup_locks), as this glibc writes it; -1 if unknown.
 */
static int
lmdb_mutex_kind(void)
{
	static int		 kind = -2;
	pthread_mutexattr_t	 a;
	pthread_mutex_t		 m;

	if (kind != -2)
		return kind;
	kind = -1;
	if (pthread_mutexattr_init(&a) != 0)
		return kind;
	if (pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0 &&
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0 &&
	    pthread_mutex_init(&m, &a) == 0) {
		kind = m.__data.__kind;
		(void)pthread_mutex_destroy(&m);
	}
	(void)pthread_mutexattr_destroy(&a);
	return kind;
}

static struct timespec
slice_end(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += LMDB_WAIT_SLICE_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* LMDB's lock calls, here first: see the top of this file. */
int
pthread_mutex_lock(pthread_mutex_t *m)
{
	struct timespec	ts;
	int		rc, kind;

	/* In a marked stretch, LMDB's own: of LMDB's kind, or refused. */
	if (w.active && (kind = lmdb_mutex_kind()) != -1 &&
	    __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) != kind) {
		w.bad_kind = 1;
		return EINVAL;
	}
	/* 0, EOWNERDEAD (taken, its owner died: LMDB recovers), an error,
	 * or ETIMEDOUT after a slice: held. */
	for (;;) {
		ts = slice_end();
		if ((rc = pthread_mutex_clocklock(m, CLOCK_MONOTONIC,
		    &ts)) != ETIMEDOUT)
			break;
		if (w.active && wait_over() != 0)
			return w.sig != 0 ? EINTR : ETIMEDOUT;
	}
	if (rc == EOWNERDEAD && w.active)
		w.recovering = 1;
	return rc;
}

int
lmdb_wait_pause(void)
{
	struct timespec	ts = { 0, LMDB_WAIT_SLICE_MS * 1000000L };
	int		sig;

	if (w.stop)
		return -1;
	/* One slice, or less when one of the four comes (blocked). */
	if ((sig = sigtimedwait(&w.sigs, NULL, &ts)) > 0) {
		w.sig = sig;
		w.stop = 1;
	}
	return wait_over();
}

int
lmdb_wait_enter(void)
{
	w.active = 1;
	w.recovering = 0;
	w.since = mono_ms();
	return w.stop ? -1 : 0;
}

int
lmdb_wait_leave(void)
{
	w.active = w.recovering = 0;
	return w.stop ? -1 : 0;
}

/* -1 with err: a wait lasted lock_timeout, in this call or (again) in an
 * earlier one. */
static int
wait_timed_out(const struct store_lmdb *sl, int again, struct cb_err *err)
{
	char	d[32];

	format_duration(sl->lock_timeout_ms, d, sizeof d);
	if (again)
		err_set(err, "state '%s' is still locked by another process "
		    "(lock_timeout %s passed)", sl->s.path, d);
	else if (sl->pid_wait)
		err_set(err, "state '%s': byte %ld of its lock file, which "
		    "LMDB locks for a reader of pid %ld, stayed locked by "
		    "another process (of another PID namespace, with the same "
		    "pid) for lock_timeout (%s)", sl->s.path, (long)getpid(),
		    (long)getpid(), d);
	else if (w.abandoned)
		err_set(err, "state '%s': repairing the lock of a writer that "
		    "died, LMDB waited lock_timeout (%s) for the reader table, "
		    "locked by another process; left for the next writer",
		    sl->s.path, d);
	else
		err_set(err, "state '%s' stayed locked by another process "
		    "for lock_timeout (%s)", sl->s.path, d);
	errno = ETIMEDOUT;
	return -1;
}

int
lmdb_wait_call(struct store_lmdb *sl, lmdb_wait_fn fn, void *arg,
    struct cb_err *err)
{
	sigset_t	old;
	int		rc;

	if (w.lost)
		return wait_timed_out(sl, 1, err);
	w.timeout_ms = sl->lock_timeout_ms;
	w.on_signal = sl->on_signal;
	w.stop = w.sig = w.bad_kind = 0;
	/* Blocked, a signal that comes during the operation waits for its
	 * end, or ends a wait for a lock; one caller (cmd-run) blocks them
	 * for the whole call: no second call then. */
	/* The four that are not ignored (nohup and `&` leave them ignored,
	 * and then they must not end a wait); none if they cannot be read. */
	if (spawn_fwd_set(&w.sigs, NULL) == -1)
		sigemptyset(&w.sigs);
	(void)pthread_sigmask(SIG_BLOCK, &w.sigs, &old);
	rc = fn(sl, arg, err);
	w.active = w.recovering = 0;
	if (w.sig != 0) {
		/* Nothing was recorded: the caller exits 128+N. */
		if (sl->on_signal != NULL)
			sl->on_signal(w.sig);
		err_set(err, "state '%s': %s while waiting for it", sl->s.path,
		    strsignal(w.sig));
		rc = -1;
		errno = EINTR;
	} else if (w.stop)
		rc = wait_timed_out(sl, 0, err);
	else if (w.bad_kind) {
		err_set(err, "state '%s': its lock file holds a lock of a "
		    "kind LMDB never makes (written by another process?); "
		    "refusing it", sl->s.path);
		rc = -1;
		errno = EINVAL;
	}
	if (sigismember(&old, SIGINT) != 1 || sigismember(&old, SIGTERM) != 1 ||
	    sigismember(&old, SIGHUP) != 1 || sigismember(&old, SIGQUIT) != 1)
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
