#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 93-load: bounded versions of the load and chaos drivers of tests/stress/
# (full size: make stress).  Each driver checks its own invariants and
# exits non-zero, printing what broke, when one fails.

load helper

@test "load: 4 processes x 50 mixed runs on one breaker: totals exact, half-open bound held" {
	run -0 "$BATS_TEST_DIRNAME/stress/load.sh" "$CBEXEC" 4 50 1
	assert_output --partial "load: ok"
}

@test "load: 4 processes x 50 mixed runs on 10 breakers: totals exact, half-open bound held" {
	run -0 "$BATS_TEST_DIRNAME/stress/load.sh" "$CBEXEC" 4 50 10
	assert_output --partial "load: ok"
}

@test "load: the half-open check can fail (checked against a bound of 0)" {
	local i
	# A round in which no cool-down happened to end has no probe to
	# catch; a few rounds make one all but certain.
	for i in 1 2 3 4 5; do
		LOAD_CHECK_MAX=0 run "$BATS_TEST_DIRNAME/stress/load.sh" \
		    "$CBEXEC" 4 50 1
		[ "$status" -eq 1 ] && break
	done
	assert_equal "$status" 1
	assert_output --partial "probes at once > 0"
}

@test "chaos: 4 workers, 40 runs, SIGKILLs at random moments, also in gc and eviction: state opens, totals add up, all recover" {
	run -0 "$BATS_TEST_DIRNAME/stress/chaos.sh" "$CBEXEC" 4 40
	assert_output --partial "chaos: ok"
}

@test "chaos, bulkhead: 4 workers, 40 runs, max_concurrent = 2, SIGKILLs: busy trips nothing, no dead holder keeps a slot" {
	run -0 "$BATS_TEST_DIRNAME/stress/chaos.sh" "$CBEXEC" 4 40 bulkhead
	assert_output --partial "chaos: bulkhead ok"
}

@test "a child of a SIGKILLed cbexec dies with it" {
	bg a cb run x -- sh -c 'echo $$ >child.pid; exec sleep 60'
	wait_for test -s child.pid
	read -r child <child.pid
	alive "$child"
	kill -9 "$(pgrep -P "$(cat job.a.pid)" -x cbexec || cat job.a.pid)"
	gone "$child"
}
