/*
 * unit-record.c: unit tests of the record encoding: a golden byte vector
 * written out by hand from the layout comment in record.c, the older
 * versions it still reads, and one test per decoder error class.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "record.h"
#include "unit.h"

/*
 * A fully populated version 2 record, byte by byte as the layout comment
 * at the top of record.c describes it.  golden_record() builds the same
 * record as a struct.  Its first G_V1_LEN bytes, with the version patched
 * to 1, are the same record as version 1 wrote it, without histories.
 */
static const uint8_t golden[] = {
	0x43, 0x42, 0x52, 0x4b,				/* "CBRK" */
	0x02, 0x00,					/* version 2 */
	0x01, 0x00,					/* state open, 0 */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* epoch */
	0x00, 0x68, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* created_at */
	0x60, 0x52, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* changed_at */
	0x50, 0x2b, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* opened_at */
	0xb0, 0x15, 0xe7, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* open_until */
	0x40, 0x04, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* last_run_at */
	0xd8, 0x3e, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* last_used */
	0xc0, 0xd4, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* cooldown 120000 */
	0x05, 0x00, 0x00, 0x00,				/* consecutive 5 */
	0x01, 0x00, 0x00, 0x00,				/* half-open succ. 1 */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* calls 100 */
	0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* successes 80 */
	0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* failures 12 */
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* timeouts 3 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* ignored 4 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* interrupted 2 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* stale 2 */
	0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* rejected 9 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* to closed 7 */
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* to open 8 */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* to half-open 6 */
	0x07, 0x00, 0x00, 0x00,				/* last_exit 7 */
	0x2a, 0x76, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* duration 30250 */
	0x16, 0x00,					/* reason: 22 bytes */
	'5', ' ', 'c', 'o', 'n', 's', 'e', 'c',
	'u', 't', 'i', 'v', 'e', ' ', 'f', 'a',
	'i', 'l', 'u', 'r', 'e', 's',
	0x02, 0x00,					/* 2 slots */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* 0: token */
	0xe0, 0x40, 0x1d, 0xd0, 0x8b, 0x01, 0x00, 0x00,	/* 0: lease_until */
	0x92, 0x10, 0x00, 0x00,				/* 0: pid 4242 */
	0xb1, 0x68, 0xde, 0x3a, 0x00, 0x00, 0x00, 0x00,	/* 0: start_time */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,	/* 0: boot_id */
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* 1: token */
	0x90, 0xc7, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 1: lease_until */
	0x00, 0x00, 0x00, 0x00,				/* 1: pid 0 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* 1: start_time 0 */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,	/* 1: boot_id */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0x0a, 0x00,					/* window: 10 calls */
	0xa5, 0x02,					/* its bits */
	0x02, 0x00,					/* 2 failure times */
	0x30, 0xdd, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00,
	0xc8, 0x17, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,
	0x03,						/* 3 run marks */
	0x00, 0x11, 0x05,	/* success, timed-out failure, rejected */
	0x02,						/* 2 transitions */
	0x60, 0x52, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 0: at */
	0x00, 0x01,					/* closed -> open */
	0x16,						/* reason: 22 bytes */
	'5', ' ', 'c', 'o', 'n', 's', 'e', 'c',
	'u', 't', 'i', 'v', 'e', ' ', 'f', 'a',
	'i', 'l', 'u', 'r', 'e', 's',
	0x00,						/* no user */
	0x50, 0x2b, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 1: at */
	0x02, 0x01,					/* half-open -> open */
	0x05, 't', 'r', 'i', 'p', '!',			/* reason */
	0x03, 'b', 'o', 'b',				/* user */
};

/* Offsets into golden of the fields the error tests patch. */
#define G_VERSION	4
#define G_STATE		6
#define G_LAST_EXIT	168
#define G_REASON_LEN	180
#define G_REASON	182
#define G_NSLOTS	204
#define G_WLEN		294
#define G_NFAILTIMES	298
#define G_V1_LEN	316
#define G_NRUNS		316
#define G_NHIST		320
#define G_HIST0_FROM	329

static void
golden_record(struct cb_record *r)
{
	int	i;

	memset(r, 0, sizeof *r);
	r->state = STATE_OPEN;
	r->epoch = 0x0102030405060708ULL;
	r->created_at_ms = T0;
	r->changed_at_ms = T0 + 60000;
	r->opened_at_ms = T0 + 50000;
	r->open_until_ms = T0 + 110000;
	r->last_run_at_ms = T0 + 40000;
	r->last_used_ms = T0 + 55000;
	r->cooldown_ms = 120000;
	r->consecutive_failures = 5;
	r->half_open_successes = 1;
	r->calls = 100;
	r->successes = 80;
	r->failures = 12;
	r->timeouts = 3;
	r->ignored = 4;
	r->interrupted = 2;
	r->stale = 2;
	r->rejected = 9;
	r->transitions[STATE_CLOSED] = 7;
	r->transitions[STATE_OPEN] = 8;
	r->transitions[STATE_HALF_OPEN] = 6;
	r->last_exit = 7;
	r->last_duration_ms = 30250;
	strcpy(r->reason, "5 consecutive failures");
	r->nslots = 2;
	r->slots[0].token = 0x1122334455667788ULL;
	r->slots[0].lease_until_ms = T0 + 3660000;
	r->slots[0].pid = 4242;
	r->slots[0].start_time = 987654321;
	for (i = 0; i < 16; i++)
		r->slots[0].boot_id[i] = (uint8_t)i;
	r->slots[1].token = 0x8877665544332211ULL;
	r->slots[1].lease_until_ms = T0 + 90000;
	r->slots[1].pid = 0;
	r->slots[1].start_time = 0;
	memset(r->slots[1].boot_id, 0xaa, 16);
	r->wlen = 10;
	r->window[0] = 0xa5;
	r->window[1] = 0x02;
	r->nfailtimes = 2;
	r->failtimes[0] = T0 + 30000;
	r->failtimes[1] = T0 + 45000;
	r->nruns = 3;
	r->runs[0] = OUTCOME_SUCCESS;
	r->runs[1] = OUTCOME_FAILURE | RECORD_MARK_TIMEOUT;
	r->runs[2] = OUTCOME_REJECTED;
	r->nhist = 2;
	r->hist[0].at_ms = T0 + 60000;
	r->hist[0].from = STATE_CLOSED;
	r->hist[0].to = STATE_OPEN;
	strcpy(r->hist[0].reason, "5 consecutive failures");
	r->hist[1].at_ms = T0 + 50000;
	r->hist[1].from = STATE_HALF_OPEN;
	r->hist[1].to = STATE_OPEN;
	strcpy(r->hist[1].reason, "trip!");
	strcpy(r->hist[1].user, "bob");
}

/*
 * record_decode sets every byte up to slots, the window, and each entry in
 * use (padding and text tails included), and leaves the entries past the
 * counts alone: compare exactly that, byte for byte.
 */
static int
record_same(const struct cb_record *a, const struct cb_record *b)
{
	size_t	i;

	if (memcmp(a, b, offsetof(struct cb_record, slots)) != 0 ||
	    a->wlen != b->wlen || a->nfailtimes != b->nfailtimes ||
	    a->nruns != b->nruns || a->nhist != b->nhist ||
	    memcmp(a->window, b->window, sizeof a->window) != 0 ||
	    memcmp(a->failtimes, b->failtimes,
	    a->nfailtimes * sizeof a->failtimes[0]) != 0 ||
	    memcmp(a->runs, b->runs, a->nruns) != 0)
		return 0;
	for (i = 0; i < a->nslots; i++)
		if (memcmp(&a->slots[i], &b->slots[i], sizeof a->slots[i]))
			return 0;
	for (i = 0; i < a->nhist; i++)
		if (memcmp(&a->hist[i], &b->hist[i], sizeof a->hist[i]))
			return 0;
	return 1;
}

int
unit_decode_copy(const uint8_t *data, size_t len, struct cb_record *r,
    struct cb_err *err)
{
	enum record_error	 e;
	uint8_t			*copy;

	copy = xmalloc(len);
	if (len > 0)
		memcpy(copy, data, len);
	memset(err, 0, sizeof *err);
	/* Garbage where the caller's struct held another record. */
	memset(r, 0xa5, sizeof *r);
	e = record_decode(copy, len, r, err);
	free(copy);
	return e;
}

static void
test_record_golden_encoding(void)
{
	struct cb_record	r;
	struct cb_buf		b = { 0 };

	golden_record(&r);
	record_encode(&r, &b);
	CHECK_EQ(sizeof golden, 375);
	CHECK_EQ(b.len, sizeof golden);
	CHECK(b.len == sizeof golden && memcmp(b.data, golden, b.len) == 0);
	buf_free(&b);
}

static void
test_record_golden_decoding(void)
{
	struct cb_record	r, want;
	struct cb_err		err;

	golden_record(&want);
	CHECK_EQ(unit_decode_copy(golden, sizeof golden, &r, &err), RECORD_OK);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK(r.epoch == 0x0102030405060708ULL);
	CHECK_EQ(r.created_at_ms, T0);
	CHECK_EQ(r.open_until_ms, T0 + 110000);
	CHECK_EQ(r.cooldown_ms, 120000);
	CHECK_EQ(r.consecutive_failures, 5);
	CHECK_EQ(r.half_open_successes, 1);
	CHECK_EQ(r.calls, 100);
	CHECK_EQ(r.rejected, 9);
	CHECK_EQ(r.transitions[STATE_HALF_OPEN], 6);
	CHECK_EQ(r.last_exit, 7);
	CHECK_EQ(r.last_duration_ms, 30250);
	CHECK_STR(r.reason, "5 consecutive failures");
	CHECK_EQ(r.nslots, 2);
	CHECK(r.slots[0].token == 0x1122334455667788ULL);
	CHECK_EQ(r.slots[0].pid, 4242);
	CHECK_EQ(r.slots[0].start_time, 987654321);
	CHECK_EQ(r.slots[0].boot_id[15], 15);
	CHECK_EQ(r.slots[1].lease_until_ms, T0 + 90000);
	CHECK_EQ(r.wlen, 10);
	CHECK_EQ(r.window[0], 0xa5);
	CHECK_EQ(r.window[1], 0x02);
	CHECK_EQ(r.nfailtimes, 2);
	CHECK_EQ(r.failtimes[1], T0 + 45000);
	CHECK_EQ(r.nruns, 3);
	CHECK_EQ(r.runs[1], OUTCOME_FAILURE | RECORD_MARK_TIMEOUT);
	CHECK_EQ(r.nhist, 2);
	CHECK_EQ(r.hist[1].from, STATE_HALF_OPEN);
	CHECK_STR(r.hist[1].reason, "trip!");
	CHECK_STR(r.hist[1].user, "bob");
	/* Every byte decoding defines, padding and text tails included. */
	CHECK(record_same(&r, &want));
}

/* A version 1 record still decodes, with empty histories. */
static void
test_record_version1(void)
{
	struct cb_record	r, want;
	struct cb_err		err;
	uint8_t			v1[G_V1_LEN];

	memcpy(v1, golden, sizeof v1);
	v1[G_VERSION] = 1;
	golden_record(&want);
	want.nruns = 0;
	memset(want.runs, 0, sizeof want.runs);
	want.nhist = 0;
	memset(want.hist, 0, sizeof want.hist);
	CHECK_EQ(unit_decode_copy(v1, sizeof v1, &r, &err), RECORD_OK);
	CHECK(record_same(&r, &want));
	/* But a version 2 record may not stop there. */
	v1[G_VERSION] = 2;
	CHECK_EQ(unit_decode_copy(v1, sizeof v1, &r, &err), RECORD_ETRUNC);
}

static void
test_record_round_trip(void)
{
	struct cb_record	r, back;
	struct cb_buf		b = { 0 }, b2 = { 0 };
	struct cb_err		err;

	/* A new record: negative "none yet" markers survive. */
	record_init(&r, T0);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.created_at_ms, T0);
	CHECK_EQ(r.changed_at_ms, T0);
	CHECK_EQ(r.last_used_ms, T0);
	CHECK_EQ(r.last_exit, -1);
	CHECK_EQ(r.last_duration_ms, -1);
	record_encode(&r, &b);
	CHECK_EQ(b.len, 8 + 8 + 7 * 8 + 2 * 4 + 11 * 8 + 4 + 8 + 4 * 2 + 2);
	CHECK(b.len > G_LAST_EXIT + 12 && memcmp(b.data + G_LAST_EXIT,
	    "\xff\xff\xff\xff" "\xff\xff\xff\xff\xff\xff\xff\xff", 12) == 0);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(record_same(&r, &back));

	/* The golden record, decoded and encoded again, is the same bytes. */
	buf_reset(&b);
	CHECK_EQ(unit_decode_copy(golden, sizeof golden, &back, &err), RECORD_OK);
	record_encode(&back, &b2);
	CHECK(b2.len == sizeof golden &&
	    memcmp(b2.data, golden, sizeof golden) == 0);

	/* Limits: a 255-byte reason, 64 slots, a 1000-call window and 1000
	 * failure times all fit. */
	memset(&r, 0, sizeof r);
	memset(r.reason, 'x', RECORD_REASON_MAX - 1);
	r.state = STATE_HALF_OPEN;
	r.nslots = RECORD_MAX_SLOTS;
	r.slots[63].token = 63;
	r.slots[63].pid = -5;
	r.wlen = RECORD_MAX_WINDOW;
	r.window[RECORD_MAX_WINDOW / 8 - 1] = 0x80;
	r.nfailtimes = RECORD_MAX_FAILTIMES;
	r.failtimes[999] = -1;
	buf_reset(&b);
	record_encode(&r, &b);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(record_same(&r, &back));
	CHECK_EQ(strlen(back.reason), 255);
	CHECK_EQ(back.slots[63].pid, -5);
	CHECK_EQ(back.failtimes[999], -1);
	buf_free(&b);
	buf_free(&b2);
}

static void
test_record_truncated(void)
{
	struct cb_record	r;
	struct cb_err		err;
	size_t			len;
	int			wrong = 0, silent = 0;

	/* Every proper prefix of a valid record, the empty one included. */
	for (len = 0; len < sizeof golden; len++) {
		if (unit_decode_copy(golden, len, &r, &err) != RECORD_ETRUNC) {
			wrong++;
			fprintf(stderr, "prefix of %zu bytes: not ETRUNC\n",
			    len);
		} else if (err.msg[0] == '\0')
			silent++;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(silent, 0);
	CHECK_EQ(unit_decode_copy(golden, 3, &r, &err), RECORD_ETRUNC);
	CHECK_STR(err.msg, "record truncated: 3 bytes");
}

/* Patch golden at off with bytes, decode len bytes (0: all), expect e. */
static const struct {
	const char		*what;
	size_t			 off;
	uint8_t			 b0, b1;	/* written at off, off + 1 */
	int			 two;		/* write b1 too */
	enum record_error	 want;
	const char		*msg;		/* exact, or NULL */
} decode_errors[] = {
	{ "bad magic", 3, 'X', 0, 0, RECORD_EMAGIC,
	  "not a cbexec record (bad magic)" },
	{ "version 3", G_VERSION, 3, 0, 1, RECORD_ENEWER,
	  "record version 3 is newer than this cbexec's 2" },
	{ "version 256", G_VERSION, 0, 1, 1, RECORD_ENEWER, NULL },
	{ "version 0", G_VERSION, 0, 0, 1, RECORD_EVALUE,
	  "record version 0 is invalid" },
	{ "state 3", G_STATE, 3, 0, 0, RECORD_EVALUE,
	  "record has invalid state 3" },
	{ "state 255", G_STATE, 255, 0, 0, RECORD_EVALUE, NULL },
	{ "reason of 256 bytes", G_REASON_LEN, 0x00, 0x01, 1, RECORD_EVALUE,
	  "record reason of 256 bytes exceeds 255" },
	{ "NUL in reason", G_REASON + 3, 0, 0, 0, RECORD_EVALUE,
	  "record reason contains a NUL byte" },
	{ "65 slots", G_NSLOTS, 65, 0, 1, RECORD_EVALUE,
	  "record has 65 probe slots, more than 64" },
	{ "window of 1001", G_WLEN, 0xe9, 0x03, 1, RECORD_EVALUE,
	  "record rate window of 1001 calls exceeds 1000" },
	{ "1001 failure times", G_NFAILTIMES, 0xe9, 0x03, 1, RECORD_EVALUE,
	  "record holds 1001 failure times, more than 1000" },
	{ "33 run marks", G_NRUNS, 33, 0, 0, RECORD_EVALUE,
	  "record holds 33 run marks, more than 32" },
	{ "17 transitions", G_NHIST, 17, 0, 0, RECORD_EVALUE,
	  "record holds 17 transitions, more than 16" },
	{ "transition from state 3", G_HIST0_FROM, 3, 0, 0, RECORD_EVALUE,
	  "record transition 0 has an invalid state" },
	/* Times and durations a state machine could overflow on. */
	{ "created_at of -2^63", 23, 0x80, 0, 0, RECORD_EVALUE,
	  "record has created_at out of range" },
	{ "open_until of 2^62", 47, 0x40, 0, 0, RECORD_EVALUE,
	  "record has open_until out of range" },
	{ "negative cooldown", 71, 0xff, 0, 0, RECORD_EVALUE,
	  "record has cooldown out of range" },
	{ "last_duration of 2^55", G_LAST_EXIT + 10, 0xc0, 0x00, 1,
	  RECORD_EVALUE, "record has last_duration out of range" },
	{ "probe lease of 2^62", G_NSLOTS + 2 + 15, 0x40, 0, 0,
	  RECORD_EVALUE, "record has probe lease out of range" },
	{ "failure time of 2^62", G_NFAILTIMES + 2 + 7, 0x40, 0, 0,
	  RECORD_EVALUE, "record has failure time out of range" },
};

static void
test_record_decode_errors(void)
{
	struct cb_record	r;
	struct cb_err		err;
	uint8_t			buf[sizeof golden + 1];
	size_t			i;

	for (i = 0; i < sizeof decode_errors / sizeof decode_errors[0]; i++) {
		memcpy(buf, golden, sizeof golden);
		buf[decode_errors[i].off] = decode_errors[i].b0;
		if (decode_errors[i].two)
			buf[decode_errors[i].off + 1] = decode_errors[i].b1;
		if (unit_decode_copy(buf, sizeof golden, &r, &err) !=
		    (int)decode_errors[i].want)
			fprintf(stderr, "decode error case: %s\n",
			    decode_errors[i].what);
		CHECK_EQ(unit_decode_copy(buf, sizeof golden, &r, &err),
		    decode_errors[i].want);
		CHECK(err.msg[0] != '\0');
		if (decode_errors[i].msg != NULL)
			CHECK_STR(err.msg, decode_errors[i].msg);
	}

	/* One byte too many. */
	memcpy(buf, golden, sizeof golden);
	buf[sizeof golden] = 0;
	CHECK_EQ(unit_decode_copy(buf, sizeof buf, &r, &err), RECORD_ETRAIL);
	CHECK(strstr(err.msg, "trailing") != NULL);

	/* Magic is checked before the version, even on 6 bytes. */
	CHECK_EQ(unit_decode_copy((const uint8_t *)"CBRX\x01\x00", 6, &r, &err),
	    RECORD_EMAGIC);
	CHECK_EQ(unit_decode_copy((const uint8_t *)"CBRK\x03\x00", 6, &r, &err),
	    RECORD_ENEWER);
	CHECK_EQ(unit_decode_copy((const uint8_t *)"CBRK\x01\x00", 6, &r, &err),
	    RECORD_ETRUNC);
}

static void
test_record_state_names(void)
{
	CHECK_STR(record_state_name(STATE_CLOSED), "closed");
	CHECK_STR(record_state_name(STATE_OPEN), "open");
	CHECK_STR(record_state_name(STATE_HALF_OPEN), "half-open");
	CHECK_STR(record_state_name(STATE_COUNT), "unknown");
}

/* record_peek reads state and last_used from the golden bytes alone. */
static void
test_record_peek(void)
{
	uint8_t		buf[sizeof golden];
	enum cb_state	st = STATE_CLOSED;
	int64_t		used = 0;

	CHECK_EQ(record_peek(golden, sizeof golden, &st, &used), 0);
	CHECK_EQ(st, STATE_OPEN);
	CHECK_EQ(used, T0 + 55000);
	/* Version 1 records share the head. */
	memcpy(buf, golden, sizeof buf);
	buf[4] = 1;
	CHECK_EQ(record_peek(buf, sizeof buf, &st, &used), 0);
	/* Too short, bad magic, newer version, bad state: unreadable. */
	CHECK_EQ(record_peek(golden, 63, &st, &used), -1);
	CHECK_EQ(record_peek(golden, 64, &st, &used), 0);
	buf[0] = 'X';
	CHECK_EQ(record_peek(buf, sizeof buf, &st, &used), -1);
	memcpy(buf, golden, sizeof buf);
	buf[4] = RECORD_VERSION + 1;
	CHECK_EQ(record_peek(buf, sizeof buf, &st, &used), -1);
	memcpy(buf, golden, sizeof buf);
	buf[6] = STATE_COUNT;
	CHECK_EQ(record_peek(buf, sizeof buf, &st, &used), -1);
	CHECK_EQ(record_peek(NULL, 0, &st, &used), -1);
}

void
test_record(void)
{
	test_record_golden_encoding();
	test_record_golden_decoding();
	test_record_version1();
	test_record_round_trip();
	test_record_truncated();
	test_record_decode_errors();
	test_record_state_names();
	test_record_peek();
}
