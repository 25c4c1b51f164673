/* SPDX-License-Identifier: ISC */
/*
 * unit-breaker.c: unit tests of the breaker state machine of SPEC section
 * 2, walked with explicit times, random draws and liveness answers.
 * Policies are built field by field (unit_policy_defaults), so these tests
 * do not depend on policy.c's builder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "policy.h"
#include "record.h"
#include "unit.h"

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

	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	/* Refused until cron's drift of the end (2s for a 1m cool-down). */
	env = env_at(T0 + 60000 - DRIFT(60000) - 1);
	self = holder(2, T0 + HOUR);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_admit(&r, &p, &env, &self, &t, &fx), 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.retry_in_ms, DRIFT(60000) + 1);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
		CHECK_EQ(admit_at(&r, &p, now + want[i] - DRIFT(want[i]) - 1,
		    99).admitted, 0);
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
	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
	p.trip_failures = 1;
	record_init(&r, T0);
	t = admit_at(&r, &p, T0, 1);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 0, "manual trip by alice", "alice", NULL);
	CHECK_EQ(breaker_reset(&r, &p, &env, "manual reset by alice", "alice",
	    NULL), 1);
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

	unit_policy_defaults(&p);
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
	t = admit_at(&r, &p, back + 60000 - DRIFT(60000) - 1, 3);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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

	/* Tripping an open breaker re-opens it: the epoch moves, "open
	 * since" stays where the window began (SPEC 1). */
	env = env_at(T0 + 10 * SEC);
	memset(&fx, 0, sizeof fx);
	breaker_trip(&r, &p, &env, 5 * MIN, "manual trip by bob", "alice", &fx);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.epoch, 2);
	CHECK_EQ(r.opened_at_ms, T0);
	CHECK_EQ(r.changed_at_ms, T0);
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

/*
 * A maintenance window (SPEC 1): a trip without --for never shortens a
 * window already open; --for sets the end exactly; --on-open holds for the
 * refusals of this manual window only.
 */
static void
test_breaker_trip_window(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;

	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 2 * HOUR, "window", "alice", NULL);
	breaker_trip_on_open(&r, MANUAL_ON_OPEN_SKIP);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_SKIP);
	t = admit_at(&r, &p, T0 + SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.manual_on_open, MANUAL_ON_OPEN_SKIP);

	/* No --for: the 1m cool-down does not end the 2h window. */
	env = env_at(T0 + MIN);
	breaker_trip(&r, &p, &env, 0, "again", "bob", NULL);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.open_until_ms, T0 + 2 * HOUR);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_SKIP);
	CHECK_EQ(admit_at(&r, &p, T0 + HOUR, 1).admitted, 0);
	/* ... a later end is taken. */
	r.open_until_ms = T0 + 2 * MIN;
	breaker_trip(&r, &p, &env, 0, "again", "bob", NULL);
	CHECK_EQ(r.open_until_ms, T0 + MIN + 60000);
	/* --for sets the end exactly, shorter or not. */
	breaker_trip(&r, &p, &env, 5 * SEC, "short", "bob", NULL);
	CHECK_EQ(r.open_until_ms, T0 + MIN + 5 * SEC);
	breaker_trip_on_open(&r, MANUAL_ON_OPEN_FAIL);
	t = admit_at(&r, &p, T0 + MIN + SEC, 1);
	CHECK_EQ(t.manual_on_open, MANUAL_ON_OPEN_FAIL);

	/* Out of the window (half-open): the breaker's own on_open. */
	t = admit_at(&r, &p, T0 + MIN + 5 * SEC, 1);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_NONE);
	t = admit_at(&r, &p, T0 + MIN + 6 * SEC, 2);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.manual_on_open, MANUAL_ON_OPEN_NONE);

	/* A later open by failures is not manual: its own on_open too. */
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, HOUR, "window", "alice", NULL);
	breaker_trip_on_open(&r, MANUAL_ON_OPEN_SKIP);
	breaker_reset(&r, &p, &env, "done", "alice", NULL);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_NONE);
	open_by_failures(&r, &p, T0 + SEC);
	t = admit_at(&r, &p, T0 + 2 * SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.manual_on_open, MANUAL_ON_OPEN_NONE);
	/* --on-open on a breaker that is not in a manual window: nothing. */
	breaker_trip_on_open(&r, MANUAL_ON_OPEN_SKIP);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_NONE);
	/* A trip over an automatic open keeps its later end, not manual's
	 * on_open (there was none). */
	r.open_until_ms = T0 + HOUR;
	env = env_at(T0 + 3 * SEC);
	breaker_trip(&r, &p, &env, 0, "trip", "bob", NULL);
	CHECK_EQ(r.open_until_ms, T0 + HOUR);
	CHECK_EQ(r.manual, 1);
	CHECK_EQ(r.manual_on_open, MANUAL_ON_OPEN_NONE);
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

	unit_policy_defaults(&p);
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

	/* A closed breaker's reset changes nothing (SPEC 1). */
	memset(&fx, 0, sizeof fx);
	r.manual = 0;
	CHECK_EQ(breaker_reset(&r, &p, &env, "manual reset by bob", "alice",
	    &fx), 0);
	CHECK_EQ(r.epoch, 4);
	CHECK_EQ(fx.ntrans, 0);
	CHECK_EQ(r.manual, 0);
	CHECK_EQ(r.transitions[STATE_CLOSED], 1);

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

	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
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
	breaker_trip(&r, &p, &env, 0, "manual trip by alice", "alice", NULL);
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
	CHECK_EQ(r.transitions[STATE_OPEN], 2);
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

	unit_policy_defaults(&p);
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

	unit_policy_defaults(&p);
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_SUCCESS);
	open_by_failures(&r, &p, T0 + SEC);
	t = admit_at(&r, &p, T0 + 2 * SEC, 1);
	CHECK_EQ(t.admitted, 0);
	/* A refusal is counted, not marked: the strip holds runs that ran. */
	CHECK_EQ(r.nruns, 6);
	CHECK_EQ(r.runs[0], OUTCOME_SUCCESS);
	CHECK_EQ(r.runs[5], OUTCOME_FAILURE);
	CHECK_EQ(r.refused_since_run, 1);
	CHECK_EQ(r.rejected, 1);
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

	unit_policy_defaults(&p);
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

/*
 * A policy that disagrees with the record it runs on (a snapshot nobody
 * checked: trip.failures 0 over 1000 failure times, trip.window 0 over a
 * full window) never writes past the record's arrays: that wrote
 * failtimes[1000] once.
 */
static void
test_breaker_policy_disagrees(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	int			i;

	unit_policy_defaults(&p);
	p.trip_policy = TRIP_TIME;
	p.trip_failures = 0;
	p.trip_window = 0;
	record_init(&r, T0);
	for (i = 0; i < RECORD_MAX_FAILTIMES; i++)
		r.failtimes[i] = T0 - 1000 + i;
	r.nfailtimes = RECORD_MAX_FAILTIMES;
	memset(r.window, 0xff, sizeof r.window);
	r.wlen = RECORD_MAX_WINDOW;
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK(r.nfailtimes <= RECORD_MAX_FAILTIMES);
	CHECK(r.wlen <= RECORD_MAX_WINDOW);
	CHECK_EQ(r.nruns, 1);
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

	unit_policy_defaults(&p);
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

/* ------------------------------------------------------------------ */
/* record format version 3 and issues 10, 11 and 13 */

/* A run ending in o with exit code, signal and timeout as given. */
static struct cb_run
run_of(enum cb_outcome o, int exit_code, int sig, int timed_out)
{
	struct cb_run	run;

	memset(&run, 0, sizeof run);
	run.outcome = o;
	run.exit_code = exit_code;
	run.signal = sig;
	run.timed_out = timed_out;
	run.duration_ms = 250;
	return run;
}

/* Admit with a holder whose lease is lease_ms long from now. */
static struct cb_ticket
admit_lease(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, uint64_t token, int64_t lease_ms, int *changed)
{
	struct cb_ticket	t;
	struct cb_effects	fx;
	struct cb_slot		self;
	int			c;

	self = holder(token, env->now_ms + lease_ms);
	memset(&fx, 0, sizeof fx);
	c = breaker_admit(r, p, env, &self, &t, &fx);
	if (changed != NULL)
		*changed = c;
	return t;
}

/*
 * Issue 10.9, SPEC 2 "Verdicts": the trip policy is evaluated after every
 * outcome that enters its window, a success included.
 */
static void
test_breaker_verdict_after_success(void)
{
	static const struct {
		const char	*seq;
		uint32_t	 window, min_calls;
		double		 rate;
		int		 opens_at;	/* 1-based call, 0: never */
	} cases[] = {
		{ "FFFSS", 5, 5, 0.5, 5 },	/* 60% once min_calls is met */
		{ "FFSSS", 5, 5, 0.5, 0 },	/* 40% */
		{ "FFFS", 5, 5, 0.5, 0 },	/* min_calls not met */
		{ "SSFFF", 5, 5, 0.5, 5 },
		{ "FFFFS", 5, 5, 0.8, 5 },	/* 80% */
		{ "FSFSFS", 4, 4, 0.5, 4 },	/* 2 of 4 */
		{ "SFSFSS", 4, 4, 0.75, 0 },
	};
	struct cb_policy	p;
	struct cb_record	r;
	size_t			i, k;
	int			opened;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unit_policy_defaults(&p);
		p.trip_policy = TRIP_RATE;
		p.trip_window = cases[i].window;
		p.trip_min_calls = cases[i].min_calls;
		p.trip_failure_rate = cases[i].rate;
		record_init(&r, T0);
		opened = 0;
		for (k = 0; cases[i].seq[k] != '\0'; k++) {
			call_at(&r, &p, T0 + (int64_t)k * SEC,
			    cases[i].seq[k] == 'S' ? OUTCOME_SUCCESS :
			    OUTCOME_FAILURE);
			if (r.state == STATE_OPEN && opened == 0)
				opened = (int)k + 1;
		}
		if (opened != cases[i].opens_at)
			fprintf(stderr, "verdict case %s\n", cases[i].seq);
		CHECK_EQ(opened, cases[i].opens_at);
	}

	/* The consecutive policy never opens on a success. */
	unit_policy_defaults(&p);
	p.trip_failures = 3;
	record_init(&r, T0);
	feed(&r, &p, T0, "FFSFF");
	CHECK_EQ(r.state, STATE_CLOSED);
}

/*
 * Issue 10.6, SPEC 2 "Late release": an outcome after its probe lease
 * ended, while its slot is still held, is a dropped permit: a failure that
 * re-opens with backoff, whatever the run's own outcome, and the caller is
 * told.  Within the lease the same outcome counts as itself.
 */
static void
test_breaker_late_release(void)
{
	static const enum cb_outcome	outs[] = {
		OUTCOME_SUCCESS, OUTCOME_FAILURE, OUTCOME_IGNORED,
		OUTCOME_INTERRUPTED
	};
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_effects	fx;
	struct cb_env		env;
	struct cb_run		run;
	size_t			i;

	for (i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		unit_policy_defaults(&p);
		record_init(&r, T0);
		env = env_at(T0);
		breaker_trip(&r, &p, &env, 1, "for 1ms", "alice", NULL);
		env = env_at(T0 + 10);
		t = admit_lease(&r, &p, &env, 5, SEC, NULL);
		CHECK_EQ(t.probe, 1);
		CHECK_EQ(r.state, STATE_HALF_OPEN);
		run = run_of(outs[i], outs[i] == OUTCOME_SUCCESS ? 0 : 1, 0, 0);
		env = env_at(T0 + 10 + 2 * SEC);
		memset(&fx, 0, sizeof fx);
		CHECK_EQ(breaker_record(&r, &p, &env, &t, &run, &fx),
		    OUTCOME_FAILURE);
		CHECK_EQ(fx.late, 1);
		CHECK_EQ(r.state, STATE_OPEN);
		CHECK_EQ(r.nslots, 0);
		CHECK_EQ(r.successes, 0);
		CHECK_EQ(r.failures, 1);
		CHECK_EQ(r.calls, 1);
		CHECK_EQ(r.cooldown_ms, 2 * MIN);	/* backed off */
		CHECK_EQ(r.open_until_ms, T0 + 10 + 2 * SEC + 2 * MIN);
		CHECK(strstr(r.reason, "lease") != NULL);
		CHECK_EQ(fx.ntrans, 1);
		CHECK_EQ(r.nruns, 1);
		CHECK_EQ(r.runs[0], OUTCOME_FAILURE);
		/* It is the last failure, as status shows it. */
		CHECK_EQ(r.last_failure.at_ms, T0 + 10 + 2 * SEC);
	}

	/* Released within its lease: a success closes, fx.late stays 0. */
	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 1, "for 1ms", "alice", NULL);
	env = env_at(T0 + 10);
	t = admit_lease(&r, &p, &env, 5, SEC, NULL);
	run = run_of(OUTCOME_SUCCESS, 0, 0, 0);
	env = env_at(T0 + 10 + SEC - 1);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_record(&r, &p, &env, &t, &run, &fx),
	    OUTCOME_SUCCESS);
	CHECK_EQ(fx.late, 0);
	CHECK_EQ(r.state, STATE_CLOSED);

	/* Reclaimed by an admission first: the late outcome is stale. */
	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 1, "for 1ms", "alice", NULL);
	env = env_at(T0 + 10);
	t = admit_lease(&r, &p, &env, 5, SEC, NULL);
	env = env_at(T0 + 10 + 2 * SEC);
	CHECK_EQ(admit_lease(&r, &p, &env, 6, SEC, NULL).admitted, 0);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_record(&r, &p, &env, &t, &run, &fx), OUTCOME_STALE);
	CHECK_EQ(fx.late, 0);
	CHECK_EQ(r.failures, 0);
	CHECK_EQ(r.state, STATE_OPEN);
}

/*
 * Issue 10.7, SPEC 2 "Leases and the clock": after a step back a lease
 * lasts at most its own length from the moment it is noticed, and the
 * capped end is written.
 */
static void
test_breaker_lease_clock_back(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	int			changed;

	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 1, "for 1ms", "alice", NULL);
	env = env_at(T0 + SEC);
	t = admit_lease(&r, &p, &env, 5, HOUR, NULL);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(r.slots[0].lease_ms, HOUR);
	CHECK_EQ(r.slots[0].since_ms, T0 + SEC);
	CHECK_EQ(r.slots[0].lease_until_ms, T0 + SEC + HOUR);

	/* A day back: still held, but only for an hour from now. */
	env = env_at(T0 - DAY);
	t = admit_lease(&r, &p, &env, 6, HOUR, &changed);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(changed, 1);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.slots[0].lease_until_ms, T0 - DAY + HOUR);
	/* Noticed again later: no longer than from the first notice. */
	env = env_at(T0 - DAY + 30 * MIN);
	CHECK_EQ(admit_lease(&r, &p, &env, 7, HOUR, NULL).admitted, 0);
	CHECK_EQ(r.slots[0].lease_until_ms, T0 - DAY + HOUR);
	/* An hour after the step, the lease has expired: re-opened. */
	env = env_at(T0 - DAY + HOUR);
	CHECK_EQ(admit_lease(&r, &p, &env, 8, HOUR, NULL).admitted, 0);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.nslots, 0);
	CHECK_STR(r.reason, "probe lease expired");

	/* A version 2 slot (length unknown) is not capped. */
	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, 1, "for 1ms", "alice", NULL);
	env = env_at(T0 + SEC);
	admit_lease(&r, &p, &env, 5, HOUR, NULL);
	r.slots[0].lease_ms = 0;
	env = env_at(T0 - DAY);
	admit_lease(&r, &p, &env, 6, HOUR, NULL);
	CHECK_EQ(r.slots[0].lease_until_ms, T0 + SEC + HOUR);

	/* Run slots are capped too. */
	unit_policy_defaults(&p);
	p.max_concurrent = 1;
	record_init(&r, T0);
	env = env_at(T0);
	t = admit_lease(&r, &p, &env, 5, HOUR, NULL);
	CHECK_EQ(t.running, 1);
	env = env_at(T0 - DAY);
	CHECK_EQ(admit_lease(&r, &p, &env, 6, HOUR, NULL).busy, 1);
	CHECK_EQ(r.running[0].lease_until_ms, T0 - DAY + HOUR);
	env = env_at(T0 - DAY + HOUR);
	CHECK_EQ(admit_lease(&r, &p, &env, 7, HOUR, NULL).admitted, 1);
	CHECK_EQ(r.failures, 0);
}

/*
 * Issue 10.8, SPEC 2 "Identity": a record's identity is given at creation
 * and carried by the ticket; an outcome for a record of another identity
 * is stale, and one whose record vanished makes the breaker anew.
 */
static void
test_breaker_identity(void)
{
	struct cb_policy	p;
	struct cb_record	r, r2;
	struct cb_ticket	t;
	struct cb_effects	fx;
	struct cb_env		env;
	struct cb_run		run;
	int			i;

	unit_policy_defaults(&p);
	env = env_at(T0);
	env.rand64 = 0xabcdef;
	breaker_init(&r, &env);
	CHECK(r.identity == 0xabcdef);
	CHECK_EQ(r.epoch, 0);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.created_at_ms, T0);
	t = admit_lease(&r, &p, &env, 1, HOUR, NULL);
	CHECK(t.identity == 0xabcdef);
	CHECK_EQ(t.epoch, 0);

	/* Forgotten and made anew (epoch 0 again) while the run ran. */
	env.rand64 = 0x123456;
	breaker_init(&r2, &env);
	for (i = 0; i < 4; i++)
		call_at(&r2, &p, T0 + SEC, OUTCOME_FAILURE);
	run = run_of(OUTCOME_FAILURE, 1, 0, 0);
	env = env_at(T0 + 2 * SEC);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_record(&r2, &p, &env, &t, &run, &fx), OUTCOME_STALE);
	CHECK_EQ(r2.consecutive_failures, 4);
	CHECK_EQ(r2.state, STATE_CLOSED);
	CHECK_EQ(r2.stale, 1);
	CHECK_EQ(r2.failures, 4);

	/* Vanished: made anew, and the outcome counted there. */
	env = env_at(T0 + 3 * SEC);
	env.rand64 = 0x777;
	memset(&r, 0xa5, sizeof r);
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_record_anew(&r, &p, &env, &run, &fx),
	    OUTCOME_FAILURE);
	CHECK(r.identity == 0x777);
	CHECK_EQ(r.created_at_ms, T0 + 3 * SEC);
	CHECK_EQ(r.calls, 1);
	CHECK_EQ(r.failures, 1);
	CHECK_EQ(r.consecutive_failures, 1);
	CHECK_EQ(r.stale, 0);
	CHECK_EQ(r.nslots, 0);
	CHECK_EQ(r.nrunning, 0);
	CHECK_EQ(r.last_failure.at_ms, T0 + 3 * SEC);

	/* A threshold of 1: the vanished failure opens the new breaker. */
	p.trip_failures = 1;
	CHECK_EQ(breaker_record_anew(&r, &p, &env, &run, &fx),
	    OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
}

/*
 * Issue 10.8: a closed admission asks for a write at most once a minute,
 * to refresh last_used; otherwise it writes nothing.
 */
static void
test_breaker_last_used_refresh(void)
{
	static const struct {
		int64_t	used, now;
		int	want;
	} cases[] = {
		{ T0, T0, 0 },
		{ T0, T0 + 59999, 0 },
		{ T0, T0 + MIN, 1 },
		{ T0, T0 + DAY, 1 },
		{ T0, T0 - 59999, 0 },
		{ T0, T0 - MIN, 1 },		/* the clock stepped back */
	};
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	size_t			i;
	int			changed;

	unit_policy_defaults(&p);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		record_init(&r, T0);
		r.last_used_ms = cases[i].used;
		env = env_at(cases[i].now);
		t = admit_lease(&r, &p, &env, 1, HOUR, &changed);
		CHECK_EQ(t.admitted, 1);
		CHECK_EQ(changed, cases[i].want);
		CHECK_EQ(r.last_used_ms, cases[i].now);
	}
}

/* Issue 10.8, SPEC 2b: what gc and eviction may remove, and the rank. */
static void
test_breaker_removable(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_env		env;
	struct oracle		o = { HOLDER_ALIVE, 0, 0 };

	unit_policy_defaults(&p);
	record_init(&r, T0);
	env = env_at(T0);
	CHECK_EQ(breaker_removable(&r, &env), 1);
	r.state = STATE_OPEN;
	CHECK_EQ(breaker_removable(&r, &env), 0);
	r.state = STATE_HALF_OPEN;
	CHECK_EQ(breaker_removable(&r, &env), 0);

	/* A closed breaker with a run in its slot stays. */
	p.max_concurrent = 2;
	record_init(&r, T0);
	admit_lease(&r, &p, &env, 1, HOUR, NULL);
	CHECK_EQ(r.nrunning, 1);
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	CHECK_EQ(breaker_removable(&r, &env), 0);
	o.answer = HOLDER_UNKNOWN;
	CHECK_EQ(breaker_removable(&r, &env), 0);
	o.answer = HOLDER_DEAD;
	CHECK_EQ(breaker_removable(&r, &env), 1);
	o.answer = HOLDER_ALIVE;
	env.now_ms = T0 + HOUR;			/* lease passed */
	CHECK_EQ(breaker_removable(&r, &env), 1);
	env.now_ms = T0 - DAY;			/* capped: still live */
	CHECK_EQ(breaker_removable(&r, &env), 0);

	/* Rank: the latest of last_used, the last run, a slot taken. */
	record_init(&r, T0);
	CHECK_EQ(breaker_last_used(&r), T0);
	r.last_run_at_ms = T0 + 5;
	CHECK_EQ(breaker_last_used(&r), T0 + 5);
	r.nrunning = 1;
	r.running[0].since_ms = T0 + 9;
	CHECK_EQ(breaker_last_used(&r), T0 + 9);
}

/* Issue 13 part 1, SPEC 2b: the bulkhead's pure half. */
static void
test_breaker_bulkhead(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t1, t2, t3;
	struct cb_effects	fx;
	struct cb_env		env;
	struct cb_run		run;
	struct oracle		o = { HOLDER_ALIVE, 0, 0 };
	int			changed, i;

	unit_policy_defaults(&p);
	p.max_concurrent = 2;
	p.trip_failures = 1;
	record_init(&r, T0);
	env = env_at(T0);
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t1 = admit_lease(&r, &p, &env, 1, HOUR, &changed);
	CHECK_EQ(t1.admitted, 1);
	CHECK_EQ(t1.running, 1);
	CHECK_EQ(t1.probe, 0);
	CHECK_EQ(changed, 1);			/* a slot taken: written */
	CHECK_EQ(r.running[0].since_ms, T0);
	CHECK_EQ(r.running[0].lease_ms, HOUR);
	t2 = admit_lease(&r, &p, &env, 2, HOUR, NULL);
	CHECK_EQ(t2.running, 1);
	CHECK_EQ(r.nrunning, 2);

	/* Full: busy, the holders listed, no failure, no trip. */
	for (i = 0; i < 10; i++) {
		env.now_ms = T0 + SEC + i;
		t3 = admit_lease(&r, &p, &env, 3, HOUR, &changed);
		CHECK_EQ(t3.admitted, 0);
		CHECK_EQ(changed, 1);
	}
	CHECK_EQ(t3.busy, 1);
	CHECK_EQ(t3.nrunning, 2);
	CHECK_EQ(t3.max_running, 2);
	CHECK_EQ(t3.nholders, 2);
	CHECK_EQ(t3.holders[0].pid, 1001);
	CHECK_EQ(t3.holders[0].since_ms, T0);
	CHECK_EQ(t3.holders[1].pid, 1002);
	CHECK_STR(t3.why, "2 of 2 running");
	CHECK_EQ(r.busy, 10);
	CHECK_EQ(r.rejected, 0);
	CHECK_EQ(r.refused_since_run, 10);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.failures, 0);
	CHECK_EQ(r.nruns, 0);

	/* An outcome frees its slot. */
	run = run_of(OUTCOME_SUCCESS, 0, 0, 0);
	env.now_ms = T0 + 2 * SEC;
	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_record(&r, &p, &env, &t1, &run, &fx),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.nrunning, 1);
	CHECK_EQ(r.running[0].token, 2);
	CHECK_EQ(r.refused_since_run, 0);
	t3 = admit_lease(&r, &p, &env, 3, HOUR, NULL);
	CHECK_EQ(t3.admitted, 1);
	CHECK_EQ(r.nrunning, 2);

	/* A dead holder is reclaimed silently: no failure, still closed. */
	o.answer = HOLDER_DEAD;
	t1 = admit_lease(&r, &p, &env, 4, HOUR, NULL);
	CHECK_EQ(t1.admitted, 1);
	CHECK_EQ(r.nrunning, 1);
	CHECK_EQ(r.running[0].token, 4);
	CHECK_EQ(r.failures, 0);
	CHECK_EQ(r.state, STATE_CLOSED);
	o.answer = HOLDER_ALIVE;

	/* An expired lease too. */
	env.now_ms = T0 + 2 * SEC + HOUR;
	t2 = admit_lease(&r, &p, &env, 5, HOUR, NULL);
	CHECK_EQ(t2.admitted, 1);
	CHECK_EQ(r.nrunning, 1);
	CHECK_EQ(r.failures, 0);

	/* A stale outcome (the breaker moved on) still frees its slot. */
	breaker_trip(&r, &p, &env, MIN, "maintenance", "bob", NULL);
	run = run_of(OUTCOME_FAILURE, 1, 0, 0);
	CHECK_EQ(breaker_record(&r, &p, &env, &t2, &run, &fx), OUTCOME_STALE);
	CHECK_EQ(r.nrunning, 0);

	/* Refused as open, not busy, while open. */
	t3 = admit_lease(&r, &p, &env, 6, HOUR, NULL);
	CHECK_EQ(t3.admitted, 0);
	CHECK_EQ(t3.busy, 0);
	CHECK_EQ(r.busy, 10);

	/* Half-open: a probe holds both slots; half_open_max_calls bounds
	 * the probes among the running calls. */
	p.max_concurrent = 3;
	env.now_ms += MIN;
	t1 = admit_lease(&r, &p, &env, 7, HOUR, NULL);
	CHECK_EQ(t1.probe, 1);
	CHECK_EQ(t1.running, 1);
	CHECK_EQ(r.nslots, 1);
	CHECK_EQ(r.nrunning, 1);
	t2 = admit_lease(&r, &p, &env, 8, HOUR, NULL);
	CHECK_EQ(t2.admitted, 0);
	CHECK_EQ(t2.busy, 0);
	CHECK_STR(t2.why, "1 of 1 probes running");
	run = run_of(OUTCOME_SUCCESS, 0, 0, 0);
	CHECK_EQ(breaker_record(&r, &p, &env, &t1, &run, &fx),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(r.nrunning, 0);
	CHECK_EQ(r.nslots, 0);

	/* No limit: a closed admission takes no slot and writes nothing. */
	p.max_concurrent = 0;
	t1 = admit_lease(&r, &p, &env, 9, HOUR, &changed);
	CHECK_EQ(t1.running, 0);
	CHECK_EQ(changed, 0);
	CHECK_EQ(r.nrunning, 0);

	/* The limit is bounded by the record's slots. */
	p.max_concurrent = RECORD_MAX_RUNNING + 10;
	for (i = 0; i < RECORD_MAX_RUNNING; i++)
		CHECK_EQ(admit_lease(&r, &p, &env, 100 + (uint64_t)i, HOUR,
		    NULL).admitted, 1);
	t1 = admit_lease(&r, &p, &env, 999, HOUR, NULL);
	CHECK_EQ(t1.busy, 1);
	CHECK_EQ(t1.nholders, BREAKER_MAX_HOLDERS);
	CHECK_EQ(r.nrunning, RECORD_MAX_RUNNING);
}

/*
 * Issue 11.7, SPEC 7: refusals are counted, never pushed into the strip;
 * after 5 failures and 40 refusals the failures are still there, and so is
 * the last failure.
 */
static void
test_breaker_refusals_counted(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	struct cb_run		run;
	struct cb_effects	fx;
	int			i;

	unit_policy_defaults(&p);
	record_init(&r, T0);
	memset(&fx, 0, sizeof fx);
	for (i = 0; i < 5; i++) {
		env = env_at(T0 + i * SEC);
		t = admit_lease(&r, &p, &env, 1, HOUR, NULL);
		run = run_of(OUTCOME_FAILURE, 7, 0, i == 4);
		run.duration_ms = 1000 + i;
		breaker_record(&r, &p, &env, &t, &run, &fx);
	}
	CHECK_EQ(r.state, STATE_OPEN);
	for (i = 0; i < 40; i++)
		CHECK_EQ(admit_at(&r, &p, T0 + 10 * SEC, 1).admitted, 0);
	CHECK_EQ(r.nruns, 5);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(r.runs[i] & RECORD_MARK_OUTCOME, OUTCOME_FAILURE);
		CHECK_EQ(r.run_exit[i], 7);
		CHECK_EQ(r.run_at_ms[i], T0 + i * SEC);
	}
	CHECK_EQ(r.runs[4], OUTCOME_FAILURE | RECORD_MARK_TIMEOUT);
	CHECK_EQ(r.rejected, 40);
	CHECK_EQ(r.refused_since_run, 40);
	CHECK_EQ(r.last_failure.at_ms, T0 + 4 * SEC);
	CHECK_EQ(r.last_failure.exit_code, 7);
	CHECK_EQ(r.last_failure.timed_out, 1);
	CHECK_EQ(r.last_failure.duration_ms, 1004);

	/* The probe that runs ends the count; a success keeps the failure. */
	t = admit_at(&r, &p, T0 + 2 * MIN, 2);
	CHECK_EQ(t.probe, 1);
	CHECK_EQ(r.refused_since_run, 40);
	CHECK_EQ(finish_at(&r, &p, T0 + 2 * MIN, &t, OUTCOME_SUCCESS),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.refused_since_run, 0);
	CHECK_EQ(r.nruns, 6);
	CHECK_EQ(r.last_failure.at_ms, T0 + 4 * SEC);
	CHECK_EQ(r.rejected, 40);

	/* A signal and the probe command's mark. */
	env = env_at(T0 + 3 * MIN);
	t = admit_lease(&r, &p, &env, 1, HOUR, NULL);
	run = run_of(OUTCOME_FAILURE, 137, 9, 0);
	run.probe_command = 1;
	breaker_record(&r, &p, &env, &t, &run, &fx);
	CHECK_EQ(r.runs[6], OUTCOME_FAILURE | RECORD_MARK_PROBE);
	CHECK_EQ(r.run_exit[6], 137);
	CHECK_EQ(r.last_failure.signal, 9);
	CHECK_EQ(r.last_failure.exit_code, 137);
	CHECK_EQ(r.last_failure.timed_out, 0);
}

/*
 * Issue 13.2: a probe command's run says so in the transition reason, in
 * words a refusal line can put in its parentheses as they are.
 */
static void
test_breaker_probe_command_reasons(void)
{
	static const struct {
		int		 exit_code, sig, timed_out;
		const char	*reason;
	} t[] = {
		{ 7, 0, 0, "probe failed: exit 7" },
		{ 137, 9, 0, "probe failed: killed by SIGKILL" },
		{ 137, 9, 1, "probe failed: timed out after 3s" },
		{ 127, 0, 0, "probe failed: exit 127" },
	};
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	tk;
	struct cb_effects	fx;
	struct cb_run		run;
	size_t			i;

	unit_policy_defaults(&p);
	p.probe_timeout_ms = 3 * SEC;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		record_init(&r, T0);
		open_by_failures(&r, &p, T0);
		tk = admit_at(&r, &p, T0 + 2 * MIN, 2);
		CHECK_EQ(tk.probe, 1);
		run = run_of(OUTCOME_FAILURE, t[i].exit_code, t[i].sig,
		    t[i].timed_out);
		run.probe_command = 1;
		CHECK_EQ(finish_run(&r, &p, T0 + 2 * MIN, &tk, &run, &fx),
		    OUTCOME_FAILURE);
		CHECK_EQ(r.state, STATE_OPEN);
		CHECK_STR(r.reason, t[i].reason);
		CHECK_EQ(fx.ntrans, 1);
		CHECK_STR(fx.trans[0].reason, t[i].reason);
		CHECK(strchr(r.reason, '(') == NULL);
	}
	/* The job's own probe keeps its words. */
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	tk = admit_at(&r, &p, T0 + 2 * MIN, 2);
	run = run_of(OUTCOME_FAILURE, 137, 9, 1);
	finish_run(&r, &p, T0 + 2 * MIN, &tk, &run, &fx);
	CHECK_STR(r.reason, "probe timed out");

	/* Closing: "N probe commands succeeded". */
	p.half_open_max_calls = 2;
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	tk = admit_at(&r, &p, T0 + 2 * MIN, 2);
	run = run_of(OUTCOME_SUCCESS, 0, 0, 0);
	run.probe_command = 1;
	CHECK_EQ(finish_run(&r, &p, T0 + 2 * MIN, &tk, &run, &fx),
	    OUTCOME_SUCCESS);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	tk = admit_at(&r, &p, T0 + 2 * MIN, 3);
	CHECK_EQ(tk.probe, 1);
	finish_run(&r, &p, T0 + 2 * MIN, &tk, &run, &fx);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_STR(r.reason, "2 probe commands succeeded");
	CHECK_EQ(r.runs[r.nruns - 1], OUTCOME_SUCCESS | RECORD_MARK_PROBE);
}

/*
 * Issue 11.6: the record keeps the policy the breaker last ran under, and
 * breaker_policy lays it over the config's.  A refusal does not change it.
 */
static void
test_breaker_policy_snapshot(void)
{
	struct cb_policy	p, q, base, out;
	struct cb_record	r;
	struct cb_ticket	t;

	unit_policy_defaults(&base);
	record_init(&r, T0);
	CHECK_EQ(breaker_policy(&r, &base, &out), 0);
	CHECK(memcmp(&out, &base, sizeof out) == 0);

	unit_policy_defaults(&p);
	p.trip_failures = 2;
	p.open_timeout_ms = 5 * MIN;
	p.max_open_timeout_ms = HOUR;
	p.timeout_ms = 30 * SEC;
	p.preset = 3;
	p.max_concurrent = 4;
	p.backoff = 3.0;
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK_EQ(r.policy.set, 1);
	CHECK_EQ(r.policy.trip_failures, 2);
	CHECK_EQ(r.policy.preset, 3);
	CHECK_EQ(breaker_policy(&r, &base, &out), 2);
	CHECK_EQ(out.trip_failures, 2);
	CHECK_EQ(out.open_timeout_ms, 5 * MIN);
	CHECK_EQ(out.max_open_timeout_ms, HOUR);
	CHECK_EQ(out.timeout_ms, 30 * SEC);
	CHECK_EQ(out.preset, 3);
	CHECK_EQ(out.max_concurrent, 4);
	CHECK(out.backoff == 3.0);
	CHECK_EQ(out.open_exit_code, base.open_exit_code);

	/* Refused under another policy: the snapshot stays. */
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	q = p;
	q.trip_failures = 9;
	t = admit_at(&r, &q, T0 + SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(r.policy.trip_failures, 2);
}

/*
 * Issue 18.7: the snapshot is whole.  Every number, class and mode of the
 * policy a breaker ran under, options included, survives the record's
 * encoding, and breaker_policy gives it back over any base: only the probe
 * command (never kept: whether one was set is), retries and retry_delay
 * are base's.  A version 3 snapshot (not full) keeps base's for the rest.
 */
static void
test_breaker_policy_whole(void)
{
	static char *const	probe[] = { "pg_isready", NULL };
	static char *const	other[] = { "true", NULL };
	struct cb_policy	p, base, out;
	struct cb_record	r, back;
	struct cb_buf		b = { 0 };
	struct cb_err		err;

	unit_policy_defaults(&p);
	p.trip_policy = TRIP_TIME;
	p.trip_failures = 3;
	p.trip_period_ms = 10 * MIN;
	p.trip_window = 50;
	p.trip_min_calls = 7;
	p.trip_failure_rate = 0.25;
	p.open_timeout_ms = 4 * MIN;
	p.max_open_timeout_ms = 2 * HOUR;
	p.backoff = 1.5;
	p.jitter = 0.3;
	p.half_open_max_calls = 2;
	p.probe_lease_ms = 20 * MIN;
	p.probe = probe;
	p.probe_timeout_ms = 30 * SEC;
	p.timeout_ms = 20 * SEC;
	p.kill_after_ms = 3 * SEC;
	p.slow_call_ms = 15 * SEC;
	memset(&p.failure_codes, 0, sizeof p.failure_codes);
	memset(&p.success_codes, 0, sizeof p.success_codes);
	memset(&p.ignore_codes, 0, sizeof p.ignore_codes);
	codeset_add(&p.failure_codes, 1);
	codeset_add(&p.failure_codes, 2);
	codeset_add(&p.success_codes, 0);
	codeset_add(&p.success_codes, 6);
	codeset_add(&p.ignore_codes, 99);
	p.timeout_is = VERDICT_IGNORE;
	p.signal_is = VERDICT_SUCCESS;
	p.on_open = ON_OPEN_SKIP;
	p.open_exit_code = 76;
	p.max_concurrent = 2;
	p.on_busy = ON_OPEN_SKIP;
	p.preset = 1;
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_SUCCESS);
	CHECK_EQ(r.policy.full, 1);
	CHECK_EQ(r.policy.probe_set, 1);
	record_encode(&r, &b);
	CHECK_EQ(unit_decode_copy(b.data, b.len, &back, &err), RECORD_OK);
	buf_free(&b);

	unit_policy_defaults(&base);
	base.probe = other;
	base.retries = 3;
	base.retry_delay_ms = 2 * SEC;
	CHECK_EQ(breaker_policy(&back, &base, &out), 2);
	CHECK(out.probe == other);
	CHECK_EQ(out.retries, 3);
	CHECK_EQ(out.retry_delay_ms, 2 * SEC);
	out.probe = p.probe;
	out.retries = p.retries;
	out.retry_delay_ms = p.retry_delay_ms;
	CHECK(memcmp(&out, &p, sizeof out) == 0);
	CHECK_EQ(out.open_exit_code, 76);
	CHECK_EQ(out.on_busy, ON_OPEN_SKIP);
	CHECK(codeset_has(&out.success_codes, 6));

	/* A version 3 snapshot: the rest is base's. */
	back.policy.full = 0;
	CHECK_EQ(breaker_policy(&back, &base, &out), 1);
	CHECK_EQ(out.trip_failures, 3);
	CHECK_EQ(out.open_exit_code, 75);
	CHECK_EQ(out.on_open, ON_OPEN_FAIL);
	CHECK_EQ(out.kill_after_ms, base.kill_after_ms);
}

/* Issue 11.8: manual is set by trip and reset, cleared by any other
 * transition. */
static void
test_breaker_manual(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_env		env;

	unit_policy_defaults(&p);
	record_init(&r, T0);
	CHECK_EQ(r.manual, 0);
	env = env_at(T0);
	breaker_trip(&r, &p, &env, MIN, "maintenance", NULL, NULL);
	CHECK_EQ(r.manual, 1);
	admit_at(&r, &p, T0 + 2 * MIN, 1);
	CHECK_EQ(r.state, STATE_HALF_OPEN);
	CHECK_EQ(r.manual, 0);
	breaker_reset(&r, &p, &env, "done", "alice", NULL);
	CHECK_EQ(r.manual, 1);
	open_by_failures(&r, &p, T0 + 3 * MIN);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.manual, 0);
}

/* One call admitted at start and failing at end, its start passed in (0:
 * unknown); jitter_u drawn at both steps. */
static void
fail_from(struct cb_record *r, const struct cb_policy *p, int64_t start,
    int64_t end, int known, double jitter_u)
{
	struct cb_env		env = env_at(start);
	struct cb_effects	fx;
	struct cb_ticket	t;
	struct cb_run		run;

	env.jitter_u = jitter_u;
	t = admit_env(r, p, &env, 7, &fx);
	CHECK_EQ(t.admitted, 1);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_FAILURE;
	run.exit_code = 1;
	run.duration_ms = end - start;
	run.start_ms = known ? start : 0;
	env = env_at(end);
	env.jitter_u = jitter_u;
	memset(&fx, 0, sizeof fx);
	breaker_record(r, p, &env, &t, &run, &fx);
}

/*
 * SPEC 2: the cool-down counts from the start of the call that opened the
 * breaker, from its whole second when it is 10s or more, and never less
 * than half of it after the call's end.
 */
static void
test_breaker_cooldown_from_start(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;

	unit_policy_defaults(&p);
	p.trip_failures = 1;
	p.open_timeout_ms = 4 * MIN;

	/* Cron every 5m: started at :00.200, failed at :01.200; the next job,
	 * 4m later and 100ms earlier in its second, probes. */
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 200, T0 + 1200, 1, 0);
	CHECK_EQ(r.state, STATE_OPEN);
	/* opened_at: where the count began; the transition's time stays
	 * in changed_at. */
	CHECK_EQ(r.opened_at_ms, T0);
	CHECK_EQ(r.changed_at_ms, T0 + 1200);
	CHECK_EQ(r.open_until_ms, T0 + 4 * MIN);
	t = admit_at(&r, &p, T0 + 4 * MIN - DRIFT(4 * MIN) - 1, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.retry_in_ms, DRIFT(4 * MIN) + 1);
	t = admit_at(&r, &p, T0 + 4 * MIN + 100, 2);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);

	/* Cron's drift: opened by a call started at :02.300 (a 3m cool-down
	 * from its whole second, :02), the tick cron started at 3m:01.400 is
	 * the probe, not refused for a whole period; 2.001s early is not. */
	p.open_timeout_ms = 3 * MIN;
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 2300, T0 + 2800, 1, 0);
	CHECK_EQ(r.open_until_ms, T0 + 2 * SEC + 3 * MIN);
	t = admit_at(&r, &p, T0 + 2 * SEC + 3 * MIN - 2001, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.opener_end_ms, 0);
	t = admit_at(&r, &p, T0 + 3 * MIN + 1400, 2);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(t.probe, 1);
	/* A 10s cool-down: a tenth of it, 1s. */
	p.open_timeout_ms = 10 * SEC;
	record_init(&r, T0);
	fail_from(&r, &p, T0, T0 + 100, 1, 0);
	CHECK_EQ(admit_at(&r, &p, T0 + 10 * SEC - 1001, 1).admitted, 0);
	CHECK_EQ(admit_at(&r, &p, T0 + 10 * SEC - 1000, 2).admitted, 1);
	/* A window set by hand ends as asked. */
	record_init(&r, T0);
	{
		struct cb_env	e = env_at(T0);

		breaker_trip(&r, &p, &e, MIN, "maintenance", "alice", NULL);
	}
	CHECK_EQ(admit_at(&r, &p, T0 + MIN - 1, 1).admitted, 0);
	/* A 45s job with a 1m cool-down: open until its end + 30s, and
	 * the refusal says the end made it so. */
	p.open_timeout_ms = MIN;
	record_init(&r, T0);
	fail_from(&r, &p, T0, T0 + 45 * SEC, 1, 0);
	CHECK_EQ(r.open_until_ms, T0 + 75 * SEC);
	t = admit_at(&r, &p, T0 + 60 * SEC, 1);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(t.opener_end_ms, T0 + 45 * SEC);
	CHECK_EQ(t.retry_in_ms, 15 * SEC);
	p.open_timeout_ms = 4 * MIN;

	/* The start unknown: from the end, as before. */
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 200, T0 + 1200, 0, 0);
	CHECK_EQ(r.open_until_ms, T0 + 1200 + 4 * MIN);

	/* A call that outlasts its cool-down still leaves half of it. */
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 200, T0 + 5 * MIN, 1, 0);
	CHECK_EQ(r.opened_at_ms, T0);
	CHECK_EQ(r.open_until_ms, T0 + 5 * MIN + 2 * MIN);
	/* ... and the larger of the two wins where they meet. */
	record_init(&r, T0);
	fail_from(&r, &p, T0, T0 + 2 * MIN + 1, 1, 0);
	CHECK_EQ(r.open_until_ms, T0 + 4 * MIN + 1);

	/* Jitter spreads the cool-down itself: 4m x 1.25. */
	p.jitter = 0.5;
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 200, T0 + 1200, 1, 0.5);
	CHECK_EQ(r.open_until_ms, T0 + 5 * MIN);
	p.jitter = 0;

	/* A failed probe re-opens for the cool-down x backoff, from the
	 * probe's own start. */
	t = admit_at(&r, &p, T0 + 5 * MIN + 300, 3);
	CHECK_EQ(t.probe, 1);
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 200, T0 + 1200, 1, 0);
	fail_from(&r, &p, T0 + 4 * MIN + 300, T0 + 4 * MIN + 1300, 1, 0);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.cooldown_ms, 8 * MIN);
	CHECK_EQ(r.open_until_ms, T0 + 12 * MIN);

	/* Under 10s: from the start to the millisecond, not its second. */
	p.open_timeout_ms = 2 * SEC;
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 300, T0 + 400, 1, 0);
	CHECK_EQ(r.opened_at_ms, T0 + 300);
	CHECK_EQ(r.open_until_ms, T0 + 2300);
	record_init(&r, T0);
	fail_from(&r, &p, T0 + 300, T0 + 5300, 1, 0);
	CHECK_EQ(r.open_until_ms, T0 + 6300);

	/* A start after the end (the clock stepped back): from the end. */
	record_init(&r, T0);
	{
		struct cb_env		env = env_at(T0 + 5 * SEC);
		struct cb_effects	fx;
		struct cb_run		run;

		t = admit_env(&r, &p, &env, 9, &fx);
		memset(&run, 0, sizeof run);
		run.outcome = OUTCOME_FAILURE;
		run.exit_code = 1;
		run.start_ms = T0 + 5 * SEC;
		env = env_at(T0 + SEC);
		breaker_record(&r, &p, &env, &t, &run, &fx);
		CHECK_EQ(r.open_until_ms, T0 + 3 * SEC);
	}
}

/* Issue 18.8, SPEC 2b: a slot reclaimed because its lease passed that
 * names a job's group is listed for the caller to kill; one reclaimed
 * because its holder died, or with no group, is not. */
static void
test_breaker_reaped(void)
{
	struct cb_policy	p;
	struct cb_record	r;
	struct cb_ticket	t;
	struct cb_env		env;
	struct cb_effects	fx;
	struct oracle		o = { HOLDER_ALIVE, 0, 0 };
	struct cb_slot		self;
	unsigned		i;

	unit_policy_defaults(&p);
	p.max_concurrent = 1;
	record_init(&r, T0);
	env = env_at(T0);
	self = holder(1, T0 + HOUR);
	self.pgid = 4321;
	memset(&fx, 0, sizeof fx);
	breaker_admit(&r, &p, &env, &self, &t, &fx);
	CHECK_EQ(t.running, 1);
	CHECK_EQ(r.running[0].pgid, 4321);

	/* The job's group lives (the oracle says so): held, busy. */
	env = env_at(T0 + HOUR - 1);
	env.alive = oracle_alive;
	env.alive_ctx = &o;
	t = admit_env(&r, &p, &env, 2, &fx);
	CHECK_EQ(t.busy, 1);
	CHECK_EQ(fx.nreaped, 0);

	/* Its lease passed: reclaimed, listed with its group. */
	env.now_ms = T0 + HOUR;
	t = admit_env(&r, &p, &env, 3, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(fx.nreaped, 1);
	CHECK_EQ(fx.reaped[0].pgid, 4321);
	CHECK_EQ(fx.reaped[0].token, 1);
	CHECK_EQ(r.nrunning, 1);
	CHECK_EQ(r.running[0].token, 3);

	/* Its holder and group gone before its lease: not listed. */
	r.running[0].pgid = 99;
	o.answer = HOLDER_DEAD;
	env.now_ms = T0 + HOUR + 1;
	t = admit_env(&r, &p, &env, 4, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(fx.nreaped, 0);

	/* No group, lease passed: not listed. */
	env.now_ms = T0 + 3 * HOUR;
	t = admit_env(&r, &p, &env, 5, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(fx.nreaped, 0);

	/* More than fit: the rest are kept for a later step. */
	p.max_concurrent = BREAKER_MAX_REAPED + 2;
	record_init(&r, T0);
	env = env_at(T0);
	for (i = 0; i < BREAKER_MAX_REAPED + 2; i++) {
		self = holder(10 + i, T0 + HOUR);
		self.pgid = (int32_t)(100 + i);
		breaker_admit(&r, &p, &env, &self, &t, &fx);
	}
	CHECK_EQ(r.nrunning, BREAKER_MAX_REAPED + 2);
	env = env_at(T0 + 2 * HOUR);
	t = admit_env(&r, &p, &env, 50, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(fx.nreaped, BREAKER_MAX_REAPED);
	CHECK_EQ(r.nrunning, 3);
	t = admit_env(&r, &p, &env, 51, &fx);
	CHECK_EQ(t.admitted, 1);
	CHECK_EQ(fx.nreaped, 2);
	CHECK_EQ(fx.reaped[1].pgid, 100 + BREAKER_MAX_REAPED + 1);

	/* A probe slot's too, as the breaker re-opens. */
	unit_policy_defaults(&p);
	record_init(&r, T0);
	open_by_failures(&r, &p, T0);
	env = env_at(T0 + 60000);
	self = holder(7, T0 + 60000 + MIN);
	self.pgid = 777;
	breaker_admit(&r, &p, &env, &self, &t, &fx);
	CHECK_EQ(t.probe, 1);
	env = env_at(T0 + 60000 + MIN);
	t = admit_env(&r, &p, &env, 8, &fx);
	CHECK_EQ(t.admitted, 0);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(fx.nreaped, 1);
	CHECK_EQ(fx.reaped[0].pgid, 777);
}

/* SPEC 7: overdue once expect_every has passed since the last success,
 * or since the breaker was made if it never succeeded; never without
 * expect_every.  breaker_snapshot and breaker_policy carry it. */
static void
test_breaker_overdue(void)
{
	struct cb_policy	p, back;
	struct cb_record	r;
	struct cb_ticket	t;

	unit_policy_defaults(&p);
	record_init(&r, T0);
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 400 * DAY), 0);
	p.expect_every_ms = DAY;
	CHECK_EQ(breaker_overdue(&r, &p, T0 + DAY), 0);
	CHECK_EQ(breaker_overdue(&r, &p, T0 + DAY + 1), 1);
	r.last_success_ms = T0 + 5 * DAY;
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 5 * DAY + DAY), 0);
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 7 * DAY + 2 * HOUR),
	    DAY + 2 * HOUR);
	/* A weekly job, the same rule. */
	p.expect_every_ms = 7 * DAY;
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 7 * DAY + 2 * HOUR), 0);
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 12 * DAY + 1), 1);
	t = admit_at(&r, &p, T0 + 12 * DAY, 1);
	finish_at(&r, &p, T0 + 12 * DAY, &t, OUTCOME_SUCCESS);
	CHECK_EQ(r.policy.expect_every_ms, 7 * DAY);
	CHECK_EQ(breaker_overdue(&r, &p, T0 + 12 * DAY + 1), 0);
	unit_policy_defaults(&back);
	CHECK(breaker_policy(&r, &back, &back) > 0);
	CHECK_EQ(back.expect_every_ms, 7 * DAY);
}

/* output = on-change (SPEC 6.5): an opening from closed and a closing
 * begin and end an outage; a failed probe, half-open and trip do not. */
static void
test_breaker_outage_edge(void)
{
	struct cb_effects	fx;

	memset(&fx, 0, sizeof fx);
	CHECK_EQ(breaker_outage_edge(&fx), 0);
	fx.ntrans = 1;
	fx.trans[0].from = STATE_CLOSED;
	fx.trans[0].to = STATE_OPEN;
	CHECK_EQ(breaker_outage_edge(&fx), 1);
	fx.trans[0].manual = 1;
	CHECK_EQ(breaker_outage_edge(&fx), 0);
	fx.trans[0].manual = 0;
	fx.trans[0].from = STATE_HALF_OPEN;
	CHECK_EQ(breaker_outage_edge(&fx), 0);
	fx.trans[0].to = STATE_CLOSED;
	CHECK_EQ(breaker_outage_edge(&fx), 1);
	fx.trans[0].from = STATE_OPEN;
	fx.trans[0].to = STATE_HALF_OPEN;
	CHECK_EQ(breaker_outage_edge(&fx), 0);
}

/* The closing line's summary (SPEC 6.5): an outage counted from the
 * streak that opened it, its failed probes and refusals, then cleared. */
static void
test_breaker_outage_summary(void)
{
	static struct cb_record	r;
	struct cb_policy	p;
	struct cb_effects	fx;
	struct cb_transition	t;
	struct cb_ticket	tk;
	struct cb_run		run;
	char			buf[256];

	unit_policy_defaults(&p);
	p.trip_failures = 2;
	p.open_timeout_ms = 60000;
	record_init(&r, T0);
	call_at(&r, &p, T0, OUTCOME_FAILURE);
	call_at(&r, &p, T0 + 1000, OUTCOME_FAILURE);
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.outage_since_ms, T0 + 1000);
	CHECK_EQ(r.outage_failed, 2);
	CHECK_EQ(call_at(&r, &p, T0 + 2000, OUTCOME_SUCCESS),
	    OUTCOME_REJECTED);
	CHECK_EQ(call_at(&r, &p, T0 + 3000, OUTCOME_SUCCESS),
	    OUTCOME_REJECTED);
	CHECK_EQ(r.outage_refused, 2);
	call_at(&r, &p, T0 + 62000, OUTCOME_FAILURE);	/* the probe */
	CHECK_EQ(r.state, STATE_OPEN);
	CHECK_EQ(r.outage_failed, 3);
	CHECK_EQ(r.outage_since_ms, T0 + 1000);
	tk = admit_at(&r, &p, T0 + 541000, 1);
	CHECK(tk.admitted && tk.probe);
	memset(&run, 0, sizeof run);
	run.outcome = OUTCOME_SUCCESS;
	finish_run(&r, &p, T0 + 541000, &tk, &run, &fx);
	CHECK_EQ(r.state, STATE_CLOSED);
	CHECK_EQ(fx.ntrans, 1);
	t = fx.trans[0];
	CHECK_EQ(t.to, STATE_CLOSED);
	CHECK_EQ(t.since_ms, T0 + 1000);
	CHECK_EQ(t.failed, 3);
	CHECK_EQ(t.refused, 2);
	CHECK_EQ(r.outage_since_ms, 0);
	CHECK_EQ(r.outage_failed, 0);
	CHECK_EQ(r.outage_refused, 0);
	t.last.exit_code = 7;
	t.last.duration_ms = 2100;
	breaker_outage_text(&t, "06:48", "06:57", buf, sizeof buf);
	CHECK_STR(buf, "open 9m (06:48-06:57), 3 calls failed, 2 refused, "
	    "last failure: exit 7 after 2.1s");
	t.last.timed_out = 1;
	t.last.duration_ms = 30000;
	t.failed = 1;
	breaker_outage_text(&t, "a", "b", buf, sizeof buf);
	CHECK_STR(buf, "open 9m (a-b), 1 call failed, 2 refused, "
	    "last failure: timed out after 30s");
	t.failed = 0;
	breaker_outage_text(&t, "a", "b", buf, sizeof buf);
	CHECK_STR(buf, "");
	t.failed = 1;
	t.since_ms = 0;
	breaker_outage_text(&t, "a", "b", buf, sizeof buf);
	CHECK_STR(buf, "");
}

void
test_breaker(void)
{
	test_breaker_overdue();
	test_breaker_cooldown_from_start();
	test_breaker_reaped();
	test_breaker_verdict_after_success();
	test_breaker_late_release();
	test_breaker_lease_clock_back();
	test_breaker_identity();
	test_breaker_last_used_refresh();
	test_breaker_removable();
	test_breaker_bulkhead();
	test_breaker_refusals_counted();
	test_breaker_policy_snapshot();
	test_breaker_policy_whole();
	test_breaker_manual();
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
	test_breaker_trip_window();
	test_breaker_manual_reset();
	test_breaker_rate_policy();
	test_breaker_time_policy();
	test_breaker_history_bounds();
	test_breaker_policy_disagrees();
	test_breaker_progress();
	test_breaker_counters();
	test_breaker_outcome_names();
	test_breaker_probe_command_reasons();
	test_breaker_outage_edge();
	test_breaker_outage_summary();
}
