#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 21-verdicts: the trip policy is evaluated after every outcome that enters
# its window, a success included (issue 10.9, SPEC 2 "Verdicts").

load helper

@test "rate: F F F S S over window 5, min_calls 5, rate 0.5 opens on the fifth call" {
	config 'defaults = { trip = { policy = "rate"; window = 5; min_calls = 5; failure_rate = 0.5; }; };'
	fail_n x 3
	ok_n x 1
	assert_equal "$(json x .state)" closed
	ok_n x 1
	assert_equal "$(json x .state)" open
	assert_equal "$(json x .reason)" 'failure rate 60% over 5 calls'
	run -75 cb run x -- true
}

@test "rate: F F S S S stays closed at 40%" {
	config 'defaults = { trip = { policy = "rate"; window = 5; min_calls = 5; failure_rate = 0.5; }; };'
	fail_n x 2
	ok_n x 3
	assert_equal "$(json x .state)" closed
}
