/* SPDX-License-Identifier: ISC */
/*
 * redis-url.c: the URL of a Redis state, parsed (see redis-url.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "redis-url.h"
#include "util.h"

void
redis_url_free(struct redis_url *u)
{
	free(u->host);
	free(u->sock);
	free(u->user);
	memset(u, 0, sizeof *u);
}

/* A decimal number from lo to hi spanning exactly [s, end). */
static int
url_number(const char *s, const char *end, long lo, long hi, long *out)
{
	long	v = 0;

	if (s == end || end - s > 10)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/*
 * redis://[user@]host[:port][/db] (host may be [v6addr]) or
 * unix:/path[?db=N].  Messages never repeat the URL: it might hold a
 * password.
 */
int
redis_url_parse(const char *url, struct redis_url *u, struct cb_err *err)
{
	const char	*p, *end, *at, *h, *hend, *q;
	long		 v;

	memset(u, 0, sizeof *u);
	if (strncmp(url, "unix:", 5) == 0) {
		p = url + 5;
		if ((q = strchr(p, '?')) == NULL)
			q = p + strlen(p);
		else if (strncmp(q, "?db=", 4) != 0 ||
		    url_number(q + 4, q + strlen(q), 0, INT_MAX, &u->db) != 0) {
			err_set(err, "invalid Redis URL: after the socket path "
			    "only ?db=N may follow");
			return -1;
		}
		if (*p != '/' || q - p < 2) {
			err_set(err, "invalid Redis URL: unix: wants an "
			    "absolute socket path (unix:/run/redis.sock)");
			return -1;
		}
		u->sock = xstrndup(p, (size_t)(q - p));
		return 0;
	}
	if (strncmp(url, "redis://", 8) != 0) {
		err_set(err, "invalid Redis URL: must start with redis:// "
		    "or unix:");
		return -1;
	}
	p = url + 8;
	if ((end = strchr(p, '/')) == NULL)
		end = p + strlen(p);
	at = memchr(p, '@', (size_t)(end - p));
	if (at != NULL) {
		if (memchr(p, ':', (size_t)(at - p)) != NULL) {
			err_set(err, "invalid Redis URL: a password in the URL "
			    "is not accepted (set CBEXEC_REDIS_PASSWORD)");
			return -1;
		}
		if (at == p) {
			err_set(err, "invalid Redis URL: empty user name "
			    "before '@'");
			return -1;
		}
		u->user = xstrndup(p, (size_t)(at - p));
		p = at + 1;
	}
	u->port = REDIS_PORT;
	if (*p == '[') {
		h = p + 1;
		if ((hend = memchr(h, ']', (size_t)(end - h))) == NULL)
			goto bad_host;
		p = hend + 1;
	} else {
		h = p;
		if ((hend = memchr(h, ':', (size_t)(end - h))) == NULL)
			hend = end;
		p = hend;
	}
	if (hend == h)
		goto bad_host;
	if (p < end) {
		if (*p != ':' ||
		    url_number(p + 1, end, 1, 65535, &v) != 0) {
			err_set(err, "invalid Redis URL: the port must be a "
			    "number from 1 to 65535");
			goto fail;
		}
		u->port = (int)v;
	}
	u->host = xstrndup(h, (size_t)(hend - h));
	if (*end == '/' && end[1] != '\0' &&
	    url_number(end + 1, end + strlen(end), 0, INT_MAX, &u->db) != 0) {
		err_set(err, "invalid Redis URL: the path must be a database "
		    "number (redis://host:6379/0)");
		goto fail;
	}
	return 0;
bad_host:
	err_set(err, "invalid Redis URL: no host (redis://host:6379/0)");
fail:
	redis_url_free(u);
	return -1;
}
