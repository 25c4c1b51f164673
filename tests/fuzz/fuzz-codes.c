/* SPDX-License-Identifier: ISC */
/*
 * fuzz-codes.c: libFuzzer harness for units.c's parse_codes
 * ("6,7,28,50-59").  An accepted list holds codes 0 to 255 only, and
 * format_codes' spelling of the set parses back to the same set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_codeset	 set, set2;
	struct cb_err		 err;
	char			*s, back[1200];

	s = malloc(len + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	memset(&set, 0, sizeof set);
	if (parse_codes(s, &set, &err) == 0) {
		format_codes(&set, back, sizeof back);
		memset(&set2, 0, sizeof set2);
		if (parse_codes(back, &set2, &err) != 0 ||
		    memcmp(&set, &set2, sizeof set) != 0)
			abort();
	}
	free(s);
	return 0;
}
