/* SPDX-License-Identifier: ISC */
/*
 * token.h: the acquire/release token (SPEC section 7b), text that comes
 * back on release's command line and so is parsed as untrusted input.
 * Pure: no I/O, so the unit tests and the fuzzer link it alone.
 *
 * A token is "cb1-" and the lower-case hex of these fields, each integer
 * little-endian:
 *
 *	u8	version (2)
 *	u8	flags: 1 probe, 2 unguarded, 4 running (holds a run slot)
 *	u64	epoch the call was admitted in
 *	u64	the probe or run slot's token (0 when it holds none)
 *	u64	the record's identity		(version 2 on; 0 before)
 *	i64	acquired at, wall milliseconds
 *	u8	name length, then the name
 *	u32	FNV-1a of everything before it
 *
 * The checksum catches a token cut or mistyped; it is no secret (anyone
 * who can write the state file can do more than forge a token).  A new
 * field goes before the name under a new version: token.c lists the
 * fields once, in token_fields(), with the version that brought each, so
 * the encoder and the decoder cannot disagree, and tokens of an older
 * version still decode.
 */
#ifndef CBEXEC_TOKEN_H
#define CBEXEC_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define TOKEN_PREFIX		"cb1-"
#define TOKEN_VERSION		2
#define TOKEN_PROBE		1
#define TOKEN_UNGUARDED		2
#define TOKEN_RUNNING		4
#define TOKEN_NAME_MAX		255
/* The longest encoded token with its NUL: prefix, hex of at most 35
 * fixed bytes, the name and the checksum. */
#define TOKEN_TEXT_MAX		(4 + 2 * (35 + TOKEN_NAME_MAX + 4) + 1)

struct cb_token {
	int		probe;		/* holds a half-open slot */
	int		unguarded;	/* CBEXEC_DISABLE=1: record nothing */
	int		running;	/* holds a run slot */
	uint64_t	epoch;
	uint64_t	slot;		/* the slots' token when probe or
					 * running */
	uint64_t	identity;	/* of the record; 0: version 1 */
	int64_t		acquired_ms;	/* wall clock */
	char		name[TOKEN_NAME_MAX + 1];
};

/*
 * Encode t into out, outlen bytes (TOKEN_TEXT_MAX is always enough; a
 * shorter out gets a cut, NUL-terminated token).  A name longer than
 * TOKEN_NAME_MAX is cut.
 */
void	token_encode(const struct cb_token *t, char *out, size_t outlen);

/*
 * Decode the NUL-terminated s into t.  Returns 0, or -1 with what is
 * wrong in err ("checksum mismatch (cut or mistyped?)", "unexpected
 * character at offset N", ...); t is zeroed first in every case.  A valid
 * token names a valid breaker (name.h) and holds a time acquire could
 * have written.
 */
int	token_decode(const char *s, struct cb_token *t, struct cb_err *err);

#endif
