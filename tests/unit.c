/* SPDX-License-Identifier: ISC */
/*
 * unit.c: runs the C unit tests of the pure modules.  The binary links
 * without -llmdb and -lconfig: if I/O creeps into the core, it stops
 * building.  Ends with the "N passed, N failed" line make check reads.
 */
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "unit.h"

int	unit_passed;
int	unit_failed;

void
unit_policy_defaults(struct cb_policy *p)
{
	int	c;

	memset(p, 0, sizeof *p);
	p->trip_policy = TRIP_CONSECUTIVE;
	p->trip_failures = 5;
	p->trip_period_ms = 60 * SEC;
	p->trip_window = 20;
	p->trip_min_calls = 10;
	p->trip_failure_rate = 0.5;
	p->open_timeout_ms = 60 * SEC;
	p->max_open_timeout_ms = 10 * MIN;
	p->backoff = 2.0;
	p->jitter = 0.0;
	p->half_open_max_calls = 1;
	p->rate_burst = 1;
	p->probe_lease_ms = HOUR;
	p->probe_timeout_ms = 10 * SEC;
	p->timeout_ms = 0;
	p->kill_after_ms = 10 * SEC;
	p->slow_call_ms = 0;
	for (c = 1; c <= 255; c++)
		codeset_add(&p->failure_codes, c);
	codeset_add(&p->success_codes, 0);
	p->timeout_is = VERDICT_FAILURE;
	p->signal_is = VERDICT_FAILURE;
	p->on_open = ON_OPEN_FAIL;
	p->open_exit_code = 75;
}

int
main(void)
{
	test_policy();
	test_record();
	test_record4();
	test_record5();
	test_jobmark_all();
	test_breaker();
	test_rate();
	test_classify();
	test_token();
	test_redis_url();
	test_out();
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed == 0 && unit_passed > 0 ? 0 : 1;
}
