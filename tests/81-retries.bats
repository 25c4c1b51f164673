#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 81-retries: run --retries N / --retry-delay D (SPEC section 6 item 4):
# only failures are retried, each attempt is a call of its own, the breaker
# is consulted before every attempt, and a signal during the wait ends
# cbexec at once.

load helper

# A command that appends a line to "ran" each time it runs, then exits with
# the code given (default 1).
COUNT='echo x >>ran; exit "${1:-1}"'

# ran: how many times the counting command ran.
ran() {
	if [ -e ran ]; then
		wc -l <ran
	else
		echo 0
	fi
}

# finish PID: wait (at most 5s) for PID to end; its status in rc.
finish() {
	wait_for eval "! alive $1" || return 1
	rc=0
	wait "$1" || rc=$?
}

@test "--retries 2 runs a failing command three times, each a call, and exits with its status" {
	run -3 cb run x --retries 2 --retry-delay 10ms -- sh -c "$COUNT" sh 3
	assert_equal "$(ran)" 3
	assert_equal "$(json_field x calls)" 3
	assert_equal "$(json_field x failures)" 3
	assert_equal "$(json_field x consecutive_failures)" 3
}

@test "a success ends the retries: the exit status is the last attempt's" {
	run -0 cb run x --retries 5 --retry-delay 10ms -- \
	    sh -c 'echo x >>ran; [ "$(wc -l <ran)" -ge 2 ]'
	assert_equal "$(ran)" 2
	assert_equal "$(json_field x calls)" 2
	assert_equal "$(json_field x successes)" 1
	assert_equal "$(json_field x failures)" 1
	assert_equal "$(json_field x consecutive_failures)" 0
}

@test "a code outside the failure class is not retried" {
	run -3 cb run x --retries 3 --retry-delay 10ms --failure-codes 7 -- \
	    sh -c "$COUNT" sh 3
	assert_equal "$(ran)" 1
	assert_equal "$(json_field x calls)" 1
}

@test "an ignored code is not retried" {
	run -4 cb run x --retries 3 --retry-delay 10ms --ignore-codes 4 -- \
	    sh -c "$COUNT" sh 4
	assert_equal "$(ran)" 1
	assert_equal "$(json_field x ignored)" 1
}

@test "a command that is not found (127, ignored) is not retried" {
	run -127 cb run x --retries 3 --retry-delay 10ms -- ./no-such-command
	assert_equal "$(json_field x calls)" 1
}

@test "a timeout is a failure and is retried" {
	run -124 cb run x --retries 1 --retry-delay 10ms -t 100ms -- \
	    sh -c 'echo x >>ran; exec sleep 10'
	assert_equal "$(ran)" 2
	assert_equal "$(json_field x timeouts)" 2
}

@test "the breaker opening ends the loop at once with the rejection code" {
	run -75 cb run x --retries 10 --retry-delay 10ms -o trip.failures=3 -- \
	    sh -c "$COUNT"
	assert_equal "$(ran)" 3
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x calls)" 3
	assert_equal "$(json_field x rejected)" 1
	assert_output --partial 'x: circuit open'
}

@test "the wait is not spent once the attempt has opened the breaker" {
	# With a 60s delay, a wait would outlast the test's patience.
	run -75 timeout 20 "$CBEXEC" run x --retries 1 --retry-delay 60s \
	    -o trip.failures=1 -- false
	assert_equal "$(json_field x rejected)" 1
}

@test "an open breaker refuses the first attempt: nothing runs, exit 75" {
	cb trip x
	run -75 cb run x --retries 3 --retry-delay 10ms -- sh -c "$COUNT"
	assert_equal "$(ran)" 0
	assert_equal "$(json_field x rejected)" 1
}

@test "with on_open = skip the loop ends at the open breaker with the last attempt's status" {
	# skip hides the refusal, never the failure that ran (SPEC 6.4).
	config 'log = "none";'
	run -3 cb run x --retries 10 --retry-delay 10ms --on-open skip \
	    -o trip.failures=2 -- sh -c "$COUNT" sh 3
	assert_equal "$(ran)" 2
	assert_equal "$(json_field x rejected)" 1
	# The opening the loop caused is said; the refusal is not.
	assert_output --regexp '^cbexec: x: circuit opened after 2 consecutive failures; refusing runs until [0-9:]{8}$'
}

@test "with on_open = fail the same loop exits with the rejection code" {
	run -75 cb run x --retries 10 --retry-delay 10ms --on-open fail \
	    -o trip.failures=2 -- sh -c "$COUNT" sh 3
	assert_equal "$(ran)" 2
	assert_output --partial 'x: circuit open'
}

@test "with on_open = skip a breaker open before the first attempt still exits 0" {
	cb trip x
	run -0 cb run x --retries 3 --retry-delay 10ms --on-open skip -- \
	    sh -c "$COUNT"
	assert_equal "$(ran)" 0
	refute_output
}

@test "retries and retry_delay are policy keys: from the config and -o" {
	config 'defaults = { retries = 2; retry_delay = "10ms"; };'
	run -1 cb run x -- sh -c "$COUNT"
	assert_equal "$(ran)" 3
	run -1 cb run y -o retries=0 -- sh -c "$COUNT"
	assert_equal "$(ran)" 4
	run -1 cb run z --retries 1 -- sh -c "$COUNT"
	assert_equal "$(ran)" 6
}

@test "the default is no retry" {
	run -1 cb run x -- sh -c "$COUNT"
	assert_equal "$(ran)" 1
}

@test "each wait is at most retry-delay doubled per retry (full jitter, -v shows it)" {
	run -1 cb -v run x --retries 4 --retry-delay 20ms -o trip.failures=10 -- false
	local waits
	waits=$(grep -o 'retry [0-9] of 4 in [0-9a-z]*' <<<"$output" |
	    awk '{ w = $NF; ms = (w ~ /ms$/) ? w + 0 : (w == "0s" ? 0 : -1);
	           printf "%d:%d ", $2, ms }')
	# retry n waits at most 20ms * 2^(n-1): 20, 40, 80, 160.
	[[ $waits =~ ^1:([0-9]+)\ 2:([0-9]+)\ 3:([0-9]+)\ 4:([0-9]+)\ $ ]] || {
		echo "unexpected waits: '$waits' in: $output"
		return 1
	}
	assert [ "${BASH_REMATCH[1]}" -le 20 ]
	assert [ "${BASH_REMATCH[2]}" -le 40 ]
	assert [ "${BASH_REMATCH[3]}" -le 80 ]
	assert [ "${BASH_REMATCH[4]}" -le 160 ]
}

@test "-v gives the wait before a retry with its unit, even when it is 0s" {
	run -75 cb -v run x --retries 1 --retry-delay 60s -o trip.failures=1 -- false
	assert_output --partial 'x: exit 1, retry 1 of 1 in 0s'
}

@test "SIGTERM during the wait ends cbexec at once with 143 and no more attempts" {
	"$CBEXEC" run x --retries 3 --retry-delay 60s -- sh -c "$COUNT" \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for eval '[ "$(json_field x calls 2>/dev/null)" = 1 ]'
	kill -TERM "$pid"
	finish "$pid"
	assert_equal "$rc" 143
	assert_equal "$(ran)" 1
	assert_equal "$(json_field x calls)" 1
}

@test "SIGINT during the wait ends cbexec with 130" {
	# A background job of a script starts with SIGINT ignored.
	env --default-signal=INT "$CBEXEC" run x --retries 3 --retry-delay 60s -- sh -c "$COUNT" \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for eval '[ "$(json_field x calls 2>/dev/null)" = 1 ]'
	kill -INT "$pid"
	finish "$pid"
	assert_equal "$rc" 130
	assert_equal "$(ran)" 1
}

@test "an interrupted run is not retried" {
	"$CBEXEC" run x --retries 3 --retry-delay 10ms -- \
	    sh -c 'echo x >>ran; touch ready; exec sleep 10' >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e ready
	kill -TERM "$pid"
	finish "$pid"
	assert_equal "$rc" 143
	assert_equal "$(ran)" 1
	assert_equal "$(json_field x interrupted)" 1
}

@test "CBEXEC_DISABLE=1 still retries failures but records nothing" {
	CBEXEC_DISABLE=1 run -1 cb run x --retries 2 --retry-delay 10ms -- \
	    sh -c "$COUNT"
	assert_equal "$(ran)" 3
	assert_output --partial 'CBEXEC_DISABLE'
	run -1 cb status x
}

@test "bad --retries or --retry-delay values are refused (125) and nothing runs" {
	run -125 cb run x --retries -1 -- touch marker
	assert_output --partial 'retries'
	run -125 cb run x --retries 101 -- touch marker
	run -125 cb run x --retries many -- touch marker
	run -125 cb run x --retry-delay 2m -- touch marker
	assert_output --partial 'retry_delay: must be at most 1m'
	run -125 cb run x --retry-delay soon -- touch marker
	assert [ ! -e marker ]
}

@test "help run describes --retries and --retry-delay" {
	run -0 cb help run
	assert_output --partial '--retries N'
	assert_output --partial '--retry-delay D'
}
