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

/* What the caller knows of a probe slot's holder. */
enum cb_liveness {
	HOLDER_ALIVE,		/* still running: only its lease can expire */
	HOLDER_DEAD,		/* gone, or its pid was reused */
	HOLDER_UNKNOWN		/* cannot tell (another host): trust
				 * the lease */
};

struct cb_env {
	int64_t		 now_ms;	/* wall clock */
	double		 jitter_u;	/* a draw from U[0,1) */
	/* Liveness oracle for slot holders; NULL treats all as unknown. */
	enum cb_liveness (*alive)(const struct cb_slot *, void *);
	void		*alive_ctx;
};

#define BREAKER_MAX_EFFECTS	4

struct cb_transition {
	enum cb_state	from;
	enum cb_state	to;
	uint64_t	epoch;		/* the new epoch */
	char		reason[RECORD_REASON_MAX];
};

/* The transitions one step made, for logging and hooks after commit. */
struct cb_effects {
	int			ntrans;
	struct cb_transition	trans[BREAKER_MAX_EFFECTS];
};

/* What admission decided, handed back to breaker_record(). */
struct cb_ticket {
	int		admitted;
	int		probe;		/* holds a half-open slot */
	uint64_t	epoch;		/* admitted under this epoch */
	uint64_t	token;		/* the slot's token when probe */
	/* When refused: the state that refused, how long until a probe may
	 * run (-1: when a probe slot frees), and why it is open. */
	enum cb_state	state;
	int64_t		retry_in_ms;
	char		why[RECORD_REASON_MAX];
};

/* One finished run, as classify() judged it. */
struct cb_run {
	enum cb_outcome	outcome;	/* SUCCESS, FAILURE, IGNORED or
					 * INTERRUPTED */
	int		timed_out;
	int		signal;		/* died of this signal, or 0 */
	int		exit_code;	/* what cbexec exits with, -1: none */
	int64_t		duration_ms;
};

/*
 * Decide whether a call may run now.  Performs the lazy open -> half-open
 * transition, reclaims probe slots whose holder is dead or whose lease has
 * passed (re-opening the breaker and refusing this call), and takes a slot
 * for a half-open probe using self's token, lease and holder fields.  A
 * refusal counts in r->rejected.  Always updates r->last_used_ms.
 *
 * Returns 1 when r changed in a way that must be written, 0 when it did not
 * (a closed admission changes nothing but last_used_ms, which the caller
 * may choose not to persist on every call).
 */
int	breaker_admit(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, const struct cb_slot *self,
	    struct cb_ticket *, struct cb_effects *);

/*
 * Record the outcome of an admitted call: frees its probe slot, counts it,
 * and applies the trip policy or the half-open verdict.  An outcome whose
 * ticket epoch is not r's epoch is stale, and so is a probe's whose slot
 * is no longer there.  Returns the outcome as counted
 * (the run's own, or OUTCOME_STALE).
 */
enum cb_outcome	breaker_record(struct cb_record *, const struct cb_policy *,
		    const struct cb_env *, const struct cb_ticket *,
		    const struct cb_run *, struct cb_effects *);

/*
 * Manual trip: open r for for_ms (0: the current cool-down) whatever its
 * state, leaving the backoff state as it was.  Manual reset: close r,
 * clearing its failure counts and backoff.  Both are transitions (the epoch
 * moves, in-flight calls become stale) with reason as given, remembered in
 * the history with user.
 */
void	breaker_trip(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, int64_t for_ms, const char *reason,
	    const char *user, struct cb_effects *);
void	breaker_reset(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, const char *reason, const char *user,
	    struct cb_effects *);

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
