#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 89-rate: max_rate and rate_burst (SPEC 2d, issue 27).  At most N calls
# per DURATION go through, across processes, as GCRA allows; a rate
# limited call is refused with one line (or silently with on_busy =
# skip), counted as rate_limited and never as a failure or a rejection;
# --wait sleeps until the turn when it comes within it; check answers for
# it and acquire takes a turn.  Exactness under contention: 8 processes x
# 100 calls on one state file.

load helper
load rate

@test "a call past max_rate is refused with one line, exit 75, never run, and counted as rate_limited only" {
	local t='2026-01-01 00:00'
	run -0 cb_at "$t:00" run api -o max_rate=10/1m -- true
	run -75 cb_at "$t:01" run api -o max_rate=10/1m -- touch ran
	assert_output 'cbexec: api: rate limited (10 per 1m); next call in 5s'
	[ ! -e ran ]
	# Its turn, 6s after the first: admitted.
	run -0 cb_at "$t:06" run api -o max_rate=10/1m -- touch ran
	[ -e ran ]
	[ "$(json api '[.calls, .rate_limited, .rejected, .failures, .busy, .consecutive_failures] | map(tostring) | join(" ")')" = "2 1 0 0 0 0" ]
	[ "$(json api '.policy.max_rate + " " + (.policy.rate_burst | tostring)')" = "10/1m 1" ]
	# -q silences the line, not the exit code.
	run -75 cb_at "$t:07" -q run api -o max_rate=10/1m -- true
	assert_output ''
	# on_busy = skip: exit 0 silently; still counted.
	config 'defaults = { max_rate = "10/1m"; on_busy = "skip"; };'
	run -0 cb_at "$t:08" run api -- touch skipped
	assert_output ''
	[ ! -e skipped ]
	[ "$(json api .rate_limited)" = 3 ]
	run -0 cb status --prometheus
	assert_line 'cbexec_rate_limited_total{name="api"} 3'
}

@test "rate_burst B lets B through at once, then one per DURATION / N" {
	local t='2026-01-01 00:00'
	config 'defaults = { max_rate = "2/1m"; rate_burst = 3; };'
	run -0 cb_at "$t:00" run api -- true
	run -0 cb_at "$t:00" run api -- true
	run -0 cb_at "$t:00" run api -- true
	run -75 cb_at "$t:00" run api -- true
	assert_output 'cbexec: api: rate limited (2 per 1m); next call in 30s'
	run -75 cb_at "$t:29" run api -- true
	run -0 cb_at "$t:30" run api -- true
	run -75 cb_at "$t:31" run api -- true
	# A quiet spell earns the burst back, no more.
	for i in 1 2 3; do run -0 cb_at '2026-01-01 01:00:00' run api -- true; done
	run -75 cb_at '2026-01-01 01:00:00' run api -- true
	run -0 cb_at '2026-01-01 01:00:00' status api
	assert_output --partial 'Rate limit: 2 per 1m (burst 3): next call in 30s; 4 rate limited'
}

@test "bad max_rate and rate_burst are refused, naming the key" {
	run -125 cb run api -o max_rate=10 -- true
	assert_output --partial 'max_rate: must be N/DURATION such as "10/1m", or "none", not'
	run -125 cb run api -o max_rate=0/1s -- true
	assert_output --partial 'max_rate: N must be an integer from 1 to 1000000'
	run -125 cb run api -o rate_burst=0 -- true
	assert_output --partial 'rate_burst: must be an integer from 1 to 10000, not 0'
	config 'defaults = { max_rate = 10; };'
	run -1 cb config check
	assert_output --partial "$CBEXEC_CONFIG:1: max_rate: must be N/DURATION"
}

@test "checked before the breaker: an open breaker's refusal spends no turn, and a rate limited call is no rejection" {
	local t='2026-01-01 00'
	config 'defaults = { max_rate = "1/1m"; open_timeout = "10s"; trip = { failures = 1; }; };'
	run -1 cb_at "$t:00:00" run api -- false
	# Open, and no turn: rate limited, not rejected.
	run -75 cb_at "$t:00:05" run api -- true
	assert_output 'cbexec: api: rate limited (1 per 1m); next call in 55s'
	# Its turn, the cool-down over: the probe, which spends it.
	run -0 cb_at "$t:01:00" run api -- true
	[ "$(json api '[.state, .rejected, .rate_limited] | map(tostring) | join(" ")')" = "closed 0 1" ]
	run -75 cb_at "$t:01:30" run api -- true
	assert_output --partial 'rate limited'
	# Open for an hour; a call refused as open spends no turn ...
	run -1 cb_at "$t:02:00" run api -o open_timeout=1h -- false
	run -75 cb_at "$t:03:00" run api -o open_timeout=1h -- true
	assert_output --partial 'circuit open'
	[ "$(json api .rejected)" = 1 ]
	# ... so the turn of 00:03 is still there once it is closed.
	run -0 cb_at "$t:03:00" reset api
	run -0 cb_at "$t:03:00" run api -- true
}

@test "--wait sleeps until the turn when it comes within the wait, and is refused at once when not" {
	config 'defaults = { max_rate = "2/1s"; };'
	run -0 cb run api -- true
	local start end
	start=$(now_ms)
	run -0 cb run api --wait 3s -- touch ran
	end=$(now_ms)
	[ -e ran ]
	# It slept for its turn (500ms after the first, less the time taken).
	[ $((end - start)) -ge 300 ]
	# A wait that ends before the turn: refused at once, counted.
	run -0 cb run api -o max_rate=1/1m --wait 3s -- true || true
	start=$(now_ms)
	run -75 cb run api -o max_rate=1/1m --wait 3s -- touch late
	end=$(now_ms)
	[ $((end - start)) -lt 2000 ]
	[ ! -e late ]
	assert_output --regexp '^cbexec: api: rate limited \(1 per 1m\); next call in (59|60|1m|)s?'
	[ "$(json api .rate_limited)" = 1 ]
}

@test "a signal ends the --wait sleep: 128+N, nothing recorded" {
	run -0 cb run api -o max_rate=1/1m -- true
	local pid rc=0
	"$CBEXEC" run api -o max_rate=1/1m --wait 2m -- touch ran 2>err 3>&- &
	pid=$!
	echo "$pid" >w.pid
	# Asleep once it has asked the store: the sleep holds no lock, so
	# check answers meanwhile.
	sleep 0.3
	run -75 cb check api -o max_rate=1/1m
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" = 143 ]
	[ ! -e ran ]
	[ "$(json api '[.calls, .rate_limited] | map(tostring) | join(" ")')" = "1 0" ]
}

@test "check answers for the rate limit and takes no turn; acquire takes one" {
	local t='2026-01-01 00:00'
	config 'defaults = { max_rate = "1/1m"; };'
	run -0 cb_at "$t:00" check api
	run -0 cb_at "$t:00" acquire api
	token=$output
	run -75 cb_at "$t:10" check api
	assert_output 'cbexec: api: rate limited (1 per 1m); next call in 50s'
	run -75 cb_at "$t:10" run api -- true
	# acquire refused: no token on stdout, exit 75.
	run -75 --separate-stderr cb_at "$t:10" acquire api
	assert_output ''
	run -0 cb_at "$t:20" release "$token" success
	# check at its turn admits, and took none: run then gets it.
	run -0 cb_at '2026-01-01 00:01:00' check api
	run -0 cb_at '2026-01-01 00:01:00' run api -- true
	run -75 cb_at '2026-01-01 00:01:00' check api
}

@test "the clock stepping back an hour makes no call wait more than one interval" {
	config 'defaults = { max_rate = "1/1m"; };'
	run -0 cb_at '2026-01-01 12:00:00' run api -- true
	run -75 cb_at '2026-01-01 11:00:00' run api -- true
	assert_output 'cbexec: api: rate limited (1 per 1m); next call in 1m'
	run -0 cb_at '2026-01-01 11:01:00' run api -- true
}

@test "8 processes x 100 calls with max_rate = 20/1s on one state file never pass GCRA's allowance" {
	config 'defaults = { max_rate = "20/1s"; };'
	local id start end
	start=${EPOCHREALTIME/./}
	for id in 1 2 3 4 5 6 7 8; do
		bg "$id" rate_hammer "$id"
	done
	WAIT_S=120 bg_wait 1 2 3 4 5 6 7 8
	end=${EPOCHREALTIME/./}
	for id in 1 2 3 4 5 6 7 8; do
		[ "$(bg_rc "$id")" = 0 ] || { cat "$T/out.$id" "$T/err.$id"; false; }
	done
	local out
	out=$(rate_check 50 1 "$start" "$end" adm.*) || { echo "$out"; false; }
	echo "# $out" >&3
	# Every call counted once: admitted ones as calls, the rest as
	# rate_limited, none as a failure or rejection.
	local n
	n=$(cat adm.* | wc -l)
	[ "$(json rl '[.calls, .calls + .rate_limited, .rejected, .failures] | map(tostring) | join(" ")')" = "$n 800 0 0" ]
}
