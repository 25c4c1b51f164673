/* SPDX-License-Identifier: ISC */
/*
 * token.c: the acquire/release token codec (token.h has the format).  The
 * decoder reads hex into a bounded buffer, checks the length the name
 * byte implies and the checksum, and only then reads the fields, so each
 * malformed input is one error and no read goes past the buffer.
 */
#include <string.h>

#include "name.h"
#include "token.h"

#define TOKEN_FIXED_MAX	(1 + 1 + 8 + 8 + 8 + 8 + 1)	/* before the name */
#define TOKEN_RAW_MAX	(TOKEN_FIXED_MAX + TOKEN_NAME_MAX + 4)

/* The size of the fields before the name in a token of version v (an
 * unknown version is measured as the current one, to be refused after the
 * checksum). */
static size_t
token_fixed(unsigned v)
{
	return 1 + 1 + 8 + 8 + (v >= 2 ? 8 : 0) + 8 + 1;
}

static uint32_t
fnv1a(const uint8_t *p, size_t len)
{
	uint32_t	h = 2166136261u;

	while (len-- > 0) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

void
token_encode(const struct cb_token *t, char *out, size_t outlen)
{
	static const char	 hex[] = "0123456789abcdef";
	struct cb_buf		 b = { 0 };
	size_t			 namelen, i, off;

	if (outlen == 0)
		return;
	namelen = strnlen(t->name, sizeof t->name);
	if (namelen > TOKEN_NAME_MAX)
		namelen = TOKEN_NAME_MAX;
	buf_add_u8(&b, TOKEN_VERSION);
	buf_add_u8(&b, (uint8_t)((t->probe ? TOKEN_PROBE : 0) |
	    (t->unguarded ? TOKEN_UNGUARDED : 0) |
	    (t->running ? TOKEN_RUNNING : 0)));
	buf_add_u64(&b, t->epoch);
	buf_add_u64(&b, t->slot);
	buf_add_u64(&b, t->identity);
	buf_add_u64(&b, (uint64_t)t->acquired_ms);
	buf_add_u8(&b, (uint8_t)namelen);
	buf_add(&b, t->name, namelen);
	buf_add_u32(&b, fnv1a(b.data, b.len));

	for (off = 0; TOKEN_PREFIX[off] != '\0' && off + 1 < outlen; off++)
		out[off] = TOKEN_PREFIX[off];
	for (i = 0; i < b.len && off + 2 < outlen; i++) {
		out[off++] = hex[b.data[i] >> 4];
		out[off++] = hex[b.data[i] & 15];
	}
	out[off] = '\0';
	buf_free(&b);
}

/* The hex after the prefix into raw; returns its length, or 0 after
 * filling err. */
static size_t
token_unhex(const char *h, uint8_t *raw, struct cb_err *err)
{
	size_t	hexlen, len, i;
	int	hi, lo;

	hexlen = strnlen(h, 2 * TOKEN_RAW_MAX + 1);
	if (hexlen % 2 != 0 || hexlen / 2 > TOKEN_RAW_MAX ||
	    hexlen / 2 < token_fixed(1) + 1 + 4) {
		err_set(err, "cut short or too long");
		return 0;
	}
	len = hexlen / 2;
	for (i = 0; i < len; i++) {
		if ((hi = hex_digit((unsigned char)h[2 * i])) < 0 ||
		    (lo = hex_digit((unsigned char)h[2 * i + 1])) < 0) {
			err_set(err, "unexpected character at offset %zu",
			    strlen(TOKEN_PREFIX) + 2 * i + (hi < 0 ? 0 : 1));
			return 0;
		}
		raw[i] = (uint8_t)(hi << 4 | lo);
	}
	return len;
}

/* The fields of a raw token whose length and checksum are right. */
static int
token_fields(const uint8_t *raw, size_t fixed, size_t namelen,
    struct cb_token *t, struct cb_err *err)
{
	if (raw[0] < 1 || raw[0] > TOKEN_VERSION) {
		err_set(err, "token version %u, this cbexec knows %u",
		    raw[0], TOKEN_VERSION);
		return -1;
	}
	if ((raw[1] & ~(TOKEN_PROBE | TOKEN_UNGUARDED | TOKEN_RUNNING)) != 0) {
		err_set(err, "unknown flags 0x%02x", raw[1]);
		return -1;
	}
	t->probe = (raw[1] & TOKEN_PROBE) != 0;
	t->unguarded = (raw[1] & TOKEN_UNGUARDED) != 0;
	t->running = (raw[1] & TOKEN_RUNNING) != 0;
	t->epoch = get_u64(raw + 2);
	t->slot = get_u64(raw + 10);
	if (raw[0] >= 2)
		t->identity = get_u64(raw + 18);	/* 0 in version 1 */
	t->acquired_ms = (int64_t)get_u64(raw + fixed - 9);
	if (t->acquired_ms < 0 || t->acquired_ms > (int64_t)1 << 53) {
		err_set(err, "its time is not one acquire writes");
		return -1;
	}
	memcpy(t->name, raw + fixed, namelen);
	t->name[namelen] = '\0';
	if (strlen(t->name) != namelen || name_valid(t->name, err) == -1) {
		err_set(err, "it names no valid breaker");
		return -1;
	}
	return 0;
}

int
token_decode(const char *s, struct cb_token *t, struct cb_err *err)
{
	uint8_t		raw[TOKEN_RAW_MAX];
	size_t		len, fixed, namelen;

	memset(t, 0, sizeof *t);
	if (strncmp(s, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) != 0) {
		err_set(err, "not a cbexec token (no '%s' prefix)",
		    TOKEN_PREFIX);
		return -1;
	}
	if ((len = token_unhex(s + strlen(TOKEN_PREFIX), raw, err)) == 0)
		return -1;
	fixed = token_fixed(raw[0] >= 1 && raw[0] <= TOKEN_VERSION ? raw[0] :
	    TOKEN_VERSION);
	namelen = raw[fixed - 1];
	if (len != fixed + namelen + 4) {
		err_set(err, "cut short or too long");
		return -1;
	}
	if (get_u32(raw + len - 4) != fnv1a(raw, len - 4)) {
		err_set(err, "checksum mismatch (cut or mistyped?)");
		return -1;
	}
	if (token_fields(raw, fixed, namelen, t, err) == -1) {
		memset(t, 0, sizeof *t);
		return -1;
	}
	return 0;
}
