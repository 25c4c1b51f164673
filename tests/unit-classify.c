/* SPDX-License-Identifier: ISC */
/*
 * unit-classify.c: unit tests of the classification of a finished run
 * (SPEC section 2, "Outcome of one run").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "classify.h"
#include "policy.h"
#include "unit.h"

static void
test_classify_table(void)
{
	/* Columns: exec_failed timed_out interrupted signal exit duration,
	 * then the policy's timeout_is and signal_is, and the outcome. */
	static const struct {
		struct classify_in	in;
		enum cb_verdict		timeout_is, signal_is;
		enum cb_outcome		want;
	} cases[] = {
		/* Interrupted wins over everything. */
		{ { 0, 0, 1, 0, 0, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_INTERRUPTED },
		{ { 1, 1, 1, 15, 127, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_INTERRUPTED },
		{ { 0, 0, 1, 2, 0, 10 }, VERDICT_SUCCESS, VERDICT_SUCCESS,
		  OUTCOME_INTERRUPTED },
		/* Could not be run: ignored, even with 127 a failure code. */
		{ { 1, 0, 0, 0, 127, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_IGNORED },
		{ { 1, 0, 0, 0, 126, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_IGNORED },
		/* A command that ran and exited 127 itself is a code. */
		{ { 0, 0, 0, 0, 127, 0 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		/* Timeout, by timeout_is, before the signal it died of. */
		{ { 0, 1, 0, 15, 124, 30000 }, VERDICT_FAILURE,
		  VERDICT_SUCCESS, OUTCOME_FAILURE },
		{ { 0, 1, 0, 15, 124, 30000 }, VERDICT_SUCCESS,
		  VERDICT_FAILURE, OUTCOME_SUCCESS },
		{ { 0, 1, 0, 9, 124, 30000 }, VERDICT_IGNORE,
		  VERDICT_FAILURE, OUTCOME_IGNORED },
		/* Death by signal, by signal_is. */
		{ { 0, 0, 0, 9, 137, 10 }, VERDICT_SUCCESS, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		{ { 0, 0, 0, 9, 137, 10 }, VERDICT_FAILURE, VERDICT_SUCCESS,
		  OUTCOME_SUCCESS },
		{ { 0, 0, 0, 15, 143, 10 }, VERDICT_FAILURE, VERDICT_IGNORE,
		  OUTCOME_IGNORED },
		/* Default classes: 0 success, 1-255 failure. */
		{ { 0, 0, 0, 0, 0, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_SUCCESS },
		{ { 0, 0, 0, 0, 1, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
		{ { 0, 0, 0, 0, 255, 10 }, VERDICT_FAILURE, VERDICT_FAILURE,
		  OUTCOME_FAILURE },
	};
	struct cb_policy	p;
	size_t			i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unit_policy_defaults(&p);
		p.timeout_is = cases[i].timeout_is;
		p.signal_is = cases[i].signal_is;
		if (classify(&p, &cases[i].in) != cases[i].want)
			fprintf(stderr, "classify case %zu\n", i);
		CHECK_EQ(classify(&p, &cases[i].in), cases[i].want);
	}
}

static void
test_classify_code_classes(void)
{
	/* curl-like: failures 6,7,28; success 0; ignore 3; 22 unlisted. */
	static const struct {
		int		code;
		enum cb_outcome	want;
	} cases[] = {
		{ 0, OUTCOME_SUCCESS },
		{ 3, OUTCOME_IGNORED },
		{ 6, OUTCOME_FAILURE },
		{ 7, OUTCOME_FAILURE },
		{ 28, OUTCOME_FAILURE },
		{ 22, OUTCOME_SUCCESS },		/* unlisted */
		{ 1, OUTCOME_SUCCESS },
		{ 255, OUTCOME_SUCCESS },
	};
	struct cb_policy	p;
	struct classify_in	in;
	size_t			i;

	unit_policy_defaults(&p);
	memset(&p.failure_codes, 0, sizeof p.failure_codes);
	codeset_add(&p.failure_codes, 6);
	codeset_add(&p.failure_codes, 7);
	codeset_add(&p.failure_codes, 28);
	codeset_add(&p.ignore_codes, 3);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&in, 0, sizeof in);
		in.exit_code = cases[i].code;
		if (classify(&p, &in) != cases[i].want)
			fprintf(stderr, "code %d\n", cases[i].code);
		CHECK_EQ(classify(&p, &in), cases[i].want);
	}

	/* The ignore class is consulted first, then success. */
	unit_policy_defaults(&p);
	codeset_add(&p.ignore_codes, 75);
	codeset_add(&p.success_codes, 2);
	memset(&in, 0, sizeof in);
	in.exit_code = 75;
	CHECK_EQ(classify(&p, &in), OUTCOME_IGNORED);
	in.exit_code = 2;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.exit_code = 74;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
}

static void
test_classify_slow_call(void)
{
	struct cb_policy	p;
	struct classify_in	in;

	unit_policy_defaults(&p);
	p.slow_call_ms = 2000;
	codeset_add(&p.ignore_codes, 3);
	memset(&in, 0, sizeof in);

	in.exit_code = 0;
	in.duration_ms = 2001;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
	in.duration_ms = 2000;			/* not slower than */
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.duration_ms = 10;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
	in.exit_code = 1;
	in.duration_ms = 5000;
	CHECK_EQ(classify(&p, &in), OUTCOME_FAILURE);
	in.exit_code = 3;			/* ignored stays ignored */
	CHECK_EQ(classify(&p, &in), OUTCOME_IGNORED);
	in.exit_code = 0;			/* an interrupted slow run */
	in.interrupted = 1;
	CHECK_EQ(classify(&p, &in), OUTCOME_INTERRUPTED);

	/* slow_call 0: none. */
	p.slow_call_ms = 0;
	memset(&in, 0, sizeof in);
	in.duration_ms = 100000000;
	CHECK_EQ(classify(&p, &in), OUTCOME_SUCCESS);
}

void
test_classify(void)
{
	test_classify_table();
	test_classify_code_classes();
	test_classify_slow_call();
}
