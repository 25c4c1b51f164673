/*
 * unit-core.c: unit tests of the pure core: the record encoding (a golden
 * byte vector written out by hand from the layout comment in record.c, and
 * one test per decoder error class), the breaker state machine of SPEC
 * section 2 walked with explicit times, random draws and liveness answers,
 * and the classification of a finished run.  Policies are built here
 * field by field, so these tests do not depend on policy.c's builder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "classify.h"
#include "policy.h"
#include "record.h"
#include "unit.h"

#define T0		1700000000000LL		/* a wall clock, ms */
#define SEC		1000LL
#define MIN		(60 * SEC)
#define HOUR		(60 * MIN)
#define DAY		(24 * HOUR)

/* The built-in defaults of SPEC section 3. */
static void
policy_defaults(struct cb_policy *p)
{
	int	c;

	memset(p, 0, sizeof *p);
	p->trip_policy = TRIP_CONSECUTIVE;
	p->trip_failures = 5;
	p->trip_period_ms = 60 * SEC;
	p->trip_window = 20;
	p->trip_min_calls = 10;
	p->trip_failure_rate = 0.5;
	p->open_timeout_ms = 60 * SEC;
	p->max_open_timeout_ms = 10 * MIN;
	p->backoff = 2.0;
	p->jitter = 0.0;
	p->half_open_max_calls = 1;
	p->probe_lease_ms = HOUR;
	p->timeout_ms = 0;
	p->kill_after_ms = 10 * SEC;
	p->slow_call_ms = 0;
	for (c = 1; c <= 255; c++)
		codeset_add(&p->failure_codes, c);
	codeset_add(&p->success_codes, 0);
	p->timeout_is = VERDICT_FAILURE;
	p->signal_is = VERDICT_FAILURE;
	p->on_open = ON_OPEN_FAIL;
	p->open_exit_code = 75;
}

/* ------------------------------------------------------------------ */
/* record */

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

/* Decode a copy of exactly len bytes, so ASan sees any overread. */
static enum record_error
decode_copy(const uint8_t *data, size_t len, struct cb_record *r,
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
	CHECK_EQ(decode_copy(golden, sizeof golden, &r, &err), RECORD_OK);
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
	CHECK_EQ(decode_copy(v1, sizeof v1, &r, &err), RECORD_OK);
	CHECK(record_same(&r, &want));
	/* But a version 2 record may not stop there. */
	v1[G_VERSION] = 2;
	CHECK_EQ(decode_copy(v1, sizeof v1, &r, &err), RECORD_ETRUNC);
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
	CHECK_EQ(decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(record_same(&r, &back));

	/* The golden record, decoded and encoded again, is the same bytes. */
	buf_reset(&b);
	CHECK_EQ(decode_copy(golden, sizeof golden, &back, &err), RECORD_OK);
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
	CHECK_EQ(decode_copy(b.data, b.len, &back, &err), RECORD_OK);
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
		if (decode_copy(golden, len, &r, &err) != RECORD_ETRUNC) {
			wrong++;
			fprintf(stderr, "prefix of %zu bytes: not ETRUNC\n",
			    len);
		} else if (err.msg[0] == '\0')
			silent++;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(silent, 0);
	CHECK_EQ(decode_copy(golden, 3, &r, &err), RECORD_ETRUNC);
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
		if (decode_copy(buf, sizeof golden, &r, &err) !=
		    decode_errors[i].want)
			fprintf(stderr, "decode error case: %s\n",
			    decode_errors[i].what);
		CHECK_EQ(decode_copy(buf, sizeof golden, &r, &err),
		    decode_errors[i].want);
		CHECK(err.msg[0] != '\0');
		if (decode_errors[i].msg != NULL)
			CHECK_STR(err.msg, decode_errors[i].msg);
	}

	/* One byte too many. */
	memcpy(buf, golden, sizeof golden);
	buf[sizeof golden] = 0;
	CHECK_EQ(decode_copy(buf, sizeof buf, &r, &err), RECORD_ETRAIL);
	CHECK(strstr(err.msg, "trailing") != NULL);

	/* Magic is checked before the version, even on 6 bytes. */
	CHECK_EQ(decode_copy((const uint8_t *)"CBRX\x01\x00", 6, &r, &err),
	    RECORD_EMAGIC);
	CHECK_EQ(decode_copy((const uint8_t *)"CBRK\x03\x00", 6, &r, &err),
	    RECORD_ENEWER);
	CHECK_EQ(decode_copy((const uint8_t *)"CBRK\x01\x00", 6, &r, &err),
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

/* ------------------------------------------------------------------ */
/* breaker */

static struct cb_env
env_at(int64_t now)
{
	struct cb_env	e;

	memset(&e, 0, sizeof e);
	e.now_ms = now;
	return e;
}

/* A probe holder: pid 1000 + token, leased until lease_until. */
static struct cb_slot
holder(uint64_t token, int64_t lease_until)
{
	struct cb_slot	s;

	memset(&s, 0, sizeof s);
	s.token = token;
	s.lease_until_ms = lease_until;
	s.pid = (int32_t)(1000 + token);
	s.start_time = 777;
	memset(s.boot_id, 0x5a, sizeof s.boot_id);
	return s;
}

/* Admit under env with a holder leased for probe_lease from now. */
static struct cb_ticket
admit_env(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, uint64_t token, struct cb_effects *fx)
{
	struct cb_ticket	t;
	struct cb_slot		self;

	self = holder(token, env->now_ms + p->probe_lease_ms);
	memset(fx, 0, sizeof *fx);
	breaker_admit(r, p, env, &self, &t, fx);
	return t;
}

static struct cb_ticket
admit_at(struct cb_record *r, const struct cb_policy *p, int64_t now,
    uint64_t token)
{
	struct cb_env		env = env_at(now);
	struct cb_effects	fx;

	return admit_env(r, p, &env, token, &fx);
}

static enum cb_outcome
finish_run(struct cb_record *r, const struct cb_policy *p, int64_t now,
    const struct cb_ticket *t, const struct cb_run *run,
    struct cb_effects *fx)
{
	struct cb_env	env = env_at(now);

	memset(fx, 0, sizeof *fx);
	return breaker_record(r, p, &env, t, run, fx);
}

static int
exit_code_of(enum cb_outcome o)
{
	switch (o) {
	case OUTCOME_SUCCESS:
		return 0;
	case OUTCOME_FAILURE:
		return 1;
	case OUTCOME_INTERRUPTED:
		return 130;
	default:
		return 3;
	}
}

static enum cb_outcome
finish_at(struct cb_record *r, const struct cb_policy *p, int64_t now,
    const struct cb_ticket *t, enum cb_outcome o)
{
	struct cb_run		run;
	struct cb_effects	fx;

	memset(&run, 0, sizeof run);
	run.outcome = o;
	run.exit_code = exit_code_of(o);
	run.duration_ms = 100;
	return finish_run(r, p, now, t, &run, &fx);
}

/* One guarded call at now ending in o: the outcome as counted, or
 * OUTCOME_REJECTED when it was not admitted. */
static enum cb_outcome
call_at(struct cb_record *r, const struct cb_policy *p, int64_t now,
    enum cb_outcome o)
{
	struct cb_ticket	t;

	t = admit_at(r, p, now, 1);
	if (!t.admitted)
		return OUTCOME_REJECTED;
	return finish_at(r, p, now, &t, o);
}

/* Trip a consecutive-policy breaker with failures, all at now. */
static void
open_by_failures(struct cb_record *r, const struct cb_policy *p,
    int64_t now)
{
	uint32_t	i;

	for (i = 0; i < p->trip_failures; i++)
		call_at(r, p, now, OUTCOME_FAILURE);
}

static void
test_breaker_threshold(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_run		run;
	struct cb_effects	fx;
	int			i;

	policy_defaults(&p);
	record_init(&r, T0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(call_at(&r, &p, T0 + i * SEC, OUTCOME_FAILURE),
		    OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.consecutive_failures, 4);
	CHECK_EQ(r.epoch, 0);

	t = admit_at(&r, &p, T0 + 4 * SEC, 1);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 0);
	CHECK_EQ(t.state, STATE_CLOSED);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.exit_code = 7;
	run.duration_ms = 1234;
	CHECK_EQ(finish_run(&r, &p, T0 + 5 * SEC, &t, &run, &fx),
	    OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, 1);
	CHECK_STR(r.reason, "5 consecutive failures");
	CHECK_EQ(r.opened_at_ms, T0 + 5 * SEC);
	CHECK_EQ(r.open_until_ms, T0 + 5 * SEC + 60000);
	CHECK_EQ(r.changed_at_ms, T0 + 5 * SEC);
	CHECK_EQ(r.transitions[STATE_OPEN], 1);
	CHECK_EQ(r.failures, 5);
	CHECK_EQ(r.last_exit, 7);
	CHECK_EQ(r.last_duration_ms, 1234);
	CHECK_EQ(r.last_run_at_ms, T0 + 5 * SEC);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_CLOSED);
	CHECK_EQ(fx.trans[0].to, STATE_OPEN);
	CHECK_EQ(fx.trans[0].epoch, 1);
	CHECK_STR(fx.trans[0].reason, "5 consecutive failures");

	/* Another threshold: 1 failure, singular. */
	policy_defaults(&p);
	p.trip_failures = 1;
	record_init(&r, T0);
	CHECK_EQ(call_at(&r, &p, T0, OUTCOME_FAILURE), OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_STR(r.reason, "1 consecutive failure");
}

static void
test_breaker_success_resets_streak(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	int			i;

	policy_defaults(&p);
	record_init(&r, T0);
	for (i = 0; i < 4; i++)
		call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK_EQ(call_at(&r, &p, T0, OUTCOME_SUCCESS), OUTCOME_SUCCESS);
	CHECK_EQ(r.consecutive_failures, 0);
	for (i = 0; i < 4; i++)
		call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.consecutive_failures, 4);

	/* Ignored and interrupted runs neither reset nor extend it. */
	CHECK_EQ(call_at(&r, &p, T0, OUTCOME_IGNORED), OUTCOME_IGNORED);
	CHECK_EQ(call_at(&r, &p, T0, OUTCOME_INTERRUPTED),
	    OUTCOME_INTERRUPTED);
	CHECK_EQ(r.consecutive_failures, 4);
	CHECK_EQ(r.state, STATE_CLOSED);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
}

static void
test_breaker_rejects_while_open(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_slot		self;
	struct cb_env		env;
	struct cb_effects	fx;
	uint64_t		calls;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	calls = r.calls;

	t = admit_at(&r, &p, T0 + 1 * SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.probe, 0);
	CHECK_EQ(t.state, STATE_OPEN);
	CHECK_EQ(t.retry_in_ms, 59000);
	CHECK_STR(t.why, "5 consecutive failures");
	CHECK_EQ(r.rejected, 1);
	CHECK_EQ(r.last_used_ms, T0 + 1 * SEC);

	env = env_at(T0 + 60000 - 1);
	self = holder(2, T0 + HOUR);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_admit(&r, &p, &env, &self, &t, &fx), 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.retry_in_ms, 1);
	CHECK_EQ(fx.ntrans, 0);
	CHECK_EQ(r.rejected, 2);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, 1);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.calls, calls);	/* a refusal is not a call */
}

static void
test_breaker_half_open_after_cooldown(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	struct cb_effects	fx;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);

	env = env_at(T0 + 60000);		/* exactly open_until */
	t = admit_env(&r, &p, &env, 42, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(t.state, STATE_HALF_OPEN);
	CHECK_EQ(t.epoch, 2);
	CHECK(t.token == 42);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.epoch, 2);
	CHECK_STR(r.reason, "cool-down elapsed");
	CHECK_EQ(r.changed_at_ms, T0 + 60000);
	CHECK_EQ(r.transitions[STATE_HALF_OPEN], 1);
	CHECK_EQ(r.nslots, 1);
	CHECK(r.slots[0].token == 42);
	CHECK_EQ(r.slots[0].pid, 1042);
	CHECK_EQ(r.slots[0].lease_until_ms, T0 + 60000 + HOUR);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_OPEN);
	CHECK_EQ(fx.trans[0].to, STATE_HALF_OPEN);
	CHECK_EQ(fx.trans[0].epoch, 2);
	CHECK_STR(fx.trans[0].reason, "cool-down elapsed");
}

static void
test_breaker_one_probe_at_a_time(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	CHECK_EQ(admit_at(&r, &p, T0 + 60000, 1).admitted, 1);

	t = admit_at(&r, &p, T0 + 61000, 2);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.probe, 0);
	CHECK_EQ(t.state, STATE_HALF_OPEN);
	CHECK_EQ(t.retry_in_ms, -1);
	/* design.md: "circuit half-open, 1 of 1 probes running, retry
	 * later". */
	CHECK_STR(t.why, "1 of 1 probes running");
	CHECK_EQ(r.rejected, 1);
	CHECK_EQ(r.nslots, 1);
	CHECK(r.slots[0].token == 1);
	CHECK_EQ(r.epoch, 2);
}

static void
test_breaker_probe_success_closes(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_run		run;
	struct cb_effects	fx;
	int64_t			now;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	/* One failed probe first, so there is a backoff to reset. */
	t = admit_at(&r, &p, T0 + 60000, 1);
	CHECK_EQ(finish_at(&r, &p, T0 + 61000, &t, OUTCOME_FAILURE),
	    OUTCOME_FAILURE);
	CHECK_EQ(r.cooldown_ms, 120000);

	now = T0 + 61000 + 120000;
	t = admit_at(&r, &p, now, 2);
	CHECK_EQ(t.probe, 1);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_SUCCESS;
	CHECK_EQ(finish_run(&r, &p, now + 500, &t, &run, &fx),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.epoch, 5);
	CHECK_STR(r.reason, "1 probe succeeded");
	CHECK_EQ(r.cooldown_ms, 0);
	CHECK_EQ(r.consecutive_failures, 0);
	CHECK_EQ(r.open_until_ms, 0);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.half_open_successes, 0);
	CHECK_EQ(r.wlen, 0);
	CHECK_EQ(r.transitions[STATE_CLOSED], 1);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_HALF_OPEN);
	CHECK_EQ(fx.trans[0].to, STATE_CLOSED);
	CHECK_EQ(fx.trans[0].epoch, 5);

	/* The streak starts again from zero and the cool-down from
	 * open_timeout. */
	now += SEC;
	call_at(&r, &p, now, OUTCOME_FAILURE);
	CHECK_EQ(r.consecutive_failures, 1);
	open_by_failures(&r, &p, now);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.open_until_ms, now + 60000);
}

static void
test_breaker_probe_failure_backs_off(void)
{
	static const int64_t	 want[] = {
		120000, 240000, 480000, 600000, 600000
	};
	struct cb_policy	 p;
	struct cb_record	 r;
	struct cb_ticket	 t;
	struct cb_run		 run;
	struct cb_effects	 fx;
	int64_t			 now;
	uint64_t		 epoch;
	size_t			 i;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	now = r.open_until_ms;
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		t = admit_at(&r, &p, now, i + 1);
		CHECK_EQ(t.probe, 1);
		epoch = r.epoch;
		memset(&run, 0, sizeof run);
		run.outcome = OUTCOME_FAILURE;
		run.exit_code = 7;
		now += 2 * SEC;
		CHECK_EQ(finish_run(&r, &p, now, &t, &run, &fx),
		    OUTCOME_FAILURE);
		CHECK_EQ(r.state, STATE_OPEN);
		CHECK_EQ(r.epoch, epoch + 1);
		CHECK_STR(r.reason, "probe failed: exit 7");
		CHECK_EQ(r.cooldown_ms, want[i]);
		CHECK_EQ(r.opened_at_ms, now);
		CHECK_EQ(r.open_until_ms, now + want[i]);
		CHECK_EQ(r.nslots, 0);
		CHECK_EQ(fx.ntrans, 1);
		CHECK_EQ(fx.trans[0].from, STATE_HALF_OPEN);
		CHECK_EQ(fx.trans[0].to, STATE_OPEN);
		/* Refused until the new cool-down has passed. */
		CHECK_EQ(admit_at(&r, &p, now + want[i] - 1, 99).admitted, 0);
		now += want[i];
	}

	/* A timed-out probe says so. */
	t = admit_at(&r, &p, now, 50);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.timed_out = 1;
	run.exit_code = 124;
	finish_run(&r, &p, now, &t, &run, &fx);
	CHECK_STR(r.reason, "probe timed out");
	CHECK_EQ(r.timeouts, 1);

	/* backoff 1.0: no growth. */
	policy_defaults(&p);
	p.backoff = 1.0;
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 60000, 1);
	finish_at(&r, &p, T0 + 60000, &t, OUTCOME_FAILURE);
	CHECK_EQ(r.cooldown_ms, 60000);
	CHECK_EQ(r.open_until_ms, T0 + 120000);
}

static void
test_breaker_two_probes(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	a, b, c;
	int64_t			now;

	policy_defaults(&p);
	p.half_open_max_calls = 2;

	/* Two at once are admitted, a third is refused; two successes
	 * close. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	now = T0 + 60000;
	a = admit_at(&r, &p, now, 1);
	b = admit_at(&r, &p, now + 1, 2);
	c = admit_at(&r, &p, now + 2, 3);
	CHECK_EQ(a.probe, 1);
	CHECK_EQ(b.admitted, 1);
	CHECK_EQ(b.probe, 1);
	CHECK_EQ(b.epoch, a.epoch);
	CHECK_EQ(c.admitted, 0);
	CHECK_STR(c.why, "2 of 2 probes running");
	CHECK_EQ(r.nslots, 2);
	CHECK_EQ(finish_at(&r, &p, now + 10, &a, OUTCOME_SUCCESS),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.half_open_successes, 1);
	CHECK_EQ(r.nslots, 1);
	CHECK(r.slots[0].token == 2);		/* a's slot was freed */
	CHECK_EQ(finish_at(&r, &p, now + 20, &b, OUTCOME_SUCCESS),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_STR(r.reason, "2 probes succeeded");

	/* One success then one failure re-opens, with backoff. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	a = admit_at(&r, &p, now, 1);
	b = admit_at(&r, &p, now, 2);
	finish_at(&r, &p, now + 10, &a, OUTCOME_SUCCESS);
	CHECK_EQ(finish_at(&r, &p, now + 20, &b, OUTCOME_FAILURE),
	    OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.cooldown_ms, 120000);
	CHECK_EQ(r.open_until_ms, now + 20 + 120000);
	CHECK_EQ(r.half_open_successes, 0);

	/* A failure first re-opens at once; the other probe's success
	 * then arrives under an old epoch. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	a = admit_at(&r, &p, now, 1);
	b = admit_at(&r, &p, now, 2);
	CHECK_EQ(finish_at(&r, &p, now + 10, &a, OUTCOME_FAILURE),
	    OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(finish_at(&r, &p, now + 20, &b, OUTCOME_SUCCESS),
	    OUTCOME_STALE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.stale, 1);

	/* One after another: also two successes to close. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	a = admit_at(&r, &p, now, 1);
	finish_at(&r, &p, now + 10, &a, OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.nslots, 0);
	b = admit_at(&r, &p, now + 20, 2);
	CHECK_EQ(b.probe, 1);
	finish_at(&r, &p, now + 30, &b, OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_STR(r.reason, "2 probes succeeded");
}

static void
test_breaker_probe_ignored_frees_slot(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	uint64_t		epoch;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 60000, 1);
	epoch = r.epoch;
	CHECK_EQ(finish_at(&r, &p, T0 + 61000, &t, OUTCOME_IGNORED),
	    OUTCOME_IGNORED);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.epoch, epoch);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.ignored, 1);
	t = admit_at(&r, &p, T0 + 62000, 2);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(finish_at(&r, &p, T0 + 63000, &t, OUTCOME_INTERRUPTED),
	    OUTCOME_INTERRUPTED);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.interrupted, 1);
}

/* A liveness oracle with a fixed answer that remembers what it was
 * asked. */
struct oracle {
	enum cb_liveness	answer;
	int			calls;
	int32_t			pid;
};

static enum cb_liveness
oracle_alive(const struct cb_slot *s, void *ctx)
{
	struct oracle	*o = ctx;

	o->calls++;
	o->pid = s->pid;
	return o->answer;
}

static void
test_breaker_lease_expired(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t, old;
	struct cb_env		env;
	struct cb_effects	fx;
	struct oracle		o = { HOLDER_ALIVE, 0, 0 };
	int64_t			lease;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	old = admit_at(&r, &p, T0 + 60000, 1);
	lease = T0 + 60000 + HOUR;
	CHECK_EQ(r.slots[0].lease_until_ms, lease);

	/* An alive holder keeps its slot until the lease ends... */
	env = env_at(lease - 1);
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t = admit_env(&r, &p, &env, 2, &fx);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(fx.ntrans, 0);
	CHECK_EQ(o.calls, 1);
	CHECK_EQ(o.pid, 1001);

	/* ...and loses it then, alive or not: a failed probe. */
	env.now_ms = lease;
	t = admit_env(&r, &p, &env, 3, &fx);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.state, STATE_OPEN);
	CHECK_EQ(t.retry_in_ms, 120000);
	CHECK_STR(t.why, "probe lease expired");
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_STR(r.reason, "probe lease expired");
	CHECK_EQ(r.cooldown_ms, 120000);
	CHECK_EQ(r.open_until_ms, lease + 120000);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.rejected, 2);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_HALF_OPEN);
	CHECK_EQ(fx.trans[0].to, STATE_OPEN);
	CHECK_STR(fx.trans[0].reason, "probe lease expired");

	/* The late holder's outcome is stale. */
	CHECK_EQ(finish_at(&r, &p, lease + 5, &old, OUTCOME_SUCCESS),
	    OUTCOME_STALE);
	CHECK_EQ(r.state, STATE_OPEN);
}

static void
test_breaker_dead_holder(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	struct cb_effects	fx;
	struct oracle		o = { HOLDER_DEAD, 0, 0 };

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	admit_at(&r, &p, T0 + 60000, 3242);	/* pid 4242 */

	env = env_at(T0 + 61000);		/* long before the lease */
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t = admit_env(&r, &p, &env, 7, &fx);
	CHECK_EQ(o.calls, 1);
	CHECK_EQ(o.pid, 4242);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.state, STATE_OPEN);
	CHECK_EQ(t.retry_in_ms, 120000);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_STR(r.reason, "probe slot lost: holder pid 4242 died");
	CHECK_EQ(r.cooldown_ms, 120000);
	CHECK_EQ(r.open_until_ms, T0 + 61000 + 120000);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_STR(fx.trans[0].reason, "probe slot lost: holder pid 4242 died");
}

static void
test_breaker_live_or_unknown_holder_kept(void)
{
	static const enum cb_liveness	answers[] = {
		HOLDER_ALIVE, HOLDER_UNKNOWN
	};
	struct cb_policy		p;
	struct cb_record		r;
	struct cb_ticket		t;
	struct cb_env			env;
	struct cb_effects		fx;
	struct oracle			o = { HOLDER_ALIVE, 0, 0 };
	struct cb_slot			self;
	size_t				i;

	policy_defaults(&p);
	for (i = 0; i < 2; i++) {
		record_init(&r, T0);
		open_by_failures(&r, &p, T0);
		admit_at(&r, &p, T0 + 60000, 1);
		o.answer = answers[i];
		o.calls = 0;
		env = env_at(T0 + 60000 + HOUR - 1);
		env.alive = oracle_alive;
		env.alive_ctx = &o;
		t = admit_env(&r, &p, &env, 2, &fx);
		CHECK_EQ(o.calls, 1);
		CHECK_EQ(t.admitted, 0);
		CHECK_EQ(r.state, STATE_HALF_OPEN);
		CHECK_EQ(r.nslots, 1);
		CHECK_EQ(fx.ntrans, 0);
	}

	/* No oracle at all: trust the lease. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	admit_at(&r, &p, T0 + 60000, 1);
	CHECK_EQ(admit_at(&r, &p, T0 + 60000 + HOUR - 1, 2).admitted, 0);
	CHECK_EQ(r.state, STATE_HALF_OPEN);

	/* A token not tied to a process (pid 0) is never asked about. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	env = env_at(T0 + 60000);
	self = holder(5, T0 + 60000 + HOUR);
	self.pid = 0;
	breaker_admit(&r, &p, &env, &self, &t, &fx);
	CHECK_EQ(t.probe, 1);
	o.answer = HOLDER_DEAD;
	o.calls = 0;
	env.now_ms = T0 + 70000;
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t = admit_env(&r, &p, &env, 6, &fx);
	CHECK_EQ(o.calls, 0);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
}

static void
test_breaker_stale_outcome(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t, a, b;
	struct cb_env		env;
	uint64_t		epoch;

	/* Admitted closed under epoch 0; a manual trip moves it to 1. */
	policy_defaults(&p);
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	t = admit_at(&r, &p, T0, 1);
	CHECK_EQ(t.epoch, 0);
	env = env_at(T0 + SEC);
	breaker_trip(&r, &p, &env, 0, "manual trip by alice: test",
	    "alice", NULL);
	epoch = r.epoch;
	CHECK_EQ(epoch, 1);
	CHECK_EQ(finish_at(&r, &p, T0 + 2 * SEC, &t, OUTCOME_FAILURE),
	    OUTCOME_STALE);
	CHECK_EQ(r.stale, 1);
	CHECK_EQ(r.calls, 2);
	CHECK_EQ(r.failures, 1);
	CHECK_EQ(r.consecutive_failures, 1);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, epoch);
	CHECK_EQ(r.last_run_at_ms, T0 + 2 * SEC);

	/* A stale success does not close a half-open breaker of a newer
	 * epoch, nor free the newer probe's slot. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	a = admit_at(&r, &p, T0 + 60000, 1);
	env = env_at(T0 + 61000);
	breaker_trip(&r, &p, &env, 30000, "manual trip by bob",
	    "alice", NULL);
	b = admit_at(&r, &p, T0 + 91000, 1);	/* same token, even */
	CHECK_EQ(b.probe, 1);
	CHECK(b.epoch > a.epoch);
	CHECK_EQ(finish_at(&r, &p, T0 + 92000, &a, OUTCOME_SUCCESS),
	    OUTCOME_STALE);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.half_open_successes, 0);
	CHECK_EQ(r.nslots, 1);
	CHECK_EQ(r.successes, 0);
	CHECK_EQ(finish_at(&r, &p, T0 + 93000, &b, OUTCOME_SUCCESS),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);

	/* Nor does a stale failure trip a closed one. */
	policy_defaults(&p);
	p.trip_failures = 1;
	record_init(&r, T0);
	t = admit_at(&r, &p, T0, 1);
	env = env_at(T0);
	breaker_reset(&r, &p, &env, "manual reset by alice", "alice", NULL);
	CHECK_EQ(finish_at(&r, &p, T0, &t, OUTCOME_FAILURE), OUTCOME_STALE);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.consecutive_failures, 0);
}

static void
test_breaker_clock_backwards(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	const int64_t		opened = 1000000000000LL;
	const int64_t		back = opened - DAY;

	policy_defaults(&p);
	record_init(&r, opened);
	open_by_failures(&r, &p, opened);
	CHECK_EQ(r.open_until_ms, opened + 60000);

	/* The clock is now a day earlier: at most one cool-down from the
	 * moment that is noticed. */
	t = admit_at(&r, &p, back, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK(t.retry_in_ms >= 0 && t.retry_in_ms <= 60000);
	CHECK_EQ(t.retry_in_ms, 60000);
	CHECK_EQ(r.open_until_ms, back + 60000);
	/* Not shorter either: still open a second and a minute less a
	 * millisecond later. */
	t = admit_at(&r, &p, back + SEC, 2);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.retry_in_ms, 59000);
	t = admit_at(&r, &p, back + 60000 - 1, 3);
	CHECK_EQ(t.admitted, 0);
	t = admit_at(&r, &p, back + 60000, 4);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(r.state, STATE_HALF_OPEN);

	/* A clock that did not step changes nothing. */
	record_init(&r, opened);
	open_by_failures(&r, &p, opened);
	t = admit_at(&r, &p, opened + 10 * SEC, 1);
	CHECK_EQ(t.retry_in_ms, 50000);
	CHECK_EQ(r.open_until_ms, opened + 60000);
	CHECK_EQ(r.opened_at_ms, opened);
}

static void
test_breaker_clock_forwards(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 365 * DAY, 1);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
}

static void
test_breaker_jitter(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_run		run;
	struct cb_effects	fx;
	struct cb_env		env;
	int			i;

	policy_defaults(&p);
	p.jitter = 0.5;
	record_init(&r, T0);
	env = env_at(T0);
	env.jitter_u = 0.5;
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.exit_code = 1;
	for (i = 0; i < 5; i++) {
		t = admit_env(&r, &p, &env, 1, &fx);
		breaker_record(&r, &p, &env, &t, &run, &fx);
	}
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.open_until_ms, T0 + 75000);	/* 60000 x 1.25 */
	CHECK_EQ(r.cooldown_ms, 0);		/* the spread is not kept */

	/* A failed probe: 120000 x 1.25, and the next cool-down is 120000
	 * without the spread. */
	env.now_ms = T0 + 75000;
	t = admit_env(&r, &p, &env, 1, &fx);
	CHECK_EQ(t.probe, 1);
	breaker_record(&r, &p, &env, &t, &run, &fx);
	CHECK_EQ(r.cooldown_ms, 120000);
	CHECK_EQ(r.open_until_ms, T0 + 75000 + 150000);

	/* U = 0 adds nothing. */
	record_init(&r, T0);
	env = env_at(T0);
	for (i = 0; i < 5; i++) {
		t = admit_env(&r, &p, &env, 1, &fx);
		breaker_record(&r, &p, &env, &t, &run, &fx);
	}
	CHECK_EQ(r.open_until_ms, T0 + 60000);
}

static void
test_breaker_manual_trip(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_env		env;
	struct cb_effects	fx;
	struct cb_ticket	t;

	/* --for: exactly that long, closed -> open, backoff untouched. */
	policy_defaults(&p);
	p.jitter = 0.5;
	record_init(&r, T0);
	env = env_at(T0 + SEC);
	env.jitter_u = 0.9;
	memset(&fx, 0, sizeof fx);
	breaker_trip(&r, &p, &env, 30000, "manual trip by alice: deploy",
	    "alice", &fx);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, 1);
	CHECK_EQ(r.opened_at_ms, T0 + SEC);
	CHECK_EQ(r.open_until_ms, T0 + SEC + 30000);
	CHECK_EQ(r.cooldown_ms, 0);
	CHECK_EQ(r.last_used_ms, T0 + SEC);
	CHECK_STR(r.reason, "manual trip by alice: deploy");
	CHECK_EQ(r.transitions[STATE_OPEN], 1);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_CLOSED);
	CHECK_EQ(fx.trans[0].to, STATE_OPEN);
	CHECK_EQ(fx.trans[0].epoch, 1);
	CHECK_STR(fx.trans[0].reason, "manual trip by alice: deploy");
	t = admit_at(&r, &p, T0 + SEC + 30000 - 1, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_STR(t.why, "manual trip by alice: deploy");

	/* Without --for: the current cool-down, which stays as it was. */
	policy_defaults(&p);
	record_init(&r, T0);
	r.cooldown_ms = 240000;
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 0, "manual trip by alice", "alice", NULL);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.open_until_ms, T0 + 240000);
	CHECK_EQ(r.cooldown_ms, 240000);
	record_init(&r, T0);
	breaker_trip(&r, &p, &env, 0, "manual trip by alice", "alice", NULL);
	CHECK_EQ(r.open_until_ms, T0 + 60000);
	CHECK_EQ(r.cooldown_ms, 0);

	/* Tripping an open breaker re-opens it: the epoch moves. */
	env = env_at(T0 + 10 * SEC);
	memset(&fx, 0, sizeof fx);
	breaker_trip(&r, &p, &env, 5 * MIN, "manual trip by bob", "alice", &fx);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, 2);
	CHECK_EQ(r.opened_at_ms, T0 + 10 * SEC);
	CHECK_EQ(r.open_until_ms, T0 + 10 * SEC + 5 * MIN);
	CHECK_EQ(r.transitions[STATE_OPEN], 2);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_OPEN);
	CHECK_EQ(fx.trans[0].to, STATE_OPEN);

	/* Tripping a half-open one drops its probes. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 60000, 1);
	CHECK_EQ(r.nslots, 1);
	env = env_at(T0 + 61000);
	breaker_trip(&r, &p, &env, 0, "manual trip by carol", "alice", NULL);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.cooldown_ms, 0);
	CHECK_EQ(r.open_until_ms, T0 + 61000 + 60000);
}

static void
test_breaker_manual_reset(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_env		env;
	struct cb_effects	fx;
	struct cb_ticket	t;
	uint64_t		calls;

	policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 60000, 1);
	finish_at(&r, &p, T0 + 60000, &t, OUTCOME_FAILURE);
	CHECK_EQ(r.cooldown_ms, 120000);
	calls = r.calls;

	env = env_at(T0 + 70000);
	memset(&fx, 0, sizeof fx);
	breaker_reset(&r, &p, &env, "manual reset by alice", "alice", &fx);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.epoch, 4);
	CHECK_EQ(r.consecutive_failures, 0);
	CHECK_EQ(r.cooldown_ms, 0);
	CHECK_EQ(r.open_until_ms, 0);
	CHECK_EQ(r.wlen, 0);
	CHECK_EQ(r.nfailtimes, 0);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.changed_at_ms, T0 + 70000);
	CHECK_EQ(r.calls, calls);		/* totals are history */
	CHECK_STR(r.reason, "manual reset by alice");
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_OPEN);
	CHECK_EQ(fx.trans[0].to, STATE_CLOSED);
	CHECK_EQ(fx.trans[0].epoch, 4);
	CHECK_EQ(admit_at(&r, &p, T0 + 70001, 1).admitted, 1);

	/* Even a closed breaker: still a transition. */
	memset(&fx, 0, sizeof fx);
	breaker_reset(&r, &p, &env, "manual reset by bob", "alice", &fx);
	CHECK_EQ(r.epoch, 5);
	CHECK_EQ(fx.ntrans, 1);
	CHECK_EQ(fx.trans[0].from, STATE_CLOSED);
	CHECK_EQ(fx.trans[0].to, STATE_CLOSED);
	CHECK_EQ(r.transitions[STATE_CLOSED], 2);

	/* After a reset the next trip starts from open_timeout. */
	open_by_failures(&r, &p, T0 + 80000);
	CHECK_EQ(r.open_until_ms, T0 + 80000 + 60000);
}

/* Outcomes as a string: 'S' success, 'F' failure, 'I' ignored. */
static void
feed(struct cb_record *r, const struct cb_policy *p, int64_t now,
    const char *seq)
{
	for (; *seq != '\0'; seq++)
		call_at(r, p, now, *seq == 'S' ? OUTCOME_SUCCESS :
		    *seq == 'F' ? OUTCOME_FAILURE : OUTCOME_IGNORED);
}

static void
test_breaker_rate_policy(void)
{
	static const struct {
		const char	*seq;
		enum cb_state	 want;
		const char	*reason;
	} cases[] = {
		{ "FFFF", STATE_CLOSED, NULL },		/* below min_calls */
		{ "FFFFF", STATE_OPEN, "failure rate 100% over 5 calls" },
		{ "SSSSSFFFF", STATE_CLOSED, NULL },	/* 44% */
		{ "SSSSSFFFFF", STATE_OPEN, "failure rate 50% over 10 calls" },
		{ "SSSSSSFFFF", STATE_CLOSED, NULL },	/* 40% */
		{ "SSFSF", STATE_CLOSED, NULL },	/* 40% of 5 */
		{ "SSFSFI", STATE_CLOSED, NULL },	/* ignored: no call */
		{ "SFSFF", STATE_OPEN, "failure rate 60% over 5 calls" },
		/* The window slides: the oldest 5 successes drop out. */
		{ "SSSSSSSSSSFFFF", STATE_CLOSED, NULL },
		{ "SSSSSSSSSSFFFFF", STATE_OPEN,
		  "failure rate 50% over 10 calls" },
	};
	struct cb_policy	p;
	struct cb_record	r;
	size_t			i;

	policy_defaults(&p);
	p.trip_policy = TRIP_RATE;
	p.trip_window = 10;
	p.trip_min_calls = 5;
	p.trip_failure_rate = 0.5;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		record_init(&r, T0);
		feed(&r, &p, T0, cases[i].seq);
		if (r.state != cases[i].want)
			fprintf(stderr, "rate case %s\n", cases[i].seq);
		CHECK_EQ(r.state, cases[i].want);
		if (cases[i].reason != NULL)
			CHECK_STR(r.reason, cases[i].reason);
	}

	/* The window holds at most trip.window calls, newest last. */
	record_init(&r, T0);
	feed(&r, &p, T0, "FSSSSSSSSSSS");
	CHECK_EQ(r.wlen, 10);
	CHECK_EQ(r.window[0], 0);
	CHECK_EQ(r.window[1], 0);

	/* Shrinking trip.window keeps the newest outcomes: SSSSS FFFF cut
	 * to 5 with a new failure is FFFFF (100%), not SSSSF. */
	record_init(&r, T0);
	feed(&r, &p, T0, "SSSSSFFFF");
	CHECK_EQ(r.state, STATE_CLOSED);
	p.trip_window = 5;
	feed(&r, &p, T0, "F");
	CHECK_EQ(r.wlen, 5);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_STR(r.reason, "failure rate 100% over 5 calls");

	/* Closing clears the window. */
	policy_defaults(&p);
	p.trip_policy = TRIP_RATE;
	p.trip_window = 10;
	p.trip_min_calls = 5;
	record_init(&r, T0);
	feed(&r, &p, T0, "SSSSFFFF");		/* 50% of 8 */
	CHECK_EQ(r.state, STATE_OPEN);
	call_at(&r, &p, T0 + 60000, OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.wlen, 0);
	feed(&r, &p, T0 + 61000, "FFFF");
	CHECK_EQ(r.state, STATE_CLOSED);
}

static void
test_breaker_time_policy(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_effects	fx;
	struct cb_ticket	t;
	struct cb_run		run;

	policy_defaults(&p);
	p.trip_policy = TRIP_TIME;
	p.trip_failures = 3;
	p.trip_period_ms = 60 * SEC;

	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 10 * SEC, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_CLOSED);
	t = admit_at(&r, &p, T0 + 20 * SEC, 1);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.exit_code = 1;
	finish_run(&r, &p, T0 + 20 * SEC, &t, &run, &fx);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_STR(r.reason, "3 failures within 1m");
	CHECK_EQ(r.open_until_ms, T0 + 20 * SEC + 60000);
	CHECK_EQ(fx.ntrans, 1);

	/* A failure exactly one period old no longer counts. */
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 30 * SEC, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 60 * SEC, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_CLOSED);
	call_at(&r, &p, T0 + 61 * SEC, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.nfailtimes, 3);		/* only the newest 3 are kept */
	CHECK_EQ(r.failtimes[0], T0 + 30 * SEC);
	CHECK_EQ(r.failtimes[2], T0 + 61 * SEC);

	/* One millisecond younger still counts. */
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 30 * SEC, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 60 * SEC - 1, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);

	/* Successes in between do not clear the window. */
	record_init(&r, T0);
	feed(&r, &p, T0, "FSFS");
	CHECK_EQ(r.state, STATE_CLOSED);
	feed(&r, &p, T0 + 5 * SEC, "F");
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.nfailtimes, 3);
}

/* At the largest policies the record allows, the stored history stays
 * within the record's arrays (and so within what record.c encodes). */
static void
test_breaker_history_bounds(void)
{
	struct cb_policy	p;
	struct cb_record	r, back;
	struct cb_buf		b = { 0 }, b2 = { 0 };
	struct cb_err		err;
	int64_t			i;

	policy_defaults(&p);
	p.trip_policy = TRIP_TIME;
	p.trip_failures = POLICY_MAX_FAILURES;
	p.trip_period_ms = 1;			/* each failure alone */
	record_init(&r, T0);
	for (i = 0; i < POLICY_MAX_FAILURES + 5; i++)
		call_at(&r, &p, T0 + i, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.nfailtimes, RECORD_MAX_FAILTIMES);
	CHECK_EQ(r.failtimes[RECORD_MAX_FAILTIMES - 1],
	    T0 + POLICY_MAX_FAILURES + 4);

	policy_defaults(&p);
	p.trip_policy = TRIP_RATE;
	p.trip_window = POLICY_MAX_WINDOW;
	p.trip_min_calls = POLICY_MAX_WINDOW;
	for (i = 0; i < POLICY_MAX_WINDOW + 5; i++)
		call_at(&r, &p, T0 + 2000, i % 4 == 0 ? OUTCOME_FAILURE :
		    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.wlen, RECORD_MAX_WINDOW);

	/* Stale array tails past the counts are not part of the record:
	 * compare encodings. */
	record_encode(&r, &b);
	CHECK_EQ(decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK_EQ(back.nfailtimes, 5);
	CHECK_EQ(back.wlen, RECORD_MAX_WINDOW);
	record_encode(&back, &b2);
	CHECK(b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0);
	buf_free(&b);
	buf_free(&b2);
}

static void
test_breaker_progress(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	char			buf[64];

	policy_defaults(&p);
	record_init(&r, T0);
	breaker_progress(&r, &p, T0, buf, sizeof buf);
	CHECK_STR(buf, "0/5");
	feed(&r, &p, T0, "FFF");
	breaker_progress(&r, &p, T0, buf, sizeof buf);
	CHECK_STR(buf, "3/5");

	p.trip_policy = TRIP_RATE;
	p.trip_window = 10;
	p.trip_min_calls = 10;
	record_init(&r, T0);
	breaker_progress(&r, &p, T0, buf, sizeof buf);
	CHECK_STR(buf, "0/0 (0%)");
	feed(&r, &p, T0, "SSFSFSFSFS");
	breaker_progress(&r, &p, T0, buf, sizeof buf);
	CHECK_STR(buf, "4/10 (40%)");

	policy_defaults(&p);
	p.trip_policy = TRIP_TIME;
	p.trip_failures = 3;
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 30 * SEC, OUTCOME_FAILURE);
	breaker_progress(&r, &p, T0 + 30 * SEC, buf, sizeof buf);
	CHECK_STR(buf, "2/3 in 1m");
	breaker_progress(&r, &p, T0 + 60 * SEC, buf, sizeof buf);
	CHECK_STR(buf, "1/3 in 1m");
	p.trip_period_ms = 90 * SEC;
	breaker_progress(&r, &p, T0 + 60 * SEC, buf, sizeof buf);
	CHECK_STR(buf, "2/3 in 1m30s");

	/* Truncates, NUL-terminated. */
	policy_defaults(&p);
	breaker_progress(&r, &p, T0, buf, 3);
	CHECK_STR(buf, "2/");
}

static void
test_breaker_counters(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t, old;
	struct cb_run		run;
	struct cb_effects	fx;
	struct cb_env		env;

	policy_defaults(&p);
	record_init(&r, T0);
	feed(&r, &p, T0, "SSFIS");
	call_at(&r, &p, T0, OUTCOME_INTERRUPTED);

	/* A timeout that counts as a failure: in failures and timeouts. */
	t = admit_at(&r, &p, T0, 1);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.timed_out = 1;
	run.exit_code = 124;
	run.duration_ms = 30000;
	finish_run(&r, &p, T0 + 30000, &t, &run, &fx);
	/* A timeout judged "ignore": in ignored and timeouts. */
	t = admit_at(&r, &p, T0, 1);
	run.outcome = OUTCOME_IGNORED;
	finish_run(&r, &p, T0 + 30000, &t, &run, &fx);

	/* A stale one. */
	old = admit_at(&r, &p, T0, 1);
	env = env_at(T0 + 40000);
	breaker_reset(&r, &p, &env, "manual reset by alice", "alice", NULL);
	CHECK_EQ(finish_at(&r, &p, T0 + 40000, &old, OUTCOME_SUCCESS),
	    OUTCOME_STALE);

	/* Two refusals. */
	breaker_trip(&r, &p, &env, 60000, "manual trip by alice",
	    "alice", NULL);
	CHECK_EQ(admit_at(&r, &p, T0 + 41000, 1).admitted, 0);
	CHECK_EQ(admit_at(&r, &p, T0 + 42000, 1).admitted, 0);

	CHECK_EQ(r.successes, 3);
	CHECK_EQ(r.failures, 2);
	CHECK_EQ(r.ignored, 2);
	CHECK_EQ(r.interrupted, 1);
	CHECK_EQ(r.stale, 1);
	CHECK_EQ(r.timeouts, 2);
	CHECK_EQ(r.rejected, 2);
	CHECK_EQ(r.calls, 9);
	CHECK_EQ(r.calls, r.successes + r.failures + r.ignored +
	    r.interrupted + r.stale);
	CHECK_EQ(r.transitions[STATE_CLOSED], 1);
	CHECK_EQ(r.transitions[STATE_OPEN], 1);
	CHECK_EQ(r.transitions[STATE_HALF_OPEN], 0);
}

static void
test_breaker_admit_closed(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_slot		self;
	struct cb_env		env;
	struct cb_effects	fx;

	policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0 + 5 * SEC);
	self = holder(9, T0 + HOUR);
	memset(&fx, 0, sizeof fx);
	/* Nothing but last_used changed: 0. */
	CHECK_EQ(breaker_admit(&r, &p, &env, &self, &t, &fx), 0);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 0);
	CHECK_EQ(t.state, STATE_CLOSED);
	CHECK_EQ(t.epoch, 0);
	CHECK_EQ(r.nslots, 0);			/* closed calls hold no slot */
	CHECK_EQ(r.last_used_ms, T0 + 5 * SEC);
	CHECK_EQ(fx.ntrans, 0);
}

static void
test_breaker_outcome_names(void)
{
	static const char *const	names[] = {
		"success", "failure", "ignored", "interrupted", "stale",
		"rejected"
	};
	int				o;

	for (o = 0; o < OUTCOME_COUNT; o++)
		CHECK_STR(breaker_outcome_name((enum cb_outcome)o), names[o]);
	CHECK_STR(breaker_outcome_name(OUTCOME_COUNT), "unknown");
}

/* The strip of run marks and the transition history roll over. */
static void
test_breaker_history(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env = env_at(T0);
	int			i;

	policy_defaults(&p);
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_SUCCESS);
	open_by_failures(&r, &p, T0 + SEC);
	t = admit_at(&r, &p, T0 + 2 * SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(r.nruns, 7);
	CHECK_EQ(r.runs[0], OUTCOME_SUCCESS);
	CHECK_EQ(r.runs[5], OUTCOME_FAILURE);
	CHECK_EQ(r.runs[6], OUTCOME_REJECTED);
	CHECK_EQ(r.nhist, 1);
	CHECK_EQ(r.hist[0].at_ms, T0 + SEC);
	CHECK_EQ(r.hist[0].from, STATE_CLOSED);
	CHECK_EQ(r.hist[0].to, STATE_OPEN);
	CHECK_STR(r.hist[0].reason, "5 consecutive failures");
	CHECK_STR(r.hist[0].user, "");

	env.now_ms = T0 + 3 * SEC;
	breaker_reset(&r, &p, &env, "manual reset by carol: ok", "carol",
	    NULL);
	CHECK_EQ(r.nhist, 2);
	CHECK_STR(r.hist[1].user, "carol");
	CHECK_STR(r.hist[1].reason, "manual reset by carol: ok");
	CHECK_EQ(r.hist[1].from, STATE_OPEN);
	CHECK_EQ(r.hist[1].to, STATE_CLOSED);

	/* 40 more runs: the strip keeps the newest 32. */
	for (i = 0; i < 40; i++)
		call_at(&r, &p, T0 + 4 * SEC, i == 39 ? OUTCOME_IGNORED :
		    OUTCOME_SUCCESS);
	CHECK_EQ(r.nruns, RECORD_RUNS);
	CHECK_EQ(r.runs[RECORD_RUNS - 1], OUTCOME_IGNORED);
	CHECK_EQ(r.runs[0], OUTCOME_SUCCESS);

	/* 20 more transitions: the newest 16 are kept, oldest first. */
	for (i = 0; i < 20; i++) {
		env.now_ms = T0 + (10 + i) * SEC;
		breaker_trip(&r, &p, &env, SEC, "t", "dave", NULL);
	}
	CHECK_EQ(r.nhist, RECORD_TRANSITIONS);
	CHECK_EQ(r.hist[RECORD_TRANSITIONS - 1].at_ms, T0 + 29 * SEC);
	CHECK_EQ(r.hist[0].at_ms, T0 + 14 * SEC);
}

/*
 * A probe recorded twice (a release token used again) counts once: the
 * second has no slot and is stale, so one success cannot stand for two.
 * A pid-0 slot (acquire) is judged by its lease alone.
 */
static void
test_breaker_probe_recorded_twice(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_slot		self;
	struct cb_effects	fx;
	struct cb_env		env;
	struct oracle		o = { HOLDER_DEAD, 0, 0 };

	policy_defaults(&p);
	p.half_open_max_calls = 2;
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	t = admit_at(&r, &p, T0 + 61 * SEC, 7);
	CHECK(t.admitted && t.probe);
	CHECK_EQ(finish_at(&r, &p, T0 + 62 * SEC, &t, OUTCOME_SUCCESS),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(finish_at(&r, &p, T0 + 63 * SEC, &t, OUTCOME_SUCCESS),
	    OUTCOME_STALE);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.half_open_successes, 1);
	CHECK_EQ(r.stale, 1);

	/* A pid-0 slot (acquire) is judged by its lease alone: an oracle
	 * that calls every holder dead is not even asked. */
	env = env_at(T0 + 64 * SEC);
	self = holder(8, T0 + 70 * SEC);
	self.pid = 0;
	memset(&fx, 0, sizeof fx);
	breaker_admit(&r, &p, &env, &self, &t, &fx);
	CHECK(t.admitted && t.probe);
	env = env_at(T0 + 69 * SEC);
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t = admit_env(&r, &p, &env, 9, &fx);
	CHECK(t.admitted);		/* the second of two slots */
	CHECK_EQ(o.calls, 0);
	finish_at(&r, &p, T0 + 69 * SEC, &t, OUTCOME_IGNORED);
	t = admit_at(&r, &p, T0 + 71 * SEC, 10);
	CHECK(!t.admitted);
	CHECK_STR(r.reason, "probe lease expired");
	CHECK_EQ(r.state, STATE_OPEN);
}

/* A run's duration is stored within what the decoder accepts. */
static void
test_breaker_duration_bounded(void)
{
	struct cb_policy	p;
	struct cb_record	r, back;
	struct cb_ticket	t;
	struct cb_run		run;
	struct cb_effects	fx;
	struct cb_env		env = env_at(T0);
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	policy_defaults(&p);
	record_init(&r, T0);
	t = admit_at(&r, &p, T0, 1);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_SUCCESS;
	run.duration_ms = INT64_MAX;
	breaker_record(&r, &p, &env, &t, &run, &fx);
	CHECK_EQ(r.last_duration_ms, (int64_t)1 << 53);
	record_encode(&r, &b);
	CHECK_EQ(record_decode(b.data, b.len, &back, &err), RECORD_OK);
	t = admit_at(&r, &p, T0, 2);
	run.duration_ms = -5;
	breaker_record(&r, &p, &env, &t, &run, &fx);
	CHECK_EQ(r.last_duration_ms, 0);
	buf_free(&b);
}

void
test_breaker(void)
{
	test_breaker_duration_bounded();
	test_breaker_probe_recorded_twice();
	test_breaker_history();
	test_breaker_admit_closed();
	test_breaker_threshold();
	test_breaker_success_resets_streak();
	test_breaker_rejects_while_open();
	test_breaker_half_open_after_cooldown();
	test_breaker_one_probe_at_a_time();
	test_breaker_probe_success_closes();
	test_breaker_probe_failure_backs_off();
	test_breaker_two_probes();
	test_breaker_probe_ignored_frees_slot();
	test_breaker_lease_expired();
	test_breaker_dead_holder();
	test_breaker_live_or_unknown_holder_kept();
	test_breaker_stale_outcome();
	test_breaker_clock_backwards();
	test_breaker_clock_forwards();
	test_breaker_jitter();
	test_breaker_manual_trip();
	test_breaker_manual_reset();
	test_breaker_rate_policy();
	test_breaker_time_policy();
	test_breaker_history_bounds();
	test_breaker_progress();
	test_breaker_counters();
	test_breaker_outcome_names();
}

/* ------------------------------------------------------------------ */
/* classify */

static void
test_classify_table(void)
{
	/* Columns: exec_failed timed_out interrupted signal exit duration,
	 * then the policy's timeout_is and signal_is, and the outcome. */
	static const struct {
		struct classify_in	in;
		enum cb_verdict		timeout_is, signal_is;
		enum cb_outcome		want;
	} cases[] = {
		/* Interrupted wins over everything. */
		{ { 0, 0, 1, 0, 0, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_INTERRUPTED },
		{ { 1, 1, 1, 15, 127, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_INTERRUPTED },
		{ { 0, 0, 1, 2, 0, 10 }, VERDICT_SUCCESS, VERDICT_SUCCESS,
		  OUTCOME_INTERRUPTED },
		/* Could not be run: ignored, even with 127 a failure code. */
		{ { 1, 0, 0, 0, 127, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_IGNORED },
		{ { 1, 0, 0, 0, 126, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_IGNORED },
		/* A command that ran and exited 127 itself is a code. */
		{ { 0, 0, 0, 0, 127, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		/* Timeout, by timeout_is, before the signal it died of. */
		{ { 0, 1, 0, 15, 124, 30000 }, VERDICT_FAILURE,
		  VERDICT_SUCCESS, OUTCOME_FAILURE },
		{ { 0, 1, 0, 15, 124, 30000 }, VERDICT_SUCCESS,
		  VERDICT_FAILURE, OUTCOME_SUCCESS },
		{ { 0, 1, 0, 9, 124, 30000 }, VERDICT_IGNORE,
		  VERDICT_FAILURE, OUTCOME_IGNORED },
		/* Death by signal, by signal_is. */
		{ { 0, 0, 0, 9, 137, 10 }, VERDICT_SUCCESS, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		{ { 0, 0, 0, 9, 137, 10 }, VERDICT_FAILURE, VERDICT_SUCCESS,
		  OUTCOME_SUCCESS },
		{ { 0, 0, 0, 15, 143, 10 }, VERDICT_FAILURE, VERDICT_IGNORE,
		  OUTCOME_IGNORED },
		/* Default classes: 0 success, 1-255 failure. */
		{ { 0, 0, 0, 0, 0, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_SUCCESS },
		{ { 0, 0, 0, 0, 1, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		{ { 0, 0, 0, 0, 255, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
	};
	struct cb_policy	p;
	size_t			i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		policy_defaults(&p);
		p.timeout_is = cases[i].timeout_is;
		p.signal_is = cases[i].signal_is;
		if (classify(&p, &cases[i].in) != cases[i].want)
			fprintf(stderr, "classify case %zu\n", i);
		CHECK_EQ(classify(&p, &cases[i].in), cases[i].want);
	}
}

static void
test_classify_code_classes(void)
{
	/* curl-like: failures 6,7,28; success 0; ignore 3; 22 unlisted. */
	static const struct {
		int		code;
		enum cb_outcome	want;
	} cases[] = {
		{ 0, OUTCOME_SUCCESS },
		{ 3, OUTCOME_IGNORED },
		{ 6, OUTCOME_FAILURE },
		{ 7, OUTCOME_FAILURE },
		{ 28, OUTCOME_FAILURE },
		{ 22, OUTCOME_SUCCESS },		/* unlisted */
		{ 1, OUTCOME_SUCCESS },
		{ 255, OUTCOME_SUCCESS },
	};
	struct cb_policy	p;
	struct classify_in	in;
	size_t			i;

	policy_defaults(&p);
	memset(&p.failure_codes, 0, sizeof p.failure_codes);
	codeset_add(&p.failure_codes, 6);
	codeset_add(&p.failure_codes, 7);
	codeset_add(&p.failure_codes, 28);
	codeset_add(&p.ignore_codes, 3);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&in, 0, sizeof in);
		in.exit_code = cases[i].code;
		if (classify(&p, &in) != cases[i].want)
			fprintf(stderr, "code %d\n", cases[i].code);
		CHECK_EQ(classify(&p, &in), cases[i].want);
	}

	/* The ignore class is consulted first, then success. */
	policy_defaults(&p);
	codeset_add(&p.ignore_codes, 75);
	codeset_add(&p.success_codes, 2);
	memset(&in, 0, sizeof in);
	in.exit_code = 75;
	CHECK_EQ(classify(&p, &in), OUTCOME_IGNORED);
	in.exit_code = 2;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.exit_code = 74;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
}

static void
test_classify_slow_call(void)
{
	struct cb_policy	p;
	struct classify_in	in;

	policy_defaults(&p);
	p.slow_call_ms = 2000;
	codeset_add(&p.ignore_codes, 3);
	memset(&in, 0, sizeof in);

	in.exit_code = 0;
	in.duration_ms = 2001;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
	in.duration_ms = 2000;			/* not slower than */
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.duration_ms = 10;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.exit_code = 1;
	in.duration_ms = 5000;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
	in.exit_code = 3;			/* ignored stays ignored */
	CHECK_EQ(classify(&p, &in), OUTCOME_IGNORED);
	in.exit_code = 0;			/* an interrupted slow run */
	in.interrupted = 1;
	CHECK_EQ(classify(&p, &in), OUTCOME_INTERRUPTED);

	/* slow_call 0: none. */
	p.slow_call_ms = 0;
	memset(&in, 0, sizeof in);
	in.duration_ms = 100000000;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
}

void
test_classify(void)
{
	test_classify_table();
	test_classify_code_classes();
	test_classify_slow_call();
}
