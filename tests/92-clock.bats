#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 92-clock: the wall clock stepped a day either way around an open breaker
# (SPEC section 2: persisted times are wall-clock; a clock stepped back
# keeps an open breaker open for at most one cool-down from the moment an
# invocation notices).  faketime moves the wall clock only.

load helper

setup() {
	common_setup
	config 'log = "none";' 'defaults = { open_timeout = "10m"; };'
	fail_n x 5
	run -0 json_field x state
	assert_output open
}

@test "clock stepped forward a day: the cool-down has passed, a probe runs and closes it" {
	run -75 cb run x -- true
	run -0 cb_at +1d run x -- true
	run -0 cb_at +1d status --json x
	assert_output --partial '"state": "closed"'
}

@test "clock stepped back a day: refused, retry in at most one cool-down" {
	run -75 cb_at -1d run x -- touch ran
	assert [ ! -e ran ]
	# "retry in 10m", "9m59s" or "59s": some time, and at most 10m.
	local re='retry in (([0-9]+)m)?(([0-9]+)s)? \('
	[[ $output =~ $re ]]
	[ -n "${BASH_REMATCH[1]}${BASH_REMATCH[3]}" ]
	local secs=$((${BASH_REMATCH[2]:-0} * 60 + ${BASH_REMATCH[4]:-0}))
	[ "$secs" -gt 0 ]
	[ "$secs" -le 600 ]
	run -75 cb_at -1d check x
}

@test "clock stepped back a day: one cool-down after noticing, a probe runs" {
	run -75 cb_at -1d run x -- true
	run -75 cb_at -85860s check x		# -1d + 9m
	run -0 cb_at -85770s run x -- true		# -1d + 10m30s
	run -0 json_field x state
	assert_output closed
}

@test "clock stepped back, then forward again: the pulled-in cool-down has passed" {
	run -75 cb_at -1d run x -- true
	run -0 cb run x -- true
	run -0 json_field x state
	assert_output closed
}
