/* SPDX-License-Identifier: ISC */
/*
 * unit-record5.c: unit tests of record format 5, the one cbexec writes:
 * version 4's golden record (unit-record4.c) with its tagged fields after
 * it (record.h, enum record_tag), each field's golden bytes written out
 * by hand; every proper prefix one short read; a tag out of order, a tag
 * this cbexec does not know, a field not read to its end and a field
 * spelt with its "none" refused; the rate limit's fields (tags 2 and 3)
 * with every value out of its range.  A new tag adds its field to golden5
 * and its cases here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "unit.h"

/* After golden4's bytes (version byte 5): the tagged fields. */
static const uint8_t tail5[] = {
	0x03,						/* 3 tagged fields */
	0x01, 0x18,					/* tag 1 (job), 24 bytes */
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,	/* probe slot 0 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* probe slot 1: none */
	0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,	/* run slot 0 */
	0x02, 0x09,					/* tag 2 (rate), 9 bytes */
	0xc0, 0xc4, 0x80, 0xc1, 0xc1, 0xc4, 0x82, 0x03,	/* TAT 1700000000123456 us */
	0x07,						/* 7 rate limited */
	0x03, 0x05,					/* tag 3 (rate policy) */
	0x0a, 0xe0, 0xd4, 0x03,				/* 10 per 60000 ms */
	0x03,						/* burst 3 */
};
#define T5_N		0
#define T5_TAG		1
#define T5_LEN		2
#define T5_JOB		3
#define T5_RATE		27	/* tag 2's tag byte */
#define T5_RATEPOL	38	/* tag 3's */

static uint8_t	golden5[1024];
static size_t	golden5_len;

static void
golden5_make(void)
{
	memcpy(golden5, golden4, golden4_len);
	golden5[4] = 5;
	memcpy(golden5 + golden4_len, tail5, sizeof tail5);
	golden5_len = golden4_len + sizeof tail5;
}

static void
golden5_record(struct cb_record *r)
{
	golden4_record(r);
	r->slots[0].job = 0x1111111111111111ULL;
	r->slots[1].job = 0;
	r->running[0].job = 0x0123456789abcdefULL;
	r->rate_tat_us = 1700000000123456LL;
	r->rate_limited = 7;
	r->policy.rate_n = 10;
	r->policy.rate_per_ms = 60000;
	r->policy.rate_burst = 3;
}

static void
test_record5_golden(void)
{
	struct cb_record	r, want;
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	golden5_record(&want);
	record_encode(&want, &b);
	CHECK_EQ(b.len, golden5_len);
	CHECK(b.len == golden5_len && memcmp(b.data, golden5, b.len) == 0);
	CHECK_EQ(unit_decode_copy(golden5, golden5_len, &r, &err), RECORD_OK);
	CHECK_EQ(r.slots[0].job, 0x1111111111111111ULL);
	CHECK_EQ(r.slots[1].job, 0);
	CHECK_EQ(r.running[0].job, 0x0123456789abcdefULL);
	CHECK_EQ(r.rate_tat_us, 1700000000123456LL);
	CHECK_EQ(r.rate_limited, 7);
	CHECK_EQ(r.policy.rate_n, 10);
	CHECK_EQ(r.policy.rate_per_ms, 60000);
	CHECK_EQ(r.policy.rate_burst, 3);
	CHECK(unit_record_same(&r, &want));
	buf_reset(&b);
	record_encode(&r, &b);
	CHECK(b.len == golden5_len && memcmp(b.data, golden5, b.len) == 0);

	/* A version 4 record's slots hold no job. */
	CHECK_EQ(unit_decode_copy(golden4, golden4_len, &r, &err), RECORD_OK);
	CHECK_EQ(r.slots[0].job, 0);
	CHECK_EQ(r.running[0].job, 0);
	CHECK_EQ(r.rate_tat_us, 0);
	CHECK_EQ(r.rate_limited, 0);
	CHECK_EQ(r.policy.rate_n, 0);
	CHECK_EQ(r.policy.rate_burst, 1);
	buf_free(&b);
}

static void
test_record5_truncated(void)
{
	struct cb_record	r;
	struct cb_err		err;
	size_t			len;
	int			wrong = 0;

	for (len = 0; len < golden5_len; len++)
		if (unit_decode_copy(golden5, len, &r, &err) !=
		    RECORD_ETRUNC || err.msg[0] == '\0') {
			wrong++;
			fprintf(stderr, "v5 prefix of %zu bytes: %s\n", len,
			    err.msg);
		}
	CHECK_EQ(wrong, 0);
}

#define JOBS	"\x11\x11\x11\x11\x11\x11\x11\x11" "\0\0\0\0\0\0\0\0" "\xef\xcd\xab\x89\x67\x45\x23\x01"

/* golden5's tail with len bytes at off (in tail5) replaced by with. */
static const struct {
	const char		*what;
	size_t			 off, len;
	const char		*with;
	size_t			 n;
	enum record_error	 want;
	const char		*msg;
} errors5[] = {
	{ "tag 7, unknown", T5_TAG, 1, "\x07", 1, RECORD_ENEWER,
	  "record field 7 is newer than this cbexec" },
	{ "tag 300", T5_TAG, 1, "\xac\x02", 2, RECORD_ENEWER,
	  "record field 300 is newer than this cbexec" },
	{ "tag 0", T5_TAG, 1, "\x00", 1, RECORD_EVALUE,
	  "record has tagged fields out of order (0 after 0)" },
	{ "tag 1 twice", 0, sizeof tail5, "\x02\x01\x18" JOBS "\x01\x18"
	  JOBS, 53, RECORD_EVALUE,
	  "record has tagged fields out of order (1 after 1)" },
	{ "a job field short of a slot", T5_LEN, 9, "\x10", 1, RECORD_EVALUE,
	  "record field 1 (job markers) is 16 bytes, not what it holds" },
	{ "a job field with a byte left", T5_LEN, 25, "\x19" JOBS "\x00",
	  26, RECORD_EVALUE,
	  "record field 1 (job markers) is 25 bytes, not what it holds" },
	{ "every job 0, spelt out", T5_JOB, 24,
	  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24,
	  RECORD_EVALUE, "record has an empty tagged field spelt out" },
	{ "a trailing byte", sizeof tail5, 0, "\x00", 1, RECORD_ETRAIL,
	  "record has 1 trailing bytes" },
	{ "four fields said, three there", T5_N, 1, "\x04", 1, RECORD_ETRUNC,
	  NULL },
	{ "a TAT past the bound", T5_RATE + 1, 10,
	  "\x0a\x81\x80\x80\x80\x80\x80\x80\x80\x7d\x00", 11, RECORD_EVALUE,
	  "record has a rate limit's arrival time out of range" },
	{ "a rate field with a byte left", T5_RATE + 1, 1, "\x0a", 1,
	  RECORD_EVALUE,
	  "record field 2 (rate limit) is 10 bytes, not what it holds" },
	{ "no TAT and no count, spelt out", T5_RATE + 1, 10, "\x02\x00\x00", 3,
	  RECORD_EVALUE, "record has an empty tagged field spelt out" },
	{ "max_rate N 0 with a period", T5_RATEPOL + 2, 5,
	  "\x00\xe0\xd4\x03\x03", 5, RECORD_EVALUE,
	  "record has a max_rate out of range" },
	{ "max_rate N 1000001", T5_RATEPOL + 1, 6,
	  "\x07\xc1\x84\x3d\xe0\xd4\x03\x03", 8, RECORD_EVALUE,
	  "record has a max_rate out of range" },
	{ "max_rate period 0", T5_RATEPOL + 1, 6, "\x03\x0a\x00\x03", 4,
	  RECORD_EVALUE, "record has a max_rate out of range" },
	{ "max_rate period past 366d", T5_RATEPOL + 1, 6,
	  "\x07\x0a\x81\x90\xde\xe6\x75\x01", 8, RECORD_EVALUE,
	  "record has a max_rate out of range" },
	{ "max_rate of more than one call a microsecond", T5_RATEPOL + 1, 6,
	  "\x05\xc0\x84\x3d\x01\x01", 6, RECORD_EVALUE,
	  "record has a max_rate out of range" },
	{ "rate_burst 0", T5_RATEPOL + 6, 1, "\x00", 1, RECORD_EVALUE,
	  "record has a rate_burst out of range" },
	{ "rate_burst 10001", T5_RATEPOL + 1, 6,
	  "\x06\x0a\xe0\xd4\x03\x91\x4e", 7, RECORD_EVALUE,
	  "record has a rate_burst out of range" },
	{ "no max_rate, burst 1, spelt out", T5_RATEPOL + 1, 6,
	  "\x03\x00\x00\x01", 4, RECORD_EVALUE,
	  "record has an empty tagged field spelt out" },
	{ "tag 3 before tag 2", T5_RATE, sizeof tail5 - T5_RATE,
	  "\x03\x05\x0a\xe0\xd4\x03\x03\x02\x09\xc0\xc4\x80\xc1\xc1\xc4\x82\x03\x07",
	  18, RECORD_EVALUE,
	  "record has tagged fields out of order (2 after 3)" },
};

static void
test_record5_errors(void)
{
	struct cb_record	r;
	struct cb_err		err;
	uint8_t			buf[1100];
	size_t			i, len, at;
	int			got;

	for (i = 0; i < sizeof errors5 / sizeof errors5[0]; i++) {
		at = golden4_len + errors5[i].off;
		memcpy(buf, golden5, at);
		memcpy(buf + at, errors5[i].with, errors5[i].n);
		/* "a trailing byte" has one more after it: its own. */
		memcpy(buf + at + errors5[i].n, golden5 + at + errors5[i].len,
		    golden5_len - at - errors5[i].len);
		len = golden5_len - errors5[i].len + errors5[i].n;
		got = unit_decode_copy(buf, len, &r, &err);
		if (got != (int)errors5[i].want)
			fprintf(stderr, "v5 decode error case: %s: %s\n",
			    errors5[i].what, err.msg);
		CHECK_EQ(got, errors5[i].want);
		if (errors5[i].msg != NULL)
			CHECK_STR(err.msg, errors5[i].msg);
	}
}

/* Tag 5, expect_every (SPEC 7): after tag 1, a varint of ms, more than 0
 * and within the key's bounds. */
static void
test_record5_expect(void)
{
	static const uint8_t	 day[] = { 0x05, 0x04, 0x80, 0xb8, 0x99, 0x29 };
	struct cb_record	 r, want;
	struct cb_buf		 b = { 0 };
	struct cb_err		 err;
	uint8_t			 buf[1100];

	golden5_record(&want);
	want.policy.expect_every_ms = 86400000;
	record_encode(&want, &b);
	CHECK_EQ(b.len, golden5_len + sizeof day);
	CHECK(b.len == golden5_len + sizeof day && b.data[golden4_len] == 4 &&
	    memcmp(b.data + golden5_len, day, sizeof day) == 0);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &r, &err), RECORD_OK);
	CHECK_EQ(r.policy.expect_every_ms, 86400000);
	CHECK(unit_record_same(&r, &want));
	/* Spelt 0, or past 100 years: corrupt. */
	memcpy(buf, b.data, b.len);
	buf[golden5_len + 1] = 1;
	buf[golden5_len + 2] = 0;
	CHECK_EQ(unit_decode_copy(buf, golden5_len + 3, &r, &err),
	    RECORD_EVALUE);
	CHECK_STR(err.msg, "record has expect_every out of range");
	memcpy(buf, b.data, golden5_len);
	memcpy(buf + golden5_len, "\x05\x09\xff\xff\xff\xff\xff\xff\xff\xff\x7f",
	    11);
	CHECK_EQ(unit_decode_copy(buf, golden5_len + 11, &r, &err),
	    RECORD_EVALUE);
	buf_free(&b);
}

/* Tag 6, output (SPEC 6.5): a u8, 1 on-failure or 2 on-change; pass is
 * not written, and 0 or 3 is corrupt. */
static void
test_record5_output(void)
{
	static const uint8_t	 change[] = { 0x06, 0x01, 0x02 };
	struct cb_record	 r, want;
	struct cb_buf		 b = { 0 };
	struct cb_err		 err;
	uint8_t			 buf[1100];

	golden5_record(&want);
	want.policy.output = OUTPUT_ON_CHANGE;
	record_encode(&want, &b);
	CHECK_EQ(b.len, golden5_len + sizeof change);
	CHECK(b.len == golden5_len + sizeof change &&
	    b.data[golden4_len] == 4 &&
	    memcmp(b.data + golden5_len, change, sizeof change) == 0);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &r, &err), RECORD_OK);
	CHECK_EQ(r.policy.output, OUTPUT_ON_CHANGE);
	CHECK(unit_record_same(&r, &want));
	memcpy(buf, b.data, b.len);
	buf[golden5_len + 2] = 0;
	CHECK_EQ(unit_decode_copy(buf, b.len, &r, &err), RECORD_EVALUE);
	CHECK_STR(err.msg, "record has output out of range");
	buf[golden5_len + 2] = 3;
	CHECK_EQ(unit_decode_copy(buf, b.len, &r, &err), RECORD_EVALUE);
	buf_free(&b);
	/* pass: no field. */
	golden5_record(&want);
	record_encode(&want, &b);
	CHECK_EQ(b.len, golden5_len);
	buf_free(&b);
}

/* Tag 4, the outage under way (SPEC 6.5): three varints. */
static void
test_record5_outage(void)
{
	static const uint8_t	 outage[] = { 0x04, 0x03, 0x64, 0x05, 0x0c };
	struct cb_record	 r, want;
	struct cb_buf		 b = { 0 };
	struct cb_err		 err;

	golden5_record(&want);
	want.outage_since_ms = 100;
	want.outage_failed = 5;
	want.outage_refused = 12;
	record_encode(&want, &b);
	CHECK(b.len == golden5_len + sizeof outage &&
	    memcmp(b.data + golden5_len, outage, sizeof outage) == 0);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &r, &err), RECORD_OK);
	CHECK_EQ(r.outage_failed, 5);
	CHECK_EQ(r.outage_refused, 12);
	CHECK(unit_record_same(&r, &want));
	buf_free(&b);
}

void
test_record5(void)
{
	golden5_make();
	test_record5_golden();
	test_record5_truncated();
	test_record5_errors();
	test_record5_expect();
	test_record5_output();
	test_record5_outage();
}
