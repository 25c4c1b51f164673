/* SPDX-License-Identifier: ISC */
/*
 * preset.c: the presets' exit code tables (SPEC section 3), each taken
 * from its tool's own manual.  cbexec.conf(5) prints these tables; keep the
 * two in step.  Pure: libc only.
 */
#include <stddef.h>
#include <string.h>

#include "preset.h"

/*
 * Presets.  Each failure class holds the codes whose documented meaning is
 * "could not reach or talk to the other side"; success is 0.  Every other
 * code means the dependency answered and the job has a problem of its own,
 * so it is left out of all three classes and counts as a success (SPEC
 * section 3).  No preset ignores anything.  cbexec.conf(5) prints these
 * tables; keep the two in step.
 */
struct preset {
	const char	*name;
	const char	*cls[PRESET_CLASSES];	/* failure, success, ignore */
};

static const struct preset presets[] = {
	/*
	 * curl(1), EXIT CODES: 5 could not resolve proxy, 6 could not
	 * resolve host, 7 failed to connect to host, 28 operation timeout,
	 * 35 SSL connect error (handshake failed), 52 the server did not
	 * reply anything, 55 failed sending network data, 56 failure in
	 * receiving network data, 96 QUIC connection error, 97 proxy
	 * handshake error.  22 (HTTP error with --fail) means the server
	 * answered and is left to the job.
	 */
	{ "curl", { "5-7,28,35,52,55-56,96-97", "0", "none" } },
	/*
	 * wget(1), EXIT STATUS: 4 network failure.  5 (SSL verification
	 * failure), 6 (authentication), 7 (protocol errors) and 8 (server
	 * issued an error response) mean something answered.
	 */
	{ "wget", { "4", "0", "none" } },
	/*
	 * ssh(1), EXIT STATUS: "ssh exits with the exit status of the
	 * remote command or with 255 if an error occurred".
	 */
	{ "ssh", { "255", "0", "none" } },
	/*
	 * rsync(1), EXIT VALUES: 5 error starting client-server protocol,
	 * 10 error in socket I/O, 12 error in rsync protocol data stream,
	 * 30 timeout in data send/receive, 35 timeout waiting for daemon
	 * connection.
	 */
	{ "rsync", { "5,10,12,30,35", "0", "none" } },
	/*
	 * psql(1), Exit Status: 2 "if the connection to the server went
	 * bad and the session was not interactive".  1 is psql's own fatal
	 * error, 3 an error in a script with ON_ERROR_STOP.
	 */
	{ "psql", { "2", "0", "none" } },
	/*
	 * pg_isready(1), Exit Status: 1 "the server is rejecting
	 * connections (for example during startup)", 2 "there was no
	 * response to the connection attempt".  3 (no attempt was made,
	 * e.g. invalid parameters) is left to the job.
	 */
	{ "pg_isready", { "1-2", "0", "none" } },
};


#define NPRESETS	(sizeof presets / sizeof presets[0])

const char *
preset_name(int i)
{
	if (i < 0 || (size_t)i >= NPRESETS)
		return NULL;
	return presets[i].name;
}

int
preset_lookup(const char *name)
{
	size_t	i;

	for (i = 0; i < NPRESETS; i++) {
		if (strcmp(presets[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

struct cb_codeset
preset_class(int i, int cls)
{
	struct cb_codeset	s;

	memset(&s, 0, sizeof s);
	if (i < 0 || (size_t)i >= NPRESETS || cls < 0 ||
	    cls >= PRESET_CLASSES)
		return s;
	/* A constant of this file: parsing it cannot fail. */
	if (parse_codes(presets[i].cls[cls], &s, NULL) != 0)
		memset(&s, 0, sizeof s);
	return s;
}
