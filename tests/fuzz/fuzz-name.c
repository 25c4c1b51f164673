/* SPDX-License-Identifier: ISC */
/*
 * fuzz-name.c: libFuzzer harness for name_valid, checked against a second,
 * deliberately naive statement of SPEC section 1's rule.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "name.h"

static int
naive(const char *s)
{
	const char	*allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789._-:@/+";
	size_t		 len = strlen(s);

	return len >= 1 && len <= 200 && strspn(s, allowed) == len &&
	    s[0] != '-';
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_err	 err;
	char		*s;
	int		 ok;

	s = malloc(len + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	ok = name_valid(s, &err) == 0;
	if (ok != naive(s))
		abort();
	if (!ok && strncmp(err.msg, "invalid breaker name '", 22) != 0)
		abort();
	free(s);
	return 0;
}
