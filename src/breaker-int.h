/* SPDX-License-Identifier: ISC */
/*
 * breaker-int.h: what breaker.c, breaker-trip.c and breaker-view.c, the
 * parts of the pure state machine, share.  Not for other callers; breaker.h is the interface.
 */
#ifndef CBEXEC_BREAKER_INT_H
#define CBEXEC_BREAKER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "breaker.h"

/* Count an outcome in the rate window and, a failure, in the time
 * policy's failure times (failed: 0 or 1). */
void	breaker_count(struct cb_record *, const struct cb_policy *,
	    int64_t now, int failed);
/* 1 when the trip policy says the breaker should open now, with the
 * reason ("5 consecutive failures") in buf; 0 otherwise. */
int	breaker_verdict(const struct cb_record *, const struct cb_policy *,
	    int64_t now, char *buf, size_t len);

/*
 * The rate limit at admission (breaker-rate.c).  breaker_rate_refuse:
 * when p->max_rate would refuse a call now, fill t (rate_limited, the
 * wait), count it in r->rate_limited, and return 1; else 0, nothing
 * changed but a TAT capped.  breaker_rate_spend: the admitted call takes
 * its turn.
 */
int	breaker_rate_refuse(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *, struct cb_ticket *);
void	breaker_rate_spend(struct cb_record *, const struct cb_policy *,
	    const struct cb_env *);
/*
 * The outage's counters (breaker-outage.c): breaker_outage_move before r
 * moves to state to (t: the transition said, or NULL), breaker_outage_fail
 * for each failure recorded, breaker_outage_refuse for each refusal.
 */
void	breaker_outage_move(struct cb_record *, int64_t now, enum cb_state to,
	    int manual, struct cb_transition *t);
void	breaker_outage_fail(struct cb_record *);
void	breaker_outage_refuse(struct cb_record *);

/* Keep in r what status shows of the policy p it runs under. */
void	breaker_snapshot(struct cb_record *, const struct cb_policy *);

/*
 * A slot's lease (slot.c).  slot_cap: the clock stepped back, so a lease
 * never lasts longer than its own length from now (a slot of unknown
 * length, version 2, is left as it is); returns 1 if it changed.
 * slot_lost: why the slot must be reclaimed ("probe lease expired", or its
 * holder died, said in buf), or NULL.
 */
int		 slot_cap(struct cb_slot *, int64_t now);
const char	*slot_lost(const struct cb_slot *, const struct cb_env *,
		    char *buf, size_t len);
/* slot_cap over every slot of r: 1 if one changed. */
int		 slot_leases_cap(struct cb_record *, int64_t now);
/* Remove the slot at i of an array of n. */
void		 slot_remove(struct cb_slot *slots, uint16_t *n, unsigned i);
/* r's probe slot that token names: whether there is one, and which. */
int			 slot_has(const struct cb_record *, uint64_t token);
const struct cb_slot	*slot_find(const struct cb_record *, uint64_t token);
/* Free the slot of slots[*n] that token names, if it is still there. */
void		 slot_free_token(struct cb_slot *slots, uint16_t *n,
		    uint64_t token);

#endif
