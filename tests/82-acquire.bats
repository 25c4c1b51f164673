#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 82-acquire: the two-step API of SPEC section 7b.  acquire admits a call as
# run would and prints an opaque token; release records its outcome with
# epoch fencing.  Half-open tokens hold a probe slot judged by its lease
# alone, or with --pid by that process's life too; closed-state tokens hold
# nothing.

load helper

TOKEN_RE='^cb1-[0-9a-f]+$'

# acq NAME [ARGS...]: acquire into $tok, which must succeed.
acq() {
	local rc=0
	tok=$(cbx acquire "$@" 2>>acq.err) || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "acquire $* exited $rc" >&2
		cat acq.err >&2
		return 1
	fi
	[[ $tok =~ $TOKEN_RE ]] || {
		echo "acquire printed no token: '$tok'" >&2
		return 1
	}
}

# guarded NAME CMD...: CMD guarded by acquire/release, as a script would.
guarded() {
	local name=$1 t rc=0
	shift
	t=$(cbx acquire "$name" 2>/dev/null) || return
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		cbx release "$t" success || return 99
	else
		cbx release "$t" failure || return 99
	fi
	return "$rc"
}

# The fields of status --json that depend on the sequence of outcomes only.
STATE='[.state, .epoch, .consecutive_failures, .calls, .successes,
	.failures, .ignored, .stale, .rejected, .cooldown_ms, .transitions,
	.half_open_successes, .window_calls, (.probes | length)] | tostring'

@test "acquire on a closed breaker prints one token on stdout and exits 0" {
	run --separate-stderr -0 cb acquire x
	assert_output --regexp "$TOKEN_RE"
	assert_equal "${#lines[@]}" 1
	assert_equal "$stderr" ""
}

@test "release records success, failure and ignore like a run's outcomes" {
	acq x
	run -0 cb release "$tok" success
	acq x
	run -0 cb release "$tok" failure
	acq x
	run -0 cb release "$tok" ignore
	assert_equal "$(json x '[.calls, .successes, .failures, .ignored] | tostring')" '[3,1,1,1]'
	assert_equal "$(json_field x consecutive_failures)" 1
	assert_equal "$(json_field x last_exit)" null
}

@test "five released failures open the breaker; then acquire exits 75 with no token" {
	for i in 1 2 3 4 5; do
		acq x
		cb release "$tok" failure
	done
	assert_equal "$(json_field x state)" open
	run --separate-stderr -75 cb acquire x
	assert_output ""
	# The cool-down counts from the whole second the call was acquired in.
	assert_regex "$stderr" '^cbexec: x: circuit open, retry in (59s|1m) \(5 consecutive failures\)$'
	assert_equal "$(json_field x rejected)" 1
}

@test "a refused acquire exits open_exit_code and prints no token even with on_open = skip" {
	config 'defaults = { on_open = "skip"; open_exit_code = 69; };'
	cb trip x
	run --separate-stderr -69 cb acquire x
	assert_output ""
}

@test "after the cool-down acquire takes the one probe slot; a second acquire is refused" {
	fail_n x 5
	AT=+61s acq x
	assert_equal "$(json_field x state)" half-open
	assert_equal "$(json x '.probes | length')" 1
	assert_equal "$(json x '.probes[0].pid')" 0
	run -75 cb_at +61s acquire x
	assert_output --partial 'half-open, 1 of 1 probes running'
	AT=+62s run -0 cbx release "$tok" success
	assert_equal "$(json_field x state)" closed
}

@test "a released probe failure re-opens the breaker with the cool-down doubled" {
	fail_n x 5
	AT=+61s acq x
	AT=+61s run -0 cbx release "$tok" failure
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 120000
}

@test "a half-open token not released within its lease is a dropped permit" {
	fail_n x 5
	AT=+61s acq x --lease 5s
	assert_equal "$(json x '.probes[0].lease_ms')" 5000
	# The acquiring process is gone, yet the slot is held until the lease ends.
	run -75 cb_at "$(at_record x 'probes[0].lease_until' -1)" acquire x
	assert_output --partial 'probes running'
	run -75 cb_at +67s run x -- touch marker
	assert [ ! -e marker ]
	assert_output --partial 'probe lease expired'
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 120000
	# Released late: stale, counted, changes nothing.
	AT=+68s run -0 cbx release "$tok" success
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x stale)" 1
}

@test "the lease defaults to probe_lease" {
	config 'defaults = { probe_lease = "3s"; };'
	fail_n x 5
	AT=+61s acq x
	run -75 cb_at +65s acquire x
	assert_output --partial 'probe lease expired'
}

@test "closed-state tokens hold no slot: any number may be out at once" {
	local toks=() i
	for i in 1 2 3 4 5 6; do
		acq x
		toks+=("$tok")
	done
	assert_equal "$(json x '.probes | length')" 0
	for tok in "${toks[@]}"; do
		cb release "$tok" success
	done
	assert_equal "$(json_field x successes)" 6
}

@test "a token from an older epoch is stale: exit 0, counted, nothing else" {
	acq x
	cb trip x
	cb reset x
	run -0 cb release "$tok" failure
	assert_equal "$(json_field x stale)" 1
	assert_equal "$(json_field x failures)" 0
	assert_equal "$(json_field x consecutive_failures)" 0
}

@test "a closed-state token released after the breaker opened cannot close it" {
	acq x
	cb trip x
	run -0 cb release "$tok" success
	assert_equal "$(json_field x state)" open
	assert_equal "$(json_field x stale)" 1
}

@test "a probe token released twice counts once" {
	config 'defaults = { half_open_max_calls = 2; };'
	fail_n x 5
	AT=+61s acq x
	AT=+61s run -0 cbx release "$tok" success
	AT=+61s run -0 cbx release "$tok" success
	assert_equal "$(json_field x state)" half-open
	assert_equal "$(json_field x stale)" 1
}

@test "release of a forgotten breaker makes it anew and counts the outcome there (SPEC 2, Identity)" {
	acq x
	cb forget x
	run -0 cb release "$tok" failure
	assert_equal "$(json x '[.state, .calls, .failures, .stale] | join(" ")')" \
	    'closed 1 1 0'
}

@test "slow_call applies to acquire/release, measured from the acquire" {
	# The clock moved, not waited for: 5s after the acquire is slow, an
	# at once release is not, with 2s to spare on a loaded machine.
	config 'defaults = { slow_call = "2s"; };'
	acq x
	AT=+5s cbx release "$tok" success
	assert_equal "$(json_field x failures)" 1
	acq x
	cb release "$tok" success
	assert_equal "$(json_field x successes)" 1
}

@test "a malformed token is a usage error (2) that names it, and records nothing" {
	acq x
	run -2 cb release "${tok}0" success
	assert_output --partial "invalid token '${tok}0'"
	run -2 cb release "${tok%?}$( [ "${tok: -1}" = 0 ] && echo 1 || echo 0)" success
	assert_output --partial 'checksum'
	run -2 cb release "${tok^^}" success
	run -2 cb release "cb1-zz" success
	run -2 cb release "" success
	run -2 cb release "not-a-token" failure
	assert_output --partial "invalid token 'not-a-token'"
	assert_equal "$(json_field x calls)" 0
}

@test "an outcome other than success, failure or ignore is a usage error (2)" {
	acq x
	run -2 cb release "$tok" ok
	assert_output --partial "not 'ok'"
	run -2 cb release "$tok"
	assert_equal "$(json_field x calls)" 0
}

@test "acquire usage errors exit 2: no name, a bad name, a bad --lease, an extra word" {
	run -2 cb acquire
	run -2 cb acquire 'a b'
	run -2 cb acquire x --lease soon
	run -2 cb acquire x --lease 0
	run -2 cb acquire x y
	run -2 cb acquire x --bogus
	run -1 cb status x
}

# holder NAME: a subshell that takes NAME's probe slot with --pid of itself
# (61s on, past the cool-down), then waits, its pid in holder.pid.
holder() {
	(
		cb_at +61s acquire "$1" --pid "$BASHPID" >tok 2>holder.err ||
		    exit
		exec sleep 600
	) &
	echo $! >holder.pid
	wait_for test -s tok
}

@test "acquire --pid PID: that process holds the probe slot while it lives" {
	fail_n x 5
	holder x
	assert_equal "$(json x '.probes[0].pid')" "$(cat holder.pid)"
	run -75 cb_at +62s run x -- touch marker
	assert_output --partial 'probes running'
	assert [ ! -e marker ]
	# Its release works as any other.
	AT=+62s run -0 cbx release "$(cat tok)" success
	assert_equal "$(json_field x state)" closed
	{
		kill -9 "$(cat holder.pid)"
		wait "$(cat holder.pid)"
	} 2>/dev/null || true
}

@test "acquire --pid: a holder killed with SIGKILL frees its slot at the next call, as a failure" {
	fail_n x 5
	holder x
	{
		kill -9 "$(cat holder.pid)"
		wait "$(cat holder.pid)"
	} 2>/dev/null || true
	# Well within the lease (1h): the slot is reclaimed as a dropped
	# permit, the breaker re-opens with backoff, the call is refused.
	run -75 cb_at +62s run x -- touch marker
	assert [ ! -e marker ]
	assert_output --partial "holder pid $(cat holder.pid) died"
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 120000
	assert_equal "$(json x '.probes | length')" 0
	# The next cool-down admits a probe again.
	AT=+200s run -0 cbx run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "acquire --pid of no process, or not a number, is a usage error (2)" {
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	run -2 cb acquire x --pid "$dead"
	assert_output "cbexec: acquire: --pid: no process $dead"
	run -2 cb acquire x --pid abc
	assert_output --partial "'abc' is not a process id"
	run -2 cb acquire x --pid 0
	run -2 cb acquire x --pid -5
	run -2 cb acquire x --pid
	run -1 cb status x
}

@test "acquire --lease takes its value after = or as the next word, before or after NAME" {
	fail_n x 5
	AT=+61s acq --lease=2s x
	run -75 cb_at +64s acquire x
	assert_output --partial 'probe lease expired'
}

@test "CBEXEC_DISABLE=1: acquire warns and prints a token whose release records nothing" {
	CBEXEC_DISABLE=1 run --separate-stderr -0 cb acquire x
	assert_output --regexp "$TOKEN_RE"
	assert_equal "$stderr" "cbexec: warning: CBEXEC_DISABLE=1: 'x' unguarded, nothing recorded"
	run -0 cb release "$output" failure
	run -1 cb status x
}

@test "a shell function guarded by acquire/release leaves the same state as run" {
	# The same sequence of outcomes through both, g by acquire/release and
	# r by run: failures open, refusals, a failed probe, a good probe.
	local n
	for n in g r; do
		if [ "$n" = g ]; then wrap=(guarded g); else wrap=(cbx run r --); fi
		run -1 "${wrap[@]}" false
		run -0 "${wrap[@]}" true
		for i in 1 2 3 4 5; do run -1 "${wrap[@]}" false; done
		run -75 "${wrap[@]}" true
		AT=+61s run -1 "${wrap[@]}" false
		AT=+62s run -75 "${wrap[@]}" true
		AT=+182s run -0 "${wrap[@]}" true
		AT=+183s run -1 "${wrap[@]}" false
		AT=+184s run -0 "${wrap[@]}" true
	done
	assert_equal "$(json g "$STATE")" "$(json r "$STATE")"
	assert_equal "$(json_field g state)" closed
	assert_equal "$(json_field g calls)" 11
	assert_equal "$(json_field g rejected)" 2
}

@test "the same holds for the rate policy with two probes" {
	config 'defaults = { trip = { policy = "rate"; window = 10; min_calls = 5; failure_rate = 0.5; }; open_timeout = "30s"; half_open_max_calls = 2; };'
	local n
	for n in g r; do
		if [ "$n" = g ]; then wrap=(guarded g); else wrap=(cbx run r --); fi
		for i in 1 2 3 4 5; do run -1 "${wrap[@]}" false; done
		run -75 "${wrap[@]}" true
		AT=+31s run -0 "${wrap[@]}" true
		AT=+31s run -0 "${wrap[@]}" true
		run -0 "${wrap[@]}" true
	done
	assert_equal "$(json g "$STATE")" "$(json r "$STATE")"
	assert_equal "$(json_field g state)" closed
}

@test "help acquire and help release describe them" {
	run -0 cb help acquire
	assert_output --partial -- '--pid PID'
	run -0 cb help acquire
	assert_output --partial '--lease'
	run -0 cb help release
	assert_output --partial 'success|failure|ignore'
	run -0 cb --help
	assert_output --partial 'acquire'
	assert_output --partial 'release'
}

@test "a token nobody could receive gives its probe slot back at once" {
	run -0 cb trip x --for 100ms
	sleep 0.2
	"$CBEXEC" acquire x >/dev/full 2>err && rc=0 || rc=$?
	assert_equal "$rc" 1
	grep -q 'cannot print the token' err
	# The one slot is free again: the next acquire is admitted.
	run -0 cb acquire x
	assert_output --regexp '^cb1-'
}

# in_pidns CMD...: CMD in a new pid namespace with its own /proc, beside
# a `sleep 600` that is the namespace's pid 2 (its init, sh, is pid 1); the
# sleep is killed after CMD.
in_pidns() {
	unshare -pf --mount-proc sh -c 'sleep 600 & "$@"; r=$?; kill $!; exit $r' \
	    sh "$@"
}

@test "acquire --pid: a pid reused by another process is not the holder (start times differ)" {
	[ "$(id -u)" = 0 ] || skip "needs root (a pid namespace)"
	unshare -pf --mount-proc true 2>/dev/null || skip "unshare -p is not permitted here"
	local fake=(env FAKETIME_DONT_FAKE_MONOTONIC=1
	    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	    faketime)
	fail_n x 5
	# Pid 2 of a first namespace holds the slot, and dies with it.
	run -0 in_pidns "${fake[@]}" -f +61s "$CBEXEC" acquire x --pid 2
	assert_equal "$(json x '.probes[0].pid')" 2
	sleep 0.1	# a later start time, in clock ticks
	# Pid 2 of a second namespace is alive, but not the holder.
	run -75 in_pidns "${fake[@]}" -f +62s "$CBEXEC" run x -- touch marker
	assert_output --partial "holder pid 2 died"
	assert [ ! -e marker ]
	assert_equal "$(json x '.probes | length')" 0
}
