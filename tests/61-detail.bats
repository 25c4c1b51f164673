#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 61-detail: `status NAME`, the detail view of one breaker: state and
# epoch, the policy in one line, when and why it changed, the next probe,
# the runs strip (UTF-8 or ASCII by locale, with a legend), totals, the
# last run and the transitions in order, manual ones with user and text.

load helper

setup() {
	common_setup
	export TZ=UTC LC_ALL=C
}

@test "the detail view after an outage names every transition in order" {
	fail_n x 5
	AT=+61s fail_n x 1
	AT=+300s ok_n x 1
	run -0 cb_at +301s status x
	assert_line --index 0 --regexp '^\* x - closed \(epoch 5\)$'
	local t='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC'
	local i
	for ((i = 0; i < ${#lines[@]}; i++)); do
		[[ ${lines[i]} == Transitions* ]] && break
	done
	assert_equal "${lines[i]}" 'Transitions (last 5, newest last):'
	assert_regex "${lines[i + 1]}" "^  $t  closed -> open +5 consecutive failures$"
	assert_regex "${lines[i + 2]}" "^  $t  open -> half-open +cool-down elapsed$"
	assert_regex "${lines[i + 3]}" "^  $t  half-open -> open +probe failed: exit 1$"
	assert_regex "${lines[i + 4]}" "^  $t  open -> half-open +cool-down elapsed$"
	assert_regex "${lines[i + 5]}" "^  $t  half-open -> closed +1 probe succeeded$"
	assert_equal "$((i + 6))" "${#lines[@]}"
}

@test "the detail view shows state, since when and why, and the epoch" {
	fail_n x 5
	run -0 cb status x
	assert_line --index 0 '* x - open (epoch 1)'
	assert_line --regexp '^      State: open since [0-9-]+ [0-9:]+ UTC \([0-9]+s ago\): 5 consecutive failures$'
}

@test "the next probe: in the cool-down, after it, and when closed" {
	fail_n x 5
	run -0 cb status x
	assert_line --regexp '^ Next probe: in (59s|1m), at [0-9-]+ [0-9:]+ UTC$'
	run -0 cb_at +61s status x
	assert_line --regexp '^ Next probe: now \(cool-down ended .*; the next call probes\)$'
	ok_n y 1
	run -0 cb status y
	assert_line ' Next probe: - (closed: every call runs)'
}

@test "a half-open breaker with its probe running says when a probe can run" {
	fail_n x 5
	bg p cb_at +61s run x -- sh -c ': >started; while [ ! -e release ]; do sleep 0.05; done'
	wait_for test -e started
	run -0 cb_at +62s status x
	assert_line --index 0 '* x - half-open (epoch 2)'
	assert_line --regexp '^ Next probe: when a probe ends \(half-open: 1 of 1 running, first lease ends .*\)$'
	: >release
	bg_wait p
	assert_equal "$(bg_rc p)" 0
}

@test "the policy is one line, as configured" {
	config 'breakers = ( { match = "r"; trip = { policy = "rate"; window = 20; min_calls = 10; failure_rate = 0.3; }; open_timeout = "30s"; backoff = 1.0; timeout = "20s"; on_open = "skip"; } );'
	ok_n r 1
	ok_n c 1
	run -0 cb status r
	assert_line '     Policy: trip at 30% failures of the last 20 calls (at least 10); open 30s; 1 probe; timeout 20s, SIGKILL 10s later; on open: skip (exit 0)'
	run -0 cb status c
	assert_line '     Policy: trip after 5 consecutive failures; open 1m, x2 per failed probe up to 10m; 1 probe; on open: fail (exit 75)'
}

@test "the runs strip: one ASCII mark per run that ran, newest last, refusals counted, with a legend" {
	ok_n x 1
	fail_n x 1
	run -124 cb run x -t 100ms -k 100ms -- sleep 5
	run -127 cb run x -- no-such-command-cbexec-test
	fail_n x 3
	run -75 cb run x -- true
	ok_n y 1
	run -0 cb status x
	assert_line '       Runs: +xT.xxx  (last 7, newest last; 1 refused since)'
	assert_line '             + success  x failure  T timeout  . ignored/interrupted/stale'
}

@test "the runs strip uses UTF-8 marks in a UTF-8 locale" {
	ok_n x 1
	fail_n x 1
	run -124 cb run x -t 100ms -k 100ms -- sleep 5
	run -127 cb run x -- no-such-command-cbexec-test
	fail_n x 3
	run -75 cb run x -- true
	LC_ALL=C.UTF-8 run -0 cb status x
	assert_line '       Runs: ✓✗⏱·✗✗✗  (last 7, newest last; 1 refused since)'
	assert_line '             ✓ success  ✗ failure  ⏱ timeout  · ignored/interrupted/stale'
	assert_line --index 0 '● x - open (epoch 1)'
	assert_line --partial 'closed → open'
}

@test "the strip keeps the last 32 runs" {
	ok_n x 40
	run -0 cb status x
	assert_line "       Runs: $(printf '+%.0s' {1..32})  (last 32, newest last)"
}

@test "a breaker with no runs says so" {
	run -0 cb trip x
	run -0 cb status x
	assert_line '       Runs: none yet'
	assert_line '   Last run: none yet'
}

@test "totals by outcome and the last run's exit status and duration" {
	ok_n x 2
	fail_n x 1
	run -124 cb run x -t 100ms -k 100ms -- sleep 5
	run -0 cb status x
	assert_line '     Totals: 4 calls: 2 successes, 2 failures (1 timeout), 0 ignored, 0 interrupted, 0 stale; 0 rejected'
	# A timeout is said as one, not as cbexec's exit status 124.
	assert_line --regexp '^   Last run: [0-9-]+ [0-9:]+ UTC \([0-9]+s ago\): timed out after [0-9]+ms$'
	assert_line --regexp '^     Failed: [0-9-]+ [0-9:]+ UTC \([0-9]+s ago\): timed out after [0-9]+ms$'
	assert_line '   Failures: 2/5 toward tripping (consecutive)'
	run -137 cb run x -- sh -c 'kill -9 $$'
	run -0 cb status x
	assert_line --regexp '^   Last run: .*: killed by SIGKILL after [0-9]+ms$'
	run -0 cb run x -- sleep 1.2
	run -0 cb status x
	assert_line --regexp '^   Last run: .*: exit 0 after 1\.[0-9]s$'
}

@test "totals count in the singular and the plural: 1 success, 0 failures" {
	ok_n x 1
	run -0 cb status x
	assert_line '     Totals: 1 call: 1 success, 0 failures (0 timeouts), 0 ignored, 0 interrupted, 0 stale; 0 rejected'
}

@test "manual transitions show the user and the --reason text" {
	local user
	user=$(id -un)
	ok_n x 1
	run -0 cb trip x --for 1h --reason 'DB "migration" \ night'
	run -0 cb reset x --reason done
	run -0 cb status x
	assert_line --regexp "^  [0-9-]+ [0-9:]+ UTC  closed -> open +manual trip by $user: DB \"migration\" \\\\ night$"
	assert_line --regexp "^  [0-9-]+ [0-9:]+ UTC  open -> closed +manual reset by $user: done$"
}

@test "the detail view keeps the last 16 transitions" {
	local i
	for ((i = 0; i < 10; i++)); do
		cb trip x >/dev/null
		cb reset x >/dev/null
	done
	run -0 cb status x
	assert_line 'Transitions (last 16, newest last):'
	assert_equal "$(grep -c 'manual' <<<"$output")" 17
}

@test "the detail view is coloured on a terminal, and only there" {
	fail_n x 5
	unset NO_COLOR
	run -0 script -qec "TERM=xterm \"$CBEXEC\" status x" /dev/null
	assert_output --partial $'\e[31m'
	run -0 script -qec "TERM=dumb \"$CBEXEC\" status x" /dev/null
	refute_output --partial $'\e'
	run -0 cb status x
	refute_output --partial $'\e'
}
