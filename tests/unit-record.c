/* SPDX-License-Identifier: ISC */
/*
 * unit-record.c: unit tests of the older record versions the decoder
 * still reads: a golden version 3 byte vector written out by hand from the
 * layout comment in record-decode.c, versions 2 and 1, and one test per
 * decoder error class.  Version 4, the one written, is unit-record4.c's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "record.h"
#include "unit.h"

/*
 * A fully populated version 3 record, byte by byte as the layout comment
 * at the top of record-decode.c describes it.  unit_golden_record() builds the same
 * record as a struct.
 */
static const uint8_t golden[] = {
	0x43, 0x42, 0x52, 0x4b,				/* "CBRK" */
	0x03, 0x00,					/* version 3 */
	0x01,						/* state open */
	0x01,						/* manual */
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
	0x02, 0x00,					/* 2 probe slots */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* p0: token */
	0xe0, 0x40, 0x1d, 0xd0, 0x8b, 0x01, 0x00, 0x00,	/* p0: lease_until */
	0x92, 0x10, 0x00, 0x00,				/* p0: pid 4242 */
	0xb1, 0x68, 0xde, 0x3a, 0x00, 0x00, 0x00, 0x00,	/* p0: start_time */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,	/* p0: boot_id */
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x80, 0xee, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00,	/* p0: lease length */
	0x60, 0x52, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* p0: since */
	0x03,						/* p0: host, 3 bytes */
	'd', 'b', '1',
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* p1: token */
	0x90, 0xc7, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* p1: lease_until */
	0x00, 0x00, 0x00, 0x00,				/* p1: pid 0 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* p1: start_time */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,	/* p1: boot_id */
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0x30, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* p1: lease length */
	0x60, 0x52, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* p1: since */
	0x00,						/* p1: host, 0 bytes */
	0x0a, 0x00,					/* window: 10 calls */
	0xa5, 0x02,					/* its bits */
	0x02, 0x00,					/* 2 failure times */
	0x30, 0xdd, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00,
	0xc8, 0x17, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,
	0x03,						/* 3 runs */
	0x00,						/* 0: success */
	0x00, 0x00,					/* 0: exit 0 */
	0x20, 0xb6, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 0: at */
	0x11,						/* 1: timed out */
	0x7c, 0x00,					/* 1: exit 124 */
	0x30, 0xdd, 0xe5, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 1: at */
	0x21,						/* 2: failure, probe */
	0x07, 0x00,					/* 2: exit 7 */
	0x40, 0x04, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 2: at */
	0x02,						/* 2 transitions */
	0x60, 0x52, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 0: at */
	0x00,
	0x01,						/* closed -> open */
	0x16,						/* reason: 22 bytes */
	'5', ' ', 'c', 'o', 'n', 's', 'e', 'c',
	'u', 't', 'i', 'v', 'e', ' ', 'f', 'a',
	'i', 'l', 'u', 'r', 'e', 's',
	0x00,						/* no user */
	0x50, 0x2b, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* 1: at */
	0x02,
	0x01,						/* half-open -> open */
	0x05,						/* reason */
	't', 'r', 'i', 'p', '!',
	0x03,						/* user */
	'b', 'o', 'b',
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,	/* identity */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* busy 6 */
	0x28, 0x00, 0x00, 0x00,				/* refused since: 40 */
	0x40, 0x04, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* last_failure: at */
	0x07, 0x00, 0x00, 0x00,				/* exit 7 */
	0x00, 0x00, 0x00, 0x00,				/* signal 0 */
	0x00,						/* not timed out */
	0x2a, 0x76, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* duration 30250 */
	0x01,						/* policy: set */
	0x01,						/* trip.policy rate */
	0x02, 0x00,					/* preset 2 */
	0x05, 0x00, 0x00, 0x00,				/* trip.failures 5 */
	0x60, 0xea, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* trip.period 60s */
	0x14, 0x00, 0x00, 0x00,				/* trip.window 20 */
	0x0a, 0x00, 0x00, 0x00,				/* trip.min_calls 10 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f,	/* failure_rate 0.5 */
	0xe0, 0x93, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* open_timeout 5m */
	0xc0, 0x27, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,	/* max_open 10m */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,	/* backoff 2 */
	0x01, 0x00, 0x00, 0x00,				/* half_open_max 1 */
	0x30, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* timeout 30s */
	0x03, 0x00, 0x00, 0x00,				/* max_concurrent 3 */
	0x01, 0x00,					/* 1 run slot */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* r0: token */
	0xc0, 0x3c, 0xe7, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* r0: lease_until */
	0xf7, 0x10, 0x00, 0x00,				/* r0: pid 4343 */
	0x40, 0xe2, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* r0: start_time */
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,	/* r0: boot_id */
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x70, 0x11, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* r0: lease length */
	0x50, 0x2b, 0xe6, 0xcf, 0x8b, 0x01, 0x00, 0x00,	/* r0: since */
	0x05,						/* r0: host, 5 bytes */
	'w', 'e', 'b', '-', '2',
};

/* Offsets into golden of the fields the error tests patch. */
#define G_VERSION	4
#define G_STATE	6
#define G_MANUAL	7
#define G_CREATED_AT	16
#define G_CHANGED_AT	24
#define G_OPENED_AT	32
#define G_OPEN_UNTIL	40
#define G_LAST_RUN_AT	48
#define G_LAST_USED	56
#define G_COOLDOWN	64
#define G_LAST_EXIT	168
#define G_REASON_LEN	180
#define G_REASON	182
#define G_NSLOTS	204
#define G_P0_LEASE	214
#define G_P0_LEASE_LEN	250
#define G_P0_HOST	266
#define G_P1_LEASE	278
#define G_P1_LEASE_LEN	314
#define G_P1_HOST	330
#define G_WLEN	331
#define G_NFAILTIMES	335
#define G_NRUNS	353
#define G_NHIST	387
#define G_HIST0_FROM	396
#define G_IDENTITY	442
#define G_LASTFAIL	462
#define G_LASTFAIL_DUR	479
#define G_POLICY	487
#define G_POLICY_TRIP	488
#define G_POLICY_RATE	511
#define G_POLICY_BACKOFF	535
#define G_NRUNNING	559
#define G_R0_LEASE	569
#define G_R0_LEASE_LEN	605
#define G_R0_HOST	621

/*
 * A version 2 record, as cbexec 0.1 wrote it: golden_v2_record() is what
 * it decodes to.  Its first V2_V1_LEN bytes, with the version patched to
 * 1, are the same record as version 1 wrote it, without histories.
 */
static const uint8_t golden_v2[] = {
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

#define V2_V1_LEN	316
#define V2_NRUNS	316

void
unit_golden_record(struct cb_record *r)
{
	int	i;

	memset(r, 0, sizeof *r);
	record_snapshot_clear(&r->policy);
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
	r->runs[2] = OUTCOME_FAILURE | RECORD_MARK_PROBE;
	r->run_exit[0] = 0;
	r->run_exit[1] = 124;
	r->run_exit[2] = 7;
	r->run_at_ms[0] = T0 + 20000;
	r->run_at_ms[1] = T0 + 30000;
	r->run_at_ms[2] = T0 + 40000;
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

	r->manual = 1;
	r->slots[0].lease_ms = 3600000;
	r->slots[0].since_ms = T0 + 60000;
	strcpy(r->slots[0].host, "db1");
	r->slots[1].lease_ms = 30000;
	r->slots[1].since_ms = T0 + 60000;
	r->identity = 0xfedcba9876543210ULL;
	r->busy = 6;
	r->refused_since_run = 40;
	r->last_failure.at_ms = T0 + 40000;
	r->last_failure.exit_code = 7;
	r->last_failure.duration_ms = 30250;
	r->policy.set = 1;
	r->policy.trip_policy = TRIP_RATE;
	r->policy.preset = 2;
	r->policy.trip_failures = 5;
	r->policy.trip_period_ms = 60000;
	r->policy.trip_window = 20;
	r->policy.trip_min_calls = 10;
	r->policy.trip_failure_rate = 0.5;
	r->policy.open_timeout_ms = 300000;
	r->policy.max_open_timeout_ms = 600000;
	r->policy.backoff = 2.0;
	r->policy.half_open_max_calls = 1;
	r->policy.timeout_ms = 30000;
	r->policy.max_concurrent = 3;
	r->nrunning = 1;
	r->running[0].token = 0x0102030405060708ULL;
	r->running[0].lease_until_ms = T0 + 120000;
	r->running[0].pid = 4343;
	r->running[0].start_time = 123456;
	for (i = 0; i < 16; i++)
		r->running[0].boot_id[i] = (uint8_t)(16 + i);
	r->running[0].lease_ms = 70000;
	r->running[0].since_ms = T0 + 50000;
	strcpy(r->running[0].host, "web-2");
}

/*
 * What golden_v2 decodes to: unit_golden_record without the version 3 fields,
 * and the refusal at the end of its strip counted instead.
 */
static void
golden_v2_record(struct cb_record *r)
{
	unit_golden_record(r);
	r->manual = 0;
	r->slots[0].lease_ms = r->slots[1].lease_ms = 0;
	r->slots[0].since_ms = r->slots[1].since_ms = 0;
	memset(r->slots[0].host, 0, sizeof r->slots[0].host);
	r->nruns = 2;
	r->runs[2] = 0;
	r->run_exit[0] = r->run_exit[1] = -1;
	r->run_at_ms[0] = r->run_at_ms[1] = 0;
	r->identity = 0;
	r->busy = 0;
	r->refused_since_run = 1;
	memset(&r->last_failure, 0, sizeof r->last_failure);
	record_snapshot_clear(&r->policy);
	r->nrunning = 0;
}

/*
 * record_decode sets every byte up to slots, the window, and each entry in
 * use (padding and text tails included), and leaves the entries past the
 * counts alone: compare exactly that, byte for byte.
 */
int
unit_record_same(const struct cb_record *a, const struct cb_record *b)
{
	size_t	i;

	if (memcmp(a, b, offsetof(struct cb_record, slots)) != 0 ||
	    a->wlen != b->wlen || a->nfailtimes != b->nfailtimes ||
	    a->nruns != b->nruns || a->nhist != b->nhist ||
	    memcmp(a->window, b->window, sizeof a->window) != 0 ||
	    memcmp(a->failtimes, b->failtimes,
	    a->nfailtimes * sizeof a->failtimes[0]) != 0 ||
	    memcmp(a->runs, b->runs, a->nruns) != 0 ||
	    memcmp(a->run_exit, b->run_exit,
	    a->nruns * sizeof a->run_exit[0]) != 0 ||
	    memcmp(a->run_at_ms, b->run_at_ms,
	    a->nruns * sizeof a->run_at_ms[0]) != 0)
		return 0;
	if (a->identity != b->identity || a->manual != b->manual ||
	    a->busy != b->busy ||
	    a->refused_since_run != b->refused_since_run ||
	    memcmp(&a->last_failure, &b->last_failure,
	    sizeof a->last_failure) != 0 ||
	    memcmp(&a->policy, &b->policy, sizeof a->policy) != 0 ||
	    a->nrunning != b->nrunning ||
	    a->last_success_ms != b->last_success_ms ||
	    memcmp(&a->last_run_by, &b->last_run_by,
	    sizeof a->last_run_by) != 0 ||
	    a->manual_on_open != b->manual_on_open ||
	    a->rate_tat_us != b->rate_tat_us ||
	    a->rate_limited != b->rate_limited)
		return 0;
	for (i = 0; i < a->nslots; i++)
		if (memcmp(&a->slots[i], &b->slots[i], sizeof a->slots[i]))
			return 0;
	for (i = 0; i < a->nrunning; i++)
		if (memcmp(&a->running[i], &b->running[i],
		    sizeof a->running[i]))
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

/* A version 3 record, encoded again, is a version 4 record that decodes
 * to the same struct: the snapshot not full, its version 4 fields at the
 * built-in defaults. */
static void
test_record_v3_upgrade(void)
{
	struct cb_record	r, back;
	struct cb_snapshot	def;
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	CHECK_EQ(unit_decode_copy(golden, sizeof golden, &r, &err), RECORD_OK);
	CHECK_EQ(r.policy.set, 1);
	CHECK_EQ(r.policy.full, 0);
	CHECK_EQ(r.policy.open_exit_code, 75);
	CHECK_EQ(r.policy.probe_timeout_ms, 10000);
	CHECK_EQ(r.policy.kill_after_ms, 10000);
	CHECK(codeset_has(&r.policy.failure_codes, 1));
	CHECK(codeset_has(&r.policy.success_codes, 0));
	CHECK_EQ(r.last_success_ms, 0);
	CHECK_STR(r.last_run_by.user, "");
	CHECK_EQ(r.running[0].pidns, 0);
	CHECK_EQ(r.running[0].pgid, 0);
	record_snapshot_clear(&def);
	CHECK(memcmp(&r.policy.failure_codes, &def.failure_codes,
	    sizeof def.failure_codes) == 0);
	record_encode(&r, &b);
	CHECK(b.len > 6 && b.data[G_VERSION] == RECORD_VERSION);
	CHECK(b.len < sizeof golden);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(unit_record_same(&r, &back));
	buf_free(&b);
}

static void
test_record_golden_decoding(void)
{
	struct cb_record	r, want;
	struct cb_err		err;

	unit_golden_record(&want);
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
	CHECK_EQ(r.runs[2], OUTCOME_FAILURE | RECORD_MARK_PROBE);
	CHECK_EQ(r.run_exit[1], 124);
	CHECK_EQ(r.run_at_ms[2], T0 + 40000);
	CHECK_EQ(r.nhist, 2);
	CHECK_EQ(r.hist[1].from, STATE_HALF_OPEN);
	CHECK_STR(r.hist[1].reason, "trip!");
	CHECK_STR(r.hist[1].user, "bob");
	CHECK_EQ(r.manual, 1);
	CHECK_EQ(r.slots[0].lease_ms, 3600000);
	CHECK_EQ(r.slots[0].since_ms, T0 + 60000);
	CHECK_STR(r.slots[0].host, "db1");
	CHECK_STR(r.slots[1].host, "");
	CHECK(r.identity == 0xfedcba9876543210ULL);
	CHECK_EQ(r.busy, 6);
	CHECK_EQ(r.refused_since_run, 40);
	CHECK_EQ(r.last_failure.at_ms, T0 + 40000);
	CHECK_EQ(r.last_failure.exit_code, 7);
	CHECK_EQ(r.last_failure.duration_ms, 30250);
	CHECK_EQ(r.policy.set, 1);
	CHECK_EQ(r.policy.trip_policy, TRIP_RATE);
	CHECK_EQ(r.policy.preset, 2);
	CHECK(r.policy.trip_failure_rate == 0.5);
	CHECK_EQ(r.policy.open_timeout_ms, 300000);
	CHECK(r.policy.backoff == 2.0);
	CHECK_EQ(r.policy.timeout_ms, 30000);
	CHECK_EQ(r.policy.max_concurrent, 3);
	CHECK_EQ(r.nrunning, 1);
	CHECK_EQ(r.running[0].pid, 4343);
	CHECK_EQ(r.running[0].lease_until_ms, T0 + 120000);
	CHECK_EQ(r.running[0].lease_ms, 70000);
	CHECK_EQ(r.running[0].boot_id[0], 16);
	CHECK_STR(r.running[0].host, "web-2");
	/* Every byte decoding defines, padding and text tails included. */
	CHECK(unit_record_same(&r, &want));
}

/*
 * A version 2 record (cbexec 0.1) decodes with the version 3 fields
 * empty, and its refusals leave the strip for refused_since_run; encoded
 * again, it is a version 3 record.
 */
static void
test_record_version2(void)
{
	struct cb_record	r, want, back;
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	golden_v2_record(&want);
	CHECK_EQ(unit_decode_copy(golden_v2, sizeof golden_v2, &r, &err),
	    RECORD_OK);
	CHECK_EQ(r.nruns, 2);
	CHECK_EQ(r.runs[1], OUTCOME_FAILURE | RECORD_MARK_TIMEOUT);
	CHECK_EQ(r.run_exit[0], -1);
	CHECK_EQ(r.refused_since_run, 1);
	CHECK_EQ(r.rejected, 9);
	CHECK_EQ(r.identity, 0);
	CHECK_EQ(r.slots[0].lease_ms, 0);
	CHECK_EQ(r.policy.set, 0);
	CHECK_EQ(r.policy.preset, -1);
	CHECK_EQ(r.nrunning, 0);
	CHECK(unit_record_same(&r, &want));
	record_encode(&r, &b);
	CHECK(b.len > 6 && b.data[G_VERSION] == RECORD_VERSION);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(unit_record_same(&r, &back));
	buf_free(&b);
}

/* A version 2 strip of refusals only, or with runs between them. */
static void
test_record_version2_strip(void)
{
	struct cb_record	r;
	struct cb_err		err;
	uint8_t			buf[sizeof golden_v2];

	memcpy(buf, golden_v2, sizeof buf);
	buf[V2_NRUNS + 1] = OUTCOME_REJECTED;
	buf[V2_NRUNS + 2] = OUTCOME_REJECTED;
	buf[V2_NRUNS + 3] = OUTCOME_REJECTED;
	CHECK_EQ(unit_decode_copy(buf, sizeof buf, &r, &err), RECORD_OK);
	CHECK_EQ(r.nruns, 0);
	CHECK_EQ(r.refused_since_run, 3);
	buf[V2_NRUNS + 2] = OUTCOME_STALE;
	CHECK_EQ(unit_decode_copy(buf, sizeof buf, &r, &err), RECORD_OK);
	CHECK_EQ(r.nruns, 1);
	CHECK_EQ(r.runs[0], OUTCOME_STALE);
	CHECK_EQ(r.refused_since_run, 1);
}

/* A version 1 record still decodes, with empty histories. */
static void
test_record_version1(void)
{
	struct cb_record	r, want;
	struct cb_err		err;
	uint8_t			v1[V2_V1_LEN];

	memcpy(v1, golden_v2, sizeof v1);
	v1[G_VERSION] = 1;
	golden_v2_record(&want);
	want.nruns = 0;
	want.refused_since_run = 0;
	memset(want.runs, 0, sizeof want.runs);
	want.nhist = 0;
	memset(want.hist, 0, sizeof want.hist);
	CHECK_EQ(unit_decode_copy(v1, sizeof v1, &r, &err), RECORD_OK);
	CHECK(unit_record_same(&r, &want));
	/* But a version 2 record may not stop there. */
	v1[G_VERSION] = 2;
	CHECK_EQ(unit_decode_copy(v1, sizeof v1, &r, &err), RECORD_ETRUNC);
}

static void
test_record_round_trip(void)
{
	struct cb_record	r, back;
	struct cb_buf		b = { 0 };
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
	CHECK_EQ(r.last_failure.exit_code, -1);
	CHECK_EQ(r.policy.preset, -1);
	CHECK_EQ(r.identity, 0);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	CHECK(unit_record_same(&r, &back));
	CHECK_EQ(back.last_exit, -1);
	CHECK_EQ(back.last_duration_ms, -1);
	buf_reset(&b);

	/* Limits: a 255-byte reason, 64 slots, a 1000-call window and 1000
	 * failure times all fit. */
	memset(&r, 0, sizeof r);
	record_snapshot_clear(&r.policy);
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
	CHECK(unit_record_same(&r, &back));
	CHECK_EQ(strlen(back.reason), 255);
	CHECK_EQ(back.slots[63].pid, -5);
	CHECK_EQ(back.failtimes[999], -1);
	buf_free(&b);
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
	{ "version 6", G_VERSION, 6, 0, 1, RECORD_ENEWER,
	  "record version 6 is newer than this cbexec's 5" },
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
	{ "probe lease of 2^62", G_P0_LEASE + 7, 0x40, 0, 0,
	  RECORD_EVALUE, "record has slot lease out of range" },
	{ "negative lease length", G_P1_LEASE_LEN + 7, 0xff, 0, 0,
	  RECORD_EVALUE, "record has slot lease length out of range" },
	{ "host of 64 bytes", G_P1_HOST, 64, 0, 0, RECORD_EVALUE,
	  "record probe slot 1 has an invalid host" },
	{ "NUL in host", G_P0_HOST + 2, 0, 0, 0, RECORD_EVALUE,
	  "record probe slot 0 has an invalid host" },
	{ "65 run slots", G_NRUNNING, 65, 0, 1, RECORD_EVALUE,
	  "record has 65 run slots, more than 64" },
	{ "run lease of 2^62", G_R0_LEASE + 7, 0x40, 0, 0, RECORD_EVALUE,
	  "record has slot lease out of range" },
	{ "run host with a NUL", G_R0_HOST + 1, 0, 0, 0, RECORD_EVALUE,
	  "record run slot 0 has an invalid host" },
	{ "last_failure duration of 2^62", G_LASTFAIL_DUR + 7, 0x40, 0, 0,
	  RECORD_EVALUE, "record has last_failure duration out of range" },
	{ "manual 2", G_MANUAL, 2, 0, 0, RECORD_EVALUE,
	  "record has a flag other than 0 or 1" },
	{ "policy.set 2", G_POLICY, 2, 0, 0, RECORD_EVALUE,
	  "record has a flag other than 0 or 1" },
	{ "timed_out 255", G_LASTFAIL_DUR - 1, 255, 0, 0, RECORD_EVALUE,
	  "record has a flag other than 0 or 1" },
	{ "trip.policy 3", G_POLICY_TRIP, 3, 0, 0, RECORD_EVALUE,
	  "record policy has trip.policy out of range" },
	{ "failure_rate NaN", G_POLICY_RATE + 6, 0xf8, 0x7f, 1,
	  RECORD_EVALUE, "record policy has trip.failure_rate out of range" },
	{ "backoff -2", G_POLICY_BACKOFF + 7, 0xc0, 0, 0, RECORD_EVALUE,
	  "record policy has backoff out of range" },
	{ "transition time of 2^62", G_NHIST + 1 + 7, 0x40, 0, 0,
	  RECORD_EVALUE, "record has transition time out of range" },
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
	CHECK_EQ(unit_decode_copy((const uint8_t *)"CBRK\x06\x00", 6, &r, &err),
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

void
test_record(void)
{
	test_record_golden_decoding();
	test_record_v3_upgrade();
	test_record_version2();
	test_record_version2_strip();
	test_record_version1();
	test_record_round_trip();
	test_record_truncated();
	test_record_decode_errors();
	test_record_state_names();
}
