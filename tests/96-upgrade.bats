#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 96-upgrade: a state file written by cbexec 0.1.0 (tests/fixtures, see its
# README) is read by this version (SPEC 5): every breaker in it, with the
# fields that persist, and run, trip and reset work on it.  The clock is
# pinned two minutes after the file was written, so the leases and
# cool-downs in it are where they were.

load helper

FIX=$BATS_TEST_DIRNAME/fixtures

# The fields that persist in every record version; later versions may add
# fields, never drop or change these.
KEEP='name, state, epoch, consecutive_failures, half_open_successes, calls,
    successes, failures, timeouts, ignored, interrupted, stale, rejected,
    transitions, created_at, changed_at, opened_at, open_until, last_run_at,
    last_used_at, last_exit, last_duration_ms, reason, history'

setup() {
	common_setup
	cp "$FIX/state-0.1.0.mdb" "$CBEXEC_STATE"
	chmod 0600 "$CBEXEC_STATE"
}

# cb0 ARGS...: the binary at 2026-12-01 08:10:00 UTC.
cb0() {
	TZ=UTC cb_at '@2026-12-01 08:10:00' "$@"
}

# persisted FILE: the persisting fields of a status --json, sorted by name.
persisted() {
	jq -S "sort_by(.name) | map({$KEEP})" "$1"
}

@test "status --json of a 0.1.0 state file shows every breaker and its persisted fields" {
	status_json
	run -0 jq -r '.[].name' "$T/status.json"
	assert_output "$(printf '%s\n' down-api maint ok-svc probing rated)"
	persisted "$FIX/state-0.1.0.json" >"$T/want"
	persisted "$T/status.json" >"$T/got"
	run -0 diff -u "$T/want" "$T/got"
}

@test "the text table of a 0.1.0 state file names every breaker in its state" {
	run -0 cb status --names
	assert_output "$(printf '%s\n' down-api maint ok-svc probing rated)"
	run -0 cb status
	assert_line --regexp '^down-api +open'
	assert_line --regexp '^maint +open'
	assert_line --regexp '^ok-svc +closed'
	assert_line --regexp '^probing +half-open'
	assert_line --regexp '^rated +closed'
}

@test "run, trip and reset work on a 0.1.0 state file, and keep its counts" {
	# The manual trip holds for a day, and the probe slot is leased.
	run -75 cb0 run maint -- true
	assert_output --partial 'planned maintenance'
	run -75 cb0 run probing -- true
	# down-api's cool-down is over: a probe that succeeds closes it.
	run -0 cb0 run down-api -- true
	run -0 cb0 run ok-svc -- true
	run -1 cb0 run rated -- false
	run -0 cb0 trip ok-svc --reason upgrade
	run -0 cb0 reset maint
	status_json
	run -0 jq -c 'sort_by(.name) | .[] | [.name, .state, .epoch, .calls,
	    .successes, .failures, .rejected]' "$T/status.json"
	assert_output "$(printf '%s\n' \
	    '["down-api","closed",3,6,1,5,1]' \
	    '["maint","closed",2,0,0,0,1]' \
	    '["ok-svc","open",1,2,2,0,0]' \
	    '["probing","half-open",2,0,0,0,1]' \
	    '["rated","closed",0,2,0,2,0]')"
}
