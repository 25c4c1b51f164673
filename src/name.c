/*
 * name.c: breaker name validation, shared by every command that takes a
 * NAME.  Kept apart from cmd.c so that it stays pure and can be fuzzed.
 */
#include <string.h>

#include "name.h"

int
name_valid(const char *name, struct cb_err *err)
{
	static const char	 extra[] = "._-:@/+";
	size_t			 i, len;
	unsigned char		 c;

	len = strlen(name);
	if (len == 0) {
		err_set(err, "invalid breaker name '': empty");
		return -1;
	}
	if (len > NAME_MAX_LEN) {
		err_set(err, "invalid breaker name '%.20s...': %zu bytes, "
		    "at most %d", name, len, NAME_MAX_LEN);
		return -1;
	}
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(extra, c) != NULL)
			continue;
		err_set(err, "invalid breaker name '%s': byte 0x%02x at "
		    "offset %zu (allowed: A-Z a-z 0-9 . _ - : @ / +)",
		    name, c, i);
		return -1;
	}
	return 0;
}
