/* SPDX-License-Identifier: ISC */
/*
 * record-ext.c: version 5's tagged fields, which follow version 4's
 * (record.h, enum record_tag, says the layout).  One row of fields[] per
 * tag, ascending: whether a record holds the field (else it is not
 * written, so that a record has one spelling), its encoder, and its
 * decoder, which reads from a reader bounded to the field's own bytes
 * and range-checks every value as record-decode4.c does (take_bad, or a
 * short read, which is a corrupt field here: its length said otherwise).
 * A field is added by a row here and its functions, beside the others';
 * the format's version stays 5.  Pure: no I/O.
 */
#include <stdint.h>
#include <string.h>

#include "record-ext.h"

struct ext_field {
	uint64_t	 tag;
	const char	*name;
	int		(*has)(const struct cb_record *);
	void		(*put)(const struct cb_record *, struct cb_buf *);
	void		(*get)(struct reader *, struct cb_record *);
};

/* ---- RECORD_TAG_JOB: the job markers' hashes ---------------------------- */

static int
job_has(const struct cb_record *r)
{
	size_t	i;

	for (i = 0; i < r->nslots && i < RECORD_MAX_SLOTS; i++)
		if (r->slots[i].job != 0)
			return 1;
	for (i = 0; i < r->nrunning && i < RECORD_MAX_RUNNING; i++)
		if (r->running[i].job != 0)
			return 1;
	return 0;
}

/* A u64 per slot, the probe slots first, as many as the record holds. */
static void
job_put(const struct cb_record *r, struct cb_buf *b)
{
	size_t	i;

	for (i = 0; i < r->nslots && i < RECORD_MAX_SLOTS; i++)
		buf_add_u64(b, r->slots[i].job);
	for (i = 0; i < r->nrunning && i < RECORD_MAX_RUNNING; i++)
		buf_add_u64(b, r->running[i].job);
}

static void
job_get(struct reader *rd, struct cb_record *r)
{
	size_t	i;

	for (i = 0; i < r->nslots; i++)
		r->slots[i].job = take_u64(rd);
	for (i = 0; i < r->nrunning; i++)
		r->running[i].job = take_u64(rd);
}

/* ---- RECORD_TAG_RATE: the rate limit's arrival time and count ---------- */

/* The most a stored arrival time may be (us): past it, sums overflow. */
#define RATE_TAT_MAX	(RECORD_TIME_BOUND * 1000)

static int
rate_has(const struct cb_record *r)
{
	return r->rate_tat_us != 0 || r->rate_limited != 0;
}

/* U the arrival time (us, 0: none), U the calls refused. */
static void
rate_put(const struct cb_record *r, struct cb_buf *b)
{
	put_uv(b, (uint64_t)r->rate_tat_us);
	put_uv(b, r->rate_limited);
}

static void
rate_get(struct reader *rd, struct cb_record *r)
{
	uint64_t	tat = take_uv(rd);

	if (tat > (uint64_t)RATE_TAT_MAX)
		take_bad(rd, "a rate limit's arrival time out of range");
	else
		r->rate_tat_us = (int64_t)tat;
	r->rate_limited = take_uv(rd);
}

/* ---- RECORD_TAG_RATE_POLICY: max_rate and rate_burst's snapshot --------- */

static int
rate_policy_has(const struct cb_record *r)
{
	return r->policy.rate_n != 0 || r->policy.rate_per_ms != 0 ||
	    r->policy.rate_burst != 1;
}

/* U N, U the period (ms), U the burst. */
static void
rate_policy_put(const struct cb_record *r, struct cb_buf *b)
{
	put_uv(b, r->policy.rate_n);
	put_uv(b, (uint64_t)r->policy.rate_per_ms);
	put_uv(b, r->policy.rate_burst);
}

static void
rate_policy_get(struct reader *rd, struct cb_record *r)
{
	struct cb_rate	rate;
	uint64_t	per;
	uint32_t	burst;

	rate.n = take_uv32(rd, "a max_rate out of range");
	per = take_uv(rd);
	burst = take_uv32(rd, "a rate_burst out of range");
	rate.per_ms = per <= (uint64_t)POLICY_MAX_RATE_PER ? (int64_t)per : -1;
	if (!policy_rate_valid(&rate)) {
		take_bad(rd, "a max_rate out of range");
		return;
	}
	if (burst < 1 || burst > POLICY_MAX_BURST) {
		take_bad(rd, "a rate_burst out of range");
		return;
	}
	r->policy.rate_n = rate.n;
	r->policy.rate_per_ms = rate.per_ms;
	r->policy.rate_burst = burst;
}

/* ---- RECORD_TAG_OUTAGE: the outage under way (SPEC 6.5) --------------- */

static int
outage_has(const struct cb_record *r)
{
	return r->outage_since_ms != 0 || r->outage_failed != 0 ||
	    r->outage_refused != 0;
}

static void
outage_put(const struct cb_record *r, struct cb_buf *b)
{
	put_uv(b, (uint64_t)r->outage_since_ms);
	put_uv(b, r->outage_failed);
	put_uv(b, r->outage_refused);
}

static void
outage_get(struct reader *rd, struct cb_record *r)
{
	uint64_t	since = take_uv(rd);

	if (since > INT64_MAX)
		take_bad(rd, "outage start out of range");
	else
		r->outage_since_ms = (int64_t)since;
	r->outage_failed = take_uv32(rd, "outage failures");
	r->outage_refused = take_uv32(rd, "outage refusals");
}

/* ---- RECORD_TAG_EXPECT: expect_every's snapshot (SPEC 7) --------------- */

static int
expect_has(const struct cb_record *r)
{
	return r->policy.expect_every_ms != 0;
}

/* U ms: more than 0, within the key's own bounds. */
static void
expect_put(const struct cb_record *r, struct cb_buf *b)
{
	put_uv(b, (uint64_t)r->policy.expect_every_ms);
}

static void
expect_get(struct reader *rd, struct cb_record *r)
{
	uint64_t	v = take_uv(rd);

	if (v == 0 || v > INT64_MAX ||
	    !policy_int_in_range(PK_EXPECT_EVERY, (long long)v))
		take_bad(rd, "expect_every out of range");
	else
		r->policy.expect_every_ms = (int64_t)v;
}

/* ---- RECORD_TAG_OUTPUT: output's snapshot (SPEC 6.5) ------------------- */

static int
output_has(const struct cb_record *r)
{
	return r->policy.output != 0;
}

/* A u8: 1 on-failure, 2 on-change (enum cb_output). */
static void
output_put(const struct cb_record *r, struct cb_buf *b)
{
	buf_add_u8(b, r->policy.output);
}

static void
output_get(struct reader *rd, struct cb_record *r)
{
	uint8_t	v = take_u8(rd);

	if (v == OUTPUT_PASS || v > OUTPUT_ON_CHANGE)
		take_bad(rd, "output out of range");
	else
		r->policy.output = v;
}

/* ---- the table ---------------------------------------------------------- */

/* Ascending by tag. */
static const struct ext_field fields[] = {
	{ RECORD_TAG_JOB, "job markers", job_has, job_put, job_get },
	{ RECORD_TAG_RATE, "rate limit", rate_has, rate_put, rate_get },
	{ RECORD_TAG_RATE_POLICY, "rate policy", rate_policy_has,
	  rate_policy_put, rate_policy_get },
	{ RECORD_TAG_OUTAGE, "outage", outage_has, outage_put, outage_get },
	{ RECORD_TAG_EXPECT, "expect_every", expect_has, expect_put,
	    expect_get },
	{ RECORD_TAG_OUTPUT, "output", output_has, output_put, output_get },
};
#define NFIELDS	(sizeof fields / sizeof fields[0])

void
record_ext_encode(const struct cb_record *r, struct cb_buf *b)
{
	struct cb_buf	 one = { 0 };
	size_t		 i, n = 0;

	for (i = 0; i < NFIELDS; i++)
		if (fields[i].has(r))
			n++;
	put_uv(b, n);
	for (i = 0; i < NFIELDS; i++) {
		if (!fields[i].has(r))
			continue;
		buf_reset(&one);
		fields[i].put(r, &one);
		put_uv(b, fields[i].tag);
		put_uv(b, one.len);
		buf_add(b, one.data, one.len);
	}
	buf_free(&one);
}

static const struct ext_field *
ext_find(uint64_t tag)
{
	size_t	i;

	for (i = 0; i < NFIELDS; i++)
		if (fields[i].tag == tag)
			return &fields[i];
	return NULL;
}

/* One field's bytes p (len) into r through its own bounded reader. */
static enum record_error
ext_field_decode(struct reader *rd, const struct ext_field *f,
    const uint8_t *p, size_t len, struct cb_record *r, struct cb_err *err)
{
	struct reader	sub = { p, len, 0, rd->version, 0, NULL };

	f->get(&sub, r);
	if (sub.short_read || sub.left != 0) {
		err_set(err, "record field %llu (%s) is %zu bytes, not what "
		    "it holds", (unsigned long long)f->tag, f->name, len);
		return RECORD_EVALUE;
	}
	if (sub.bad_flag)
		rd->bad_flag = 1;
	if (sub.bad_value != NULL)
		take_bad(rd, sub.bad_value);
	if (!f->has(r))
		take_bad(rd, "an empty tagged field spelt out");
	return RECORD_OK;
}

enum record_error
record_ext_decode(struct reader *rd, struct cb_record *r,
    struct cb_err *err)
{
	const struct ext_field	*f;
	const uint8_t		*p;
	enum record_error	 e;
	uint64_t		 n, tag, len, prev = 0;

	n = take_uv(rd);
	while (n-- > 0 && !rd->short_read) {
		tag = take_uv(rd);
		len = take_uv(rd);
		if (rd->short_read)
			break;
		if (tag <= prev) {
			err_set(err, "record has tagged fields out of order "
			    "(%llu after %llu)", (unsigned long long)tag,
			    (unsigned long long)prev);
			return RECORD_EVALUE;
		}
		prev = tag;
		if ((f = ext_find(tag)) == NULL) {
			err_set(err, "record field %llu is newer than this "
			    "cbexec", (unsigned long long)tag);
			return RECORD_ENEWER;
		}
		if (len > rd->left) {
			rd->short_read = 1;
			break;
		}
		p = take(rd, (size_t)len);
		if ((e = ext_field_decode(rd, f, p, (size_t)len, r, err)) !=
		    RECORD_OK)
			return e;
	}
	return RECORD_OK;
}
