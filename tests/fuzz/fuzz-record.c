/* SPDX-License-Identifier: ISC */
/*
 * fuzz-record.c: libFuzzer harness for record_decode, the one parser that
 * reads bytes another process (or a disk error) wrote.  A record that
 * decodes must encode back to the same bytes (bar the pad byte after the
 * state), and must then survive the state machine: admit and record with
 * each trip policy, at its own times and at hostile ones, and under the
 * policy its own snapshot says (what a run under a config that cannot be
 * used obeys: SPEC 4), which is where a snapshot out of range once wrote
 * past the failure times (the seed time-failures0-1000 in corpus/record).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "policy.h"
#include "record.h"

static struct cb_policy	pol[3];
static int		ready;

static void
setup(void)
{
	static const char *const kinds[3] = { "consecutive", "rate", "time" };
	struct policy_builder	 b;
	struct policy_value	 v;
	struct cb_err		 err;
	int			 i;

	for (i = 0; i < 3; i++) {
		policy_init(&b);
		memset(&v, 0, sizeof v);
		v.type = PV_STRING;
		v.s = kinds[i];
		v.from_cli = 1;
		if (policy_set(&b, PK_TRIP_POLICY, &v, LAYER_CLI, "fuzz",
		    &err) != 0)
			abort();
		v.s = "3";
		if (policy_set(&b, PK_HALF_OPEN_MAX_CALLS, &v, LAYER_CLI,
		    "fuzz", &err) != 0)
			abort();
		v.s = "0.3";
		if (policy_set(&b, PK_JITTER, &v, LAYER_CLI, "fuzz",
		    &err) != 0)
			abort();
		if (policy_finish(&b, &pol[i], &err) != 0)
			abort();
	}
	ready = 1;
}

static enum cb_liveness
oracle(const struct cb_slot *s, void *arg)
{
	(void)arg;
	return (enum cb_liveness)((unsigned)s->pid % 3);
}

static void
drive(const struct cb_record *orig, const struct cb_policy *p, int64_t now,
    int outcome)
{
	struct cb_record	r;
	struct cb_env		env;
	struct cb_slot		self;
	struct cb_ticket	t;
	struct cb_effects	fx;
	struct cb_run		run;
	struct cb_buf		b = { 0 };
	struct cb_record	back;
	struct cb_err		err;
	char			progress[64];

	r = *orig;
	memset(&env, 0, sizeof env);
	env.now_ms = now;
	env.jitter_u = 0.5;
	env.alive = oracle;
	memset(&self, 0, sizeof self);
	self.token = 42;
	self.pid = 7;
	self.lease_until_ms = now + 1000;
	memset(&fx, 0, sizeof fx);
	(void)breaker_admit(&r, p, &env, &self, &t, &fx);
	breaker_progress(&r, p, now, progress, sizeof progress);
	if (t.admitted) {
		memset(&run, 0, sizeof run);
		run.outcome = (enum cb_outcome)(outcome % 4);
		run.exit_code = outcome;
		run.duration_ms = 10;
		memset(&fx, 0, sizeof fx);
		(void)breaker_record(&r, p, &env, &t, &run, &fx);
	}
	/* Whatever the machine made of it must still be a valid record. */
	record_encode(&r, &b);
	if (record_decode(b.data, b.len, &back, &err) != RECORD_OK) {
		fprintf(stderr, "re-decode at now %lld: %s\n",
		    (long long)now, err.msg);
		abort();
	}
	buf_free(&b);
}

static int64_t
clamp_now(int64_t t)
{
	if (t < 0)
		return 0;
	if (t > (int64_t)1 << 52)
		return (int64_t)1 << 52;
	return t;
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct cb_record	r, r2;
	struct cb_policy	snap;
	struct cb_err		err;
	struct cb_buf		b = { 0 }, b2 = { 0 };
	int64_t			times[4];
	int			i, j, k;

	if (!ready)
		setup();
	if (record_decode(data, len, &r, &err) != RECORD_OK)
		return 0;

	record_encode(&r, &b);
	if (get_u16(data + 4) == RECORD_VERSION) {
		/* The current version re-encodes to the same bytes. */
		if (b.len != len || memcmp(b.data, data, 7) != 0 ||
		    memcmp(b.data + 8, data + 8, len - 8) != 0)
			abort();
	} else {
		/* An older one upgrades to a record that encodes the same
		 * again (the decoder leaves unused tails as they were). */
		if (record_decode(b.data, b.len, &r2, &err) != RECORD_OK)
			abort();
		record_encode(&r2, &b2);
		if (b2.len != b.len || memcmp(b2.data, b.data, b.len) != 0)
			abort();
		buf_free(&b2);
	}
	buf_free(&b);

	/* A clock reads 0 to 2^52 ms (142,000 years); the record's own
	 * times, within that, are where the edges are. */
	times[0] = clamp_now(r.open_until_ms);
	times[1] = clamp_now(r.changed_at_ms);
	times[2] = (int64_t)1 << 52;	/* the far future decode allows */
	times[3] = 1764489600000LL;	/* 2025-11-30 */
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++)
			drive(&r, &pol[i], times[j], data[len - 1] + j);
	/* Under its own policy, every outcome at every time. */
	if (breaker_policy(&r, &pol[0], &snap) > 0)
		for (j = 0; j < 4; j++)
			for (k = 0; k < 4; k++)
				drive(&r, &snap, times[j],
				    (data[len - 1] & ~3) + k);
	return 0;
}
