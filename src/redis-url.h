/* SPDX-License-Identifier: ISC */
/*
 * redis-url.h: the URL of a Redis state (SPEC section 9), parsed.  Pure:
 * libc only, so that the parser builds and is tested without hiredis.
 */
#ifndef CBEXEC_REDIS_URL_H
#define CBEXEC_REDIS_URL_H

#include "util.h"

#define REDIS_PORT	6379

/* A parsed URL: TCP host and port, or a unix socket path; a database. */
struct redis_url {
	char	*host;		/* NULL for a unix socket */
	int	 port;
	char	*sock;		/* NULL for TCP */
	char	*user;		/* AUTH user, or NULL */
	long	 db;
};

/*
 * Parse redis://[user@]host[:port][/db] (host may be [v6addr]) or
 * unix:/path[?db=N] into u (every string in new memory).  Returns 0, or
 * -1 after filling err; messages never repeat the URL, which might hold
 * a password, and a password in it is refused.
 */
int	redis_url_parse(const char *, struct redis_url *, struct cb_err *);
/* Free u's strings and zero it. */
void	redis_url_free(struct redis_url *);

#endif
