/* SPDX-License-Identifier: ISC */
/*
 * record.h: one breaker's persistent state and its on-disk encoding.
 *
 * The encoding is explicit, field by field, never a raw struct: magic
 * "CBRK", a u16 little-endian format version, then the fields in the order
 * record.c lists them (since version 4 mostly varints, times as
 * differences, optional groups behind a presence byte; since version 5
 * then tagged optional fields, enum record_tag).  A record from a newer
 * version, or holding a tag this cbexec does not know, is refused, so an
 * old cbexec never rewrites what it does not understand.  record.c encodes,
 * record-decode.c decodes every version.  Pure: no I/O.
 */
#ifndef CBEXEC_RECORD_H
#define CBEXEC_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "util.h"

#define RECORD_MAGIC		"CBRK"
#define RECORD_VERSION		5
#define RECORD_REASON_MAX	256	/* bytes, NUL included */
#define RECORD_USER_MAX		64	/* bytes, NUL included */
#define RECORD_RUNS		32	/* outcomes kept for the strip */
#define RECORD_TRANSITIONS	16	/* transitions kept */
#define RECORD_HOST_MAX		64	/* bytes, NUL included */
/* A run mark: an enum cb_outcome (breaker.h) in the low bits, or'ed with
 * RECORD_MARK_TIMEOUT when the run timed out and RECORD_MARK_PROBE when it
 * was a probe command's run (SPEC 2c).  Only runs that ran are marked:
 * since version 3 refusals are a count (refused_since_run). */
#define RECORD_MARK_OUTCOME	0x0f
#define RECORD_MARK_TIMEOUT	0x10
#define RECORD_MARK_PROBE	0x20
#define RECORD_MAX_SLOTS	POLICY_MAX_PROBES
#define RECORD_MAX_RUNNING	POLICY_MAX_CONCURRENT	/* run slots */
#define RECORD_MAX_WINDOW	POLICY_MAX_WINDOW
#define RECORD_MAX_FAILTIMES	POLICY_MAX_FAILURES

enum cb_state {
	STATE_CLOSED,
	STATE_OPEN,
	STATE_HALF_OPEN,
	STATE_COUNT
};

/* One remembered transition. */
struct cb_histent {
	int64_t		at_ms;
	uint8_t		from;		/* enum cb_state */
	uint8_t		to;
	char		reason[RECORD_REASON_MAX];
	char		user[RECORD_USER_MAX];	/* manual ones; else "" */
};

/* A half-open probe slot or a run slot (SPEC 2b), and who holds it. */
struct cb_slot {
	uint64_t	token;		/* random, names the slot */
	int64_t		lease_until_ms;	/* wall clock */
	int32_t		pid;		/* 0: a token not tied to a process */
	uint64_t	start_time;	/* of pid, clock ticks since boot */
	uint8_t		boot_id[16];
	/* Since version 3. */
	int64_t		lease_ms;	/* the lease's length; 0: unknown
					 * (a version 2 slot): not capped */
	int64_t		since_ms;	/* when the slot was taken */
	char		host[RECORD_HOST_MAX];	/* holder's host name */
	/* Since version 4 (0 in older ones: unknown). */
	uint64_t	pidns;		/* inode of the holder's PID namespace
					 * (/proc/PID/ns/pid): liveness is
					 * judged only from the same one */
	int32_t		pgid;		/* the job's process group, which holds
					 * the slot while it has a member
					 * (SPEC 2b); 0: none */
	/* Since version 5 (tag RECORD_TAG_JOB; 0 in older ones). */
	uint64_t	job;		/* a hash of the marker the job was
					 * started with (SPEC 2b); 0: no job
					 * of cbexec's (a version 4 slot, an
					 * acquire), never signalled */
};

/* The policy a breaker last ran under, as status shows it (SPEC 7). */
struct cb_snapshot {
	uint8_t		set;		/* 0: never ran under v3 */
	uint8_t		trip_policy;	/* enum cb_trip_policy */
	int16_t		preset;		/* preset_lookup's index (preset.c),
					 * -1: none */
	uint32_t	trip_failures;
	int64_t		trip_period_ms;
	uint32_t	trip_window;
	uint32_t	trip_min_calls;
	double		trip_failure_rate;
	int64_t		open_timeout_ms;
	int64_t		max_open_timeout_ms;
	double		backoff;
	uint32_t	half_open_max_calls;
	int64_t		timeout_ms;
	uint32_t	max_concurrent;
	/* Since version 4: every other number, class and mode (SPEC 7),
	 * never a command.  A version 3 snapshot has these at the built-in
	 * defaults (full is 0). */
	uint8_t		full;		/* 1: the fields below were stored */
	double		jitter;
	int64_t		probe_lease_ms;
	int64_t		probe_timeout_ms;
	uint8_t		probe_set;	/* a probe command was set */
	int64_t		kill_after_ms;
	int64_t		slow_call_ms;
	struct cb_codeset failure_codes;
	struct cb_codeset success_codes;
	struct cb_codeset ignore_codes;
	uint8_t		timeout_is;	/* enum cb_verdict */
	uint8_t		signal_is;
	uint8_t		on_open;	/* enum cb_on_open */
	uint8_t		on_busy;
	uint8_t		open_exit_code;
	/* Since version 5, tag RECORD_TAG_EXPECT (0: none). */
	int64_t		expect_every_ms;
	/* Since version 5, tag RECORD_TAG_RATE_POLICY: max_rate (n 0:
	 * none) and rate_burst (1 where the tag is absent). */
	uint32_t	rate_n;
	int64_t		rate_per_ms;
	uint32_t	rate_burst;
	/* Since version 5, tag RECORD_TAG_OUTPUT: enum cb_output (0:
	 * pass, not written). */
	uint8_t		output;
};

/* Who ran the last run (SPEC 7): never its arguments, which may hold
 * secrets. */
#define RECORD_ARGV0_MAX	64	/* bytes, NUL included */
struct cb_runby {
	char		user[RECORD_USER_MAX];
	char		host[RECORD_HOST_MAX];
	char		argv0[RECORD_ARGV0_MAX];	/* argv[0] as given */
};

/* The last run that ended in a failure. */
struct cb_lastfail {
	int64_t		at_ms;		/* 0: none yet */
	int32_t		exit_code;	/* what cbexec exited with, -1 */
	int32_t		signal;		/* died of this signal, or 0 */
	uint8_t		timed_out;
	int64_t		duration_ms;
};

/*
 * A decoded record is large (about 17 KB: the outcome window, failure
 * times and history at their maximum sizes), so that decoding needs no
 * allocation.  The commands keep the one they work on, or the struct that
 * holds it, in a function-level static ("static struct cb_record r;")
 * rather than on the stack, so that every stack frame stays small; each
 * command runs once per process, so nothing is shared or freed.
 */
struct cb_record {
	enum cb_state	state;
	uint64_t	epoch;		/* +1 at every transition */

	int64_t		created_at_ms;
	int64_t		changed_at_ms;	/* last transition */
	int64_t		opened_at_ms;	/* last entry into open, or 0 */
	int64_t		open_until_ms;	/* when open: first probe time */
	int64_t		last_run_at_ms;	/* last outcome recorded, or 0 */
	int64_t		last_used_ms;	/* last run/check/admin (gc) */
	int64_t		cooldown_ms;	/* next cool-down; 0: open_timeout */

	uint32_t	consecutive_failures;
	uint32_t	half_open_successes;

	/* Totals.  calls = successes + failures + ignored + interrupted +
	 * stale; timeouts is a subset of whichever class they fell in. */
	uint64_t	calls;
	uint64_t	successes;
	uint64_t	failures;
	uint64_t	timeouts;
	uint64_t	ignored;
	uint64_t	interrupted;
	uint64_t	stale;
	uint64_t	rejected;
	uint64_t	transitions[STATE_COUNT];	/* by target state */

	int32_t		last_exit;	/* -1: none yet */
	int64_t		last_duration_ms;	/* -1: none yet */
	char		reason[RECORD_REASON_MAX];	/* of the last change */

	uint16_t	nslots;
	struct cb_slot	slots[RECORD_MAX_SLOTS];

	/* Rate policy: the last `wlen` success(0)/failure(1) outcomes, oldest
	 * first, bit i of window at byte i/8. */
	uint16_t	wlen;
	uint8_t		window[(RECORD_MAX_WINDOW + 7) / 8];

	/* Time policy: wall times of the newest failures, oldest first. */
	uint16_t	nfailtimes;
	int64_t		failtimes[RECORD_MAX_FAILTIMES];

	/* Since version 2: the last runs (marks) and transitions, oldest
	 * first.  Since version 3 each run also has its end time and exit
	 * (what cbexec exited with, -1: none); a version 2 record's runs
	 * have 0 and -1 there, and its refusals leave the strip. */
	uint8_t			nruns;
	uint8_t			runs[RECORD_RUNS];
	int64_t			run_at_ms[RECORD_RUNS];
	int16_t			run_exit[RECORD_RUNS];
	uint8_t			nhist;
	struct cb_histent	hist[RECORD_TRANSITIONS];

	/* Since version 3 (0 in older ones). */
	uint64_t		identity;	/* random, given at creation */
	uint8_t			manual;		/* state set by trip/reset */
	uint64_t		busy;		/* refused: no run slot free */
	uint32_t		refused_since_run;	/* open or busy */
	struct cb_lastfail	last_failure;
	struct cb_snapshot	policy;		/* the last run's */
	uint16_t		nrunning;	/* run slots held */
	struct cb_slot		running[RECORD_MAX_RUNNING];

	/* Since version 4 (0 or "" in older ones). */
	int64_t			last_success_ms;	/* 0: never */
	struct cb_runby		last_run_by;
	/* trip --on-open: how calls refused during this manual window
	 * exit; MANUAL_ON_OPEN_NONE: the breaker's own on_open. */
	uint8_t			manual_on_open;

	/* Since version 5, tag RECORD_TAG_RATE (0 in older ones): the rate
	 * limit's theoretical arrival time (SPEC 2d, GCRA), wall clock in
	 * microseconds (one call per microsecond is max_rate's most), 0:
	 * none yet; and the calls it refused. */
	int64_t			rate_tat_us;
	uint64_t		rate_limited;
	/* Since version 5, tag RECORD_TAG_OUTAGE: the outage under way, for
	 * the line that ends it (SPEC 6.5); all 0 while closed. */
	int64_t			outage_since_ms;	/* left closed at */
	uint32_t		outage_failed;	/* calls failed: the streak
						 * that opened it, and since */
	uint32_t		outage_refused;	/* refused open or half-open */
};

enum { MANUAL_ON_OPEN_NONE, MANUAL_ON_OPEN_FAIL, MANUAL_ON_OPEN_SKIP };

/*
 * Version 5's tagged fields: after version 4's fields, U n, then n fields,
 * each U tag, U length, that many bytes, tags strictly ascending
 * (record-ext.c).  A field is written only when it holds something other
 * than its "none", and then in one spelling; a tag this cbexec does not
 * know makes the record one of a newer cbexec (RECORD_ENEWER), and a
 * field whose bytes its decoder does not read to the end is corrupt.  A
 * new field is a tag here, its members in struct cb_record (0 in older
 * records), and a row of record-ext.c's table with its encoder, decoder
 * (range-checked as every field) and test in tests/unit-record5.c; no new
 * version.  Tags are never reused.
 */
enum record_tag {
	/* The job markers' hashes (struct cb_slot's job) of the probe slots
	 * then the run slots, a u64 (LE) each: SPEC 2b. */
	RECORD_TAG_JOB = 1,
	/* The rate limit's theoretical arrival time (U, us; 0 none) and
	 * the rate_limited count (U): SPEC 2d. */
	RECORD_TAG_RATE = 2,
	/* The snapshot of the rate limit's policy keys: max_rate's N (U, 0
	 * none) and period (U, ms), rate_burst (U): SPEC 2d, 7. */
	RECORD_TAG_RATE_POLICY = 3,
	/* The outage summary's counters (SPEC 6.5): U outage_since_ms, U
	 * outage_failed, U outage_refused. */
	RECORD_TAG_OUTAGE = 4,
	/* Reserved: the snapshot of expect_every (SPEC 3, 7). */
	RECORD_TAG_EXPECT = 5,
	/* The snapshot of output (SPEC 3, 6.5): a u8, 1 (on-failure) or 2
	 * (on-change); pass is not written. */
	RECORD_TAG_OUTPUT = 6
};

/* A new closed record created at now, of identity 0 (breaker_init gives
 * it a random one). */
void	record_init(struct cb_record *, int64_t now_ms);

/* The snapshot of a breaker that never ran: set and full 0, preset -1,
 * the version 3 numbers 0 and the version 4 fields at the built-in
 * policy's values (what a version 3 snapshot decodes with). */
void	record_snapshot_clear(struct cb_snapshot *);

/* 1 when f is the "no failure yet" of record_init (at 0, exit -1). */
int	record_lastfail_none(const struct cb_lastfail *);

/* Append the encoding of r to out. */
void	record_encode(const struct cb_record *, struct cb_buf *out);

/* Why record_decode failed. */
enum record_error {
	RECORD_OK,
	RECORD_ETRUNC,		/* shorter than its fields say */
	RECORD_EMAGIC,		/* not a cbexec record */
	RECORD_ENEWER,		/* written by a newer cbexec */
	RECORD_EVALUE,		/* a field out of range */
	RECORD_ETRAIL		/* bytes after the last field */
};

/*
 * Decode len bytes into r.  Returns RECORD_OK, or an error class with a
 * message in err ("record version 7 is newer than this cbexec's 3").
 * Every byte of r up to slots, the window and each slot, failure time, run
 * mark and transition in use is set (padding and text tails to 0); the
 * entries past their counts are left as they were.
 */
enum record_error	record_decode(const uint8_t *, size_t,
			    struct cb_record *, struct cb_err *);

const char	*record_state_name(enum cb_state);	/* "half-open" */

#endif
