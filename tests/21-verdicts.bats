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

@test "rate: F F S S S stays closed at 40%, and opens at a rate of 0.4" {
	config 'defaults = { trip = { policy = "rate"; window = 5; min_calls = 5; failure_rate = 0.5; }; };'
	fail_n x 2
	ok_n x 3
	# The verdict saw the whole window: 2 failures in 5 calls, below 50%.
	assert_equal "$(json x '"\(.state) \(.window_calls) \(.window_failures) \(.transitions.open)"')" \
	    "closed 5 2 0"
	run -0 cb run x -- true
	# The same calls at a rate of 0.4: 40% reaches it, on the fifth call.
	config 'defaults = { trip = { policy = "rate"; window = 5; min_calls = 5; failure_rate = 0.4; }; };'
	fail_n y 2
	ok_n y 2
	assert_equal "$(json y .state)" closed
	ok_n y 1
	assert_equal "$(json y '"\(.state) \(.reason)"')" "open failure rate 40% over 5 calls"
}
