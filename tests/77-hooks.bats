#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 77-hooks: transitions are logged per `log` and run `on_transition`:
# argv without a shell, the CBEXEC_* variables, stdin from /dev/null,
# stdout onto stderr, killed with its process group five seconds after it
# started.  A hook runs alongside the wrapped command, never before it,
# and never holds cbexec's exit for longer than that.

load helper

# hook BODY: an on_transition script running BODY under sh.
hook() {
	printf '#!/bin/sh\n%s\n' "$1" >"$T/hook"
	chmod +x "$T/hook"
	config "on_transition = [ \"$T/hook\" ];" "${@:2}"
}

@test "a run's transitions run the hook with the documented variables" {
	hook 'echo "$CBEXEC_EPOCH $CBEXEC_NAME $CBEXEC_FROM $CBEXEC_TO [$CBEXEC_REASON]" >>"'"$T"'/hook.log"' \
	    'log = "none";' 'defaults = { trip = { failures = 2; }; };'
	fail_n x 2
	run -0 cb_at +61s run x -- true
	wait_for eval '[ "$(wc -l <hook.log)" -eq 3 ]'
	# Hooks of one invocation may overlap: CBEXEC_EPOCH orders them.
	run -0 sort -n hook.log
	assert_line --index 0 '1 x closed open [2 consecutive failures]'
	assert_line --index 1 '2 x open half-open [cool-down elapsed]'
	assert_line --index 2 '3 x half-open closed [1 probe succeeded]'
}

@test "the hook never sees CBEXEC_REDIS_PASSWORD; the command does" {
	hook 'env >"'"$T"'/hook.env"'
	CBEXEC_REDIS_PASSWORD=sekrit run -0 cb trip x
	wait_for test -s hook.env
	run -0 grep -c '^CBEXEC_NAME=x$' hook.env
	run -1 grep CBEXEC_REDIS_PASSWORD hook.env
	CBEXEC_REDIS_PASSWORD=sekrit run -0 cb run y -- sh -c 'echo "$CBEXEC_REDIS_PASSWORD"'
	assert_output sekrit
}

@test "the hook gets argv as given, without a shell" {
	printf '#!/bin/sh\nprintf "[%%s]" "$@" >"%s/args"\n' "$T" >hook
	chmod +x hook
	config "on_transition = [ \"$T/hook\", \"a b\", \"\$HOME\", \"*\" ];"
	run -0 cb trip x
	assert_equal "$(cat args)" '[a b][$HOME][*]'
}

@test "the hook's output goes to stderr, never to cbexec's stdout" {
	hook 'echo hook-said-this'
	cb trip x >out 2>err
	# Only trip's own line, naming the breaker.
	assert_equal "$(cat out)" x
	grep -q hook-said-this err
}

@test "an admission transition's hook runs alongside the command, not before it" {
	# The hook waits (up to 10s) for the command's mark: run first, it
	# would be killed at 5s without ever seeing it.
	hook 'case $CBEXEC_TO in half-open)
	    i=0; while [ ! -e "'"$T"'/ran" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
	    [ -e "'"$T"'/ran" ] && echo saw-command >>"'"$T"'/hook.log" ;; esac'
	fail_n x 5
	run -0 cb_at +61s run x -- touch ran
	grep -q saw-command hook.log
}

@test "a hook started at admission is killed at 5s even while the command still runs" {
	hook 'case $CBEXEC_TO in half-open)
	    echo $$ >"'"$T"'/hook.pid"; exec sleep 60 ;; esac'
	fail_n x 5
	# The command outlives the hook's five seconds and watches it go
	# (for up to 25s: the margin a loaded machine may need).
	run --separate-stderr -0 cb_at +61s run x -- sh -c '
	    while [ ! -s hook.pid ]; do sleep 0.05; done
	    i=0
	    while kill -0 "$(cat hook.pid)" 2>/dev/null && [ $i -lt 250 ]; do
		sleep 0.1; i=$((i + 1))
	    done
	    if kill -0 "$(cat hook.pid)" 2>/dev/null; then echo alive; else echo gone; fi'
	assert_output gone
}

@test "a hanging hook is killed with its whole process group" {
	hook 'sleep 60 & echo $! >"'"$T"'/grandchild.pid"; echo $$ >"'"$T"'/hook.pid"; wait'
	local start
	start=$(now_ms)
	run -0 cb trip x
	# Generous: the hook would take 60s.
	assert [ "$(($(now_ms) - start))" -lt 30000 ]
	assert_output --partial "warning: on_transition: '$T/hook' killed after 5s"
	gone "$(cat hook.pid)"
	gone "$(cat grandchild.pid)"
	assert_equal "$(json_field x state)" open
}

@test "what a hook leaves running in its group is killed by the same deadline" {
	hook 'sleep 60 & echo $! >"'"$T"'/grandchild.pid"; exit 0'
	run -0 cb trip x
	gone "$(cat grandchild.pid)"
}

@test "hooks hanging at admission and at record are both cut off" {
	hook 'exec sleep 60'
	fail_n x 5 2>/dev/null
	local start
	start=$(now_ms)
	run -0 cb_at +61s run x -- true
	assert [ "$(($(now_ms) - start))" -lt 30000 ]
	assert_equal "$(grep -c 'killed after 5s' <<<"$output")" 2
	assert_equal "$(json_field x state)" closed
}

@test "a hook that cannot be run is reported and changes nothing" {
	config "on_transition = [ \"$T/no-such-hook\" ];"
	run -0 cb trip x
	assert_output --partial "warning: on_transition: cannot run '$T/no-such-hook'"
	assert_equal "$(json_field x state)" open
}

@test "-q silences hook warnings" {
	config "on_transition = [ \"$T/no-such-hook\" ];"
	run -0 cb -q trip x
	assert_output ''
}

@test "log = stderr prints one line per transition" {
	config 'log = "stderr";' 'defaults = { trip = { failures = 2; }; };'
	run -1 cb run x -- false
	assert_output ''
	local by="[$(id -un)@$(hostname)"
	run -1 cb run x -- false
	assert_output "cbexec: x: closed -> open (2 consecutive failures) $by: false]"
	run -0 cb_at +61s run x -- true
	assert_output "$(printf '%s\n' "cbexec: x: open -> half-open (cool-down elapsed) $by: true]" \
	    "cbexec: x: half-open -> closed (1 probe succeeded) $by: true]")"
	run -0 --separate-stderr cb trip x
	run -0 --separate-stderr cb reset x --reason test
	assert_equal "$stderr" "cbexec: x: open -> closed (manual reset by $(id -un): test)"
}

@test "log = none logs nothing; the caller is still told what its call caused" {
	config 'log = "none";' 'defaults = { trip = { failures = 1; }; };'
	run -1 cb run x -- false
	assert_output --regexp '^cbexec: x: circuit opened after 1 consecutive failure; refusing runs until [0-9:]{8}$'
	run -0 --separate-stderr cb trip y
	assert_equal "$stderr" ''
}

# no_syslog CMD...: CMD with nobody listening on /dev/log, as in most
# containers: as it is, or with /dev/null bound over /dev/log.
no_syslog() {
	if [ ! -e /dev/log ]; then
		"$@"
		return
	fi
	unshare -m sh -c 'mount --bind /dev/null /dev/log && exec "$@"' sh "$@"
}

@test "log = syslog (the default) sends transitions to syslog; stderr has only what the caller is told" {
	command -v python3 >/dev/null || skip "no python3 for a syslog listener"
	unshare -m true 2>/dev/null || skip "no mount namespace"
	config 'defaults = { trip = { failures = 1; }; };'
	export T
	run -1 with_syslog "$CBEXEC" run x -- false
	assert_output --regexp '^cbexec: x: circuit opened after 1 consecutive failure; refusing runs until [0-9:]{8}$'
	run -0 cat syslog
	assert_output --regexp 'cbexec\[[0-9]+\]: x: closed -> open \(1 consecutive failure\)'
}

@test "log = syslog with nobody on /dev/log: what the caller is told is told once, -v says why the log is lost" {
	if [ -e /dev/log ]; then
		unshare -m true 2>/dev/null || skip "/dev/log exists and no mount namespace"
	fi
	config 'defaults = { trip = { failures = 1; }; };'
	run --separate-stderr -1 no_syslog "$CBEXEC" run x -- false
	assert_regex "$stderr" '^cbexec: x: circuit opened after 1 consecutive failure; refusing runs until [0-9:]{8}$'
	run --separate-stderr -0 no_syslog "$CBEXEC" trip y --for 1ms
	assert_equal "$stderr" ''
	sleep 0.01
	run --separate-stderr -0 no_syslog "$CBEXEC" run y -- true
	assert_equal "$stderr" 'cbexec: y: circuit closed after a successful probe'
	# -v: why, once, and every transition.
	run --separate-stderr -0 no_syslog "$CBEXEC" -v trip z --for 1ms
	assert_equal "${stderr_lines[0]}" "cbexec: warning: cannot log to syslog (/dev/log: $(
	    [ -e /dev/log ] && echo 'Connection refused' || echo 'No such file or directory'))"
	assert_equal "${stderr_lines[1]}" "cbexec: z: closed -> open (manual trip by $(id -un))"
	assert_equal "${#stderr_lines[@]}" 2
	# -q: nothing on stderr.
	run --separate-stderr -1 no_syslog "$CBEXEC" -q run q -- false
	assert_equal "$stderr" ""
}
