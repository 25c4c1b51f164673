/* SPDX-License-Identifier: ISC */
/*
 * unit-out.c: the output writers of src/out.c (numbers, RFC 3339 against
 * gmtime_r, JSON strings with their UTF-8 check, the JSON writer's commas,
 * and the 64 kB buffer's boundary), written to a memory stream; and
 * the escaper of text from the state (esc.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/esc.h"
#include "../src/out.h"
#include "unit.h"

static char	*mem;
static size_t	 memlen;
static FILE	*memf;

static struct obuf *
begin(void)
{
	free(mem);
	mem = NULL;
	memf = open_memstream(&mem, &memlen);
	return out_start(memf);
}

/* What was written since begin(), as a string (valid until begin()). */
static const char *
end(struct obuf *o)
{
	out_flush(o);
	fclose(memf);
	memf = NULL;
	return mem;
}

static void
test_numbers(void)
{
	struct obuf	*o;

	o = begin();
	out_u64(o, 0);
	OUT_LIT(o, " ");
	out_u64(o, UINT64_MAX);
	OUT_LIT(o, " ");
	out_i64(o, INT64_MIN);
	OUT_LIT(o, " ");
	out_i64(o, -7);
	OUT_LIT(o, " ");
	out_hex64(o, 0x0123456789abcdefULL);
	OUT_LIT(o, " ");
	out_seconds(o, 1767225600250);
	OUT_LIT(o, " ");
	out_seconds(o, 5);
	CHECK_STR(end(o), "0 18446744073709551615 -9223372036854775808 -7 "
	    "0123456789abcdef 1767225600.250 0.005");
}

/* What rfc3339 writes, by gmtime_r. */
static void
ref_time(int64_t ms, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (gmtime_r(&t, &tm) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "\"%04d-%02d-%02dT%02d:%02d:%02d.%03dZ\"",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static void
test_rfc3339(void)
{
	static const int64_t	 fixed[] = { 1, 999, 86399999, 86400000,
	    951782400000 /* 2000-02-29 */, 1767225600000, 253402300799999,
	    253402300800000 /* year 10000 */, 4102444800123 };
	struct obuf		*o;
	char			 want[64];
	uint64_t		 x = 88172645463325252ULL;
	int64_t			 ms;
	size_t			 i;
	int			 bad = 0;

	o = begin();
	out_rfc3339(o, 1767225600000, 0);
	CHECK_STR(end(o), "2026-01-01T00:00:00.000Z");
	o = begin();
	out_rfc3339(o, 253402300800000, '"');
	CHECK_STR(end(o), "\"10000-01-01T00:00:00.000Z\"");
	for (i = 0; i < sizeof fixed / sizeof fixed[0] + 20000; i++) {
		if (i < sizeof fixed / sizeof fixed[0])
			ms = fixed[i];
		else {
			/* xorshift; times up to year ~2300, so that the
			 * date cache sees hits, misses and collisions */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			ms = (int64_t)(x % 10500000000000ULL) + 1;
			if (i % 3 == 0)
				ms = 1767225600000 + (int64_t)(x % 200) *
				    86400000 + (int64_t)(x % 86400000);
		}
		o = begin();
		out_rfc3339(o, ms, '"');
		ref_time(ms, want, sizeof want);
		if (strcmp(end(o), want) != 0 && bad++ < 5)
			fprintf(stderr, "rfc3339(%lld): %s, not %s\n",
			    (long long)ms, mem, want);
	}
	CHECK_EQ(bad, 0);
}

static const char *
json(const char *s, size_t len)
{
	struct obuf	*o = begin();

	out_json_string(o, s, len);
	return end(o);
}

#define JSON(lit)	json(lit, sizeof(lit) - 1)

static void
test_json_string(void)
{
	CHECK_STR(JSON(""), "\"\"");
	CHECK_STR(JSON("a\"b\\c\n\t\x01\x7f"),
	    "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\"");
	/* Valid UTF-8, 2, 3 and 4 bytes and the edges, as it is. */
	CHECK_STR(JSON("\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xc2\xa0 "
	    "\xed\x9f\xbf \xee\x80\x80 \xf4\x8f\xbf\xbf"),
	    "\"\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xc2\xa0 \xed\x9f\xbf "
	    "\xee\x80\x80 \xf4\x8f\xbf\xbf\"");
	/* C1 controls, UTF-8 encoded, as \u00XX (a CSI would reach a
	 * terminal that shows the JSON); raw, they are not UTF-8. */
	CHECK_STR(JSON("a\xc2\x9b" "2Jb\xc2\x80\xc2\x9f"),
	    "\"a\\u009b2Jb\\u0080\\u009f\"");
	CHECK_STR(JSON("\x9b"), "\"\\ufffd\"");
	/* Not UTF-8: each byte that starts no valid sequence is U+FFFD. */
	CHECK_STR(JSON("\xff"), "\"\\ufffd\"");
	CHECK_STR(JSON("a\xc0\xafz"), "\"a\\ufffd\\ufffdz\"");	/* overlong */
	CHECK_STR(JSON("\xe0\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	/* a surrogate */
	CHECK_STR(JSON("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_STR(JSON("\xf4\x90\x80\x80"),
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");	/* above U+10FFFF */
	CHECK_STR(JSON("\xe2\x9c"), "\"\\ufffd\\ufffd\"");	/* cut short */
	CHECK_STR(JSON("\xe2\x9c" "a"), "\"\\ufffd\\ufffda\"");
	CHECK_STR(JSON("\x80\xc3\xa9"), "\"\\ufffd\xc3\xa9\"");
	CHECK_STR(json("a\0b", 3), "\"a\\u0000b\"");
}

static void
test_json_writer(void)
{
	struct json_writer	 jw;
	struct obuf		*o;
	char			*want;
	size_t			 i, n;

	o = begin();
	jw_init(&jw, o);
	jw_array_begin_lines(&jw);
	jw_end(&jw);
	CHECK_STR(end(o), "[]");

	o = begin();
	jw_init(&jw, o);
	jw_array_begin_lines(&jw);
	jw_array_begin_object(&jw);
	jw_object_string(&jw, "name", "x", 1);
	jw_object_u64(&jw, "n", 3);
	jw_object_null(&jw, "none");
	jw_object_time(&jw, "t", 0);
	jw_object_string_or_null(&jw, "r", "");
	jw_object_begin_object(&jw, "o");
	jw_object_i64(&jw, "a", -1);
	jw_object_hex(&jw, "h", (const uint8_t *)"\x01\xab", 2);
	jw_end(&jw);
	jw_object_begin_array_compact(&jw, "bits");
	jw_array_u64(&jw, 0);
	jw_array_u64(&jw, 1);
	jw_end(&jw);
	jw_object_begin_array(&jw, "l");
	jw_array_string(&jw, "s");
	jw_array_time(&jw, 1);
	jw_array_begin_object(&jw);
	jw_end(&jw);
	jw_end(&jw);
	jw_end(&jw);
	jw_array_begin_object(&jw);
	jw_end(&jw);
	jw_end(&jw);
	CHECK_STR(end(o), "[\n  {\"name\": \"x\", \"n\": 3, \"none\": null, "
	    "\"t\": null, \"r\": null, \"o\": {\"a\": -1, \"h\": \"01ab\"}, "
	    "\"bits\": [0,1], \"l\": [\"s\", "
	    "\"1970-01-01T00:00:00.001Z\", {}]},\n  {}\n]");

	/* Far past the 64 kB buffer: nothing lost or doubled at its edge. */
	n = 20000;
	want = malloc(n * 32 + 16);
	if (want == NULL)
		abort();
	o = begin();
	jw_init(&jw, o);
	jw_array_begin_lines(&jw);
	strcpy(want, "[");
	for (i = 0; i < n; i++) {
		jw_array_begin_object(&jw);
		jw_object_u64(&jw, "i", i);
		jw_object_string(&jw, "k", "vv", 2);
		jw_end(&jw);
		sprintf(want + strlen(want), "%s{\"i\": %zu, \"k\": \"vv\"}",
		    i ? ",\n  " : "\n  ", i);
	}
	jw_end(&jw);
	strcat(want, "\n]");
	CHECK(strcmp(end(o), want) == 0);
	CHECK_EQ(memlen, strlen(want));
	free(want);
}

/* The one escaper of text from the state (src/esc.c). */
static void
test_esc(void)
{
	char	b[16];

	CHECK_STR(esc("api.v2:x@h/y+z_-"), "api.v2:x@h/y+z_-");
	CHECK_STR(esc(NULL), "");
	/* C0, DEL: the title-setting sequence of the issue. */
	CHECK_STR(esc("\x1b[2J\x1b]0;pwned\x07"),
	    "\\x1b[2J\\x1b]0;pwned\\x07");
	CHECK_STR(esc("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
	/* C1: raw (not UTF-8) and UTF-8 encoded, both bytes. */
	CHECK_STR(esc("\x9b" "1m"), "\\x9b1m");
	CHECK_STR(esc("\xc2\x9b" "1m\xc2\x80\xc2\x9f"),
	    "\\xc2\\x9b1m\\xc2\\x80\\xc2\\x9f");
	/* Valid UTF-8 above U+009F as it is (U+00A0, é, ✓, 😀). */
	CHECK_STR(esc("\xc2\xa0\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80"),
	    "\xc2\xa0\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
	/* Invalid UTF-8: each byte. */
	CHECK_STR(esc("\xff\xfe"), "\\xff\\xfe");
	CHECK_STR(esc("\xc0\xaf"), "\\xc0\\xaf");		/* overlong */
	/* Overlong 3- and 4-byte forms of U+009B (CSI), and past U+10FFFF:
	 * each byte, so no raw 0x9b reaches an 8-bit terminal. */
	CHECK_STR(esc("\xe0\x82\x9b"), "\\xe0\\x82\\x9b");
	CHECK_STR(esc("\xf0\x80\x82\x9b"), "\\xf0\\x80\\x82\\x9b");
	CHECK_STR(esc("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	CHECK_STR(esc("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
	CHECK_STR(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80");	/* surrogate */
	CHECK_STR(esc("\xe2\x9c" "a"), "\\xe2\\x9ca");	/* cut short */
	/* NUL bytes inside the length. */
	CHECK_STR(esc_n("a\0b", 3), "a\\x00b");
	CHECK_EQ(esc_len("a\0b\xc3\xa9\xc2\x9b", 7), 1 + 4 + 1 + 2 + 8);
	/* Cut between units, marked. */
	CHECK_STR(esc_mem(b, sizeof b, "abcdefghijklmnop", 16),
	    "abcdefghijkl...");
	CHECK_STR(esc_mem(b, sizeof b, "abcdefghijklmno", 15),
	    "abcdefghijklmno");
	CHECK_STR(esc_mem(b, sizeof b, "abcdefghij\x1b" "z\x01", 13),
	    "abcdefghij...");
	CHECK_STR(esc_mem(b, 3, "\x1b", 1), "");
	/* The slots: four results live at once. */
	{
		const char	*p1 = esc("1"), *p2 = esc("2"), *p3 = esc("3"),
				*p4 = esc("\x01");

		CHECK_STR(p1, "1");
		CHECK_STR(p2, "2");
		CHECK_STR(p3, "3");
		CHECK_STR(p4, "\\x01");
	}
}

void
test_out(void)
{
	test_esc();
	test_numbers();
	test_rfc3339();
	test_json_string();
	test_json_writer();
	free(mem);
	mem = NULL;
}
