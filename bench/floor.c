/* SPDX-License-Identifier: ISC */
/*
 * floor.c: the least any LMDB-backed circuit breaker can do per call, the
 * yardstick `make bench` holds cbexec against.  Open the environment, one
 * write transaction that reads a small record and writes it back changed,
 * fork/exec the command and wait for it, a second write transaction of the
 * same kind, exit.  With "-n" the fork/exec is left out: the floor of a
 * refusal.  No config, no policy, no signal handling, no process group:
 * only what the storage and the process model force on every breaker.  The
 * environment is opened with the flags cbexec uses (MDB_NOSUBDIR,
 * MDB_NOTLS, and the sync mode, meta unless -S says otherwise, as cbexec's
 * default), and the record is as big as a closed breaker's (RECSIZE bytes),
 * so the two do the same disk work.
 *
 *	floor [-n] [-S full|meta|none] STATE NAME [COMMAND [ARG...]]
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#define RECSIZE	190

static void
die(const char *what, int rc)
{
	fprintf(stderr, "floor: %s: %s\n", what, mdb_strerror(rc));
	exit(125);
}

/* One read-modify-write of NAME's record: a counter in its first bytes. */
static void
bump(MDB_env *env, MDB_dbi dbi, const char *name)
{
	uint8_t		 rec[RECSIZE];
	MDB_txn		*txn;
	MDB_val		 key, val;
	uint64_t	 n = 0;
	int		 rc;

	key.mv_data = (void *)name;
	key.mv_size = strlen(name);
	if ((rc = mdb_txn_begin(env, NULL, 0, &txn)) != 0)
		die("mdb_txn_begin", rc);
	memset(rec, 0, sizeof rec);
	rc = mdb_get(txn, dbi, &key, &val);
	if (rc == 0 && val.mv_size == sizeof rec)
		memcpy(rec, val.mv_data, sizeof rec);
	else if (rc != 0 && rc != MDB_NOTFOUND)
		die("mdb_get", rc);
	memcpy(&n, rec, sizeof n);
	n++;
	memcpy(rec, &n, sizeof n);
	val.mv_data = rec;
	val.mv_size = sizeof rec;
	if ((rc = mdb_put(txn, dbi, &key, &val, 0)) != 0)
		die("mdb_put", rc);
	if ((rc = mdb_txn_commit(txn)) != 0)
		die("mdb_txn_commit", rc);
}

int
main(int argc, char **argv)
{
	MDB_env		*env;
	MDB_txn		*txn;
	MDB_dbi		 dbi;
	unsigned int	 flags = MDB_NOSUBDIR | MDB_NOTLS;
	unsigned int	 sync = MDB_NOMETASYNC;	/* cbexec's default */
	pid_t		 pid;
	int		 ch, rc, noexec = 0, status = 0;

	while ((ch = getopt(argc, argv, "+nS:")) != -1) {
		switch (ch) {
		case 'n':
			noexec = 1;
			break;
		case 'S':
			if (strcmp(optarg, "meta") == 0)
				sync = MDB_NOMETASYNC;
			else if (strcmp(optarg, "none") == 0)
				sync = MDB_NOSYNC;
			else if (strcmp(optarg, "full") == 0)
				sync = 0;
			else
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || (!noexec && argc < 3))
		goto usage;

	if ((rc = mdb_env_create(&env)) != 0)
		die("mdb_env_create", rc);
	if ((rc = mdb_env_open(env, argv[0], flags | sync, 0600)) != 0)
		die(argv[0], rc);
	if ((rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) != 0 ||
	    (rc = mdb_dbi_open(txn, NULL, 0, &dbi)) != 0 ||
	    (rc = mdb_txn_commit(txn)) != 0)
		die("mdb_dbi_open", rc);

	bump(env, dbi, argv[1]);
	if (!noexec) {
		if ((pid = fork()) == -1) {
			perror("floor: fork");
			return 125;
		}
		if (pid == 0) {
			execvp(argv[2], argv + 2);
			_exit(errno == ENOENT ? 127 : 126);
		}
		while (waitpid(pid, &status, 0) == -1)
			if (errno != EINTR) {
				perror("floor: waitpid");
				return 125;
			}
	}
	bump(env, dbi, argv[1]);
	mdb_env_close(env);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
usage:
	fprintf(stderr, "usage: floor [-n] [-S full|meta|none] STATE NAME "
	    "[COMMAND [ARG...]]\n");
	return 125;
}
