/* SPDX-License-Identifier: ISC */
/*
 * unit-record4.c: unit tests of record format 4, which version 5 extends: a
 * golden byte vector written out from the layout comment at the top of
 * record.c (every field set, the whole policy snapshot, last_success and
 * last_run_by), each short read one error, each value out of range or
 * spelt a second way RECORD_EVALUE, and the size a breaker costs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "record.h"
#include "unit.h"

const uint8_t golden4[] = {
	0x43, 0x42, 0x52, 0x4b,				/* "CBRK" */
	0x04, 0x00,					/* version 4 */
	0x01,						/* state open */
	0x01,						/* manual */
	0xb0, 0xfb, 0xb1, 0xfe, 0xf9, 0x62,		/* last_used: T0 + 55000, the base B */
	/* epoch (14) */
	0x88, 0x8e, 0x98, 0xa8, 0xc0, 0xe0, 0x80, 0x81, 0x01,
	0xb0, 0xdb, 0x06,				/* created_at - B */
	0x91, 0x4e,					/* changed_at - B */
	0x90, 0x4e,					/* opened_at - B */
	0xb1, 0xdb, 0x06,				/* open_until - B */
	0xb0, 0xea, 0x01,				/* last_run_at - B */
	0xc0, 0xa9, 0x07,				/* cooldown */
	0x05,						/* consecutive_failures */
	0x01,						/* half_open_successes */
	0x64,						/* calls */
	0x50,						/* successes */
	0x0c,						/* failures */
	0x03,						/* timeouts */
	0x04,						/* ignored */
	0x02,						/* interrupted */
	0x02,						/* stale */
	0x09,						/* rejected */
	0x07,						/* transitions[closed] */
	0x08,						/* transitions[open] */
	0x06,						/* transitions[half-open] */
	0x0e,						/* last_exit 7 */
	0xd4, 0xd8, 0x03,				/* last_duration */
	/* reason (56) */
	0x16, '5', ' ', 'c', 'o', 'n', 's', 'e', 'c', 'u', 't', 'i',
	'v', 'e', ' ', 'f', 'a', 'i', 'l', 'u', 'r', 'e', 's',
	0x02,						/* 2 probe slots */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* p0: token */
	0x91, 0x88, 0xb8, 0x03,				/* p0: lease_until - B */
	0xa4, 0x42,					/* p0: pid */
	0xb1, 0xd1, 0xf9, 0xd6, 0x03,			/* p0: start_time */
	/* p0: boot_id (99) */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
	0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x80, 0xdd, 0xdb, 0x01,				/* p0: lease length */
	0x91, 0x4e,					/* p0: since - B */
	0x03, 'd', 'b', '1',				/* p0: host */
	0xfc, 0xff, 0xff, 0xff, 0x0e,			/* p0: pidns */
	0xa4, 0x42,					/* p0: pgid */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* p1: token */
	0xf1, 0xa2, 0x04,				/* p1: lease_until - B */
	0x00,						/* p1: pid */
	0x00,						/* p1: start_time */
	/* p1: boot_id (145) */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xb0, 0xea, 0x01,				/* p1: lease length */
	0x91, 0x4e,					/* p1: since - B */
	0x00,						/* p1: host */
	0x00,						/* p1: pidns */
	0x00,						/* p1: pgid */
	0x0a,						/* window of 10 calls */
	0xa5, 0x02,					/* window bits */
	0x02,						/* 2 failure times */
	0xd0, 0x86, 0x03,				/* T0 + 30000 - B */
	0xb1, 0xea, 0x01,				/* + 15000 */
	0x03,						/* 3 runs */
	0x00,						/* mark */
	0x00,						/* exit */
	0xf0, 0xa2, 0x04,				/* at - the last */
	0x11,						/* mark */
	0xf8, 0x01,					/* exit */
	0xa1, 0x9c, 0x01,				/* at - the last */
	0x21,						/* mark */
	0x0e,						/* exit */
	0xa1, 0x9c, 0x01,				/* at - the last */
	0x02,						/* 2 transitions */
	0x91, 0x4e,					/* at - the last */
	0x00, 0x01,					/* from, to */
	/* reason (201) */
	0x16, '5', ' ', 'c', 'o', 'n', 's', 'e', 'c', 'u', 't', 'i',
	'v', 'e', ' ', 'f', 'a', 'i', 'l', 'u', 'r', 'e', 's',
	0x00,						/* user */
	0xa0, 0x9c, 0x01,				/* at - the last */
	0x02, 0x01,					/* from, to */
	0x05, 't', 'r', 'i', 'p', '!',			/* reason */
	0x03, 'b', 'o', 'b',				/* user */
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,	/* identity */
	0x06,						/* busy */
	0x28,						/* refused_since_run */
	0x01,						/* a last failure */
	0xb0, 0xea, 0x01,				/* at - B */
	0x0e,						/* exit 7 */
	0x00,						/* signal */
	0x00,						/* timed_out */
	0xaa, 0xec, 0x01,				/* duration */
	0x02,						/* a whole policy snapshot */
	0x01,						/* trip_policy rate */
	0x04,						/* preset 2 */
	0x05,						/* trip.failures */
	0xe0, 0xd4, 0x03,				/* trip.period */
	0x14,						/* trip.window */
	0x0a,						/* trip.min_calls */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f,	/* trip.failure_rate 0.5 */
	0xe0, 0xa7, 0x12,				/* open_timeout */
	0xc0, 0xcf, 0x24,				/* max_open_timeout */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,	/* backoff 2.0 */
	0x01,						/* half_open_max_calls */
	0xb0, 0xea, 0x01,				/* timeout */
	0x03,						/* max_concurrent */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd0, 0x3f,	/* jitter 0.25 */
	0x80, 0xdd, 0xdb, 0x01,				/* probe_lease */
	0xb0, 0xea, 0x01,				/* probe_timeout */
	0x01,						/* probe_set */
	0x88, 0x27,					/* kill_after */
	0xa0, 0x9c, 0x01,				/* slow_call */
	0x02, 0x01, 0x62, 0x00, 0x9a, 0x01,		/* failure_codes 1-99,101-255 */
	0x01, 0x00, 0x00,				/* success_codes 0 */
	0x01, 0x64, 0x00,				/* ignore_codes 100 */
	0x02,						/* timeout_is ignore */
	0x01,						/* signal_is success */
	0x01,						/* on_open skip */
	0x01,						/* on_busy skip */
	0x4c,						/* open_exit_code 76 */
	0x01,						/* 1 run slot */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* r0: token */
	0xd1, 0xf7, 0x07,				/* r0: lease_until - B */
	0xee, 0x43,					/* r0: pid */
	0xc0, 0xc4, 0x07,				/* r0: start_time */
	/* r0: boot_id (351) */
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19,
	0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0xf0, 0xa2, 0x04,				/* r0: lease length */
	0x90, 0x4e,					/* r0: since - B */
	0x05, 'w', 'e', 'b', '-', '2',			/* r0: host */
	0xa1, 0x81, 0x80, 0x80, 0x0f,			/* r0: pidns */
	0xf0, 0x43,					/* r0: pgid */
	0xf0, 0xa2, 0x04,				/* last_success - B */
	0x04, 'r', 'o', 'o', 't',			/* last_run_by: user */
	0x05, 'w', 'e', 'b', '-', '2',			/* host */
	/* argv0 (399) */
	0x09, 'b', 'a', 'c', 'k', 'u', 'p', '.', 's', 'h',
	0x01,						/* manual_on_open fail */
};

/* Offsets into golden4 of the fields the error tests patch. */
#define G4_STATE	6
#define G4_MANUAL	7
#define G4_COOLDOWN	36
#define G4_CONSEC	39
#define G4_P0_HOST	121
#define G4_LASTFAIL	250
#define G4_POLICY	260
#define G4_TRIP	261
#define G4_PRESET	262
#define G4_FAILURES	263
#define G4_PERIOD	264
#define G4_WINDOW	267
#define G4_MIN_CALLS	268
#define G4_BACKOFF	283
#define G4_HALF_OPEN	291
#define G4_MAX_CONC	295
#define G4_JITTER	296
#define G4_PROBE_TIMEOUT	308
#define G4_PROBE_SET	311
#define G4_FAILURE_CODES	317
#define G4_IGNORE	326
#define G4_TIMEOUT_IS	329
#define G4_SIGNAL_IS	330
#define G4_ON_OPEN	331
#define G4_ON_BUSY	332
#define G4_NRUNNING	334
#define G4_R0_PGID	383
#define G4_LAST_SUCCESS	385
#define G4_USER	388
#define G4_ARGV0	399
#define G4_MANUAL_ON_OPEN	409

const size_t	golden4_len = sizeof golden4;

/* What golden4 holds: the version 3 golden record and every version 4
 * field. */
void
golden4_record(struct cb_record *r)
{
	struct cb_snapshot	*s = &r->policy;
	int			 c;

	unit_golden_record(r);
	r->slots[0].pidns = 4026531836u;
	r->slots[0].pgid = 4242;
	r->running[0].pidns = 4026532001u;
	r->running[0].pgid = 4344;
	s->full = 1;
	s->jitter = 0.25;
	s->probe_lease_ms = 3600000;
	s->probe_timeout_ms = 30000;
	s->probe_set = 1;
	s->kill_after_ms = 5000;
	s->slow_call_ms = 20000;
	memset(&s->failure_codes, 0, sizeof s->failure_codes);
	memset(&s->success_codes, 0, sizeof s->success_codes);
	memset(&s->ignore_codes, 0, sizeof s->ignore_codes);
	for (c = 1; c < 256; c++)
		if (c != 100)
			codeset_add(&s->failure_codes, c);
	codeset_add(&s->success_codes, 0);
	codeset_add(&s->ignore_codes, 100);
	s->timeout_is = VERDICT_IGNORE;
	s->signal_is = VERDICT_SUCCESS;
	s->on_open = ON_OPEN_SKIP;
	s->on_busy = ON_OPEN_SKIP;
	s->open_exit_code = 76;
	r->last_success_ms = T0 + 20000;
	strcpy(r->last_run_by.user, "root");
	strcpy(r->last_run_by.host, "web-2");
	strcpy(r->last_run_by.argv0, "backup.sh");
	r->manual_on_open = MANUAL_ON_OPEN_FAIL;
}

static void
test_record4_golden(void)
{
	struct cb_record	r, want;
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	golden4_record(&want);
	record_encode(&want, &b);
	CHECK_EQ(sizeof golden4, 410);
	/* Written as version 5: the same fields, and no tagged one. */
	CHECK_EQ(b.len, sizeof golden4 + 1);
	CHECK(b.len == sizeof golden4 + 1 && b.data[4] == 5 &&
	    memcmp(b.data, golden4, 4) == 0 &&
	    memcmp(b.data + 5, golden4 + 5, sizeof golden4 - 5) == 0 &&
	    b.data[sizeof golden4] == 0);

	CHECK_EQ(unit_decode_copy(golden4, sizeof golden4, &r, &err),
	    RECORD_OK);
	CHECK_EQ(r.policy.full, 1);
	CHECK_EQ(r.policy.open_exit_code, 76);
	CHECK_EQ(r.policy.on_busy, ON_OPEN_SKIP);
	CHECK_EQ(r.policy.probe_timeout_ms, 30000);
	CHECK(codeset_has(&r.policy.ignore_codes, 100));
	CHECK(!codeset_has(&r.policy.failure_codes, 100));
	CHECK(codeset_has(&r.policy.failure_codes, 255));
	CHECK_EQ(r.running[0].pgid, 4344);
	CHECK_EQ(r.slots[0].pidns, 4026531836u);
	CHECK_EQ(r.last_success_ms, T0 + 20000);
	CHECK_STR(r.last_run_by.argv0, "backup.sh");
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_FAIL);
	CHECK_EQ(r.failtimes[1], T0 + 45000);
	CHECK_EQ(r.run_at_ms[0], T0 + 20000);
	CHECK_EQ(r.hist[1].at_ms, T0 + 50000);
	CHECK(unit_record_same(&r, &want));

	/* Decoded and encoded again: the same bytes, as version 5. */
	buf_reset(&b);
	record_encode(&r, &b);
	CHECK(b.len == sizeof golden4 + 1 &&
	    memcmp(b.data + 5, golden4 + 5, sizeof golden4 - 5) == 0);
	buf_free(&b);
}

/* Every proper prefix is RECORD_ETRUNC, and nothing else. */
static void
test_record4_truncated(void)
{
	struct cb_record	r;
	struct cb_err		err;
	size_t			len;
	int			wrong = 0;

	for (len = 0; len < sizeof golden4; len++)
		if (unit_decode_copy(golden4, len, &r, &err) !=
		    RECORD_ETRUNC || err.msg[0] == '\0') {
			wrong++;
			fprintf(stderr, "v4 prefix of %zu bytes: %s\n", len,
			    err.msg);
		}
	CHECK_EQ(wrong, 0);
}

/* golden4 with len bytes at off replaced by the n bytes of with. */
static const struct {
	const char		*what;
	size_t			 off, len;
	const char		*with;
	size_t			 n;
	enum record_error	 want;
	const char		*msg;		/* exact, or NULL */
} errors4[] = {
	{ "state 3", G4_STATE, 1, "\x03", 1, RECORD_EVALUE,
	  "record has invalid state 3" },
	{ "manual 2", G4_MANUAL, 1, "\x02", 1, RECORD_EVALUE,
	  "record has a flag other than 0 or 1" },
	{ "an overlong number", G4_CONSEC, 1, "\x85\x00", 2, RECORD_EVALUE,
	  "record has a number longer than its shortest form" },
	{ "a number of 65 bits", G4_COOLDOWN, 3,
	  "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10, RECORD_EVALUE,
	  "record has a number past 64 bits" },
	{ "a u32 of 2^32", G4_CONSEC, 1, "\x80\x80\x80\x80\x10", 5,
	  RECORD_EVALUE, "record has consecutive_failures out of range" },
	{ "cooldown of 2^64 - 1", G4_COOLDOWN, 3,
	  "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10, RECORD_EVALUE,
	  "record has cooldown out of range" },
	{ "host of 64 bytes", G4_P0_HOST, 1, "\x40", 1, RECORD_EVALUE,
	  "record probe slot 0 has an invalid host" },
	{ "last_failure presence 2", G4_LASTFAIL, 1, "\x02", 1,
	  RECORD_EVALUE, "record has an invalid last_failure presence byte" },
	{ "no last failure spelt out", G4_LASTFAIL, 10,
	  "\x01\x00\x01\x00\x00\x00", 6, RECORD_EVALUE,
	  "record has an empty last_failure spelt out" },
	{ "policy presence 3", G4_POLICY, 1, "\x03", 1, RECORD_EVALUE,
	  "record has an invalid policy presence byte" },
	{ "trip.policy 3", G4_TRIP, 1, "\x03", 1, RECORD_EVALUE,
	  "record policy has trip.policy out of range" },
	{ "preset -2", G4_PRESET, 1, "\x03", 1, RECORD_EVALUE,
	  "record has policy preset out of range" },
	{ "jitter NaN", G4_JITTER + 6, 2, "\xf8\x7f", 2, RECORD_EVALUE,
	  "record policy has jitter out of range" },
	{ "jitter 1.5", G4_JITTER + 6, 2, "\xf8\x3f", 2, RECORD_EVALUE,
	  "record policy has jitter out of range" },
	{ "probe_timeout of 2^64 - 1", G4_PROBE_TIMEOUT, 3,
	  "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10, RECORD_EVALUE,
	  "record policy has probe_timeout out of range" },
	{ "probe_set 2", G4_PROBE_SET, 1, "\x02", 1, RECORD_EVALUE,
	  "record has a flag other than 0 or 1" },
	{ "code 100 failure and ignored", G4_IGNORE + 1, 1, "\x05", 1,
	  RECORD_EVALUE,
	  "record policy has two code classes that share a code" },
	/* Every value in its key's range as the config file's (SPEC 5). */
	{ "trip.failures 0", G4_FAILURES, 1, "\x00", 1, RECORD_EVALUE,
	  "record policy has trip.failures out of range" },
	{ "trip.failures 1001", G4_FAILURES, 1, "\xe9\x07", 2, RECORD_EVALUE,
	  "record policy has trip.failures out of range" },
	{ "trip.period 0", G4_PERIOD, 3, "\x00", 1, RECORD_EVALUE,
	  "record policy has trip.period out of range" },
	{ "trip.window 0", G4_WINDOW, 1, "\x00", 1, RECORD_EVALUE,
	  "record policy has trip.window out of range" },
	{ "trip.min_calls past the window", G4_MIN_CALLS, 1, "\x15", 1,
	  RECORD_EVALUE, "record policy has trip.min_calls out of range" },
	{ "backoff 0.5", G4_BACKOFF + 6, 2, "\xe0\x3f", 2, RECORD_EVALUE,
	  "record policy has backoff out of range" },
	{ "half_open_max_calls 0", G4_HALF_OPEN, 1, "\x00", 1,
	  RECORD_EVALUE, "record policy has half_open_max_calls out of range" },
	{ "half_open_max_calls 65", G4_HALF_OPEN, 1, "\x41", 1,
	  RECORD_EVALUE, "record policy has half_open_max_calls out of range" },
	{ "max_concurrent 65", G4_MAX_CONC, 1, "\x41", 1, RECORD_EVALUE,
	  "record policy has max_concurrent out of range" },
	{ "preset 30000", G4_PRESET, 1, "\xe0\xd4\x03", 3, RECORD_EVALUE,
	  "record policy has preset out of range" },
	{ "a code range ending at 256", G4_FAILURE_CODES + 4, 1, "\x9b", 1,
	  RECORD_EVALUE, "record policy has a code class out of range" },
	{ "codes past 255", G4_IGNORE + 2, 1, "\xc8\x01", 2, RECORD_EVALUE,
	  "record policy has a code class out of range" },
	{ "129 code ranges", G4_IGNORE, 1, "\x81\x01", 2, RECORD_EVALUE,
	  "record policy has a code class out of range" },
	{ "timeout_is 3", G4_TIMEOUT_IS, 1, "\x03", 1, RECORD_EVALUE,
	  "record policy has timeout_is out of range" },
	{ "signal_is 3", G4_SIGNAL_IS, 1, "\x03", 1, RECORD_EVALUE,
	  "record policy has signal_is out of range" },
	{ "on_open 2", G4_ON_OPEN, 1, "\x02", 1, RECORD_EVALUE,
	  "record policy has on_open out of range" },
	{ "on_busy 2", G4_ON_BUSY, 1, "\x02", 1, RECORD_EVALUE,
	  "record policy has on_busy out of range" },
	{ "65 run slots", G4_NRUNNING, 1, "\x41", 1, RECORD_EVALUE,
	  "record has 65 run slots, more than 64" },
	{ "pgid of 2^31", G4_R0_PGID, 2, "\x80\x80\x80\x80\x10", 5,
	  RECORD_EVALUE, "record has slot process group out of range" },
	{ "last_success of 2^60", G4_LAST_SUCCESS, 3,
	  "\xd1\x84\xce\x81\x86\x9d\xff\xff\x1f", 9, RECORD_EVALUE,
	  "record has last_success out of range" },
	{ "last_success 0 as a difference", G4_LAST_SUCCESS, 3,
	  "\xb0\xfb\xb1\xfe\xf9\x62", 6, RECORD_EVALUE,
	  "record has a time of 0 spelt as a difference" },
	{ "NUL in the user", G4_USER + 2, 1, "\x00", 1, RECORD_EVALUE,
	  "record last_run_by has an invalid user, host or command" },
	{ "command of 64 bytes", G4_ARGV0, 1, "\x40", 1, RECORD_EVALUE,
	  "record last_run_by has an invalid user, host or command" },
	{ "manual on_open 3", G4_MANUAL_ON_OPEN, 1, "\x03", 1,
	  RECORD_EVALUE, "record has invalid manual on_open 3" },
	{ "a trailing byte", sizeof golden4, 0, "\x00", 1, RECORD_ETRAIL,
	  "record has 1 trailing bytes" },
};

static void
test_record4_errors(void)
{
	struct cb_record	r;
	struct cb_err		err;
	uint8_t			buf[sizeof golden4 + 16];
	size_t			i, len;

	for (i = 0; i < sizeof errors4 / sizeof errors4[0]; i++) {
		memcpy(buf, golden4, errors4[i].off);
		memcpy(buf + errors4[i].off, errors4[i].with, errors4[i].n);
		memcpy(buf + errors4[i].off + errors4[i].n,
		    golden4 + errors4[i].off + errors4[i].len,
		    sizeof golden4 - errors4[i].off - errors4[i].len);
		len = sizeof golden4 - errors4[i].len + errors4[i].n;
		if (unit_decode_copy(buf, len, &r, &err) !=
		    (int)errors4[i].want || strcmp(err.msg,
		    errors4[i].msg) != 0)
			fprintf(stderr, "v4 decode error case: %s: %s\n",
			    errors4[i].what, err.msg);
		CHECK_EQ(unit_decode_copy(buf, len, &r, &err),
		    errors4[i].want);
		CHECK_STR(err.msg, errors4[i].msg);
	}
}

/*
 * What a breaker costs: a closed breaker that has run a while (as
 * bench/gen.c writes a million of them), with a whole snapshot of the
 * built-in policy and who ran it, in 180 bytes (172 today); the same with
 * a full strip of 32 runs a minute apart, in 340 (333).  Version 3 took
 * 309 and 661 for these without the version 4 fields.
 */
static void
test_record4_size(void)
{
	struct cb_record	r, back;
	struct cb_buf		b = { 0 };
	struct cb_err		err;
	int			i;

	record_init(&r, T0 - 86400000);
	r.calls = r.successes = 4321;
	r.last_run_at_ms = r.last_used_ms = T0;
	r.last_success_ms = T0;
	r.last_exit = 0;
	r.last_duration_ms = 842;
	r.identity = 0x9e3779b97f4a7c15ULL;
	r.policy.set = r.policy.full = 1;
	r.policy.trip_failures = 5;
	r.policy.trip_period_ms = 60000;
	r.policy.trip_window = 20;
	r.policy.trip_min_calls = 10;
	r.policy.trip_failure_rate = 0.5;
	r.policy.open_timeout_ms = 60000;
	r.policy.max_open_timeout_ms = 600000;
	r.policy.backoff = 2.0;
	r.policy.half_open_max_calls = 1;
	strcpy(r.last_run_by.user, "www-data");
	strcpy(r.last_run_by.host, "web-02");
	strcpy(r.last_run_by.argv0, "/usr/local/bin/sync-feeds");
	record_encode(&r, &b);
	if (b.len > 180)
		fprintf(stderr, "v4 closed breaker: %zu bytes\n", b.len);
	CHECK(b.len <= 180);
	for (i = 0; i < RECORD_RUNS; i++) {
		r.runs[i] = OUTCOME_SUCCESS;
		r.run_exit[i] = 0;
		r.run_at_ms[i] = T0 - (RECORD_RUNS - 1 - i) * 60000;
	}
	r.nruns = RECORD_RUNS;
	buf_reset(&b);
	record_encode(&r, &b);
	if (b.len > 340)
		fprintf(stderr, "v4 with 32 runs: %zu bytes\n", b.len);
	CHECK(b.len <= 340);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(unit_record_same(&r, &back));
	buf_free(&b);
}

void
test_record4(void)
{
	test_record4_golden();
	test_record4_truncated();
	test_record4_errors();
	test_record4_size();
}
