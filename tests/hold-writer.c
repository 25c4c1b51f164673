/* SPDX-License-Identifier: ISC */
/*
 * hold-writer.c: a test tool.  `hold-writer PATH` opens the LMDB state
 * file at PATH, begins a write transaction, says "held" on stdout and keeps
 * the writer lock until its stdin closes.  Tests use it to stop cbexec
 * inside a store update on purpose.  `hold-writer -r PATH` holds a read
 * transaction instead, and so a slot of the reader table (which a
 * SIGKILL leaves behind, stale).  Two more do what a member of the
 * state's group can do to the lock file PATH-lock directly, without
 * LMDB: `-R` locks the reader table's mutex and holds it the same way,
 * and `-k KIND` writes KIND (glibc's mutex kind, a number) into the
 * writer mutex and exits.  Those two know LMDB 0.9's lock file on LP64
 * with POSIX robust mutexes: the reader table's mutex 8 bytes in, the
 * writer's at the second 64-byte cache line.
 */
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#define RMUTEX_OFF	8
#define WMUTEX_OFF	64
#define LOCK_MAP	128

static void
wait_stdin(void)
{
	char	c;

	while (read(STDIN_FILENO, &c, 1) > 0)
		continue;
}

/* The lock file of state PATH, mapped shared: what a member can write. */
static char *
map_lock(const char *path)
{
	char	 name[4096];
	void	*p;
	int	 fd;

	if ((size_t)snprintf(name, sizeof name, "%s-lock", path) >=
	    sizeof name || (fd = open(name, O_RDWR)) == -1) {
		perror("hold-writer: lock file");
		exit(1);
	}
	p = mmap(NULL, LOCK_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("hold-writer: mmap");
		exit(1);
	}
	(void)close(fd);
	return p;
}

static int
hold_rmutex(const char *path)
{
	pthread_mutex_t	*m;
	int		 rc;

	m = (pthread_mutex_t *)(void *)(map_lock(path) + RMUTEX_OFF);
	if ((rc = pthread_mutex_lock(m)) == EOWNERDEAD)
		rc = pthread_mutex_consistent(m);
	if (rc != 0) {
		fprintf(stderr, "hold-writer: reader table mutex: %s\n",
		    strerror(rc));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	wait_stdin();
	(void)pthread_mutex_unlock(m);
	return 0;
}

static int
set_kind(const char *kind, const char *path)
{
	pthread_mutex_t	*m;

	m = (pthread_mutex_t *)(void *)(map_lock(path) + WMUTEX_OFF);
	m->__data.__kind = atoi(kind);
	return 0;
}

int
main(int argc, char **argv)
{
	MDB_env	*env;
	MDB_txn	*txn;
	int	 rc, rdonly = 0;

	if (argc == 3 && strcmp(argv[1], "-R") == 0)
		return hold_rmutex(argv[2]);
	if (argc == 4 && strcmp(argv[1], "-k") == 0)
		return set_kind(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "-r") == 0) {
		rdonly = MDB_RDONLY;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: hold-writer [-r | -R] PATH\n"
		    "       hold-writer -k KIND PATH\n");
		return 2;
	}
	if ((rc = mdb_env_create(&env)) != 0 ||
	    (rc = mdb_env_open(env, argv[1], MDB_NOSUBDIR, 0600)) != 0 ||
	    (rc = mdb_txn_begin(env, NULL, rdonly, &txn)) != 0) {
		fprintf(stderr, "hold-writer: %s\n", mdb_strerror(rc));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	wait_stdin();
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return 0;
}
