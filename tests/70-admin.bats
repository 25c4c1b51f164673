#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 70-admin: the operator's commands trip, reset and forget: what they do
# to a breaker, who and why they record, their exit codes, several names at
# once, and the on_transition hook they fire.

load helper

@test "trip creates an unknown breaker open: the next run is refused" {
	run -0 cb trip new
	assert_equal "$(json_field new state)" open
	run -75 cb run new -- sh -c 'touch marker'
	assert [ ! -e marker ]
}

@test "trip opens a closed breaker for the current cool-down" {
	config 'defaults = { open_timeout = "30s"; };'
	ok_n x 1
	run -0 cb trip x
	assert_equal "$(json_field x state)" open
	assert_equal "$(open_period x)" 30000
}

@test "trip --for 2s opens for two seconds, then the half-open cycle follows" {
	run -0 cb trip x --for 2s
	assert_equal "$(open_period x)" 2000
	run -75 cb run x -- true
	run -0 cb_at +3s run x -- true
	assert_equal "$(json_field x state)" closed
}

@test "trip of an open breaker re-opens it for the new period and moves the epoch" {
	run -0 cb trip x --for 1h
	local epoch
	epoch=$(json_field x epoch)
	run -0 cb trip x --for 2s
	# It ends 2s after the trip; "open since" stays at the first.
	left=$(($(time_ms x open_until) - $(now_ms)))
	[ "$left" -gt 1000 ] && [ "$left" -le 2000 ] || fail "ends in ${left}ms"
	assert [ "$(json_field x epoch)" -gt "$epoch" ]
}

@test "trip without --for never shortens a window already open; --for sets the end exactly" {
	run -0 cb trip x --for 2h
	local until
	until=$(json_field x open_until)
	# The 1m cool-down would end it 2h early: the later end is kept.
	run -0 cb trip x --reason again
	assert_equal "$(json_field x open_until)" "$until"
	assert_equal "$(json_field x reason)" "manual trip by $(id -un): again"
	run -75 cb_at +90m run x -- true
	# A later end is taken: past the old one.
	run -0 cb_at +7170s trip x
	run -75 cb_at +7215s run x -- true
	# --for sets the end as asked, shorter or not.
	run -0 cb trip x --for 1s
	left=$(($(time_ms x open_until) - $(now_ms)))
	[ "$left" -gt 0 ] && [ "$left" -le 1000 ] || fail "ends in ${left}ms"
}

@test "trip --on-open skip: calls refused in this window exit 0 silently; the breaker's own on_open after it" {
	run -0 cb trip x --for 1h --on-open skip
	run -0 --separate-stderr cb run x -- touch ran
	assert_equal "$stderr" ''
	assert [ ! -e ran ]
	assert_equal "$(json_field x rejected)" 1
	# Another trip keeps the window's --on-open; --on-open fail sets it.
	run -0 cb trip x
	run -0 cb run x -- touch ran
	run -0 cb trip x --for 1h --on-open fail
	run -75 cb run x -- touch ran
	run -0 cb trip x --for 1h --on-open skip
	# Out of the window: a failed probe re-opens it, not by hand.
	run -1 cb_at +61m run x -- false
	run -75 cb_at +62m run x -- touch ran
	assert [ ! -e ran ]
	# run --on-open skip (the breaker's own) still works; a reset ends it.
	run -0 cb_at +62m run x --on-open skip -- touch ran
	run -0 cb trip y --on-open skip
	run -0 cb reset y
	run -0 cb run y -- true
	run -2 cb trip x --on-open maybe
	assert_line --index 0 "cbexec: trip: --on-open must be fail or skip, not 'maybe'"
}

@test "a quiet window never hides a refusal from a call whose own command line says --on-open fail" {
	run -0 cb trip x --for 2h --on-open skip
	run -75 --separate-stderr cb run x --on-open fail -- touch ran
	assert [ ! -e ran ]
	[[ $stderr == "cbexec: x: circuit open, retry in "* ]] || fail "stderr: $stderr"
	run -75 cb run x -o on_open=fail -- touch ran
	# The last one given wins; no option: the window's skip.
	run -0 cb run x --on-open fail --on-open skip -- touch ran
	run -0 --separate-stderr cb run x -- touch ran
	assert_equal "$stderr" ''
	assert [ ! -e ran ]
}

@test "reset of a closed breaker changes nothing and says so; trip and reset name the breaker they change" {
	cb_at -1m run x -- true
	before=$(json x '[.epoch, .manual, .changed_at] | tostring')
	run -0 --separate-stderr cb reset x
	assert_output 'x: already closed'
	assert_equal "$(json x '[.epoch, .manual, .changed_at] | tostring')" "$before"
	run -0 cb status --prometheus
	assert_line 'cbexec_manual{name="x"} 0'
	# A run in flight is not made stale by it.
	cb run x -- sh -c 'touch started; while [ ! -e go ]; do sleep 0.02; done' 3>&- &
	pid=$!
	WAIT_S=10 wait_for test -e started
	run -0 cb reset 'x*'
	assert_output 'x: already closed'
	touch go
	wait "$pid"
	assert_equal "$(json x '[.stale, .successes] | tostring')" '[0,2]'
	# The single NAME form names what it changes; -q silences it.
	run -0 --separate-stderr cb trip x --for 1h
	assert_output x
	run -0 --separate-stderr cb reset x
	assert_output x
	run -0 --separate-stderr cb -q trip x
	assert_output ''
	run -0 --separate-stderr cb -q reset x
	assert_output ''
	run -0 --separate-stderr cb -q reset x
	assert_output ''
}

@test "a second trip keeps \"open since\": the window's start stays visible" {
	export TZ=UTC
	cb_at '@2026-01-01 10:00:00' trip x --for 2h
	cb_at '@2026-01-01 10:30:00' trip x --for 1h
	run -0 cb_at '@2026-01-01 10:31:00' status x
	assert_line --regexp '^ +State: open since 2026-01-01 10:00:0[0-9] UTC \(3[01]m ago\): manual trip by '
	assert_equal "$(json x '.opened_at' | cut -c1-16)" '2026-01-01T10:00'
	# Its end is what the second one asked for.
	assert_equal "$(json x '.open_until' | cut -c1-16)" '2026-01-01T11:30'
}

@test "status shows a manual window's --on-open, in the detail view and JSON" {
	run -0 cb trip x --for 1h --on-open skip
	assert_equal "$(json_field x manual_on_open)" skip
	run -0 cb status x
	assert_line --partial '; until then refused calls exit 0 silently'
	run -0 cb trip y --for 1h --on-open fail
	assert_equal "$(json_field y manual_on_open)" fail
	run -0 cb status y
	assert_line --partial '; until then refused calls fail'
	run -0 cb trip z
	assert_equal "$(json_field z manual_on_open)" null
	run -0 cb status z
	refute_output --partial 'until then'
}

@test "trip leaves the backoff as it was: the next failed probe doubles on" {
	fail_n x 5
	run -1 cb_at +61s run x -- false
	assert_equal "$(open_period x)" 120000
	run -0 cb_at +182s trip x --for 1s
	run -1 cb_at +184s run x -- false
	assert_equal "$(open_period x)" 240000
}

@test "trip --reason is recorded with the user's name" {
	run -0 cb trip x --reason 'database maintenance'
	run -0 cb status x
	assert_output --partial 'database maintenance'
	assert_output --partial "$(id -un)"
}

@test "a refusal after a manual trip gives the trip as the reason" {
	run -0 cb trip x --reason 'maintenance'
	run -75 cb run x -- true
	assert_output --partial "manual trip by $(id -un): maintenance"
}

@test "trip with a bad duration, no name or a bad name is a usage error (2)" {
	run -2 cb trip x --for soon
	# --for 0 would silently mean the cool-down: refused, as acquire
	# --lease 0 is.
	run -2 cb trip x --for 0
	assert_output "cbexec: trip: --for: must be longer than 0"
	run -2 cb trip x --for 0s
	run -2 cb trip
	run -2 cb trip 'a b'
	run -0 cb status --names
	assert_output ''
}

@test "reset closes an open breaker and clears its failure streak" {
	fail_n x 5
	run -0 cb reset x
	assert_equal "$(json_field x state)" closed
	assert_equal "$(json_field x consecutive_failures)" 0
	run -0 cb run x -- true
	fail_n x 4
	assert_equal "$(json_field x state)" closed
}

@test "reset clears the backoff: the next opening uses open_timeout again" {
	fail_n x 5
	run -1 cb_at +61s run x -- false
	assert_equal "$(open_period x)" 120000
	run -0 cb reset x
	fail_n x 5
	assert_equal "$(open_period x)" 60000
}

@test "reset --reason is recorded with the user's name" {
	run -0 cb trip x
	run -0 cb reset x --reason 'fixed the disk'
	run -0 cb status x
	assert_output --partial 'fixed the disk'
	assert_output --partial "manual reset by $(id -un)"
}

@test "reset of an unknown breaker exits 1 naming it" {
	ok_n x 1
	run -1 cb reset nosuch
	assert_output --partial nosuch
	run -1 cb status nosuch
}

@test "forget removes a breaker: status NAME then exits 1" {
	fail_n x 5
	run -0 cb forget x
	run -1 cb status x
	run -0 cb status --names
	assert_output ''
	run -0 cb run x -- true
	assert_equal "$(json_field x calls)" 1
}

@test "forget of an unknown breaker exits 1 naming it" {
	ok_n x 1
	run -1 cb forget nosuch
	assert_output --partial nosuch
	run -0 cb status --names
	assert_output x
}

@test "trip, reset and forget take several names" {
	run -0 cb trip a b c
	assert_equal "$(json_field a state)/$(json_field b state)/$(json_field c state)" open/open/open
	run -0 cb reset a b
	assert_equal "$(json_field a state)/$(json_field b state)/$(json_field c state)" closed/closed/open
	run -0 cb forget a c
	run -0 cb status --names
	assert_output b
}

@test "a GLOB resets the breakers it matches, naming each; others stay as they were" {
	config 'log = "none";'	# transitions stay out of the output
	run -0 cb trip api-1 api-2 db
	run -0 cb reset 'api-*'
	assert_output "$(printf 'api-1\napi-2')"
	assert_equal "$(json_field api-1 state)/$(json_field api-2 state)/$(json_field db state)" closed/closed/open
	# Manual reset of each matched breaker, with the reason.
	run -0 cb status api-2
	assert_output --partial "manual reset by $(id -un)"
}

@test "a GLOB trips only existing breakers; an exact NAME still creates one" {
	config 'log = "none";'	# transitions stay out of the output
	ok_n web-1 1
	ok_n web-2 1
	run -0 cb trip 'web-?' new --reason 'rack move'
	assert_output "$(printf 'new\nweb-1\nweb-2')"
	assert_equal "$(json_field web-1 state)/$(json_field web-2 state)/$(json_field new state)" open/open/open
	run -0 cb status --names
	assert_output "$(printf 'new\nweb-1\nweb-2')"
	run -0 cb status web-1
	assert_output --partial 'rack move'
}

@test "a GLOB forgets the breakers it matches; [ ] classes work" {
	run -0 cb trip a1 a2 a3 b1
	run -0 cb forget 'a[12]'
	assert_output "$(printf 'a1\na2')"
	run -0 cb status --names
	assert_output "$(printf 'a3\nb1')"
}

@test "-q: a GLOB acts without naming the breakers" {
	run -0 cb trip x1 x2
	run -0 cb -q reset 'x*'
	assert_output ''
	assert_equal "$(json_field x1 state)/$(json_field x2 state)" closed/closed
	run -0 cb -q forget 'x*'
	assert_output ''
	run -0 cb status --names
	assert_output ''
}

@test "a GLOB matching nothing exits 1 naming it; the other operands are still done" {
	config 'log = "none";'	# transitions stay out of the output
	run -0 cb trip a
	for c in trip reset forget; do
		run -1 cb "$c" 'nomatch-*'
		assert_output "cbexec: no breaker matches 'nomatch-*'"
	done
	run -0 cb status --names
	assert_output a
	run -1 cb reset 'nomatch-*' a
	assert_output "cbexec: no breaker matches 'nomatch-*'
a"
	assert_equal "$(json_field a state)" closed
}

@test "a breaker named twice, or matched by two GLOBs, is acted on once" {
	config 'log = "none";'	# transitions stay out of the output
	run -0 cb trip a1 a2
	run -0 cb reset 'a*' 'a?' a1
	# Each named once.
	assert_output "a1
a2"
	# One reset each: the epoch moved once (trip, reset).
	assert_equal "$(json_field a1 epoch)/$(json_field a2 epoch)" 2/2
}

@test "a GLOB with a control byte is a usage error (2)" {
	run -2 cb forget "$(printf 'a*\tb')"
	assert_output --partial 'byte 0x09'
}

@test "reset or forget with one unknown name among known ones exits 1" {
	run -0 cb trip a b
	run -1 cb reset a nosuch
	run -1 cb forget b nosuch
}

@test "a manual trip and reset run the on_transition hook with the documented environment" {
	cat >hook <<'EOF'
#!/bin/sh
echo "$CBEXEC_NAME $CBEXEC_FROM $CBEXEC_TO $CBEXEC_EPOCH [$CBEXEC_REASON]" >>"$HOOK_LOG"
EOF
	chmod +x hook
	export HOOK_LOG=$T/hook.log
	config "on_transition = [ \"$T/hook\" ];"
	run -0 cb trip x --reason because
	run -0 cb reset x
	wait_for eval '[ -e hook.log ] && [ "$(wc -l <hook.log)" -eq 2 ]'
	run -0 cat hook.log
	assert_line --index 0 --regexp "^x closed open [0-9]+ \[manual trip by $(id -un): because\]$"
	assert_line --index 1 --regexp "^x open closed [0-9]+ \[manual reset by $(id -un)\]$"
}

@test "the hook's CBEXEC_EPOCH is the breaker's new epoch" {
	printf '#!/bin/sh\necho "$CBEXEC_EPOCH" >>"%s/epochs"\n' "$T" >hook
	chmod +x hook
	config "on_transition = [ \"$T/hook\" ];"
	run -0 cb trip x
	wait_for test -s epochs
	assert_equal "$(cat epochs)" "$(json_field x epoch)"
}

@test "the hook's stdin is /dev/null, not cbexec's" {
	printf '#!/bin/sh\ncat >/dev/null; echo read >>"%s/hook.log"\n' "$T" >hook
	chmod +x hook
	config "on_transition = [ \"$T/hook\" ];"
	# cbexec's stdin is a pipe whose writer stays open.
	mkfifo fifo
	sleep 30 >fifo 3>&- &
	echo "$!" >writer.pid
	# Were the fifo its stdin, cat would block until the hook is killed at
	# 5s, before it could log anything.
	run -0 cb trip x <fifo
	wait_for test -s hook.log
}

@test "a failing on_transition hook changes nothing" {
	config 'on_transition = [ "/bin/false" ];'
	run -0 cb trip x
	assert_equal "$(json_field x state)" open
	run -0 cb reset x
	assert_equal "$(json_field x state)" closed
}
