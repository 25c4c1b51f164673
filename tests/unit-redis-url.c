/* SPDX-License-Identifier: ISC */
/*
 * unit-redis-url.c: the Redis state's URL parser (redis-url.c), which
 * reads the state setting and -s, and never repeats a password.
 */
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

	bad("http://h", "must start with redis:// or unix:");
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
}
