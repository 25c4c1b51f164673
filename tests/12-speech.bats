#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 12-speech: what cbexec says on its own, for cron mail (SPEC 6.5): by
# default only what happened that the job's owner must hear (a transition
# this call caused, a kill at the timeout, a refusal, a run it could not
# guard, a config problem), -q only what cannot be hidden, -v every
# admission and outcome too, in the order they happened.  Each stderr is
# compared whole.  The clock is set with faketime and TZ, so that "until"
# times are exact; and the cool-down counts from the start of the call
# that opened the breaker (SPEC 2).

load helper

# at HH:MM:SS ARGS...: the binary at that time of 2026-01-01, UTC.
at() {
	local when=$1
	shift
	TZ=UTC cb_at "@2026-01-01 $when" "$@"
}

@test "a run that changes nothing says nothing of cbexec's own" {
	run --separate-stderr -0 cb run x -- echo out
	assert_equal "$output" out
	assert_equal "$stderr" ''
	run --separate-stderr -1 cb run x -- false
	assert_equal "$stderr" ''
}

@test "the opening, the failed probe and the closing are said, with until when" {
	config 'defaults = { trip = { failures = 2; }; open_timeout = "4m"; };'
	run --separate-stderr -1 at 10:31:00 run x -- false
	assert_equal "$stderr" ''
	run --separate-stderr -1 at 10:31:00 run x -- false
	assert_equal "$stderr" 'cbexec: x: circuit opened after 2 consecutive failures; refusing runs until 10:35:00'
	run --separate-stderr -75 at 10:34:00 run x -- true
	assert_equal "$stderr" 'cbexec: x: circuit open, retry in 1m (2 consecutive failures)'
	run --separate-stderr -1 at 10:35:00 run x -- false
	assert_equal "$stderr" 'cbexec: x: circuit re-opened (probe failed: exit 1); refusing runs until 10:43:00'
	run --separate-stderr -0 at 10:43:00 run x -- true
	# The closing sums up the outage: 10:31 to 10:43, two failures and
	# the failed probe, one refusal, and the last failure (SPEC 6.5).
	assert_regex "$stderr" '^cbexec: x: circuit closed after a successful probe; open 12m \(10:31-10:43\), 3 calls failed, 1 refused, last failure: exit 1 after [0-9]+ms$'
	# -q: none of it.
	run --separate-stderr -1 at 10:44:00 -q run x -- false
	run --separate-stderr -1 at 10:44:00 -q run x -- false
	assert_equal "$stderr" ''
	assert_equal "$(json_field x state)" open
}

@test "an opening on another day names the date" {
	config 'defaults = { trip = { failures = 1; }; open_timeout = "2h"; };'
	run --separate-stderr -1 at 23:00:00 run x -- false
	assert_equal "$stderr" 'cbexec: x: circuit opened after 1 consecutive failure; refusing runs until 2026-01-02 01:00:00'
}

@test "half-open closes after every probe: the count is said" {
	config 'defaults = { trip = { failures = 1; }; open_timeout = "1m"; half_open_max_calls = 2; };'
	run -1 at 10:00:00 run x -- false
	run --separate-stderr -0 at 10:01:00 run x -- true
	assert_equal "$stderr" ''
	run --separate-stderr -0 at 10:01:00 run x -- true
	assert_regex "$stderr" '^cbexec: x: circuit closed after 2 successful probes; open 1m \(10:00-10:01\), 1 call failed, 0 refused, last failure: exit 1 after [0-9]+ms$'
}

@test "a kill at the timeout is said, with what was really sent" {
	run --separate-stderr -124 cb run x -t 200ms -- sleep 5
	assert_equal "$stderr" 'cbexec: x: timed out after 200ms; sent SIGTERM'
	run --separate-stderr -124 cb run y -t 200ms -k 200ms -- sh -c 'trap "" TERM; sleep 5'
	assert_equal "$stderr" 'cbexec: y: timed out after 200ms; sent SIGTERM, then SIGKILL'
	run --separate-stderr -124 cb -q run z -t 200ms -- sleep 5
	assert_equal "$stderr" ''
}

@test "-q keeps what cannot be hidden: a command not found, a config problem" {
	config 'defaults = { trip = { failures = 1; }; };'
	run --separate-stderr -127 cb -q run x -- no-such-command-cbexec-test
	assert_equal "$stderr" "cbexec: failed to run command 'no-such-command-cbexec-test': No such file or directory"
	run --separate-stderr -1 cb -q run y -- false
	assert_equal "$stderr" ''
	run --separate-stderr -75 cb -q run y -- true
	assert_equal "$stderr" ''
	config 'defaults = { bogus = 1; };'
	run --separate-stderr -0 cb -q run z -- true
	assert_regex "$stderr" "unknown"
}

@test "-v says every admission and outcome, the outcome before the transition it caused" {
	config 'log = "none";' 'defaults = { trip = { failures = 1; }; open_timeout = "1m"; };'
	run --separate-stderr -124 at 10:00:00 -v run x -t 200ms -- sleep 5
	assert_equal "${stderr_lines[0]}" 'cbexec: x: admitted (closed, epoch 0)'
	assert_regex "${stderr_lines[1]}" '^cbexec: x: timeout after 200ms: sending SIGTERM to process group [0-9]+$'
	assert_equal "${stderr_lines[2]}" 'cbexec: x: timed out after 200ms; sent SIGTERM'
	assert_equal "${stderr_lines[3]}" 'cbexec: x: exit 124, counted as failure'
	assert_equal "${stderr_lines[4]}" 'cbexec: x: circuit opened after 1 consecutive failure; refusing runs until 10:01:00'
	assert_equal "${#stderr_lines[@]}" 5
	run --separate-stderr -0 at 10:01:00 -v run x -- true
	assert_equal "${stderr_lines[0]}" "cbexec: x: open -> half-open (cool-down elapsed) [$(id -un)@$(hostname): true]"
	assert_equal "${stderr_lines[1]}" 'cbexec: x: admitted (probe, epoch 2)'
	assert_equal "${stderr_lines[2]}" 'cbexec: x: exit 0, counted as success'
	assert_regex "${stderr_lines[3]}" '^cbexec: x: circuit closed after a successful probe; open 1m \(10:00-10:01\), 1 call failed, 0 refused, last failure: timed out after [0-9.]+m?s$'
	assert_equal "${#stderr_lines[@]}" 4
}

@test "trip and reset are not said: their user made them" {
	run --separate-stderr -0 cb trip x
	assert_equal "$stderr" ''
	run --separate-stderr -0 cb reset x
	assert_equal "$stderr" ''
}

@test "the cool-down counts from the start of the call that opened it: cron every 4m probes on the beat" {
	config 'defaults = { trip = { failures = 1; }; open_timeout = "4m"; };'
	# Started at 10:31:00, failed a second later.
	run -1 at 10:31:00 run x -- sh -c 'sleep 1; exit 1'
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x open_until)" 2026-01-01T10:35:00.000Z
	assert_equal "$(json_field x opened_at)" 2026-01-01T10:31:00.000Z
	run -75 at 10:34:57 run x -- true
	# The next job of the schedule: a probe, which closes it.
	run -0 at 10:35:00 run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "a call that outlasts its cool-down still leaves half of it after its end" {
	# A 1s cool-down, a failing call of 1.2s: open until its end + 0.5s.
	config 'defaults = { trip = { failures = 1; }; open_timeout = "1s"; };'
	run -1 cb run x -- sh -c 'sleep 1.2; exit 1'
	assert_equal "$(json x "$JQ_MS (.open_until | ms) - (.last_run_at | ms)")" 500
}
