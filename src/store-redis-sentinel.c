/* SPDX-License-Identifier: ISC */
/*
 * store-redis-sentinel.c: the fleet store's master found through Redis
 * Sentinel (SPEC section 9, "High availability"): the sentinels of a
 * redis-sentinel:// URL are asked in turn, SENTINEL
 * get-master-addr-by-name MASTER; the address one names is connected to
 * (AUTH, SELECT) and must say with ROLE that it is the master, since a
 * sentinel that has not yet seen a failover may name the old one, now a
 * replica, or a dead one.  Everything shares the connection's
 * store_timeout: each sentinel gets an equal share of what is left, one
 * share being kept for the master, so that one sentinel that does not
 * answer leaves time for the others.  A call that finds no master fails
 * as for any Redis that does not answer (fallback or on_store_error);
 * the next call asks again, and so finds a new master by itself.
 * CBEXEC_SENTINEL_PASSWORD (sr->sentinel_password) authenticates to the
 * sentinels, CBEXEC_REDIS_PASSWORD to the master.  One of the files that
 * include hiredis.h (store-redis-int.h).  redis_connect, the way in for
 * every operation, is here too: it picks the URL's server or Sentinel's
 * master, above the connection's calls (store-redis-conn.c).
 * SPDX-License-Identifier: ISC
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "clock.h"
#include "redis-url.h"
#include "store.h"
#include "store-redis-int.h"
#include "util.h"

/* Addresses named by a sentinel that proved not to be the master. */
struct sentinel_bad {
	char	addr[REDIS_SENTINELS_MAX][300];
	size_t	n;
};

/*
 * A reason for the final message, which names the state once: the
 * " in state 'URL'" of the message it came with taken out.
 */
static void
sentinel_unstate(const struct store_redis *sr, struct cb_err *why)
{
	char	pat[CB_ERR_MAX], *p;
	size_t	n;

	n = (size_t)snprintf(pat, sizeof pat, " in state '%s'", sr->s.path);
	if (n < sizeof pat && (p = strstr(why->msg, pat)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
}

/* "host:port", a v6 address in brackets. */
static void
sentinel_addr(char *buf, size_t len, const char *host, int port)
{
	if (strchr(host, ':') != NULL)
		snprintf(buf, len, "[%.250s]:%d", host, port);
	else
		snprintf(buf, len, "%.250s:%d", host, port);
}

/*
 * Ask sentinel a for the master's address, into host (of hostlen) and
 * *port, within sr->deadline.  0, 1 the sentinel knows no such master
 * (why filled), -1 no answer (why filled).  The connection is closed.
 */
static int
sentinel_ask(struct store_redis *sr, const struct redis_addr *a,
    char *host, size_t hostlen, int *port, struct cb_err *why)
{
	redisReply	*r;
	const char	*argv[3];
	char		 who[320], name[300], what[340];
	long		 v;
	char		*end;
	int		 rc = -1;

	sentinel_addr(name, sizeof name, a->host, a->port);
	snprintf(who, sizeof who, "sentinel %s", name);
	snprintf(what, sizeof what, "cannot connect to %s", who);
	if (redis_open_tcp(sr, a->host, a->port, what, why) == -1 ||
	    redis_session(sr, who, NULL, sr->sentinel_password, 0, why) == -1)
		goto out;
	snprintf(who, sizeof who, "cannot ask sentinel %s", name);
	argv[0] = "SENTINEL";
	argv[1] = "get-master-addr-by-name";
	argv[2] = sr->u.master;
	if ((r = redis_call(sr, who, 3, argv, NULL, why)) == NULL)
		goto out;
	if (r->type == REDIS_REPLY_NIL) {
		err_set(why, "sentinel %s knows no master '%.100s'", name,
		    sr->u.master);
		rc = 1;
	} else if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
	    r->element[0]->type != REDIS_REPLY_STRING ||
	    r->element[1]->type != REDIS_REPLY_STRING ||
	    r->element[0]->len == 0 || r->element[0]->len >= hostlen ||
	    (v = strtol(r->element[1]->str, &end, 10), *end != '\0') ||
	    v < 1 || v > 65535)
		redis_bad_reply(sr, who, r, why);
	else {
		memcpy(host, r->element[0]->str, r->element[0]->len);
		host[r->element[0]->len] = '\0';
		*port = (int)v;
		rc = 0;
	}
	freeReplyObject(r);
out:
	if (sr->c != NULL) {
		redisFree(sr->c);
		sr->c = NULL;
	}
	return rc;
}

/*
 * Connect to the address a sentinel named, AUTH, ROLE, SELECT, within
 * sr->deadline.  0 with sr->c the master's connection, or -1 with why
 * filled and sr->c NULL.
 */
static int
sentinel_master(struct store_redis *sr, const char *host, int port,
    const char *addr, const char *by, struct cb_err *why)
{
	redisReply	*r;
	const char	*argv[1] = { "ROLE" };
	char		 what[700], conn[720];
	int		 ok;

	snprintf(what, sizeof what, "master %s named by sentinel %s", addr,
	    by);
	snprintf(conn, sizeof conn, "cannot connect to %s", what);
	if (redis_open_tcp(sr, host, port, conn, why) == -1 ||
	    redis_session(sr, what, sr->u.user, sr->password, 0, why) == -1)
		return -1;
	if ((r = redis_call(sr, what, 1, argv, NULL, why)) == NULL)
		return -1;
	ok = r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
	    r->element[0]->type == REDIS_REPLY_STRING &&
	    strcmp(r->element[0]->str, "master") == 0;
	if (!ok) {
		if (r->type == REDIS_REPLY_ERROR)
			redis_bad_reply(sr, what, r, why);
		else
			err_set(why, "sentinel %s named %s as master of "
			    "'%.100s', but it is not (ROLE: %.20s)", by, addr,
			    sr->u.master, r->type == REDIS_REPLY_ARRAY &&
			    r->elements > 0 && r->element[0]->type ==
			    REDIS_REPLY_STRING ? r->element[0]->str : "?");
	}
	freeReplyObject(r);
	if (ok && redis_session(sr, what, NULL, NULL, sr->u.db, why) == 0)
		return 0;
	if (sr->c != NULL) {
		redisFree(sr->c);
		sr->c = NULL;
	}
	return -1;
}

int
redis_sentinel_connect(struct store_redis *sr, struct cb_err *err)
{
	struct sentinel_bad	 bad;
	struct cb_err		 why;
	const struct redis_addr	*a;
	char			 host[256], addr[300], by[300];
	int64_t			 end, now;
	size_t			 i, j, n = sr->u.nsentinels;
	int			 port, late = 0;

	sr->master[0] = sr->named_by[0] = '\0';
	bad.n = 0;
	end = sr->deadline;
	err_set(&why, "no sentinel answered");
	for (i = 0; i < n; i++) {
		a = &sr->u.sentinels[i];
		sentinel_addr(by, sizeof by, a->host, a->port);
		/* An equal share of what is left, one kept for the master. */
		if ((now = clock_mono_ms()) >= end)
			break;
		sr->deadline = now + (end - now) / (int64_t)(n - i + 1);
		sr->timedout = 0;
		if (sentinel_ask(sr, a, host, sizeof host, &port, &why) != 0) {
			late |= sr->timedout;
			continue;
		}
		sr->deadline = end;
		sentinel_addr(addr, sizeof addr, host, port);
		for (j = 0; j < bad.n && strcmp(bad.addr[j], addr) != 0; j++)
			;
		if (j < bad.n)
			continue;
		sr->timedout = 0;
		if (sentinel_master(sr, host, port, addr, by, &why) == 0) {
			snprintf(sr->master, sizeof sr->master, "%s", addr);
			snprintf(sr->named_by, sizeof sr->named_by, "%s", by);
			sr->deadline = end;
			sr->s.down = 0;
			sr->timedout = 0;
			return 0;
		}
		late |= sr->timedout;
		if (bad.n < REDIS_SENTINELS_MAX)
			snprintf(bad.addr[bad.n++], sizeof bad.addr[0], "%s",
			    addr);
	}
	sr->deadline = end;
	if (i < n)
		late = 1;
	sentinel_unstate(sr, &why);
	err_set(err, "no master '%.100s' found in state '%s'%s: %s",
	    sr->u.master, sr->s.path, late ? " within the store_timeout" :
	    "", why.msg);
	sr->timedout = late;
	sr->s.down = 1;
	return -1;
}

int
store_redis_master(struct store *s, char *buf, size_t len)
{
	struct store_redis	*sr = (struct store_redis *)s;

	if (s == NULL || strcmp(s->ops->kind, "redis") != 0 ||
	    sr->u.master == NULL || sr->master[0] == '\0')
		return -1;
	snprintf(buf, len, "%s, named by sentinel %s", sr->master,
	    sr->named_by);
	return 0;
}

/* Connect, AUTH and SELECT, unless a healthy connection exists. */
int
redis_connect(struct store_redis *sr, struct cb_err *err)
{
	static const char	what[] = "cannot connect to Redis";
	int			rc;

	if (sr->c != NULL) {
		if (sr->c->err == 0)
			return 0;
		redisFree(sr->c);
		sr->c = NULL;
	}
	sr->readonly = 0;
	sr->deadline = clock_mono_ms() + sr->timeout_ms;
	sr->connecting = 1;
	if (sr->u.master != NULL)
		rc = redis_sentinel_connect(sr, err);
	else {
		if (sr->u.sock != NULL) {
			sr->c = redisConnectUnixNonBlock(sr->u.sock);
			rc = redis_connected(sr, what, err);
		} else
			rc = redis_open_tcp(sr, sr->u.host, sr->u.port, what,
			    err);
		if (rc == 0)
			rc = redis_session(sr, "Redis", sr->u.user,
			    sr->password, sr->u.db, err);
	}
	sr->connecting = 0;
	return rc;
}
