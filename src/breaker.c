/* SPDX-License-Identifier: ISC */
/*
 * breaker.c: the circuit breaker state machine of SPEC section 2.  Every
 * function takes the record, the effective policy and an environment that
 * carries the time, a random draw and a liveness oracle; none of them reads
 * a clock or touches the system, so the tests can walk every transition
 * with explicit values.
 *
 * The counters for all three trip policies are kept up to date whatever the
 * policy, so that editing trip.policy never starts from nothing.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "breaker-int.h"

/* The longest time a record holds: 2^53 ms, as record_decode checks. */
#define BREAKER_MAX_MS	((int64_t)1 << 53)

/* A closed admission asks for a write when last_used is this old. */
#define BREAKER_TOUCH_MS	60000

/* A cool-down this long or longer counts from the call's whole second. */
#define BREAKER_BEAT_MS		10000

/* Cron's drift: a call this early (or a tenth of the cool-down, if less)
 * is the probe (SPEC 2). */
#define BREAKER_DRIFT_MS	2000

/* A version 2 record's refusal mark (record.c) was OUTCOME_REJECTED. */
_Static_assert(OUTCOME_REJECTED == 5, "record.c V2_MARK_REJECTED");
_Static_assert(OUTCOME_COUNT <= RECORD_MARK_OUTCOME + 1, "run mark bits");

void
breaker_init(struct cb_record *r, const struct cb_env *env)
{
	record_init(r, env->now_ms);
	r->identity = env->rand64;
}

static int64_t
cooldown(const struct cb_record *r, const struct cb_policy *p)
{
	int64_t	c;

	c = r->cooldown_ms > 0 ? r->cooldown_ms : p->open_timeout_ms;
	if (c > p->max_open_timeout_ms)
		c = p->max_open_timeout_ms;
	return c;
}

/* Remember a run that ran in the strip, dropping the oldest. */
static void
mark(struct cb_record *r, const struct cb_env *env, enum cb_outcome o,
    const struct cb_run *run)
{
	int	code;

	if (r->nruns >= RECORD_RUNS) {
		memmove(r->runs, r->runs + 1, RECORD_RUNS - 1);
		memmove(r->run_exit, r->run_exit + 1,
		    (RECORD_RUNS - 1) * sizeof r->run_exit[0]);
		memmove(r->run_at_ms, r->run_at_ms + 1,
		    (RECORD_RUNS - 1) * sizeof r->run_at_ms[0]);
		r->nruns = RECORD_RUNS - 1;
	}
	code = run->exit_code < -1 || run->exit_code > 32767 ? -1 :
	    run->exit_code;
	r->run_exit[r->nruns] = (int16_t)code;
	r->run_at_ms[r->nruns] = env->now_ms;
	r->runs[r->nruns++] = (uint8_t)(o |
	    (run->timed_out ? RECORD_MARK_TIMEOUT : 0) |
	    (run->probe_command ? RECORD_MARK_PROBE : 0));
	r->refused_since_run = 0;
}

static void
remember(struct cb_record *r, const struct cb_env *env, enum cb_state to,
    const char *reason, const char *user)
{
	struct cb_histent	*h;

	if (r->nhist >= RECORD_TRANSITIONS) {
		memmove(r->hist, r->hist + 1,
		    (RECORD_TRANSITIONS - 1) * sizeof r->hist[0]);
		r->nhist = RECORD_TRANSITIONS - 1;
	}
	h = &r->hist[r->nhist++];
	h->at_ms = env->now_ms;
	h->from = (uint8_t)r->state;
	h->to = (uint8_t)to;
	snprintf(h->reason, sizeof h->reason, "%s", reason);
	snprintf(h->user, sizeof h->user, "%s", user != NULL ? user : "");
}

static void
transition_by(struct cb_record *r, const struct cb_env *env,
    enum cb_state to, const char *reason, const char *user,
    struct cb_effects *fx)
{
	struct cb_transition	*t;

	if (fx != NULL && fx->ntrans < BREAKER_MAX_EFFECTS) {
		t = &fx->trans[fx->ntrans++];
		t->from = r->state;
		t->to = to;
		t->epoch = r->epoch + 1;
		snprintf(t->reason, sizeof t->reason, "%s", reason);
		t->manual = user != NULL;
		t->probes = r->half_open_successes;
	} else
		t = NULL;
	breaker_outage_move(r, env->now_ms, to, user != NULL, t);
	remember(r, env, to, reason, user);
	r->manual = 0;	/* breaker_trip and breaker_reset set it */
	r->manual_on_open = MANUAL_ON_OPEN_NONE;	/* ... and its own */
	r->state = to;
	r->epoch++;
	r->changed_at_ms = env->now_ms;
	r->transitions[to]++;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	/* In-flight probes belong to the old epoch. */
	r->nslots = 0;
	r->half_open_successes = 0;
}

static void
transition(struct cb_record *r, const struct cb_env *env, enum cb_state to,
    const char *reason, struct cb_effects *fx)
{
	transition_by(r, env, to, reason, NULL, fx);
}

/*
 * Open for len ms (spread by jitter) from the call's start (0: now), or
 * its whole second when len >= BREAKER_BEAT_MS, as cron counts (SPEC 2);
 * never ending less than len / 2 from now.  opened_at: where it counts.
 */
static void
open_for(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t start_ms, int64_t len, int jitter,
    const char *reason, const char *user, struct cb_effects *fx)
{
	double	 spread;
	int64_t	 from = env->now_ms;
	int	 n = fx != NULL ? fx->ntrans : 0;

	if (jitter && p->jitter > 0) {
		spread = (double)len * p->jitter * env->jitter_u;
		if (spread > 0 && spread < 9e15)
			len += (int64_t)spread;
	}
	if (start_ms > 0 && start_ms <= env->now_ms)
		from = len >= BREAKER_BEAT_MS ? start_ms - start_ms % 1000 :
		    start_ms;
	transition_by(r, env, STATE_OPEN, reason, user, fx);
	r->opened_at_ms = from;
	r->open_until_ms = from + len > env->now_ms + len / 2 ? from + len :
	    env->now_ms + len / 2;
	if (fx != NULL && fx->ntrans > n)
		fx->trans[n].until_ms = r->open_until_ms;
}

static void
close_breaker(struct cb_record *r, const struct cb_env *env,
    const char *reason, const char *user, struct cb_effects *fx)
{
	transition_by(r, env, STATE_CLOSED, reason, user, fx);
	r->open_until_ms = 0;
	r->cooldown_ms = 0;
	r->consecutive_failures = 0;
	r->wlen = 0;
	r->nfailtimes = 0;
}

/* A probe failed or was lost: re-open with the cool-down times backoff. */
static void
reopen(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t start_ms, const char *reason,
    struct cb_effects *fx)
{
	double	next;

	next = (double)cooldown(r, p) * p->backoff;
	if (next > (double)p->max_open_timeout_ms)
		next = (double)p->max_open_timeout_ms;
	r->cooldown_ms = (int64_t)next;
	open_for(r, p, env, start_ms, r->cooldown_ms, 1, reason, NULL, fx);
}

/* Apply the trip policy after a closed-state outcome; open if it says so. */
static void
maybe_trip(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t start_ms, struct cb_effects *fx)
{
	char	reason[RECORD_REASON_MAX];

	if (!breaker_verdict(r, p, env->now_ms, reason, sizeof reason))
		return;
	r->cooldown_ms = 0;
	open_for(r, p, env, start_ms, cooldown(r, p), 1, reason, NULL, fx);
}

static void
refuse(struct cb_record *r, const struct cb_env *env, struct cb_ticket *t)
{
	t->admitted = 0;
	t->state = r->state;
	t->epoch = r->epoch;
	t->identity = r->identity;
	t->opener_end_ms = 0;
	if (r->state == STATE_OPEN) {
		t->retry_in_ms = r->open_until_ms > env->now_ms ?
		    r->open_until_ms - env->now_ms : 0;
		/* open_until = max(start + c, end + c / 2) (open_for), the
		 * call's end being the transition's time: the second when
		 * open_until <= 2 end - start. */
		t->open_until_ms = r->open_until_ms;
		/* Not after the clock stepped back past the transition. */
		if (!r->manual && r->changed_at_ms > r->opened_at_ms &&
		    r->changed_at_ms <= env->now_ms &&
		    r->open_until_ms <= 2 * r->changed_at_ms - r->opened_at_ms)
			t->opener_end_ms = r->changed_at_ms;
	} else
		t->retry_in_ms = -1;
	t->manual_on_open = r->state == STATE_OPEN && r->manual ?
	    r->manual_on_open : MANUAL_ON_OPEN_NONE;
	snprintf(t->why, sizeof t->why, "%s", r->reason);
	r->rejected++;
	if (r->refused_since_run < UINT32_MAX)
		r->refused_since_run++;
	breaker_outage_refuse(r);
}

/*
 * A slot reclaimed because its lease passed may leave its job's group
 * running: list it for the caller (SPEC 2b).  Returns 0 when the list is
 * full: the slot is then kept for a later step.
 */
static int
reap_note(const struct cb_slot *s, const struct cb_env *env,
    struct cb_effects *fx)
{
	if (s->pgid == 0 || s->lease_until_ms > env->now_ms || fx == NULL)
		return 1;
	if (fx->nreaped >= BREAKER_MAX_REAPED)
		return 0;
	fx->reaped[fx->nreaped++] = *s;
	return 1;
}

/* A run slot whose holder died or whose lease passed: no failure. */
static int
running_reclaim(struct cb_record *r, const struct cb_env *env,
    struct cb_effects *fx)
{
	char		buf[64];
	unsigned	i;
	int		changed = 0;

	for (i = 0; i < r->nrunning; ) {
		if (slot_lost(&r->running[i], env, buf, sizeof buf) != NULL &&
		    reap_note(&r->running[i], env, fx)) {
			slot_remove(r->running, &r->nrunning, i);
			changed = 1;
		} else
			i++;
	}
	return changed;
}

static unsigned
max_running(const struct cb_policy *p)
{
	return p->max_concurrent < RECORD_MAX_RUNNING ? p->max_concurrent :
	    RECORD_MAX_RUNNING;
}

/* Every run slot is taken: refuse as busy, listing the holders. */
static void
refuse_busy(struct cb_record *r, const struct cb_policy *p,
    struct cb_ticket *t)
{
	unsigned	i;

	t->admitted = 0;
	t->busy = 1;
	t->state = r->state;
	t->epoch = r->epoch;
	t->identity = r->identity;
	t->retry_in_ms = -1;
	t->nrunning = r->nrunning;
	t->max_running = max_running(p);
	for (i = 0; i < r->nrunning && i < BREAKER_MAX_HOLDERS; i++)
		t->holders[i] = r->running[i];
	t->nholders = i;
	snprintf(t->why, sizeof t->why, "%u of %u running",
	    (unsigned)r->nrunning, t->max_running);
	r->busy++;
	if (r->refused_since_run < UINT32_MAX)
		r->refused_since_run++;
}

/* Open: refuse, or move to half-open once the cool-down is over.
 * Returns 1 when the call was refused. */
static int
admit_open(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, struct cb_ticket *t, struct cb_effects *fx)
{
	int64_t	len, early;

	/*
	 * The clock may have stepped back since the breaker opened: it
	 * never stays open longer than one open period from now.
	 */
	len = r->open_until_ms - r->opened_at_ms;
	if (len < 0)
		len = 0;
	if (r->open_until_ms - env->now_ms > len) {
		r->opened_at_ms = env->now_ms;
		r->open_until_ms = env->now_ms + len;
	}
	/*
	 * Cron starts drift by a second or two: a call that comes at most
	 * min(2s, cool-down / 10) early is the probe (SPEC 2), not refused
	 * for a whole period.  A window set by hand ends as asked.
	 */
	early = r->manual ? 0 : cooldown(r, p) / 10;
	if (early > BREAKER_DRIFT_MS)
		early = BREAKER_DRIFT_MS;
	if (env->now_ms < r->open_until_ms - early) {
		refuse(r, env, t);
		return 1;
	}
	transition(r, env, STATE_HALF_OPEN, "cool-down elapsed", fx);
	return 0;
}

/* Half-open: a lost probe slot re-opens; else is a probe slot free?
 * Returns 1 when the call was refused. */
static int
admit_half_open(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, struct cb_ticket *t, struct cb_effects *fx)
{
	char		 buf[RECORD_REASON_MAX];
	const char	*lost;
	unsigned	 i;

	for (i = 0; i < r->nslots; i++) {
		lost = slot_lost(&r->slots[i], env, buf, sizeof buf);
		if (lost != NULL) {
			(void)reap_note(&r->slots[i], env, fx);
			reopen(r, p, env, 0, lost, fx);
			refuse(r, env, t);
			return 1;
		}
	}
	if (r->nslots >= p->half_open_max_calls ||
	    r->nslots >= RECORD_MAX_SLOTS) {
		refuse(r, env, t);
		snprintf(t->why, sizeof t->why, "%u of %u probes running",
		    (unsigned)r->nslots, p->half_open_max_calls);
		return 1;
	}
	return 0;
}

int
breaker_admit(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_slot *self,
    struct cb_ticket *t, struct cb_effects *fx)
{
	struct cb_slot	me = *self;
	int		changed;

	memset(t, 0, sizeof *t);
	changed = env->now_ms - r->last_used_ms >= BREAKER_TOUCH_MS ||
	    r->last_used_ms - env->now_ms >= BREAKER_TOUCH_MS;
	r->last_used_ms = env->now_ms;
	me.since_ms = env->now_ms;
	if (me.lease_ms <= 0 && me.lease_until_ms > env->now_ms)
		me.lease_ms = me.lease_until_ms - env->now_ms;
	changed |= slot_leases_cap(r, env->now_ms);
	changed |= running_reclaim(r, env, fx);

	/* max_rate before the breaker or the bulkhead takes anything. */
	if (breaker_rate_refuse(r, p, env, t))
		return 1;
	if (r->state == STATE_OPEN && admit_open(r, p, env, t, fx))
		return 1;
	if (r->state == STATE_HALF_OPEN && admit_half_open(r, p, env, t, fx))
		return 1;
	if (p->max_concurrent > 0 && r->nrunning >= max_running(p)) {
		refuse_busy(r, p, t);
		return 1;
	}

	t->admitted = 1;
	t->state = r->state;
	t->epoch = r->epoch;
	t->identity = r->identity;
	t->token = me.token;
	if (r->state == STATE_HALF_OPEN) {
		r->slots[r->nslots++] = me;
		t->probe = 1;
		changed = 1;
	}
	if (p->max_concurrent > 0) {
		r->running[r->nrunning++] = me;
		t->running = 1;
		changed = 1;
	}
	/* Its turn: a closed admission under max_rate writes too. */
	if (p->max_rate.n > 0) {
		breaker_rate_spend(r, p, env);
		changed = 1;
	}
	/* Taken here only when the record is written anyway; the outcome
	 * takes it again (a closed admission writes nothing). */
	changed = changed || r->state != STATE_CLOSED;
	if (changed)
		breaker_snapshot(r, p);
	return changed;
}

/*
 * Why a probe failed.  A probe command's (SPEC 2c) says so in words the
 * refusal line can put in its parentheses as they are.
 */
static void
probe_failed_reason(const struct cb_policy *p, const struct cb_run *run,
    char *buf, size_t len)
{
	char		 after[32];
	const char	*sig;

	if (run->probe_command) {
		if (run->timed_out) {
			format_duration(p->probe_timeout_ms, after,
			    sizeof after);
			snprintf(buf, len, "probe failed: timed out after %s",
			    after);
		} else if (run->signal != 0) {
			if ((sig = sigabbrev_np(run->signal)) != NULL)
				snprintf(buf, len, "probe failed: killed by "
				    "SIG%s", sig);
			else
				snprintf(buf, len, "probe failed: killed by "
				    "signal %d", run->signal);
		} else
			snprintf(buf, len, "probe failed: exit %d",
			    run->exit_code);
		return;
	}
	if (run->timed_out)
		snprintf(buf, len, "probe timed out");
	else if (run->signal != 0)
		snprintf(buf, len, "probe killed by signal %d", run->signal);
	else if (run->exit_code >= 0)
		snprintf(buf, len, "probe failed: exit %d", run->exit_code);
	else
		snprintf(buf, len, "probe failed");
}

static void
last_failure(struct cb_record *r, const struct cb_env *env,
    const struct cb_run *run)
{
	struct cb_lastfail	*f = &r->last_failure;

	f->at_ms = env->now_ms;
	f->exit_code = run->exit_code;
	f->signal = run->signal;
	f->timed_out = run->timed_out != 0;
	f->duration_ms = r->last_duration_ms;
	breaker_outage_fail(r);
}

/* Count a run in the totals and as the last one. */
static void
count_run(struct cb_record *r, const struct cb_env *env,
    const struct cb_run *run)
{
	r->last_used_ms = env->now_ms;
	r->last_run_at_ms = env->now_ms;
	r->last_exit = run->exit_code;
	/* Within what record_decode accepts, whatever the caller measured. */
	r->last_duration_ms = run->duration_ms < 0 ? 0 :
	    run->duration_ms > BREAKER_MAX_MS ? BREAKER_MAX_MS :
	    run->duration_ms;
	r->calls++;
	if (run->timed_out)
		r->timeouts++;
	/* The work got done, whatever the breaker makes of it (stale, a
	 * late probe): what "no success for a day" asks. */
	if (run->outcome == OUTCOME_SUCCESS)
		r->last_success_ms = env->now_ms;
	if (run->by != NULL)
		r->last_run_by = *run->by;
	else
		memset(&r->last_run_by, 0, sizeof r->last_run_by);
}

/* A success in the closed or half-open state. */
static void
record_success(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_run *run,
    struct cb_effects *fx)
{
	char	reason[RECORD_REASON_MAX];

	r->successes++;
	if (r->state == STATE_HALF_OPEN) {
		if (++r->half_open_successes >= p->half_open_max_calls) {
			snprintf(reason, sizeof reason, "%u probe%s%s "
			    "succeeded", r->half_open_successes,
			    run->probe_command ? " command" : "",
			    r->half_open_successes == 1 ? "" : "s");
			close_breaker(r, env, reason, NULL, fx);
		}
		return;
	}
	r->consecutive_failures = 0;
	breaker_count(r, p, env->now_ms, 0);
	/* A success enters the rate window: it may complete min_calls. */
	if (p->trip_policy == TRIP_RATE)
		maybe_trip(r, p, env, run->start_ms, fx);
}

/* A failure in the closed or half-open state. */
static void
record_failure(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_run *run,
    struct cb_effects *fx)
{
	char	reason[RECORD_REASON_MAX];

	r->failures++;
	last_failure(r, env, run);
	if (r->state == STATE_HALF_OPEN) {
		probe_failed_reason(p, run, reason, sizeof reason);
		reopen(r, p, env, run->start_ms, reason, fx);
		return;
	}
	r->consecutive_failures++;
	breaker_count(r, p, env->now_ms, 1);
	maybe_trip(r, p, env, run->start_ms, fx);
}

/* The probe's lease ended before its outcome came: a dropped permit. */
static void
record_late(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_run *run,
    const struct cb_ticket *t, struct cb_effects *fx)
{
	mark(r, env, OUTCOME_FAILURE, run);
	slot_free_token(r->slots, &r->nslots, t->token);
	r->failures++;
	last_failure(r, env, run);
	reopen(r, p, env, run->start_ms,
	    "probe lease expired before its release", fx);
	if (fx != NULL)
		fx->late = 1;
}

enum cb_outcome
breaker_record(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_ticket *t,
    const struct cb_run *run, struct cb_effects *fx)
{
	const struct cb_slot	*slot;
	enum cb_outcome		 o;

	count_run(r, env, run);
	slot_leases_cap(r, env->now_ms);
	if (t->identity != r->identity) {
		/* Another breaker of the same name: none of its slots. */
		r->stale++;
		mark(r, env, OUTCOME_STALE, run);
		return OUTCOME_STALE;
	}
	if (t->running)
		slot_free_token(r->running, &r->nrunning, t->token);
	breaker_snapshot(r, p);

	/*
	 * A probe whose slot is gone was recorded already (a token released
	 * twice): counting it again could close the breaker on one success.
	 */
	if (t->epoch != r->epoch || r->state == STATE_OPEN ||
	    (t->probe && !slot_has(r, t->token))) {
		r->stale++;
		mark(r, env, OUTCOME_STALE, run);
		return OUTCOME_STALE;
	}
	if (t->probe && (slot = slot_find(r, t->token)) != NULL &&
	    slot->lease_until_ms <= env->now_ms) {
		record_late(r, p, env, run, t, fx);
		return OUTCOME_FAILURE;
	}
	o = run->outcome == OUTCOME_SUCCESS || run->outcome ==
	    OUTCOME_FAILURE || run->outcome == OUTCOME_INTERRUPTED ?
	    run->outcome : OUTCOME_IGNORED;
	mark(r, env, o, run);
	if (t->probe)
		slot_free_token(r->slots, &r->nslots, t->token);

	switch (o) {
	case OUTCOME_SUCCESS:
		record_success(r, p, env, run, fx);
		break;
	case OUTCOME_FAILURE:
		record_failure(r, p, env, run, fx);
		break;
	case OUTCOME_INTERRUPTED:
		r->interrupted++;
		break;
	default:
		r->ignored++;
		break;
	}
	return o;
}

enum cb_outcome
breaker_record_anew(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const struct cb_run *run,
    struct cb_effects *fx)
{
	struct cb_ticket	t;

	breaker_init(r, env);
	memset(&t, 0, sizeof t);
	t.admitted = 1;
	t.state = STATE_CLOSED;
	t.epoch = r->epoch;
	t.identity = r->identity;
	return breaker_record(r, p, env, &t, run, fx);
}

void
breaker_trip(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, int64_t for_ms, const char *reason,
    const char *user, struct cb_effects *fx)
{
	int64_t	until = 0;
	uint8_t	on_open = MANUAL_ON_OPEN_NONE;

	int64_t	since = 0, changed = 0;

	r->last_used_ms = env->now_ms;
	if (r->state == STATE_OPEN) {
		until = r->open_until_ms;
		since = r->opened_at_ms;
		changed = r->changed_at_ms;
		if (r->manual)
			on_open = r->manual_on_open;
	}
	if (for_ms > 0)
		open_for(r, p, env, 0, for_ms, 0, reason, user, fx);
	else {
		open_for(r, p, env, 0, cooldown(r, p), 1, reason, user, fx);
		/* SPEC 1: never shorter than the window already open. */
		if (until > r->open_until_ms)
			r->open_until_ms = until;
	}
	/* SPEC 1: "open since" stays where the window began (a transition
	 * all the same: the epoch moves, the history has it). */
	if (since != 0) {
		r->opened_at_ms = since;
		r->changed_at_ms = changed;
	}
	r->manual = 1;
	r->manual_on_open = on_open;
}

void
breaker_trip_on_open(struct cb_record *r, int on_open)
{
	if (r->state == STATE_OPEN && r->manual &&
	    (on_open == MANUAL_ON_OPEN_FAIL || on_open == MANUAL_ON_OPEN_SKIP))
		r->manual_on_open = (uint8_t)on_open;
}

int
breaker_reset(struct cb_record *r, const struct cb_policy *p,
    const struct cb_env *env, const char *reason, const char *user,
    struct cb_effects *fx)
{
	(void)p;
	if (r->state == STATE_CLOSED)
		return 0;
	r->last_used_ms = env->now_ms;
	close_breaker(r, env, reason, user, fx);
	r->manual = 1;
	return 1;
}
