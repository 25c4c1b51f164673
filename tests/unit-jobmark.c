/* SPDX-License-Identifier: ISC */
/*
 * unit-jobmark.c: SHA-256 against the published test vectors (FIPS 180-4's
 * examples, NIST's CSRC "SHA-256" example values, the million 'a's), fed
 * at once and a byte at a time; and the job marker of jobmark.h: its
 * spelling, its hash (SHA-256's first 8 bytes, little-endian, never 0),
 * and what jobmark_matches refuses.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jobmark.h"
#include "sha256.h"
#include "unit.h"

static void
hex(const uint8_t *d, size_t n, char *out)
{
	size_t	i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static const struct {
	const char	*msg;
	const char	*want;
} vectors[] = {
	{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
};

static void
test_sha256(void)
{
	struct sha256	s;
	uint8_t		d[SHA256_LEN];
	char		got[2 * SHA256_LEN + 1], a[1000];
	size_t		i, j, n;

	for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
		n = strlen(vectors[i].msg);
		sha256(vectors[i].msg, n, d);
		hex(d, sizeof d, got);
		CHECK_STR(got, vectors[i].want);
		sha256_init(&s);
		for (j = 0; j < n; j++)
			sha256_add(&s, vectors[i].msg + j, 1);
		sha256_end(&s, d);
		hex(d, sizeof d, got);
		CHECK_STR(got, vectors[i].want);
	}
	memset(a, 'a', sizeof a);
	sha256_init(&s);
	for (i = 0; i < 1000; i++)
		sha256_add(&s, a, sizeof a);
	sha256_end(&s, d);
	hex(d, sizeof d, got);
	CHECK_STR(got,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
test_jobmark(void)
{
	static const uint64_t	rnd[2] = { 0x0123456789abcdefULL,
				    0xfedcba9876543210ULL };
	const char		*val;
	char			 buf[JOBMARK_SIZE(8)], small[20];
	uint8_t			 d[SHA256_LEN];
	uint64_t		 h, want = 0;
	int			 i;

	CHECK_EQ(jobmark_make("api", rnd, buf, sizeof buf), 0);
	CHECK_STR(buf,
	    "CBEXEC_JOB=api:0123456789abcdeffedcba9876543210");
	CHECK_EQ(jobmark_make("api", rnd, small, sizeof small), -1);
	val = buf + sizeof JOBMARK_VAR;
	h = jobmark_hash(val, strlen(val));
	sha256(val, strlen(val), d);
	for (i = 7; i >= 0; i--)
		want = want << 8 | d[i];
	CHECK_EQ(h, want);
	CHECK(h != 0);
	CHECK(jobmark_matches(val, strlen(val), "api", h));
	CHECK(!jobmark_matches(val, strlen(val), "ap", h));
	CHECK(!jobmark_matches(val, strlen(val), "api", h ^ 1));
	CHECK(!jobmark_matches(val, strlen(val), "api", 0));
	CHECK(!jobmark_matches(val, strlen(val) - 1, "api", h));
	CHECK(!jobmark_matches("api:0123456789ABCDEFFEDCBA9876543210", 36,
	    "api", jobmark_hash("api:0123456789ABCDEFFEDCBA9876543210", 36)));
	CHECK(jobmark_matches("api:0123456789abcdeffedcba9876543211", 36,
	    "api", jobmark_hash("api:0123456789abcdeffedcba9876543211", 36)));
}

void
test_jobmark_all(void)
{
	test_sha256();
	test_jobmark();
}
