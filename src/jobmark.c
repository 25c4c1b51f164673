/* SPDX-License-Identifier: ISC */
/*
 * jobmark.c: the job marker of jobmark.h: made from random bits when a
 * slot is taken, hashed for the slot, and checked against a hash read
 * from the state when a group is to be killed.  Pure.
 */
#include <stdio.h>
#include <string.h>

#include "jobmark.h"
#include "sha256.h"

int
jobmark_make(const char *name, const uint64_t rnd[2], char *buf,
    size_t len)
{
	int	n;

	n = snprintf(buf, len, JOBMARK_VAR "=%s:%016llx%016llx", name,
	    (unsigned long long)rnd[0], (unsigned long long)rnd[1]);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

uint64_t
jobmark_hash(const char *value, size_t n)
{
	uint8_t		d[SHA256_LEN];
	uint64_t	h = 0;
	int		i;

	sha256(value, n, d);
	for (i = 7; i >= 0; i--)
		h = h << 8 | d[i];
	return h != 0 ? h : 1;
}

int
jobmark_matches(const char *value, size_t n, const char *name,
    uint64_t hash)
{
	size_t	nl = strlen(name), i;
	char	c;

	if (hash == 0 || n != nl + 1 + JOBMARK_TOKEN_HEX ||
	    memcmp(value, name, nl) != 0 || value[nl] != ':')
		return 0;
	for (i = nl + 1; i < n; i++) {
		c = value[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	return jobmark_hash(value, n) == hash;
}
