/* SPDX-License-Identifier: ISC */
/*
 * fuzz-redis-url.c: libFuzzer harness for redis_url_parse: any bytes
 * either parse into a host (port 1 to 65535), an absolute socket path, or
 * a master's name and its sentinels (each a host and a port), or are refused with an "invalid Redis URL: " message (which repeats
 * nothing of the input; unit-redis-url.c checks a password is not).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redis-url.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct redis_url	 u;
	struct cb_err		 err;
	char			*s;
	size_t			 i;

	s = malloc(len + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	if (redis_url_parse(s, &u, &err) == 0) {
		if ((u.host != NULL) + (u.sock != NULL) + (u.master != NULL) !=
		    1 || u.db < 0)
			abort();
		if (u.master != NULL && (u.master[0] == '\0' ||
		    u.nsentinels == 0))
			abort();
		for (i = 0; i < u.nsentinels; i++)
			if (u.sentinels[i].port < 1 ||
			    u.sentinels[i].port > 65535 ||
			    u.sentinels[i].host[0] == '\0')
				abort();
		if (u.host != NULL && (u.port < 1 || u.port > 65535 ||
		    u.host[0] == '\0'))
			abort();
		if (u.sock != NULL && u.sock[0] != '/')
			abort();
		redis_url_free(&u);
	} else if (strncmp(err.msg, "invalid Redis URL: ", 19) != 0)
		abort();
	free(s);
	return 0;
}
