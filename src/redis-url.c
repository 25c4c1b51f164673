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
	size_t	i;

	free(u->host);
	free(u->sock);
	free(u->user);
	free(u->master);
	for (i = 0; i < u->nsentinels; i++)
		free(u->sentinels[i].host);
	free(u->sentinels);
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

/* unix:/path[?db=N] */
static int
url_unix(const char *p, struct redis_url *u, struct cb_err *err)
{
	const char	*q;

	if ((q = strchr(p, '?')) == NULL)
		q = p + strlen(p);
	else if (strncmp(q, "?db=", 4) != 0 ||
	    url_number(q + 4, q + strlen(q), 0, INT_MAX, &u->db) != 0) {
		err_set(err, "invalid Redis URL: after the socket path only "
		    "?db=N may follow");
		return -1;
	}
	if (*p != '/' || q - p < 2) {
		err_set(err, "invalid Redis URL: unix: wants an absolute "
		    "socket path (unix:/run/redis.sock)");
		return -1;
	}
	u->sock = xstrndup(p, (size_t)(q - p));
	return 0;
}

/* [user@] at p, before end; *pp moves past it. */
static int
url_user(const char **pp, const char *end, struct redis_url *u,
    struct cb_err *err)
{
	const char	*p = *pp, *at;

	if ((at = memchr(p, '@', (size_t)(end - p))) == NULL)
		return 0;
	if (memchr(p, ':', (size_t)(at - p)) != NULL) {
		err_set(err, "invalid Redis URL: a password in the URL is not "
		    "accepted (set CBEXEC_REDIS_PASSWORD)");
		return -1;
	}
	if (at == p) {
		err_set(err, "invalid Redis URL: empty user name before '@'");
		return -1;
	}
	u->user = xstrndup(p, (size_t)(at - p));
	*pp = at + 1;
	return 0;
}

/* host[:port] (host may be [v6addr]) spanning exactly [p, end). */
static int
url_hostport(const char *p, const char *end, int defport,
    struct redis_addr *a, const char *example, struct cb_err *err)
{
	const char	*h, *hend;
	long		 v;

	a->port = defport;
	if (*p == '[') {
		h = p + 1;
		if ((hend = memchr(h, ']', (size_t)(end - h))) == NULL)
			hend = h;
		p = hend + 1;
	} else {
		h = p;
		if ((hend = memchr(h, ':', (size_t)(end - h))) == NULL)
			hend = end;
		p = hend;
	}
	if (hend == h) {
		err_set(err, "invalid Redis URL: no host (%s)", example);
		return -1;
	}
	if (p < end) {
		if (*p != ':' ||
		    url_number(p + 1, end, 1, 65535, &v) != 0) {
			err_set(err, "invalid Redis URL: the port must be a "
			    "number from 1 to 65535");
			return -1;
		}
		a->port = (int)v;
	}
	a->host = xstrndup(h, (size_t)(hend - h));
	return 0;
}

/* redis://[user@]host[:port][/db] past its scheme. */
static int
url_redis(const char *p, struct redis_url *u, struct cb_err *err)
{
	struct redis_addr	 a;
	const char		*end;

	if ((end = strchr(p, '/')) == NULL)
		end = p + strlen(p);
	if (url_user(&p, end, u, err) == -1 ||
	    url_hostport(p, end, REDIS_PORT, &a, "redis://host:6379/0",
	    err) == -1)
		return -1;
	u->host = a.host;
	u->port = a.port;
	if (*end == '/' && end[1] != '\0' &&
	    url_number(end + 1, end + strlen(end), 0, INT_MAX, &u->db) != 0) {
		err_set(err, "invalid Redis URL: the path must be a database "
		    "number (redis://host:6379/0)");
		return -1;
	}
	return 0;
}

/*
 * redis-sentinel://[user@]host[:port][,host[:port]...]/master[/db] past
 * its scheme.  A master's name is printable ASCII without '/' or space.
 */
static int
url_sentinel(const char *p, struct redis_url *u, struct cb_err *err)
{
	static const char	 ex[] =
	    "redis-sentinel://host:26379,host:26379/mymaster/0";
	const char		*end, *comma, *m, *mend;

	if ((end = strchr(p, '/')) == NULL)
		end = p + strlen(p);
	if (url_user(&p, end, u, err) == -1)
		return -1;
	u->sentinels = xcalloc(REDIS_SENTINELS_MAX, sizeof *u->sentinels);
	for (;;) {
		if ((comma = memchr(p, ',', (size_t)(end - p))) == NULL)
			comma = end;
		if (u->nsentinels == REDIS_SENTINELS_MAX) {
			err_set(err, "invalid Redis URL: more than %d "
			    "sentinels", REDIS_SENTINELS_MAX);
			return -1;
		}
		if (url_hostport(p, comma, REDIS_SENTINEL_PORT,
		    &u->sentinels[u->nsentinels], ex, err) == -1)
			return -1;
		u->nsentinels++;
		if (comma == end)
			break;
		p = comma + 1;
	}
	m = *end == '/' ? end + 1 : end;
	if ((mend = strchr(m, '/')) == NULL)
		mend = m + strlen(m);
	for (p = m; p < mend && *p > 0x20 && *p < 0x7f; p++)
		;
	if (mend == m || p != mend) {
		err_set(err, "invalid Redis URL: the sentinel URL must name "
		    "the master, printable and without spaces (%s)", ex);
		return -1;
	}
	u->master = xstrndup(m, (size_t)(mend - m));
	if (*mend == '/' && mend[1] != '\0' &&
	    url_number(mend + 1, mend + strlen(mend), 0, INT_MAX,
	    &u->db) != 0) {
		err_set(err, "invalid Redis URL: after the master's name must "
		    "come a database number (%s)", ex);
		return -1;
	}
	return 0;
}

/*
 * redis://, unix: or redis-sentinel:// (see redis-url.h).  Messages never
 * repeat the URL: it might hold a password.
 */
int
redis_url_parse(const char *url, struct redis_url *u, struct cb_err *err)
{
	int	rc;

	memset(u, 0, sizeof *u);
	if (strncmp(url, "unix:", 5) == 0)
		rc = url_unix(url + 5, u, err);
	else if (strncmp(url, "redis://", 8) == 0)
		rc = url_redis(url + 8, u, err);
	else if (strncmp(url, "redis-sentinel://", 17) == 0)
		rc = url_sentinel(url + 17, u, err);
	else {
		err_set(err, "invalid Redis URL: must start with redis://, "
		    "redis-sentinel:// or unix:");
		rc = -1;
	}
	if (rc == -1)
		redis_url_free(u);
	return rc;
}

enum state_kind
redis_state_kind(const char *s)
{
	const char	*p;

	if (strncmp(s, "redis://", 8) == 0 || strncmp(s, "unix:", 5) == 0)
		return STATE_REDIS;
	if (strncmp(s, "redis-sentinel://", 17) == 0)
		return STATE_SENTINEL;
	/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
	p = s;
	if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' ||
		    *p == '.')
			p++;
		if (strncmp(p, "://", 3) == 0)
			return STATE_UNKNOWN;
	}
	return STATE_FILE;
}

int
redis_state_check(const char *s, int want_absolute, struct cb_err *err)
{
	struct redis_url	u;
	size_t			n;

	switch (redis_state_kind(s)) {
	case STATE_REDIS:
	case STATE_SENTINEL:
		if (redis_url_parse(s, &u, err) == -1)
			return -1;
		redis_url_free(&u);
		return 0;
	case STATE_UNKNOWN:
		n = strcspn(s, ":");
		err_set(err, "unknown scheme '%.*s://': cbexec knows "
		    "redis://, redis-sentinel:// and unix:, and file paths",
		    n > 40 ? 40 : (int)n, s);
		return -1;
	default:
		break;
	}
	if (want_absolute && s[0] != '/') {
		err_set(err, "must be an absolute path or a Redis URL, not "
		    "'%.200s' (cron's working directory is not yours)", s);
		return -1;
	}
	return 0;
}
