#!/usr/bin/env bats
# 91-security: file modes, the root config check, no shell anywhere, no
# descriptor leaks, no secrets on display.

load helper

setup() {
	common_setup
	NOBODY_DIR=
}

teardown() {
	[ -n "$NOBODY_DIR" ] && rm -rf "$NOBODY_DIR"
	common_teardown
}

@test "state and lock files are 0600 by default, even under umask 0" {
	umask 0
	run -0 cb run x -- true
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 600
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 600
}

@test "state_mode = 0640 is honoured exactly under umask 077" {
	config 'state_mode = "0640";'
	umask 077
	run -0 cb run x -- true
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 640
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 640
}

@test "as root, a group- or other-writable config file is refused: run goes unguarded, the rest fail" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	for m in 0664 0646; do
		chmod "$m" "$CBEXEC_CONFIG"
		run -0 cb run x -- touch ran
		assert [ -e ran ]
		rm ran
		assert_output --partial "writable by group or others"
		run -1 cb status
	done
}

@test "as another user, a world-writable config file is accepted" {
	[ "$(id -u)" = 0 ] || skip "needs root for setpriv"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	NOBODY_DIR=$(mktemp -d /tmp/cbexec-sec.XXXXXX)
	chmod 0777 "$NOBODY_DIR"
	printf 'log = "none";\n' >"$NOBODY_DIR/c.conf"
	chmod 0666 "$NOBODY_DIR/c.conf"
	run -0 setpriv --reuid nobody --regid nogroup --clear-groups \
	    env CBEXEC_CONFIG="$NOBODY_DIR/c.conf" \
	    CBEXEC_STATE="$NOBODY_DIR/state.mdb" "$CBEXEC" run x -- true
	assert_output ''
}

@test "arguments never pass through a shell" {
	run -0 cb run x -- printf '%s|' '$(touch pwned1)' '`touch pwned2`' ';' 'touch pwned3' '&&' '*'
	assert_output '$(touch pwned1)|`touch pwned2`|;|touch pwned3|&&|*|'
	assert [ ! -e pwned1 ] && assert [ ! -e pwned2 ] && assert [ ! -e pwned3 ]
}

@test "a NAME with shell syntax is refused before anything runs" {
	run -125 cb run '$(touch pwned)' -- touch ran
	run -125 cb run 'a;touch pwned' -- touch ran
	assert [ ! -e pwned ] && assert [ ! -e ran ]
}

@test "hook argv and variables never pass through a shell" {
	config 'log = "none";' \
	    "on_transition = [ \"$T/hook.sh\", \"\$(touch pwned1)\", \";touch pwned2\" ];"
	printf '#!/bin/sh\nprintf "%%s\\n" "$@" "$CBEXEC_REASON" >>"%s/hook.out"\n' "$T" >hook.sh
	chmod +x hook.sh
	run -0 cb trip x --reason '$(touch pwned3); `touch pwned4`'
	wait_for test -s hook.out
	run cat hook.out
	assert_line '$(touch pwned1)'
	assert_line ';touch pwned2'
	assert_output --partial '$(touch pwned3); `touch pwned4`'
	for i in 1 2 3 4; do assert [ ! -e "pwned$i" ]; done
}

@test "the command and the hook inherit no descriptor of cbexec's" {
	# ls lists its own directory descriptor (3) too, and nothing else.
	# Descriptors the caller passed (7 here) reach the command only.
	config 'log = "none";' 'on_transition = [ "/bin/ls", "/proc/self/fd" ];'
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec 7</dev/null
	    exec "$CBEXEC" run x -- /bin/ls /proc/self/fd'
	assert_output "$(printf '0\n1\n2\n3\n7')"
	run -0 bash -c 'exec 7</dev/null; exec "$CBEXEC" trip x'
	assert_output "$(printf '0\n1\n2\n3')"
}

@test "a CBEXEC_REDIS_PASSWORD in the environment appears in neither argv nor status" {
	export CBEXEC_REDIS_PASSWORD=s3cr3t-pw
	bg a cb run x -- sh -c 'echo $PPID >cb.pid; exec sleep 30'
	wait_for test -s cb.pid
	run -0 tr '\0' ' ' <"/proc/$(cat cb.pid)/cmdline"
	refute_output --partial s3cr3t
	run -0 cb status --json
	refute_output --partial s3cr3t
	run -0 cb status x
	refute_output --partial s3cr3t
	kill -TERM "$(cat cb.pid)"
	bg_wait a
}

@test "started with stdin and stderr closed, cbexec writes no message into its state file" {
	run -0 cb trip x
	# The refusal line goes to fd 2: it must not be the state file.
	"$CBEXEC" run x -- true <&- 2>&- && rc=0 || rc=$?
	assert_equal "$rc" 75
	run -0 cb status --json
	run -1 grep -c 'circuit open' "$CBEXEC_STATE"
}
