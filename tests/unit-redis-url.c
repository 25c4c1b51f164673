/* SPDX-License-Identifier: ISC */
/*
 * unit-redis-url.c: the Redis state's URL parser (redis-url.c), which
 * reads the state setting and -s, and never repeats a password.
 */
#include <stdio.h>
#include <string.h>

#include "redis-url.h"
#include "unit.h"

/* url parses, into host (or sock), port, user and db as given. */
static void
good(const char *url, const char *host, int port, const char *sock,
    const char *user, long db)
{
	struct redis_url	u;
	struct cb_err		err;

	CHECK_EQ(redis_url_parse(url, &u, &err), 0);
	CHECK_STR(u.host != NULL ? u.host : "-", host != NULL ? host : "-");
	CHECK_STR(u.sock != NULL ? u.sock : "-", sock != NULL ? sock : "-");
	CHECK_STR(u.user != NULL ? u.user : "-", user != NULL ? user : "-");
	if (sock == NULL)
		CHECK_EQ(u.port, port);
	CHECK_EQ(u.db, db);
	redis_url_free(&u);
	CHECK(u.host == NULL && u.sock == NULL && u.user == NULL);
}

/* url is refused with a message holding want, and never the password. */
static void
bad(const char *url, const char *want)
{
	struct redis_url	u;
	struct cb_err		err;

	memset(&u, 0, sizeof u);
	CHECK_EQ(redis_url_parse(url, &u, &err), -1);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, "s3cret") == NULL);
	CHECK(u.host == NULL && u.sock == NULL && u.user == NULL);
}

/* A sentinel URL: its sentinels as "h:p,h:p", master, user and db. */
static void
sentinel(const char *url, const char *list, const char *master,
    const char *user, long db)
{
	struct redis_url	u;
	struct cb_err		err;
	char			buf[512];
	size_t			i, off = 0;

	CHECK_EQ(redis_url_parse(url, &u, &err), 0);
	CHECK(u.host == NULL && u.sock == NULL);
	buf[0] = '\0';
	for (i = 0; i < u.nsentinels; i++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s:%d",
		    i == 0 ? "" : ",", u.sentinels[i].host,
		    u.sentinels[i].port);
	CHECK_STR(buf, list);
	CHECK_STR(u.master != NULL ? u.master : "-", master);
	CHECK_STR(u.user != NULL ? u.user : "-", user != NULL ? user : "-");
	CHECK_EQ(u.db, db);
	redis_url_free(&u);
	CHECK(u.sentinels == NULL && u.nsentinels == 0 && u.master == NULL);
}

/* redis_state_check on s: 0, or -1 with a message holding want. */
static void
state(const char *s, int absolute, const char *want)
{
	struct cb_err	err;

	if (want == NULL) {
		CHECK_EQ(redis_state_check(s, absolute, &err), 0);
		return;
	}
	CHECK_EQ(redis_state_check(s, absolute, &err), -1);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, "s3cret") == NULL);
}

void
test_redis_url(void)
{
	good("redis://h", "h", REDIS_PORT, NULL, NULL, 0);
	good("redis://h:7000/3", "h", 7000, NULL, NULL, 3);
	good("redis://h/", "h", REDIS_PORT, NULL, NULL, 0);
	good("redis://ops@h:1", "h", 1, NULL, "ops", 0);
	good("redis://[::1]:6380/2", "::1", 6380, NULL, NULL, 2);
	good("redis://127.0.0.1:65535", "127.0.0.1", 65535, NULL, NULL, 0);
	good("unix:/run/redis.sock", NULL, 0, "/run/redis.sock", NULL, 0);
	good("unix:/run/redis.sock?db=5", NULL, 0, "/run/redis.sock", NULL, 5);

	bad("http://h", "must start with redis://, redis-sentinel:// or unix:");
	bad("redis://", "no host");
	bad("redis://:6379", "no host");
	bad("redis://[::1", "no host");
	bad("redis://h:0", "port must be a number from 1 to 65535");
	bad("redis://h:65536", "port must be a number from 1 to 65535");
	bad("redis://h:x", "port must be");
	bad("redis://h/x", "database number");
	bad("redis://h/99999999999", "database number");
	bad("redis://ops:s3cret@h", "password in the URL is not accepted");
	bad("redis://@h", "empty user name");
	bad("unix:relative.sock", "absolute socket path");
	bad("unix:/", "absolute socket path");
	bad("unix:/s.sock?db=x", "only ?db=N may follow");
	bad("unix:/s.sock?x=1", "only ?db=N may follow");

	sentinel("redis-sentinel://a:26380,b,[::1]:7/mymaster/3",
	    "a:26380,b:26379,::1:7", "mymaster", NULL, 3);
	sentinel("redis-sentinel://ops@s1:1/m", "s1:1", "m", "ops", 0);
	sentinel("redis-sentinel://s1/m/", "s1:26379", "m", NULL, 0);
	bad("redis-sentinel://s1", "must name the master");
	bad("redis-sentinel://s1/", "must name the master");
	bad("redis-sentinel://s1//0", "must name the master");
	bad("redis-sentinel://s1/m x/0", "must name the master");
	bad("redis-sentinel://s1/m/x", "database number");
	bad("redis-sentinel://s1,/m", "no host");
	bad("redis-sentinel://,s1/m", "no host");
	bad("redis-sentinel://s1:0/m", "port must be");
	bad("redis-sentinel://ops:s3cret@s1/m", "password in the URL");
	bad("redis-sentinel://a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q/m",
	    "more than 16 sentinels");

	CHECK_EQ(redis_state_kind("/var/lib/cbexec/state.mdb"), STATE_FILE);
	CHECK_EQ(redis_state_kind("state.mdb"), STATE_FILE);
	CHECK_EQ(redis_state_kind("a:b/c"), STATE_FILE);
	CHECK_EQ(redis_state_kind("redis://h"), STATE_REDIS);
	CHECK_EQ(redis_state_kind("unix:/s"), STATE_REDIS);
	CHECK_EQ(redis_state_kind("redis-sentinel://h/m"), STATE_SENTINEL);
	CHECK_EQ(redis_state_kind("redis-sentinal://h/m"), STATE_UNKNOWN);
	CHECK_EQ(redis_state_kind("rediss://h"), STATE_UNKNOWN);
	CHECK_EQ(redis_state_kind("Redis+x.1://h"), STATE_UNKNOWN);
	CHECK_EQ(redis_state_kind("1x://h"), STATE_FILE);

	state("/abs/state.mdb", 1, NULL);
	state("rel/state.mdb", 0, NULL);
	state("rel/state.mdb", 1, "must be an absolute path");
	state("./state.mdb", 1, "must be an absolute path");
	state("redis://h:1/0", 1, NULL);
	state("redis-sentinel://h/m/0", 1, NULL);
	state("redis-sentinal://h/m/0", 0, "unknown scheme 'redis-sentinal://'");
	state("https://ops:s3cret@h/", 1, "unknown scheme 'https://'");
	state("redis://ops:s3cret@h", 1, "password in the URL");
	state("redis-sentinel://h", 1, "must name the master");
}
