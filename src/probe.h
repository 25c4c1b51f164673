/* SPDX-License-Identifier: ISC */
/*
 * probe.h: the probe command of SPEC section 2c.  When a call is admitted
 * as a half-open probe and the policy names a `probe`, that command runs
 * instead of the job: its exit 0 is a probe success, anything else (an
 * exit code, the probe_timeout, a signal) a probe failure.  Its run is a
 * call of its own, recorded (marked as a probe command's) before the job
 * is even considered, so a two-hour backup is never the health check.
 *
 * run and acquire call probe_admit() once, right after their admission
 * and before they look at the ticket.
 */
#ifndef CBEXEC_PROBE_H
#define CBEXEC_PROBE_H

#include <signal.h>

#include "cmd.h"

/*
 * If c was just admitted through s as a half-open probe (c->ticket.probe)
 * and c->p->probe is set, run the probe command (no shell; stdin and
 * stdout /dev/null, stderr inherited; no descriptor of cbexec's nor
 * CBEXEC_REDIS_PASSWORD; its process group SIGKILLed at probe_timeout;
 * starting with signal mask mask, NULL: the caller's) and record its
 * outcome through s.  Then:
 *
 *  - the probe passed and the breaker closed: c is admitted anew through
 *    s, as an ordinary call of its own, and c->ticket says so;
 *  - otherwise c->ticket is a refusal, for run_refusal(): as open with
 *    the transition's reason ("probe failed: exit 7") after a failure, as
 *    half-open while more successes are needed.
 *
 * Anything else (not a probe, no probe command) leaves c as it is.
 * Returns 0 with c->ticket to act on, or -1 after printing when the call
 * must end here with *status: the probe was interrupted by a signal
 * cbexec forwarded (128+N, counted as interrupted) or cbexec itself
 * failed (EXIT_CBEXEC).  The caller reports c->fx's transitions of its
 * own admission before; those of the probe's record and of the new
 * admission are reported here.
 */
int	probe_admit(struct cmd_call *c, struct store *s, const sigset_t *mask,
	    int *status);

#endif
