/* SPDX-License-Identifier: ISC */
/*
 * classify.h: from how a run ended to its outcome (SPEC section 2, table
 * "Outcome of one run").  Pure.
 */
#ifndef CBEXEC_CLASSIFY_H
#define CBEXEC_CLASSIFY_H

#include <stdint.h>

#include "breaker.h"
#include "policy.h"

struct classify_in {
	int	exec_failed;	/* could not be executed or found */
	int	timed_out;
	int	interrupted;	/* cbexec forwarded a signal to it */
	int	signal;		/* died of this signal, or 0 */
	int	exit_code;	/* when signal == 0 */
	int64_t	duration_ms;
};

/*
 * In order: interrupted; exec failure (ignored); timeout (timeout_is);
 * death by signal (signal_is); exit code by class (ignore, success,
 * failure; unlisted codes are successes); a success slower than slow_call
 * is a failure.
 */
enum cb_outcome	classify(const struct cb_policy *, const struct classify_in *);

#endif
