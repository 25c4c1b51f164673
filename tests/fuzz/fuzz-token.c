/* SPDX-License-Identifier: ISC */
/*
 * fuzz-token.c: libFuzzer harness for token_decode, on bytes as they would
 * come from release's command line.  A token that decodes must encode back
 * to the same text (the format has one spelling) when it is of the current
 * version, and to one that decodes to the same fields when older; a
 * refusal must say why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_token	 t, u;
	struct cb_err	 err;
	char		 text[TOKEN_TEXT_MAX];
	char		*s;

	if ((s = malloc(len + 1)) == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	if (token_decode(s, &t, &err) == 0) {
		token_encode(&t, text, sizeof text);
		if (token_decode(text, &u, &err) != 0 ||
		    memcmp(&t, &u, sizeof t) != 0)
			abort();
		if (len >= 6 && memcmp(s, "cb1-02", 6) == 0 &&
		    strcmp(text, s) != 0)
			abort();
	} else if (err.msg[0] == '\0' || t.name[0] != '\0')
		abort();
	free(s);
	return 0;
}
