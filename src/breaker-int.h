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

/* Keep in r what status shows of the policy p it runs under. */
void	breaker_snapshot(struct cb_record *, const struct cb_policy *);

#endif
