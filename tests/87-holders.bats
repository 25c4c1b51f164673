#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 87-holders: who holds a run or probe slot, and when it frees (SPEC 2,
# Probe leases; 2b, The job holds the slot; issue 18 items 8, 9, 11, 17).
# A SIGKILLed cbexec's job holds its slot while its process group has a
# member, and past the lease the next call kills that group; a slot from
# another boot of a local state file frees at once, one from another PID
# namespace (a container) only at its lease; a pid that exists with
# another start time is dead, whoever owns it.  status judges all this
# itself, with no call before it.  Containers with equal pids share a
# state (SPEC 5, Containers; issue 25 item 6).

load helper

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (unshare, setpriv)"
}

# orphan NAME [RUN-OPTIONS...]: a run of NAME in the background whose job
# leaves a sleep behind in its group; then SIGKILL that cbexec (as the OOM
# killer would).  The sleep's pid goes to orphan.pid, the job's group to
# GROUP.  PDEATHSIG ends the job's shell, not the sleep.
orphan() {
	local name=$1 holder
	shift
	"$CBEXEC" run "$name" "$@" -- sh -c \
	    'sleep 300 & echo $! >"$0/orphan.pid"; echo $$ >"$0/group"; wait' \
	    "$T" 3>&- &
	holder=$!
	echo "$holder" >"$T/holder.pid"
	wait_for test -s "$T/orphan.pid"
	kill -9 "$holder"
	wait "$holder" 2>/dev/null || true
	GROUP=$(cat "$T/group")
	gone "$GROUP"
	alive "$(cat "$T/orphan.pid")"
}

# prom_running NAME: cbexec_running of NAME in the Prometheus export.
prom_running() {
	"$CBEXEC" status --prometheus >"$T/m.prom" || return 1
	sed -n "s/^cbexec_running{name=\"$1\"} //p" "$T/m.prom"
}

@test "a SIGKILLed cbexec's job holds its slot while its group lives; past the lease the next call kills the group" {
	config 'defaults = { max_concurrent = 1; };'
	orphan j -t 1s -k 1s
	run -75 cb run j -- touch ran
	assert_output --partial 'busy, 1 of 1 running'
	[ ! -e ran ]
	assert_equal "$(json j '.running | length')" 1
	assert_equal "$(prom_running j)" 1
	# Within the lease (1s + 1s + 5s) the group is never signalled.
	alive "$(cat orphan.pid)"
	run -0 cb_at +1m run j -- touch ran
	assert_output "cbexec: j: killed process group $GROUP of pid $(cat holder.pid), which outlived its lease"
	[ -e ran ]
	gone "$(cat orphan.pid)"
	assert_equal "$(json j '[.calls, .busy, .failures, (.running | length)] | map(tostring) | join(" ")')" \
	    '1 1 0 0'
}

@test "a lease that passes while cbexec still guards its job frees the slot but kills nothing" {
	config 'defaults = { max_concurrent = 1; probe_lease = "2s"; };'
	# No timeout: the lease is probe_lease, shorter than this job.
	"$CBEXEC" run j -- sh -c \
	    'echo $$ >"$0/job.pid"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" 3>&- &
	echo "$!" >holder.pid
	wait_for test -s job.pid
	run -75 cb run j -- true
	run -0 cb_at +1m run j -- true
	refute_output --partial killed
	alive "$(cat job.pid)"
	alive "$(cat holder.pid)"
	touch release
	wait "$(cat holder.pid)"
}

@test "status and the metrics drop a SIGKILLed holder once its job's group is gone, with no call between" {
	config 'defaults = { max_concurrent = 1; };'
	orphan j
	# The job's group holds the slot (SPEC 2b).
	assert_equal "$(json j '.running | length')" 1
	assert_equal "$(prom_running j)" 1
	kill -9 "$(cat orphan.pid)"
	gone "$(cat orphan.pid)"
	assert_equal "$(json j '.running | length')" 0
	assert_equal "$(prom_running j)" 0
	run -0 cb status j
	refute_output --partial 'running:'
}

@test "a slot holder of another boot is freed at once on a local state file, though its pid lives" {
	config 'defaults = { max_concurrent = 1; };'
	sleep 300 3>&- &
	echo "$!" >live.pid
	run -0 cb acquire x --pid "$(cat live.pid)"
	run -75 cb run x -- true
	local boot other
	boot=$(tr -d -- '-\n' </proc/sys/kernel/random/boot_id)
	other=$(printf '%s' "$boot" | tr 0-9a-f 1-9a-f0)
	patch_record x "gsub(/$boot/, \"$other\")"
	run -0 --separate-stderr cb run x -- touch ran
	assert_equal "$stderr" ''
	[ -e ran ]
	assert_equal "$(json x '[.busy, .failures, (.running | length)] | map(tostring) | join(" ")')" \
	    '1 0 0'
}

@test "a pid that exists with another start time is dead, also when another user owns it" {
	need_root
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	local dir
	dir=$(mktemp -d /tmp/cbexec-holders.XXXXXX)
	echo "$dir" >nobody.dir
	chmod 0755 "$dir"
	echo 'defaults = { max_concurrent = 1; };' >"$dir/c.conf"
	chmod 0644 "$dir/c.conf"
	chown nobody "$dir"
	# In a PID namespace of our own the pids are ours to hand out: user
	# nobody's holder dies and its pid goes to a process of root's.
	run -0 unshare -p -f --mount-proc env D="$dir" CB="$CBEXEC" sh -c '
		as() { setpriv --reuid nobody --regid nogroup --clear-groups \
		    env CBEXEC_STATE="$D/state.mdb" CBEXEC_CONFIG="$D/c.conf" \
		    HOME="$D" "$@"; }
		as sleep 300 &
		p=$!
		as "$CB" acquire x --pid "$p" >/dev/null ||
		    exit 10
		as "$CB" run x -- true 2>/dev/null
		[ $? = 75 ] || exit 11
		{ kill -9 "$p"; wait "$p"; } 2>/dev/null
		sleep 0.05	# another start time, in clock ticks
		echo $((p - 1)) >/proc/sys/kernel/ns_last_pid
		sleep 300 &
		[ $! = "$p" ] || exit 12
		as "$CB" run x -- true || exit 13
		kill -9 $!
		echo ok'
	assert_output ok
	rm -rf "$dir"
}

@test "a slot taken in another PID namespace is held until its lease, both ways" {
	need_root
	config 'defaults = { max_concurrent = 1; };'
	# A host run holds: a run in a container (its own PID namespace, its
	# own /proc) sees a pid it cannot judge.
	"$CBEXEC" run x -- sh -c \
	    'echo $$ >"$0/job.pid"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" 3>&- &
	echo "$!" >holder.pid
	wait_for test -s job.pid
	run -75 unshare -p -f --mount-proc "$CBEXEC" run x -- touch ran
	assert_output --partial 'busy, 1 of 1 running'
	[ ! -e ran ]
	touch release
	wait "$(cat holder.pid)"
	rm -f release job.pid
	# A container run holds (cbexec is pid 1 there): pid 1 here is init.
	unshare -p -f --mount-proc "$CBEXEC" run x -- sh -c \
	    'echo $$ >"$0/job.pid"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" 3>&- &
	echo "$!" >holder.pid
	wait_for test -s job.pid
	run -75 cb run x -- touch ran
	# Not init's pid 1: the container's, named by its PID namespace.
	ns=$(json x '.running[0].pidns')
	# Two commands: errexit ignores the left side of &&.
	[ "$ns" != null ]
	[ "$ns" != "$(stat -Lc %i /proc/self/ns/pid)" ]
	assert_output --partial "busy, 1 of 1 running (pid 1 in pid:[$ns] since"
	run -0 cb status x
	assert_line --partial "Running: pid 1 in pid:[$ns] on "
	[ ! -e ran ]
	# Its lease passed, it frees; nothing of another namespace is killed.
	run -0 cb_at +2h run x -- touch ran
	refute_output --partial killed
	[ -e ran ]
	touch release
	wait "$(cat holder.pid)"
}

# Containers with equal pids (SPEC 5, Containers; issue 25 item 6).  LMDB
# locks the byte at offset pid of the lock file for each process that
# reads, from its first read until it closes the state; two containers'
# cbexecs are both pid 2 when each container's init starts them.

need_pidns() {
	need_root
	unshare -p -f --mount-proc true 2>/dev/null ||
	    skip "unshare -p is not permitted here"
}

# in_pidns CMD...: CMD as pid 2 of a PID namespace of its own, as a
# container's init (sh, pid 1) starts it.
in_pidns() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -p -f --mount-proc sh -c '"$@"; r=$?; exit $r' sh "$@"
}

# hold_pid2: hold-writer -r as pid 2 of a container: its read transaction
# locks byte 2 of the lock file, until release_pid2.
hold_pid2() {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	mkfifo hold.in
	in_pidns "$HOLD_WRITER" -r "$CBEXEC_STATE" <hold.in >hold.out 3>&- &
	echo $! >holder.pid
	exec 8>hold.in
	wait_for grep -q held hold.out
}

release_pid2() {
	exec 8>&-
	wait "$(cat holder.pid)"
}

@test "two containers with equal pids share a state: while one's job holds the only slot, the other's call is refused busy, never run unguarded" {
	need_pidns
	config 'defaults = { max_concurrent = 1; };'
	bg a in_pidns "$CBEXEC" run x -- sh -c \
	    'echo $PPID >"$0/a.cbexec"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T"
	wait_for test -s a.cbexec
	assert_equal "$(cat a.cbexec)" 2
	run -75 in_pidns "$CBEXEC" run x -- touch ran
	assert_output --regexp "^cbexec: x: busy, 1 of 1 running \(pid 2 in pid:\[[0-9]+\] since [0-9:]+\)$"
	[ ! -e ran ]
	touch release
	bg_wait a
	assert_equal "$(bg_rc a)" 0
	assert_equal "$(cat err.a)" ''
	# The slot freed, the next container's call takes it.
	run -0 --separate-stderr in_pidns "$CBEXEC" run x -- touch ran
	assert_equal "$stderr" ''
	[ -e ran ]
	assert_equal "$(json x '[.calls, .busy, (.running | length)] | map(tostring) | join(" ")')" \
	    '2 1 0'
}

@test "a process of another container with the same pid reading the state for a moment is waited for" {
	need_pidns
	run -0 cb run x -- true
	hold_pid2
	# Not bg: bash would keep a copy of fd 8 in the subshell for the
	# redirection, and the holder would never see its stdin close.
	(
		rc=0
		in_pidns "$CBEXEC" run x -- touch ran 2>err.b || rc=$?
		echo "$rc" >rc.tmp && mv rc.tmp rc.b
	) 3>&- 8>&- &
	echo $! >b.pid
	# A second, as a container's cbexec holds it while it waits for the
	# writer lock: still waiting (it used to run the command unguarded
	# at once), and it goes on when the other lets go.
	sleep 1
	[ ! -e rc.b ]
	release_pid2
	wait "$(cat b.pid)"
	assert_equal "$(cat rc.b)" 0
	assert_equal "$(cat err.b)" ''
	[ -e ran ]
	assert_equal "$(json x .calls)" 2
}

@test "a process of another container with the same pid reading the state past lock_timeout: on_store_error, naming the state and why" {
	need_pidns
	config 'lock_timeout = "1s";' 'log = "none";' 'on_store_error = "closed";'
	run -0 cb run x -- true
	hold_pid2
	run -125 timeout 60 unshare -p -f --mount-proc sh -c \
	    '"$@"; r=$?; exit $r' sh "$CBEXEC" run x -- touch ran 8>&-
	assert_output "cbexec: state '$CBEXEC_STATE': byte 2 of its lock file, which LMDB locks for a reader of pid 2, stayed locked by another process (of another PID namespace, with the same pid) for lock_timeout (1s); refusing to run 'touch' (on_store_error = closed)"
	[ ! -e ran ]
	# status reads too, and says the same.
	run -1 timeout 60 unshare -p -f --mount-proc sh -c \
	    '"$@"; r=$?; exit $r' sh "$CBEXEC" status 8>&-
	assert_output --partial "byte 2 of its lock file"
	release_pid2
	assert_equal "$(json x .calls)" 1
}
