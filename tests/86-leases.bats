#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 86-leases: a probe's lease is a permit with an end (issue 10.6, 10.7;
# SPEC 2 "Late release", "Leases and the clock").  A release after its
# lease ended re-opens the breaker and says so; a clock stepped back over
# a lease never holds the breaker half-open longer than the lease's own
# length.

load helper

@test "a release after its lease is a dropped permit: re-opened, said on stderr, exit 0" {
	run -0 cb trip x --for 1ms
	sleep 0.1
	local tok
	tok=$(cb acquire x --lease 1s)
	sleep 2
	run -0 --separate-stderr cb release "$tok" success
	assert_output ''
	[[ $stderr == *"x: released after its lease ended: counted as a failure"* ]] ||
	    fail "stderr: $stderr"
	assert_equal "$(json x '[.state, .successes, .failures] | join(" ")')" 'open 0 1'
	# Said even with -q: a dropped permit is no detail.
	run -0 cb trip y --for 1ms
	sleep 0.1
	tok=$(cb acquire y --lease 1s)
	sleep 2
	run -0 --separate-stderr cb -q release "$tok" success
	[[ $stderr == *"y: released after its lease ended"* ]] || fail "stderr: $stderr"
}

@test "a release within its lease closes the breaker, with no word of a late release" {
	run -0 cb trip x --for 1ms
	sleep 0.1
	local tok
	tok=$(cb acquire x --lease 30s)
	run -0 --separate-stderr cb release "$tok" success
	[[ $stderr != *"lease ended"* ]] || fail "stderr: $stderr"
	assert_equal "$(json x .state)" closed
}

@test "a clock stepped back a day over a lease holds the breaker for the lease's length, not a day" {
	run -0 cb trip x --for 1ms
	sleep 0.1
	run -0 cb acquire x --lease 10m
	# A day back: the slot is still held, for ten minutes from then.
	run -75 cb_at -86400s run x -- true
	run -75 cb_at -85860s run x -- true
	# Past the lease's length from the step: reclaimed as a lost probe.
	run -75 cb_at -85740s run x -- true
	assert_equal "$(json x .state)" open
	assert_equal "$(json x .reason)" 'probe lease expired'
}

@test "a probe run that outlives its lease is a dropped permit too: re-opened, said on stderr" {
	run -0 cb trip x --for 1ms
	sleep 0.1
	run -0 --separate-stderr cb run x -o probe_lease=1s -- sleep 2
	[[ $stderr == *"x: the probe outlived its lease: counted as a failure"* ]] ||
	    fail "stderr: $stderr"
	assert_equal "$(json x '[.state, .successes, .failures] | join(" ")')" 'open 0 1'
}
