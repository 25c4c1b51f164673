/* SPDX-License-Identifier: ISC */
/*
 * fuzz-duration.c: libFuzzer harness for units.c's parse_duration, which
 * reads both the config file and the command line.  An accepted duration
 * is within 0 to 100 years, and format_duration's spelling of it parses
 * back to the same value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_err	 err;
	char		*s, back[64];
	int64_t		 ms, ms2;

	s = malloc(len + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	if (parse_duration(s, &ms, &err) == 0) {
		if (ms < 0 || ms > UNITS_MAX_MS)
			abort();
		format_duration(ms, back, sizeof back);
		if (parse_duration(back, &ms2, &err) != 0 || ms2 != ms)
			abort();
	} else if (memchr(err.msg, '\0', sizeof err.msg) == NULL)
		abort();
	free(s);
	return 0;
}
