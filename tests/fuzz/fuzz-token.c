/*
 * fuzz-token.c: libFuzzer harness for token_decode, on bytes as they would
 * come from release's command line.  A token that decodes must encode back
 * to the same text (the format has one spelling), and a refusal must say
 * why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_token	 t;
	struct cb_err	 err;
	char		 text[TOKEN_TEXT_MAX];
	char		*s;

	if ((s = malloc(len + 1)) == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	if (token_decode(s, &t, &err) == 0) {
		token_encode(&t, text, sizeof text);
		if (strcmp(text, s) != 0)
			abort();
	} else if (err.msg[0] == '\0' || t.name[0] != '\0')
		abort();
	free(s);
	return 0;
}
