/* SPDX-License-Identifier: ISC */
/*
 * unit-token.c: the acquire/release token (token.c): a golden vector,
 * round trips at the bounds, and one table row per class of malformed
 * input, each with the error it must give.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "token.h"
#include "unit.h"

#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

/* A second statement of the format, for inputs the encoder never makes. */
static uint32_t
fnv(const uint8_t *p, size_t len)
{
	uint32_t	h = 2166136261u;

	while (len-- > 0) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

static void
put64(uint8_t *p, uint64_t v)
{
	int	i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * "cb1-" and the hex of: version, flags, epoch 1, slot 2, identity 3
 * (version 2 on), time, the name, and a checksum that is right unless
 * bad_sum.
 */
static void
make(char *out, size_t outlen, unsigned version, unsigned flags,
    int64_t ms, const char *name, size_t namelen, int bad_sum)
{
	uint8_t		raw[512];
	uint32_t	sum;
	size_t		len = 0, i, off;

	raw[len++] = (uint8_t)version;
	raw[len++] = (uint8_t)flags;
	put64(raw + len, 1);
	len += 8;
	put64(raw + len, 2);
	len += 8;
	if (version != 1) {
		put64(raw + len, 3);
		len += 8;
	}
	put64(raw + len, (uint64_t)ms);
	len += 8;
	raw[len++] = (uint8_t)namelen;
	memcpy(raw + len, name, namelen);
	len += namelen;
	sum = fnv(raw, len) ^ (bad_sum ? 1 : 0);
	for (i = 0; i < 4; i++)
		raw[len++] = (uint8_t)(sum >> (8 * i));
	off = (size_t)snprintf(out, outlen, "cb1-");
	for (i = 0; i < len && off + 2 < outlen; i++)
		off += (size_t)snprintf(out + off, outlen - off, "%02x",
		    raw[i]);
}

static void
test_token_golden(void)
{
	/* Version 2: flags probe and running, epoch 7, slot, identity. */
	static const char	 golden[] = "cb1-0205070000000000000088776655"
	    "443322111032547698badcfe0068e5cf8b01000003617069e001f732";
	/* Version 1, as cbexec 0.1 printed it: no identity. */
	static const char	 golden_v1[] = "cb1-01010700000000000000887766"
	    "55443322110068e5cf8b01000003617069c33c5692";
	struct cb_token		 t, u;
	struct cb_err		 err;
	char			 text[TOKEN_TEXT_MAX];

	memset(&t, 0, sizeof t);
	t.probe = 1;
	t.running = 1;
	t.epoch = 7;
	t.slot = 0x1122334455667788ULL;
	t.identity = 0xfedcba9876543210ULL;
	t.acquired_ms = 1700000000000LL;
	snprintf(t.name, sizeof t.name, "api");
	token_encode(&t, text, sizeof text);
	CHECK_STR(text, golden);
	CHECK_EQ(token_decode(golden, &u, &err), 0);
	CHECK_EQ(u.probe, 1);
	CHECK_EQ(u.running, 1);
	CHECK_EQ(u.unguarded, 0);
	CHECK_EQ(u.epoch, 7);
	CHECK(u.slot == 0x1122334455667788ULL);
	CHECK(u.identity == 0xfedcba9876543210ULL);
	CHECK_EQ(u.acquired_ms, 1700000000000LL);
	CHECK_STR(u.name, "api");

	CHECK_EQ(token_decode(golden_v1, &u, &err), 0);
	CHECK_EQ(u.probe, 1);
	CHECK_EQ(u.running, 0);
	CHECK_EQ(u.epoch, 7);
	CHECK(u.slot == 0x1122334455667788ULL);
	CHECK_EQ(u.identity, 0);
	CHECK_EQ(u.acquired_ms, 1700000000000LL);
	CHECK_STR(u.name, "api");
}

static void
test_token_round_trip(void)
{
	static const struct {
		int		 probe, unguarded, running;
		uint64_t	 epoch, slot, identity;
		int64_t		 ms;
		size_t		 namelen;
	} rows[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 1, 0, 0, 1, 42, 9, 1, 3 },
		{ 0, 1, 1, 0, 0, 1, 1700000000000LL, 10 },
		{ 1, 1, 1, UINT64_MAX, UINT64_MAX, UINT64_MAX,
		    (int64_t)1 << 53, 200 },
	};
	struct cb_token	 t, u;
	struct cb_err	 err;
	char		 text[TOKEN_TEXT_MAX];
	size_t		 i;

	for (i = 0; i < NELEM(rows); i++) {
		memset(&t, 0, sizeof t);
		t.probe = rows[i].probe;
		t.unguarded = rows[i].unguarded;
		t.running = rows[i].running;
		t.epoch = rows[i].epoch;
		t.slot = rows[i].slot;
		t.identity = rows[i].identity;
		t.acquired_ms = rows[i].ms;
		memset(t.name, 'n', rows[i].namelen);
		token_encode(&t, text, sizeof text);
		CHECK_EQ(strlen(text), 4 + 2 * (35 + rows[i].namelen + 4));
		CHECK_EQ(token_decode(text, &u, &err), 0);
		CHECK(memcmp(&t, &u, sizeof t) == 0);
	}
}

/* Too small a buffer gets whole hex pairs and a NUL. */
static void
test_token_short_buffer(void)
{
	struct cb_token	t;
	char		text[16];

	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "api");
	memset(text, 'x', sizeof text);
	token_encode(&t, text, sizeof text);
	CHECK_EQ(strlen(text), 14);
	CHECK(strncmp(text, "cb1-02", 6) == 0);
	token_encode(&t, text, 3);
	CHECK_STR(text, "cb");
}

static void
test_token_malformed(void)
{
	static const struct {
		const char	*in;
		const char	*msg;
	} rows[] = {
		{ "", "not a cbexec token (no 'cb1-' prefix)" },
		{ "cb2-0100", "not a cbexec token (no 'cb1-' prefix)" },
		{ "CB1-0100", "not a cbexec token (no 'cb1-' prefix)" },
		{ "cb1-", "cut short or too long" },
		{ "cb1-010", "cut short or too long" },
		{ "cb1-0101070000000000000088776655443322110068e5cf8b010000"
		    "03617069c33c569", "cut short or too long" },
		{ "cb1-0101070000000000000088776655443322110068e5cf8b010000"
		    "03617069c33c5692ff", "cut short or too long" },
		{ "cb1-0101070000000000000088776655443322110068E5cf8b010000"
		    "03617069c33c5692", "unexpected character at offset 44" },
		{ "cb1-0101070000000000000088776655443322110068e5cf8b010000"
		    "036170 9c33c5692", "unexpected character at offset 62" },
		{ "cb1-0101070000000000000088776655443322110068e5cf8b010000"
		    "04617069c33c5692", "cut short or too long" },
		{ "cb1-0101070000000000000088776655443322110068e5cf8b010000"
		    "03617169c33c5692", "checksum mismatch (cut or mistyped?)" },
	};
	struct cb_token	t;
	struct cb_err	err;
	char		big[2 * TOKEN_TEXT_MAX];
	size_t		i;

	for (i = 0; i < NELEM(rows); i++) {
		memset(&t, 0xa5, sizeof t);
		CHECK_EQ(token_decode(rows[i].in, &t, &err), -1);
		CHECK_STR(err.msg, rows[i].msg);
		CHECK_EQ(t.name[0], '\0');
	}
	/* Longer than any token: refused by its length, not read past. */
	memset(big, 'a', sizeof big - 1);
	memcpy(big, "cb1-", 4);
	big[sizeof big - 1] = '\0';
	CHECK_EQ(token_decode(big, &t, &err), -1);
	CHECK_STR(err.msg, "cut short or too long");
}

/* Well-formed hex with a right checksum, holding fields acquire never
 * writes. */
static void
test_token_bad_fields(void)
{
	static const struct {
		unsigned	 version, flags;
		int64_t		 ms;
		const char	*name;
		size_t		 namelen;
		const char	*msg;
	} rows[] = {
		{ 0, 0, 1, "api", 3, "token version 0, this cbexec knows 2" },
		{ 3, 0, 1, "api", 3, "token version 3, this cbexec knows 2" },
		{ 1, 8, 1, "api", 3, "unknown flags 0x08" },
		{ 2, 8, 1, "api", 3, "unknown flags 0x08" },
		{ 1, 0x80, 1, "api", 3, "unknown flags 0x80" },
		{ 2, 0, -1, "api", 3, "its time is not one acquire writes" },
		{ 1, 0, -1, "api", 3, "its time is not one acquire writes" },
		{ 1, 0, ((int64_t)1 << 53) + 1, "api", 3,
		    "its time is not one acquire writes" },
		{ 1, 0, 1, "a\0i", 3, "it names no valid breaker" },
		{ 1, 0, 1, "a b", 3, "it names no valid breaker" },
		{ 1, 0, 1, "-x", 2, "it names no valid breaker" },
		/* An empty name is too short a token. */
		{ 1, 0, 1, "", 0, "cut short or too long" },
	};
	static char	 longname[256];
	struct cb_token	 t;
	struct cb_err	 err;
	char		 text[TOKEN_TEXT_MAX];
	size_t		 i;

	for (i = 0; i < NELEM(rows); i++) {
		make(text, sizeof text, rows[i].version, rows[i].flags,
		    rows[i].ms, rows[i].name, rows[i].namelen, 0);
		memset(&t, 0xa5, sizeof t);
		CHECK_EQ(token_decode(text, &t, &err), -1);
		CHECK_STR(err.msg, rows[i].msg);
		CHECK_EQ(t.probe, 0);
		CHECK_EQ(t.name[0], '\0');
	}
	/* The format holds 255 name bytes; a breaker name at most 200. */
	memset(longname, 'n', 255);
	make(text, sizeof text, 1, 0, 1, longname, 201, 0);
	CHECK_EQ(token_decode(text, &t, &err), -1);
	CHECK_STR(err.msg, "it names no valid breaker");
	make(text, sizeof text, 1, 0, 1, longname, 255, 0);
	CHECK_EQ(token_decode(text, &t, &err), -1);
	CHECK_STR(err.msg, "it names no valid breaker");
	make(text, sizeof text, 1, 0, 1, longname, 200, 0);
	CHECK_EQ(token_decode(text, &t, &err), 0);
	CHECK_EQ(strlen(t.name), 200);
	make(text, sizeof text, 1, 0, 1, "api", 3, 1);
	CHECK_EQ(token_decode(text, &t, &err), -1);
	CHECK_STR(err.msg, "checksum mismatch (cut or mistyped?)");
}

void
test_token(void)
{
	test_token_golden();
	test_token_round_trip();
	test_token_short_buffer();
	test_token_malformed();
	test_token_bad_fields();
}
