/* SPDX-License-Identifier: ISC */
/*
 * name.c: breaker name validation, shared by every command that takes a
 * NAME.  Kept apart from cmd.c so that it stays pure and can be fuzzed.
 */
#include <string.h>

#include "esc.h"
#include "name.h"

/*
 * The name as a message can show it (esc.h), cut to fit the buffer, so
 * that a bad name cannot put control bytes on a terminal.
 */
static void
shown(const char *name, char *buf, size_t size)
{
	(void)esc_mem(buf, size, name, strlen(name));
}

int
name_valid(const char *name, struct cb_err *err)
{
	char			 show[80];
	static const char	 extra[] = "._-:@/+";
	size_t			 i, len;
	unsigned char		 c;

	len = strlen(name);
	if (len == 0) {
		err_set(err, "invalid breaker name '': empty");
		return -1;
	}
	if (len > NAME_MAX_LEN) {
		(void)esc_mem(show, 24, name, len);
		err_set(err, "invalid breaker name '%s': %zu bytes, "
		    "at most %d", show, len, NAME_MAX_LEN);
		return -1;
	}
	if (name[0] == '-') {
		/* An option put before NAME (SPEC section 1). */
		shown(name, show, sizeof show);
		err_set(err, "invalid breaker name '%s': byte 0x2d at offset 0 "
		    "(a name may not begin with '-'; options come after NAME)",
		    show);
		return -1;
	}
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(extra, c) != NULL)
			continue;
		shown(name, show, sizeof show);
		err_set(err, "invalid breaker name '%s': byte 0x%02x at "
		    "offset %zu (allowed: A-Z a-z 0-9 . _ - : @ / +)",
		    show, c, i);
		return -1;
	}
	return 0;
}
