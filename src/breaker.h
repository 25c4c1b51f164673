/* SPDX-License-Identifier: ISC */
/*
 * breaker.h: the circuit breaker state machine (SPEC section 2).  Pure: the
 * time, the random draw for jitter and the liveness of probe holders are
 * passed in; nothing here reads a clock, a file or a process table, so every
 * transition can be tested with explicit values.
 *
 * A guarded call is admit, then (outside any transaction) the command, then
 * record:
 *
 *	breaker_admit(r, p, env, &self, &ticket, &fx);	   one store update
 *	... run the command if ticket.admitted ...
 *	breaker_record(r, p, env, &ticket, &run, &fx);	   another update
 *
 * The ticket carries the epoch the call was admitted under; an outcome that
 * arrives under another epoch is stale and only counted.
 */
#ifndef CBEXEC_BREAKER_H
#define CBEXEC_BREAKER_H

#include <stdint.h>

#include "policy.h"
#include "record.h"

enum cb_outcome {
	OUTCOME_SUCCESS,
	OUTCOME_FAILURE,
	OUTCOME_IGNORED,
	OUTCOME_INTERRUPTED,
	OUTCOME_STALE,
	OUTCOME_REJECTED,
	OUTCOME_COUNT
};

/* What the caller knows of a probe or run slot's holder. */
enum cb_liveness {
	HOLDER_ALIVE,		/* still running, or its job's process group
				 * (SPEC 2b): only its lease can expire */
	HOLDER_DEAD,		/* gone, or its pid was reused */
	HOLDER_UNKNOWN		/* cannot tell (another host): trust
				 * the lease */
};

struct cb_env {
	int64_t		 now_ms;	/* wall clock */
	double		 jitter_u;	/* a draw from U[0,1) */
	uint64_t	 rand64;	/* a random draw: the identity of a
					 * record made (breaker_init) */
	/* Liveness oracle for slot holders; NULL treats all as unknown. */
	enum cb_liveness (*alive)(const struct cb_slot *, void *);
	void		*alive_ctx;
};

#define BREAKER_MAX_EFFECTS	4
/* Slots with a job's group reclaimed by one step (see cb_effects). */
#define BREAKER_MAX_REAPED	8

struct cb_transition {
	enum cb_state	from;
	enum cb_state	to;
	uint64_t	epoch;		/* the new epoch */
	char		reason[RECORD_REASON_MAX];
	int		manual;		/* by trip or reset (a user named) */
	int64_t		until_ms;	/* to open: its open_until */
	unsigned	probes;		/* from half-open: probes that had
					 * succeeded (closing: all of them) */
	/* Closing: the outage it ends (SPEC 6.5); since_ms 0: unknown. */
	int64_t		since_ms;	/* left closed at */
	int64_t		at_ms;		/* closed at */
	uint32_t	failed;
	uint32_t	refused;
	struct cb_lastfail last;	/* at_ms 0: none */
};

/* The transitions one step made, for logging and hooks after commit. */
struct cb_effects {
	int			ntrans;
	struct cb_transition	trans[BREAKER_MAX_EFFECTS];
	/* breaker_record: the outcome came after its probe lease had ended,
	 * and its slot was reclaimed as a failure (SPEC 2, Late release). */
	int			late;
	/* Slots naming a job's process group (pgid) reclaimed because their
	 * lease had passed: the caller SIGKILLs the group once the step is
	 * committed if its holder is gone and the group is provably the
	 * job's (SPEC 2b).  A step reclaims no more such slots than fit. */
	unsigned		nreaped;
	struct cb_slot		reaped[BREAKER_MAX_REAPED];
};

/* Holders a busy refusal lists (the first ones). */
#define BREAKER_MAX_HOLDERS	4

/* What admission decided, handed back to breaker_record(). */
struct cb_ticket {
	int		admitted;
	int		probe;		/* holds a half-open slot */
	int		running;	/* holds a run slot (SPEC 2b) */
	uint64_t	epoch;		/* admitted under this epoch */
	uint64_t	identity;	/* of the record admitted under */
	uint64_t	token;		/* the slots' token when probe or
					 * running */
	/* When refused: the state that refused, how long until a probe may
	 * run (-1: when a probe slot frees), and why it is open. */
	enum cb_state	state;
	int64_t		retry_in_ms;
	char		why[RECORD_REASON_MAX];
	/* Refused open, its end set by the end of the call that opened it
	 * (end + cool-down / 2, SPEC 2): that end, else 0; and the end of
	 * the open state, open_until. */
	int64_t		opener_end_ms;
	int64_t		open_until_ms;
	/* Refused in a manual window (trip): how its --on-open says the
	 * refusal exits, MANUAL_ON_OPEN_*; NONE: the policy's on_open. */
	uint8_t		manual_on_open;
	/* Refused by max_rate (SPEC 2d): retry_in_ms is then when its turn
	 * comes (0 < retry_in_ms). */
	int		rate_limited;
	/* Refused because every run slot is taken: how many are held of
	 * how many, and the first holders (busy is 0 otherwise). */
	int		busy;
	unsigned	nrunning;
	unsigned	max_running;
	unsigned	nholders;
	struct cb_slot	holders[BREAKER_MAX_HOLDERS];
};

/* One finished run, as classify() judged it. */
struct cb_run {
	enum cb_outcome	outcome;	/* SUCCESS, FAILURE, IGNORED or
					 * INTERRUPTED */
	int		timed_out;
	int		signal;		/* died of this signal, or 0 */
	int		exit_code;	/* what cbexec exits with, -1: none */
	int64_t		duration_ms;
	/* Wall time the call started (its admission), from which the
	 * cool-down counts (SPEC 2); 0: unknown, the cool-down counts from
	 * the outcome. */
	int64_t		start_ms;
	int		probe_command;	/* the run of a `probe` command
					 * (SPEC 2c): marked so */
	/* Who ran it (SPEC 7), kept as last_run_by; NULL: unknown. */
	const struct cb_runby *by;
};

/*
 * A new closed record created at env->now_ms with identity env->rand64:
 * what a store that has no record for a name starts from.
 */
void	breaker_init(struct cb_record *, const struct cb_env *);

/*
 * Decide whether a call may run now.  Caps every lease at its own length
 * from now (the clock stepped back), performs the lazy open -> half-open
 * transition, reclaims probe slots whose holder is dead or whose lease has
 * passed (re-opening the breaker and refusing this call), and takes a slot
 * for a half-open probe using self's token, lease and holder fields.  A
 * holder is alive while the env's oracle says so (the holder's process,
 * or its job's process group); a reclaimed slot whose lease passed and
 * that names a group is listed in fx->reaped.
 *
 * With p->max_concurrent > 0 (SPEC 2b) an admitted call, in any state, also
 * takes a run slot with self's fields; run slots whose holder died or whose
 * lease passed are reclaimed silently first (a crash is no failure).  When
 * every run slot is taken the call is refused as busy: t->busy, the holders
 * in t, r->busy counted; busy feeds no trip policy.  In half-open,
 * half_open_max_calls still bounds the probes among the running calls.
 *
 * self's since_ms is set to now, and its lease_ms to the lease's length
 * when it is 0.  A refusal as open counts in r->rejected, any refusal in
 * r->refused_since_run; none enters the runs strip.  An admitted call
 * records p in r->policy.  Always updates r->last_used_ms.
 *
 * Returns 1 when r changed in a way that must be written, 0 when it did not:
 * a closed admission that takes no run slot changes nothing but
 * last_used_ms (and the policy snapshot), and asks for a write only when
 * last_used is a minute old or more, so that gc and eviction see a breaker
 * in use.
 */
int	breaker_admit(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, const struct cb_slot *self,
	    struct cb_ticket *, struct cb_effects *);

/*
 * Record the outcome of an admitted call: frees its probe and run slots,
 * counts it, and applies the trip policy (after every outcome that enters
 * its window, a success included) or the half-open verdict.  An outcome
 * whose ticket epoch or identity is not r's is stale, and so is a probe's
 * whose slot is no longer there.  A probe's outcome that arrives after its
 * lease ended while its slot is still held is a dropped permit: the slot
 * is reclaimed as a failure (the breaker re-opens), fx->late is set and
 * OUTCOME_FAILURE returned, whatever the run's own outcome.  Records p in
 * r->policy, and a failure in r->last_failure.  Returns the outcome as
 * counted (the run's own, OUTCOME_STALE, or OUTCOME_FAILURE when late).
 */
enum cb_outcome	breaker_record(struct cb_record *, const struct cb_policy *,
		    const struct cb_env *, const struct cb_ticket *,
		    const struct cb_run *, struct cb_effects *);

/*
 * The outcome of an admitted call whose record has vanished (forget, gc,
 * eviction while it ran): r is made anew (breaker_init) and the outcome
 * counted there as a closed-state call of the new record, never lost.
 */
enum cb_outcome	breaker_record_anew(struct cb_record *,
		    const struct cb_policy *, const struct cb_env *,
		    const struct cb_run *, struct cb_effects *);

/*
 * May gc remove r, or eviction evict it?  Only a closed record that holds
 * no live run slot (holder alive or unknown, lease not passed; the env's
 * oracle judges) may go.  Returns 1 if it may.
 */
int	breaker_removable(const struct cb_record *, const struct cb_env *);

/*
 * Eviction's rank: the last time r was in use (last_used, the last run, a
 * run slot taken), least recently used evicted first.
 */
int64_t	breaker_last_used(const struct cb_record *);

/*
 * A record of nothing but the snapshot of p (every number, class and
 * mode, never a command): how the last config that loaded cleanly is
 * remembered for breakers that never ran (SPEC 4).  breaker_policy reads
 * it back.
 */
void	breaker_policy_record(struct cb_record *, const struct cb_policy *,
	    int64_t now);

/*
 * The closing line's summary of the outage t ends (SPEC 6.5), into buf:
 * "open 9m (06:48-06:57), 5 calls failed, 12 refused, last failure:
 * exit 7 after 2.1s"; from and to are the clock times of t->since_ms and
 * t->at_ms as the caller shows them.  "" when t is no closing, its start
 * is unknown, or no call failed (a trip's window).
 */
void	breaker_outage_text(const struct cb_transition *t, const char *from,
	    const char *to, char *buf, size_t len);

/*
 * Did a step's effects begin or end an outage: closed to open, or to
 * closed, by no user's trip or reset?  A failed probe's re-opening does
 * not (output = on-change, SPEC 6.5).  Returns 1 if so.
 */
int	breaker_outage_edge(const struct cb_effects *);

/*
 * How long r has been overdue at now, in ms: the time past expect_every
 * since its last success (or its creation, if it never succeeded); 0 when
 * it is not, or p expects nothing (SPEC 7).
 */
int64_t	breaker_overdue(const struct cb_record *, const struct cb_policy *,
	    int64_t now);

/* Is this probe or run slot's holder live at env->now_ms (lease capped at
 * its length, holder not dead)?  For status's `running`. */
int	breaker_slot_live(const struct cb_slot *, const struct cb_env *);

/*
 * The policy r last ran under (r->policy), laid over base into out.
 * Returns 2 when the snapshot is whole (record format 4): out is then the
 * policy r ran under, every number, class and mode, with base's probe
 * command (a record keeps only whether one was set: p->probe may be NULL
 * where r->policy.probe_set is 1), retries and retry_delay (run options,
 * not kept).  Returns 1 for a version 3 snapshot, whose trip, cool-down,
 * probe count, timeout and max_concurrent are laid over base and the rest
 * is base's; 0 when r never ran under version 3 or later and out is base.
 */
int	breaker_policy(const struct cb_record *, const struct cb_policy *base,
	    struct cb_policy *out);

/*
 * Manual trip: open r for for_ms exactly, or (0) for the current
 * cool-down but never ending before a window already open ends (SPEC 1),
 * whatever its state, leaving the backoff state as it was; a manual
 * window keeps the --on-open it had.  Manual reset: close r, clearing its
 * failure counts and backoff.  Both are transitions (the epoch moves,
 * in-flight calls become stale) with reason as given, remembered in the
 * history with user.
 */
void	breaker_trip(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, int64_t for_ms, const char *reason,
	    const char *user, struct cb_effects *);
/*
 * trip --on-open: calls refused during the manual window breaker_trip
 * just opened exit as on_open says (MANUAL_ON_OPEN_FAIL: the policy's
 * open_exit_code; _SKIP: 0, silently), until r leaves it: to half-open or
 * closed, or into an open that is not manual.  Anything else changes
 * nothing.
 */
void	breaker_trip_on_open(struct cb_record *, int on_open);
/*
 * Close r by hand (a transition, manual), clearing its failure counts and
 * backoff, and return 1; a breaker already closed is left as it is, no
 * transition, epoch or manual mark (SPEC 1), and 0 is returned.
 */
int	breaker_reset(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, const char *reason, const char *user,
	    struct cb_effects *);

/*
 * The rate limit (SPEC 2d), GCRA as redis-cell and nginx's limit_req do
 * it: one theoretical arrival time (TAT) per breaker.  With the emission
 * interval T = DURATION / N and the burst tolerance tau = (B - 1) x T, a
 * call at now goes through when now >= TAT - tau, and then TAT becomes
 * max(TAT, now) + T; a refused call's turn comes in TAT - tau - now.
 * Times in microseconds.  A stored TAT later than now + tau + T, which no
 * admission can have written at now, by more than BREAKER_RATE_SKEW_US,
 * is taken as now + tau + T: the clock stepped back, and no call waits
 * longer than one interval (and that skew) from the moment it is noticed.
 * Within the skew the TAT is never lowered: a "now" read before a wait
 * for the store, or a host's clock a little behind another's, would
 * otherwise hand out again the turns that were spent.
 *
 * breaker_gcra: the arithmetic alone.  1 admitted, *tat the new TAT; 0
 * refused, *tat the (capped) TAT and *wait_us > 0 until the turn.
 */
#define BREAKER_RATE_SKEW_US	(60 * 1000000LL)	/* a minute */
int	breaker_gcra(int64_t tat_us, int64_t now_us, int64_t interval_us,
	    uint32_t burst, int64_t *tat, int64_t *wait_us);
/* T of rate in microseconds (rate->n > 0: policy_rate_valid's). */
int64_t	breaker_rate_interval(const struct cb_rate *);
/*
 * When the next call under r's stored rate policy (r->policy) may go
 * through, in wall-clock ms: later than now_ms when it would be refused
 * now, else since when calls may (now_ms or earlier: the same answer
 * whenever it is asked); 0 when r has no rate limit.
 */
int64_t	breaker_rate_next(const struct cb_record *, int64_t now_ms);
/* A wait until a turn as the refusal line and status say it: "480ms"
 * under a second, else whole seconds rounded up ("4s"). */
void	breaker_rate_wait_text(int64_t ms, char *buf, size_t len);
/* What status says of r's rate limit: "10 per 1m (burst 1): next call in
 * 4s; 3 rate limited" (or "now"); 0 with buf "" when r has no rate limit
 * and none was refused, else 1. */
int	breaker_rate_text(const struct cb_record *, int64_t now_ms,
	    char *buf, size_t len);

/* The threshold the trip policy is measured against, for display:
 * "3/5", "4/10 (40%)".  Writes into buf. */
void	breaker_progress(const struct cb_record *, const struct cb_policy *,
	    int64_t now_ms, char *buf, size_t len);

const char	*breaker_outcome_name(enum cb_outcome);	/* "interrupted" */

/*
 * What `status` shows of a record, asked here so that the output formats
 * do not decode its bits themselves.
 */

/* A stored run mark as the runs strip shows it.  A timeout shows as such
 * unless the run was interrupted or stale, which is what mattered. */
enum cb_mark {
	MARK_SUCCESS,
	MARK_FAILURE,
	MARK_TIMEOUT,
	MARK_OTHER,		/* ignored, interrupted, stale */
	MARK_REJECTED,
	MARK_COUNT
};

enum cb_mark	 breaker_mark(uint8_t stored);
/* The outcome's name, or "timeout". */
const char	*breaker_mark_name(uint8_t stored);

/* The rate window, oldest first: bit i (1: failure) and the failures. */
int		 breaker_window_bit(const struct cb_record *, unsigned i);
unsigned	 breaker_window_failures(const struct cb_record *);

/* 1 when r never made a transition (its state is the one it was created
 * with). */
int		 breaker_never_changed(const struct cb_record *);

const char	*breaker_trip_policy_name(enum cb_trip_policy);	/* "rate" */

#endif
