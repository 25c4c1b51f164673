#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 10-run: how run starts the command and what it exits with: the command's
# own status, 128+N for a signal, 124 for a timeout, 126/127 when the
# command cannot be run; no shell, no leaked descriptors, process groups,
# and signals forwarded to the command.

load helper

# finish PID: wait (at most 5s) for the background job PID to end and set
# rc to its exit status.
finish() {
	wait_for eval "! alive $1" || return 1
	rc=0
	wait "$1" || rc=$?
}

@test "a command that exits 0 makes run exit 0" {
	run -0 cb run x -- true
}

@test "a command's exit status is run's exit status" {
	run -3 cb run x -- sh -c 'exit 3'
	run -255 cb run x -- sh -c 'exit 255'
}

@test "the command's stdout and stderr are passed through, with nothing added" {
	run --separate-stderr -0 cb run x -- sh -c 'echo out; echo err >&2'
	assert_output out
	assert_equal "$stderr" err
}

@test "the command reads cbexec's stdin" {
	run -0 bash -c 'echo data | "$CBEXEC" run x -- cat'
	assert_output data
}

@test "arguments reach the command verbatim: spaces, empty strings, globs" {
	run -0 cb run x -- printf '[%s]' 'a b' '' '*' '$HOME'
	assert_output '[a b][][*][$HOME]'
}

@test "a command killed by signal 9 makes run exit 137" {
	run -137 cb run x -- sh -c 'kill -9 $$'
}

@test "a command killed by SIGTERM makes run exit 143" {
	run -143 cb run x -- sh -c 'kill -TERM $$'
}

@test "a command that is not found exits 127 and is recorded as ignored" {
	run -127 cb run x -- no-such-command-cbexec-test
	assert_output "cbexec: failed to run command 'no-such-command-cbexec-test': No such file or directory"
	assert_equal "$(json_field x ignored)" 1
	assert_equal "$(json_field x failures)" 0
	assert_equal "$(json_field x consecutive_failures)" 0
	assert_equal "$(json_field x calls)" 1
}

@test "a file without execute permission exits 126 and is recorded as ignored" {
	printf '#!/bin/sh\ntouch marker\n' >noexec
	chmod 0644 noexec
	run -126 cb run x -- ./noexec
	assert_output "cbexec: failed to run command './noexec': Permission denied"
	assert [ ! -e marker ]
	assert_equal "$(json_field x ignored)" 1
	assert_equal "$(json_field x failures)" 0
}

@test "a command that cannot be run is reported as timeout(1) does, even with -q" {
	run -127 cb -q run x -- no-such-command-cbexec-test
	assert_output "cbexec: failed to run command 'no-such-command-cbexec-test': No such file or directory"
	mkdir adir
	run -126 cb -q run x -- ./adir
	assert_output --regexp "^cbexec: failed to run command './adir': "
}

@test "a command that runs and itself exits 127 is a failure, not ignored" {
	run -127 cb run x -- sh -c 'exit 127'
	assert_equal "$(json_field x failures)" 1
	assert_equal "$(json_field x ignored)" 0
}

@test "the command never goes through a shell: a string with ; is one word" {
	run -127 cb run x -- 'touch marker; true'
	assert [ ! -e marker ]
	assert [ ! -e 'marker; true' ]
}

@test "a timeout ends the command at once and exits 124" {
	local start elapsed
	start=$(now_ms)
	run -124 cb run x -t 200ms -- sleep 10
	elapsed=$(($(now_ms) - start))
	assert [ "$elapsed" -ge 200 ]
	# Well before the command itself would have ended, whatever the load.
	assert [ "$elapsed" -lt 9000 ]
}

@test "timeout from the config applies" {
	config 'defaults = { timeout = "200ms"; kill_after = "200ms"; };'
	run -124 cb run x -- sh -c "trap '' TERM; sleep 10"
}

@test "-o timeout=200ms works like -t 200ms" {
	run -124 cb run x -o timeout=200ms -- sleep 10
}

@test "long options take their value after = too" {
	run -124 cb run x --timeout=200ms --kill-after=200ms -- sh -c "trap '' TERM; sleep 10"
}

@test "-t 0 means no timeout" {
	run -0 cb run x -t 0 -- sleep 0.3
	assert_equal "$(json_field x timeouts)" 0
}

@test "-k 0 never sends SIGKILL: a command that ignores SIGTERM ends by itself, still 124" {
	local start
	start=$(now_ms)
	run -124 cb run x -t 100ms -k 0 -- sh -c "trap '' TERM; sleep 0.6"
	assert [ "$(($(now_ms) - start))" -ge 600 ]
}

@test "a timeout is recorded as a failure and a timeout with last_exit 124" {
	run -124 cb run x -t 100ms -- sleep 10
	assert_equal "$(json_field x timeouts)" 1
	assert_equal "$(json_field x failures)" 1
	assert_equal "$(json_field x last_exit)" 124
}

@test "a command that ignores SIGTERM is killed after --kill-after and run exits 124" {
	local start elapsed
	start=$(now_ms)
	run -124 cb run x -t 200ms -k 200ms -- sh -c "trap '' TERM; sleep 10"
	elapsed=$(($(now_ms) - start))
	assert [ "$elapsed" -ge 400 ]
	assert [ "$elapsed" -lt 9000 ]
}

@test "a command that stopped itself still ends at the timeout: SIGTERM is followed by SIGCONT" {
	local start elapsed
	start=$(now_ms)
	# It acts on SIGTERM only once continued; SIGKILL would come only
	# after 60s.
	run -124 cb run x -t 300ms -k 60s -- \
	    sh -c 'trap "echo term >got-term; exit 0" TERM; kill -STOP $$; sleep 60'
	elapsed=$(($(now_ms) - start))
	assert [ "$elapsed" -lt 30000 ]
	assert_equal "$(cat got-term)" term
}

@test "a timeout reaches the command's children too" {
	run -124 cb run x -t 300ms -k 1s -- \
	    sh -c 'sleep 30 >/dev/null 2>&1 & echo $! >grandchild.pid; wait'
	assert [ -s grandchild.pid ]
	gone "$(cat grandchild.pid)"
}

@test "the command leads a process group of its own" {
	run -0 cb run x -- sh -c 'cut -d" " -f5 /proc/$$/stat; echo $$'
	assert_equal "${lines[0]}" "${lines[1]}"
}

@test "--foreground leaves the command in cbexec's process group" {
	run -0 cb run x --foreground -- \
	    sh -c 'cut -d" " -f5 /proc/$$/stat; cut -d" " -f5 /proc/$PPID/stat'
	assert_equal "${lines[0]}" "${lines[1]}"
}

@test "--foreground still times out with 124" {
	run -124 cb run x --foreground -t 200ms -- sleep 10
}

@test "SIGTERM to cbexec is forwarded to the command: exit 143, recorded interrupted" {
	"$CBEXEC" run x -- sh -c 'echo $$ >child.pid; touch ready; exec sleep 10' \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e ready
	kill -TERM "$pid"
	finish "$pid"
	assert_equal "$rc" 143
	assert_equal "$(json_field x interrupted)" 1
	assert_equal "$(json_field x failures)" 0
	assert_equal "$(json_field x consecutive_failures)" 0
}

@test "a SIGTERM while cbexec waits for the writer lock ends it at once: 143, nothing recorded" {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	# Only the signal can end these waits.
	config 'lock_timeout = "1h";'
	run -0 cb run x -- true
	# Another process holds the writer lock: recording the next outcome
	# has to wait for it.
	mkfifo hold.in
	"$HOLD_WRITER" "$CBEXEC_STATE" <hold.in >hold.out 3>&- &
	echo $! >holder.pid
	exec 8>hold.in
	wait_for grep -q held hold.out
	"$CBEXEC" run x -- touch ran >out 2>&1 3>&- 8>&- &
	local pid=$!
	wait_for test -e ran
	# The command collected, cbexec now waits for the lock to record
	# "success" (an event, not a time: a loaded machine overruns those).
	wait_for eval "! pgrep -P $pid >/dev/null"
	kill -TERM "$pid"
	finish "$pid"	# the holder still holds the lock
	assert_equal "$rc" 143
	# Waiting to be admitted (a run slot is a write): the same.  SIGHUP
	# at its default, as it may not be in bats (nohup).
	env --default-signal=HUP "$CBEXEC" run x -o max_concurrent=1 -- touch ran2 >out 2>&1 3>&- 8>&- &
	pid=$!
	# Its state open, it waits for the lock.
	wait_for eval "ls -l /proc/$pid/fd 2>/dev/null | grep -q -- '-lock\$'"
	kill -HUP "$pid"
	finish "$pid"
	assert_equal "$rc" 129
	[ ! -e ran2 ]
	exec 8>&-	# let go of the lock
	assert_equal "$(json_field x calls)" 1
	assert_equal "$(json_field x successes)" 1
}

@test "SIGHUP to cbexec is forwarded to the command: exit 129, recorded interrupted" {
	# SIGHUP at its default, as it may not be in bats (nohup).
	env --default-signal=HUP "$CBEXEC" run x -- sh -c 'echo $$ >child.pid; touch ready; exec sleep 10' \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e ready
	kill -HUP "$pid"
	finish "$pid"
	assert_equal "$rc" 129
	assert_equal "$(json_field x interrupted)" 1
}

@test "a command that handles the forwarded SIGTERM exits with its own status" {
	"$CBEXEC" run x -- sh -c 'trap "exit 7" TERM; touch ready; while :; do sleep 0.05; done' \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e ready
	kill -TERM "$pid"
	finish "$pid"
	assert_equal "$rc" 7
	assert_equal "$(json_field x interrupted)" 1
	assert_equal "$(json_field x failures)" 0
}

@test "-v says which signal went to which process group on a timeout" {
	run -124 cb -v run x -t 200ms -k 200ms -- sh -c 'trap "" TERM; exec sleep 10'
	assert_output --regexp 'cbexec: x: timeout after 200ms: sending SIGTERM to process group [0-9]+'
	assert_output --regexp 'cbexec: x: still running 200ms after the timeout: sending SIGKILL to process group [0-9]+'
	run -124 cb -v run x -t 200ms --foreground -- sleep 10
	assert_output --regexp 'cbexec: x: timeout after 200ms: sending SIGTERM to pid [0-9]+'
}

@test "the command inherits no descriptor beyond stdin, stdout and stderr" {
	# Close everything above 2 first, so any extra descriptor is cbexec's.
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec "$CBEXEC" run x -- sh -c "ls /proc/\$\$/fd"'
	assert_equal "${lines[*]}" "0 1 2"
}

@test "a descriptor the caller passed is passed on to the command, as with timeout(1)" {
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec 7</dev/null
	    exec "$CBEXEC" run x -- sh -c "ls /proc/\$\$/fd"'
	assert_equal "${lines[*]}" "0 1 2 7"
}

@test "a 3>file redirection reaches the command" {
	run -0 cb run x -- sh -c 'echo hi >&3' 3>out
	refute_output
	assert_equal "$(cat out)" hi
}

@test "the command sees none of cbexec's own files: state, lock, pipes, syslog" {
	# A probe and a transition: the state is open, syslog is written.
	run -0 cb trip x --for 1ms
	sleep 0.01
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec "$CBEXEC" run x -- sh -c "ls -l /proc/\$\$/fd/" 2>/dev/null'
	refute_output --partial state.mdb
	refute_output --partial socket:
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec "$CBEXEC" run x -- sh -c "ls /proc/\$\$/fd/" 2>/dev/null'
	assert_equal "${lines[*]}" "0 1 2"
	assert_equal "$(json_field x state)" closed
}

@test "make's jobserver descriptors pass through cbexec to a sub-make" {
	command -v make >/dev/null || skip "no make"
	printf 'all:\n\t"$(CBEXEC)" run x -- $(MAKE) -f sub.mk\n' >Makefile
	# The sub-make's jobs each check that the jobserver it was told of
	# is open; without it make warns "jobserver unavailable".
	printf 'all: a b\na b:\n\t@echo "$@ $(MAKEFLAGS)" >$@.flags\n' >sub.mk
	run -0 make -j2 CBEXEC="$CBEXEC"
	refute_output --partial 'jobserver unavailable'
	refute_output --partial 'Bad file descriptor'
	run -0 cat a.flags
	assert_output --regexp 'jobserver-(auth|fds)='
}

@test "no transaction is held while the command runs: other runs and status go on" {
	"$CBEXEC" run x -- sh -c 'touch started; while [ ! -e release ]; do sleep 0.02; done' \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e started
	run -0 timeout 5 "$CBEXEC" run other -- true
	run -0 timeout 5 "$CBEXEC" trip third
	run -0 timeout 5 "$CBEXEC" status --json
	touch release
	finish "$pid"
	assert_equal "$rc" 0
	assert_equal "$(json_field x successes)" 1
}

@test "CBEXEC_DISABLE=1 runs the command unguarded, records nothing, warns once" {
	run -0 cb trip x
	CBEXEC_DISABLE=1 run --separate-stderr -3 cb run x -- sh -c 'touch marker; exit 3'
	assert [ -e marker ]
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" '^cbexec: warning: CBEXEC_DISABLE=1'
	assert_equal "$(json_field x calls)" 0
	assert_equal "$(json_field x rejected)" 0
}

@test "a directory as the command exits 126" {
	mkdir adir
	run -126 cb run x -- ./adir
	assert_equal "$(json_field x ignored)" 1
}

@test "a quick command with a long timeout does not wait for the timeout" {
	local start
	start=$(now_ms)
	run -0 cb run x -t 10s -- true
	# Far below the 10s timeout, whatever the load on the machine.
	assert [ "$(($(now_ms) - start))" -lt 8000 ]
	assert_equal "$(json_field x timeouts)" 0
}

@test "with --foreground SIGTERM to cbexec is still forwarded: exit 143, interrupted" {
	"$CBEXEC" run x --foreground -- sh -c 'echo $$ >child.pid; touch ready; exec sleep 10' \
	    >out 2>&1 3>&- &
	local pid=$!
	echo "$pid" >cbexec.pid
	wait_for test -e ready
	kill -TERM "$pid"
	finish "$pid"
	assert_equal "$rc" 143
	assert_equal "$(json_field x interrupted)" 1
}

@test "a large output passes through whole" {
	run -0 cb run x -- seq 1 100000
	assert_equal "${#lines[@]}" 100000
	assert_equal "${lines[99999]}" 100000
}

