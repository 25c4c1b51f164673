/* SPDX-License-Identifier: ISC */
/*
 * redis-url.h: the URL of a Redis state (SPEC section 9), parsed.  Pure:
 * libc only, so that the parser builds and is tested without hiredis.
 */
#ifndef CBEXEC_REDIS_URL_H
#define CBEXEC_REDIS_URL_H

#include <stddef.h>

#include "util.h"

#define REDIS_PORT		6379
#define REDIS_SENTINEL_PORT	26379
/* Sentinels one URL may name. */
#define REDIS_SENTINELS_MAX	16

/* A TCP address as the URL wrote it: a host name or a numeric address. */
struct redis_addr {
	char	*host;
	int	 port;
};

/*
 * A parsed URL: TCP host and port, a unix socket path, or the sentinels
 * to ask for MASTER's address; a database.
 */
struct redis_url {
	char			*host;	/* NULL for a unix socket, sentinels */
	int			 port;
	char			*sock;	/* NULL for TCP */
	char			*user;	/* AUTH user (to the master), or NULL */
	long			 db;
	char			*master;	/* redis-sentinel://: the name */
	struct redis_addr	*sentinels;	/* ... and whom to ask, in turn */
	size_t			 nsentinels;
};

/*
 * Parse redis://[user@]host[:port][/db] (host may be [v6addr]),
 * unix:/path[?db=N] or
 * redis-sentinel://[user@]host[:port][,host[:port]...]/master[/db] (port
 * 26379 when left out) into u (every string in new memory).  Returns 0,
 * or -1 after filling err; messages never repeat the URL, which might
 * hold a password, and a password in it is refused.
 */
int	redis_url_parse(const char *, struct redis_url *, struct cb_err *);
/* Free u's strings and zero it. */
void	redis_url_free(struct redis_url *);

/* What a state setting names. */
enum state_kind {
	STATE_FILE,		/* a path (absolute or not) */
	STATE_REDIS,		/* redis:// or unix: */
	STATE_SENTINEL,		/* redis-sentinel:// */
	STATE_UNKNOWN		/* SCHEME:// of no store cbexec has */
};

/*
 * The kind of state s names.  A SCHEME:// prefix (RFC 3986 scheme
 * characters) that is not one of ours is STATE_UNKNOWN, never a relative
 * path: "redis-sentinal://..." would otherwise make a directory.
 */
enum state_kind	redis_state_kind(const char *s);

/*
 * Check a state setting: an unknown scheme, a URL that does not parse
 * and, with want_absolute (the config file's `state`: cron's working
 * directory is not the user's), a relative path are refused.  Returns
 * 0, or -1 with err holding a message that starts lower-case and never
 * repeats a URL.
 */
int	redis_state_check(const char *s, int want_absolute, struct cb_err *);

#endif
