/* SPDX-License-Identifier: ISC */
/*
 * hold-writer.c: a test tool.  `hold-writer PATH` opens the LMDB state
 * file at PATH, begins a write transaction, says "held" on stdout and keeps
 * the writer lock until its stdin closes.  Tests use it to stop cbexec
 * inside a store update on purpose.  `hold-writer -r PATH` holds a read
 * transaction instead, and so a slot of the reader table (which a
 * SIGKILL leaves behind, stale).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

int
main(int argc, char **argv)
{
	MDB_env	*env;
	MDB_txn	*txn;
	char	 c;
	int	 rc, rdonly = 0;

	if (argc == 3 && strcmp(argv[1], "-r") == 0) {
		rdonly = MDB_RDONLY;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: hold-writer [-r] PATH\n");
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
	while (read(STDIN_FILENO, &c, 1) > 0)
		continue;
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return 0;
}
