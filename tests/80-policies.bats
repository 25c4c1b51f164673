#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 80-policies: the trip policies, slow calls, backoff and jitter through the
# real binary, in the classic scenarios of gobreaker, resilience4j, Polly
# and pybreaker users; and editing a policy never resets a breaker's state.
# The arithmetic at each boundary is in the C unit tests (unit-core.c).

load helper

# fields NAME: the state-bearing fields of NAME in one line.
fields() {
	json "$1" '[.state, .epoch, .consecutive_failures, .calls, .failures] | tostring'
}

@test "classic: the default breaker opens on the 5th consecutive failure; a success in between resets the streak" {
	fail_n x 4
	ok_n x 1
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x consecutive_failures)" 4
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "5 consecutive failures"
	run -75 cb run x -- true
}

@test "classic: rate window 10, min_calls 5, cool-down 30s, 2 probes: five failures open it, after 31s two successes close it" {
	config 'defaults = { trip = { policy = "rate"; window = 10; min_calls = 5; failure_rate = 0.5; };' \
	    '  open_timeout = "30s"; half_open_max_calls = 2; };'
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "failure rate 100% over 5 calls"
	assert_equal "$(open_period x)" 30000
	# (up to 2s early is cron's drift: the probe)
	run -75 cb_at "$(at_record x open_until -3)" run x -- true
	run -0 cb_at +31s run x -- true
	assert_equal "$(json_field x state)" half-open
	run -0 cb_at +31s run x -- true
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x reason)" "2 probes succeeded"
}

@test "classic: two probes may run at once; both succeeding close it" {
	config 'defaults = { open_timeout = "30s"; half_open_max_calls = 2; };'
	fail_n x 5
	bg 1 cb_at +31s run x -- sh -c 'touch started.1; while [ ! -e release ]; do sleep 0.02; done'
	bg 2 cb_at +31s run x -- sh -c 'touch started.2; while [ ! -e release ]; do sleep 0.02; done'
	wait_for eval '[ "$(count started.*)" -eq 2 ]'
	run -75 cb_at +31s run x -- true
	assert_output --partial '2 of 2 probes running'
	touch release
	bg_wait 1 2
	assert_equal "$(bg_rc 1) $(bg_rc 2)" "0 0"
	assert_equal "$(json_field x state)" closed
}

@test "rate policy: exactly at failure_rate opens, just below does not" {
	config 'defaults = { trip = { policy = "rate"; window = 10; min_calls = 10; failure_rate = 0.5; }; };'
	ok_n x 5
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "failure rate 50% over 10 calls"
}

@test "rate policy: the window slides, the oldest outcomes drop out" {
	config 'defaults = { trip = { policy = "rate"; window = 4; min_calls = 4; failure_rate = 0.75; }; };'
	fail_n x 2
	ok_n x 2
	# window F F S S: 50%.  Two more failures push the old ones out: S S F F.
	fail_n x 2
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "time policy: trip.failures failures within trip.period open it" {
	config 'defaults = { trip = { policy = "time"; failures = 3; period = "10s"; }; };'
	fail_n x 1
	AT=+5s fail_n x 1
	AT=+9s fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "3 failures within 10s"
}

@test "time policy: one failure is said in the singular" {
	config 'defaults = { trip = { policy = "time"; failures = 1; period = "10s"; }; };'
	fail_n x 1
	assert_equal "$(json_field x reason)" "1 failure within 10s"
	run -0 cb status x
	assert_output --partial 'Policy: trip after 1 failure within 10s;'
}

@test "rate policy: one call is said in the singular" {
	config 'defaults = { trip = { policy = "rate"; window = 1; min_calls = 1; failure_rate = 1; }; };'
	fail_n x 1
	assert_equal "$(json_field x reason)" "failure rate 100% over 1 call"
}

@test "time policy: an exact sliding window, not buckets that reset" {
	config 'defaults = { trip = { policy = "time"; failures = 3; period = "10s"; }; };'
	# Buckets of 10s would split 8s,12s; a sliding window counts them together.
	AT=+8s fail_n x 1
	AT=+12s fail_n x 1
	AT=+16s fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "a probe that fails doubles the cool-down, up to max_open_timeout" {
	config 'defaults = { open_timeout = "10s"; max_open_timeout = "30s"; };'
	fail_n x 5
	assert_equal "$(open_period x)" 10000
	AT=+11s fail_n x 1
	assert_equal "$(open_period x)" 20000
	AT=+32s fail_n x 1
	assert_equal "$(open_period x)" 30000
	AT=+63s fail_n x 1
	assert_equal "$(open_period x)" 30000
	# The backoff state lives in the state file, between invocations.
	assert_equal "$(json_field x cooldown_ms)" 30000
	run -0 cb_at +94s run x -- true
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x cooldown_ms)" 0
}

@test "jitter spreads open_until by up to that fraction, differently per opening" {
	config 'defaults = { open_timeout = "100s"; jitter = 0.5; };'
	local periods=() i p
	for i in 1 2 3 4; do
		cb forget "x$i" 2>/dev/null || true
		fail_n "x$i" 5
		p=$(open_period "x$i")
		assert [ "$p" -ge 100000 ]
		assert [ "$p" -lt 150000 ]
		periods+=("$p")
	done
	# Four draws from 50 seconds' worth of milliseconds: not all equal.
	assert [ "$(printf '%s\n' "${periods[@]}" | sort -u | wc -l)" -gt 1 ]
}

@test "slow_call: a slow success is a failure and counts toward tripping" {
	run -0 cb run x -o slow_call=100ms -o trip.failures=2 -- sleep 0.3
	run -0 cb run x -o slow_call=100ms -o trip.failures=2 -- sleep 0.3
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x failures)" 2
}

@test "classic: a slow success started before a trip does not count after it" {
	config 'defaults = { slow_call = "100ms"; trip = { failures = 2; }; };'
	bg 1 cb run x -- sh -c 'touch started; while [ ! -e release ]; do sleep 0.02; done'
	wait_for test -e started
	fail_n x 2
	assert_equal "$(json_field x state)" open
	local before
	before=$(fields x)
	touch release
	bg_wait 1
	assert_equal "$(bg_rc 1)" 0
	# Counted as stale only: no failure added, same epoch, still open.
	assert_equal "$(json_field x stale)" 1
	assert_equal "$(json x '[.state, .epoch, .consecutive_failures, .failures] | tostring')" \
	    "$(jq -c '[.[0], .[1], .[2], .[4]]' <<<"$before")"
}

@test "editing the config keeps a breaker's counts and epoch" {
	config 'defaults = { trip = { failures = 5; }; };'
	fail_n x 3
	cb trip x --for 1s
	cb reset x
	fail_n x 3
	local before
	before=$(fields x)
	config 'defaults = { trip = { failures = 10; }; open_timeout = "5m"; backoff = 1.5; };'
	run -0 cb status x
	assert_equal "$(fields x)" "$before"
	assert_equal "$(json_field x epoch)" 2
	# The streak goes on under the new threshold.
	config 'defaults = { trip = { failures = 4; }; };'
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "4 consecutive failures"
}

@test "editing the config keeps an open breaker open until its open_until" {
	fail_n x 5
	local until
	until=$(json_field x open_until)
	config 'defaults = { open_timeout = "1s"; };'
	run -75 cb run x -- true
	assert_equal "$(json_field x open_until)" "$until"
}

@test "a shrunk rate window keeps the newest calls" {
	config 'defaults = { trip = { policy = "rate"; window = 10; min_calls = 10; failure_rate = 0.5; }; };'
	ok_n x 5
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x window_calls)" 9
	# Cut to 5, the window is the newest 4 (all failures) plus the next:
	# 5 of 5.  Had it kept the oldest it would be S S S S F: 20%.
	config 'defaults = { trip = { policy = "rate"; window = 5; min_calls = 5; failure_rate = 0.5; }; };'
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "failure rate 100% over 5 calls"
}

@test "switching trip.policy goes on from the outcomes already seen" {
	fail_n x 4
	config 'defaults = { trip = { policy = "rate"; window = 10; min_calls = 5; failure_rate = 0.8; }; };'
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "failure rate 100% over 5 calls"
}

@test "switching to the time policy counts the failures already seen within the period" {
	fail_n x 2
	config 'defaults = { trip = { policy = "time"; failures = 3; period = "1h"; }; };'
	fail_n x 1
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x reason)" "3 failures within 1h"
}
