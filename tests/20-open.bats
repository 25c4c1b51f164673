#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 20-open: the breaker itself: tripping, refusing, the cool-down and the
# half-open probes, backoff, check, epoch fencing, probe leases and a
# clock that steps back.  Clock moves use faketime (cb_at, AT=...).

load helper

# A probe command that announces itself and then waits for ./release.
PROBE='touch started.$$; echo $$ >child.$$.pid; echo $PPID >holder.$$.pid; while [ ! -e release ]; do sleep 0.02; done'

@test "five consecutive failures open the breaker" {
	fail_n x 5
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x consecutive_failures)" 5
}

@test "four consecutive failures leave it closed" {
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	run -0 cb run x -- true
}

@test "an open breaker refuses with 75 and does not run the command" {
	fail_n x 5
	run -75 cb run x -- sh -c 'touch marker'
	assert [ ! -e marker ]
	assert_output --regexp '^cbexec: x: circuit open, retry in [0-9][0-9a-z.]* \(5 consecutive failures\)$'
	assert_equal "$(json_field x rejected)" 1
}

@test "-q silences the warning of an unguarded run, not the command" {
	printf 'not lmdb\n%.0s' {1..300} >"$CBEXEC_STATE"
	run --separate-stderr -0 cb -q run x -- echo ran
	assert_equal "$output" ran
	assert_equal "$stderr" ""
}

@test "-q leaves out the line that says the breaker opened" {
	fail_n x 4
	# Without -q it is said: 12-speech.
	run -1 cb -q run x -- false
	assert_output ''
	assert_equal "$(json_field x state)" open
}

@test "every transition moves the epoch: open, half-open, closed" {
	fail_n x 5
	local e
	e=$(json_field x epoch)
	run -0 cb_at +61s run x -- true
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x epoch)" "$((e + 2))"
}

@test "a refusal does not change the counts of runs" {
	fail_n x 5
	run -75 cb run x -- true
	run -75 cb run x -- true
	assert_equal "$(json_field x rejected)" 2
	assert_equal "$(json_field x failures)" 5
	assert_equal "$(json_field x successes)" 0
	assert_equal "$(json_field x calls)" 5
}

@test "a success between failures resets the streak" {
	fail_n x 4
	ok_n x 1
	fail_n x 4
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x consecutive_failures)" 4
}

@test "trip.failures from the config sets the threshold" {
	config 'defaults = { trip = { failures = 2; }; };'
	fail_n x 2
	run -75 cb run x -- true
}

@test "-q leaves out the refusal line but not the exit status" {
	fail_n x 5
	run -75 cb -q run x -- true
	assert_output ''
}

@test "--on-open skip exits 0 silently without running the command" {
	fail_n x 5
	run -0 cb run x --on-open skip -- sh -c 'touch marker'
	assert_output ''
	assert [ ! -e marker ]
}

@test "on_open = skip in the config exits 0 silently" {
	config 'defaults = { on_open = "skip"; };'
	fail_n x 5
	run -0 cb run x -- sh -c 'touch marker'
	assert_output ''
	assert [ ! -e marker ]
}

@test "--on-open fail on the command line beats on_open = skip in the config" {
	config 'defaults = { on_open = "skip"; };'
	fail_n x 5
	run -75 cb run x --on-open fail -- true
}

@test "open_exit_code from the config is the refusal's exit status" {
	config 'defaults = { open_exit_code = 99; };'
	fail_n x 5
	run -99 cb run x -- true
}

@test "-o open_exit_code=3 is the refusal's exit status" {
	fail_n x 5
	run -3 cb run x -o open_exit_code=3 -- true
}

@test "check exits 0 for a closed breaker and for an unknown one" {
	fail_n x 2
	run -0 cb check x
	run -0 cb check never-seen
}

@test "check exits 75 for an open breaker and runs nothing" {
	fail_n x 5
	run -75 cb check x
}

@test "a refused check prints run's refusal line, one line, nothing with -q" {
	fail_n x 5
	run --separate-stderr -75 cb check x
	assert_equal "${#stderr_lines[@]}" 1
	# The cool-down counts from the whole second the call started in.
	assert_regex "$stderr" '^cbexec: x: circuit open, retry in ([0-9]+s|1m) \(5 consecutive failures\)$'
	refute_output
	run -75 cb -q check x
	refute_output
	run -0 cb check y
	refute_output
}

@test "check exits open_exit_code when the config sets one" {
	config 'defaults = { open_exit_code = 99; };'
	fail_n x 5
	run -99 cb check x
}

@test "check exits open_exit_code even with on_open = skip" {
	config 'defaults = { on_open = "skip"; };'
	fail_n x 5
	run -75 cb check x
}

@test "before the cool-down has passed the breaker stays open" {
	fail_n x 5
	run -75 cb_at +50s run x -- sh -c 'touch marker'
	assert [ ! -e marker ]
}

@test "after the cool-down a probe runs and its success closes the breaker" {
	fail_n x 5
	run -0 cb_at +61s run x -- sh -c 'touch marker'
	assert [ -e marker ]
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x consecutive_failures)" 0
}

@test "check after the cool-down exits 0 and takes no probe slot" {
	fail_n x 5
	run -0 cb_at +61s check x
	run -0 cb_at +61s check x
	run -0 cb_at +61s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "a failed probe re-opens the breaker with the cool-down doubled" {
	fail_n x 5
	assert_equal "$(open_period x)" 60000
	run -1 cb_at +61s run x -- false
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 120000
	run -75 cb_at +170s run x -- true
	run -0 cb_at +182s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "the refusal after a failed probe gives the probe's failure as the reason" {
	fail_n x 5
	run -7 cb_at +61s run x -- sh -c 'exit 7'
	run -75 cb_at +62s run x -- true
	assert_output --partial 'circuit open, retry in'
	assert_output --partial '(probe failed: exit 7)'
}

@test "the cool-down is capped by max_open_timeout" {
	config 'defaults = { max_open_timeout = "90s"; };'
	fail_n x 5
	run -1 cb_at +61s run x -- false
	assert_equal "$(open_period x)" 90000
	run -1 cb_at +152s run x -- false
	assert_equal "$(open_period x)" 90000
}

@test "backoff = 1.0 keeps the cool-down unchanged" {
	config 'defaults = { backoff = 1.0; };'
	fail_n x 5
	run -1 cb_at +61s run x -- false
	assert_equal "$(open_period x)" 60000
}

@test "closing resets the cool-down to open_timeout" {
	fail_n x 5
	run -1 cb_at +61s run x -- false
	run -0 cb_at +182s run x -- true
	AT=+183s fail_n x 5
	assert_equal "$(open_period x)" 60000
}

@test "open_timeout from the config sets the first cool-down" {
	config 'defaults = { open_timeout = "30s"; };'
	fail_n x 5
	assert_equal "$(open_period x)" 30000
	run -0 cb_at +31s run x -- true
}

@test "jitter spreads open_until later by up to that fraction" {
	config 'defaults = { jitter = 0.5; };'
	local p i periods=()
	for i in 1 2 3 4 5; do
		fail_n "x$i" 5
		p=$(open_period "x$i")
		assert [ "$p" -ge 60000 ]
		assert [ "$p" -lt 90000 ]
		periods+=("$p")
	done
	# Spread, not just bounded: five draws from 30000 values that all
	# land on one (the bare cool-down, without jitter) mean no jitter.
	[ "$(printf '%s\n' "${periods[@]}" | sort -u | wc -l)" -ge 2 ]
}

@test "an ignored probe frees its slot and leaves the breaker half-open" {
	fail_n x 5
	run -127 cb_at +61s run x -- no-such-command-cbexec-test
	assert_equal "$(json_field x state)" half-open
	run -0 cb_at +62s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "a probe that ends after a reset is stale: its failure does not re-open" {
	fail_n x 5
	bg 1 cb_at +61s run x -- sh -c "$PROBE; exit 1"
	wait_for eval '[ "$(count started.*)" -eq 1 ]'
	run -0 cb reset x
	touch release
	bg_wait 1
	assert_equal "$(bg_rc 1)" 1
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x stale)" 1
	run -0 cb run x -- true
}

@test "with half_open_max_calls = 2 one success leaves it half-open, two close it" {
	config 'defaults = { half_open_max_calls = 2; };'
	fail_n x 5
	run -0 cb_at +61s run x -- true
	assert_equal "$(json_field x state)" half-open
	run -0 cb_at +62s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "with half_open_max_calls = 2 a failure after one success re-opens" {
	config 'defaults = { half_open_max_calls = 2; };'
	fail_n x 5
	run -0 cb_at +61s run x -- true
	run -1 cb_at +62s run x -- false
	assert_equal "$(json_field x state)" open
}

@test "only half_open_max_calls probes run at once; the others are refused" {
	config 'defaults = { half_open_max_calls = 2; open_timeout = "200ms"; };'
	fail_n x 5
	sleep 0.3
	local i
	for i in 1 2 3 4; do
		bg "$i" "$CBEXEC" run x -- sh -c "$PROBE"
	done
	wait_for eval '[ $(($(count started.*) + $(count rc.*))) -eq 4 ]'
	assert_equal "$(count started.*)" 2
	assert_equal "$(cat rc.*)" "$(printf '75\n75')"
	run -0 cat err.*
	assert_output --partial 'circuit half-open, 2 of 2 probes running, retry later'
	run -75 cb check x
	touch release
	bg_wait 1 2 3 4
	assert_equal "$(sort -n rc.1 rc.2 rc.3 rc.4 | tr '\n' ' ')" '0 0 75 75 '
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x successes)" 2
}

@test "a run admitted before a manual trip is stale: its success does not close" {
	bg 1 "$CBEXEC" run x -- sh -c 'touch started; while [ ! -e release ]; do sleep 0.02; done'
	wait_for test -e started
	run -0 cb trip x
	local epoch
	epoch=$(json_field x epoch)
	touch release
	bg_wait 1
	assert_equal "$(bg_rc 1)" 0
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x stale)" 1
	assert_equal "$(json_field x successes)" 0
	assert_equal "$(json_field x epoch)" "$epoch"
}

@test "a run admitted before a trip and reset is stale: its failure cannot trip the breaker" {
	fail_n x 4
	bg 1 "$CBEXEC" run x -- sh -c 'touch started; while [ ! -e release ]; do sleep 0.02; done; exit 1'
	wait_for test -e started
	run -0 cb trip x
	run -0 cb reset x
	fail_n x 4
	touch release
	bg_wait 1
	assert_equal "$(bg_rc 1)" 1
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x stale)" 1
	assert_equal "$(json_field x consecutive_failures)" 4
}

@test "a probe whose holder was killed is reclaimed: the next call is refused and it re-opens" {
	fail_n x 5
	bg 1 cb_at +61s run x -- sh -c "$PROBE"
	wait_for eval '[ "$(count started.*)" -eq 1 ]'
	assert_equal "$(json_field x state)" half-open
	local holder child
	holder=$(cat holder.*.pid)
	child=$(cat child.*.pid)
	kill -9 "$holder"
	kill -9 "$child"
	bg_wait 1
	gone "$holder"
	group_gone "$child"
	run -75 cb_at +62s run x -- sh -c 'touch marker'
	assert [ ! -e marker ]
	assert_output --partial 'probe slot lost'
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 120000
}

@test "a probe whose lease has passed is reclaimed even though its holder lives" {
	config 'defaults = { probe_lease = "5s"; };'
	fail_n x 5
	bg 1 cb_at +61s run x -- sh -c "$PROBE"
	wait_for eval '[ "$(count started.*)" -eq 1 ]'
	run -75 cb_at +61s run x -- true
	assert_output --partial 'half-open'
	run -75 cb_at +70s run x -- sh -c 'touch marker'
	assert [ ! -e marker ]
	assert_output --partial 'lease'
	assert_equal "$(json_field x state)" open
	touch release
	bg_wait 1
	assert_equal "$(bg_rc 1)" 0
	assert_equal "$(json_field x stale)" 1
	assert_equal "$(json_field x state)" open
}

@test "a clock stepped back keeps an open breaker open for at most one cool-down" {
	# Opened while the clock was a day ahead; now it is back to real time.
	AT=+1d fail_n x 5
	run -75 cb run x -- true
	local until now
	until=$(time_ms x open_until)
	now=$(now_ms)
	assert [ "$((until - now))" -le 60000 ]
	run -0 cb_at +61s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "rate policy: no verdict below min_calls" {
	config 'defaults = { trip = { policy = "rate"; window = 4; min_calls = 4; failure_rate = 0.5; }; };'
	fail_n x 3
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "rate policy: opens when failures reach failure_rate of the window" {
	config 'defaults = { trip = { policy = "rate"; window = 4; min_calls = 4; failure_rate = 0.5; }; };'
	ok_n x 1
	fail_n x 1
	ok_n x 1
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "time policy: successes do not clear the window" {
	config 'defaults = { trip = { policy = "time"; failures = 3; period = "60s"; }; };'
	fail_n x 1
	ok_n x 1
	fail_n x 1
	ok_n x 1
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "time policy: failures older than the period no longer count" {
	config 'defaults = { trip = { policy = "time"; failures = 3; period = "60s"; }; };'
	fail_n x 2
	AT=+61s fail_n x 1
	assert_equal "$(json_field x state)" closed
	AT=+62s fail_n x 1
	assert_equal "$(json_field x state)" closed
	AT=+63s fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "rate policy: old outcomes slide out of the window" {
	config 'defaults = { trip = { policy = "rate"; window = 4; min_calls = 4; failure_rate = 0.5; }; };'
	fail_n x 1
	ok_n x 4
	fail_n x 1
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "rate policy: closing clears the window" {
	config 'defaults = { trip = { policy = "rate"; window = 4; min_calls = 4; failure_rate = 0.5; }; };'
	fail_n x 4
	assert_equal "$(json_field x state)" open
	run -0 cb_at +61s run x -- true
	assert_equal "$(json_field x state)" closed
	AT=+62s fail_n x 1
	assert_equal "$(json_field x state)" closed
}

@test "a probe's lease is its timeout + kill-after + 5s" {
	fail_n x 5
	bg 1 cb_at +61s run x -t 3s -k 1s -- sh -c "$PROBE"
	wait_for eval '[ "$(count started.*)" -eq 1 ]'
	assert_equal "$(json x '.probes[0].lease_ms')" 9000
	run -75 cb_at "$(at_record x 'probes[0].lease_until' -1)" run x -- true
	assert_output --partial 'half-open'
	run -75 cb_at +71s run x -- true
	assert_output --partial 'lease'
	touch release
	bg_wait 1
	assert_equal "$(json_field x stale)" 1
}

@test "the refusal goes to stderr, stdout stays empty" {
	fail_n x 5
	run --separate-stderr -75 cb run x -- true
	assert_output ''
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "${stderr_lines[0]}" '^cbexec: x: circuit open, retry in [0-9][0-9a-z.]* \(5 consecutive failures\)$'
}

@test "an open breaker's refusal reads no caller identity, and says so in one write" {
	command -v strace >/dev/null || skip "no strace"
	fail_n x 5
	# Who the caller is (its start time, the boot id) goes only into a
	# slot; a refusal takes none.  LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    run -75 strace -f -o trace -e trace=openat,write \
	    "$CBEXEC" run x -- true
	run -1 grep -E 'random/boot_id|/proc/[0-9]+/stat"' trace
	run -0 grep -cE '^[0-9]+ +write\(2, ' trace
	assert_output 1
}

@test "the probe after the cool-down holds its slot as its caller" {
	fail_n x 5
	bg 1 cb_at +61s run x -t 3s -k 1s -- sh -c "$PROBE"
	wait_for eval '[ "$(count started.*)" -eq 1 ]'
	assert_equal "$(json x '.probes[0].pid')" "$(cat holder.*.pid)"
	assert_equal "$(json x '.probes[0].boot_id')" \
	    "$(tr -d '\n-' </proc/sys/kernel/random/boot_id)"
	assert [ "$(json x '.probes[0].start_time')" -gt 0 ]
	assert_equal "$(json x '.probes[0].lease_ms')" 9000
	touch release
	bg_wait 1
	assert_equal "$(json_field x state)" closed
}

@test "cron's drift: a call up to 2s before the cool-down ends is the probe, not refused for a whole period" {
	export TZ=UTC
	run -1 cb_at '@2026-01-01 10:00:02' run x -o trip.failures=1 -o open_timeout=3m -- false
	# Cron started the next tick at 10:03:01.4: the probe, which closes.
	run -0 cb_at '@2026-01-01 10:03:01' run x -o trip.failures=1 -o open_timeout=3m -- true
	assert_output --partial 'circuit closed'
	# Earlier than that is still refused.
	run -1 cb_at '@2026-01-01 11:00:02' run x -o trip.failures=1 -o open_timeout=3m -- false
	run -75 cb_at '@2026-01-01 11:02:59' run x -o trip.failures=1 -o open_timeout=3m -- true
}

@test "a refusal whose end comes from the end of the run that opened it says so" {
	export TZ=UTC
	# A 45-second job (faketime's clock 100 times as fast), a 1m cool-down.
	# A loaded machine makes the run end later still (a real second is
	# 100 here): the times are read back, not assumed.
	run -1 cb_at '@2026-01-01 07:00:01 x100' run api -o trip.failures=1 -o open_timeout=1m -- sh -c 'sleep 45; exit 1'
	run -75 cb_at "$(at_record api open_until -5)" run api -- true
	local re='^cbexec: api: circuit open, retry after ([0-9:]{8}): the run that opened it ended at ([0-9:]{8}) \(1 consecutive failure\)$'
	[[ $output =~ $re ]] || fail "$output"
	retry=$(date -ud "2026-01-01 ${BASH_REMATCH[1]}" +%s)
	ended=$(date -ud "2026-01-01 ${BASH_REMATCH[2]}" +%s)
	# Half the cool-down after the end, which came 45s or more after
	# the start.
	[ $((retry - ended)) -eq 30 ] || fail "$output"
	[ "$ended" -ge "$(date -ud '2026-01-01 07:00:46' +%s)" ] || fail "$output"
	# One that opened from its start says how long, as ever.
	run -1 cb_at '@2026-01-01 08:00:01' run b -o trip.failures=1 -o open_timeout=1m -- false
	run -75 cb_at '@2026-01-01 08:00:31' run b -- true
	assert_output --regexp '^cbexec: b: circuit open, retry in 3[01]s \(1 consecutive failure\)$'
}
