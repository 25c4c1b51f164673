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
load plant

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

# victim VAR CMD...: CMD (a setsid sleep) in the background, leading a
# process group of its own; its pid (its group) into VAR.
victim() {
	local var=$1
	shift
	"$@" 3>&- &
	printf -v "$var" '%s' "$!"
	echo "$!" >>"$T/victims"
	wait_for eval "[ \"\$(ps -o pgid= -p $!)\" -eq $! ]"
}

# forge NAME PGID [FIELD=VALUE...]: plant in NAME's record a run slot as a
# member of the state's group could write it: a dead pid 999999 started
# at tick 1, this boot and PID namespace, group PGID, a lease that passed a
# minute ago.
forge() {
	local name=$1 pgid=$2 now
	shift 2
	now=$(date +%s%3N)
	plant_record "$name" run.0.token=7 run.0.pid=999999 \
	    run.0.start_time=1 run.0.boot=self \
	    run.0.pidns="$(stat -Lc %i /proc/self/ns/pid)" \
	    run.0.pgid="$pgid" run.0.lease_until=$((now - 60000)) \
	    run.0.lease_ms=1000 run.0.since=$((now - 120000)) \
	    run.0.host="$(hostname)" "$@"
}

# marker_hash VALUE: jobmark_hash of NAME:TOKEN, as mkrecord's job= takes
# it: the first 8 bytes of its SHA-256, little-endian, in hex.
marker_hash() {
	printf '%s' "$1" | sha256sum | cut -c1-16 | sed 's/../& /g' |
	    awk '{ for (i = NF; i > 0; i--) printf "%s", $i }'
}

kill_victims() {
	[ -e "$T/victims" ] || return 0
	xargs kill -9 <"$T/victims" 2>/dev/null || true
}

teardown() {
	kill_victims
	[ ! -e "$T/dirs" ] || xargs rm -rf <"$T/dirs"
	common_teardown
}

@test "a forged run slot naming another user's session is never signalled by root's run or acquire: reclaimed past its lease, said once" {
	need_root
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	config 'defaults = { max_concurrent = 1; };'
	run -0 cb run x -- true
	local v
	victim v setpriv --reuid nobody --regid nogroup --clear-groups setsid sleep 300
	forge x "$v" run.0.job=0123456789abcdef
	run -0 cb run x -- touch ran
	assert_output "cbexec: x: pid 999999's group $v outlived its lease but is not provably the job's; not killed"
	[ -e ran ]
	alive "$v"
	# Reclaimed: said once.
	run -0 cb run x -- true
	assert_output ''
	assert_equal "$(json x '.running | length')" 0
	# acquire meets it the same way; and with -q, silently, still unkilled.
	forge x "$v"
	run -0 --separate-stderr cb acquire x
	[[ $stderr == *"x: pid 999999's group $v outlived its lease but is not provably the job's; not killed"* ]] ||
	    fail "stderr: $stderr"
	alive "$v"
	run -0 cb release "$output" success
	forge x "$v"
	run -0 cb -q run x -- true
	assert_output ''
	alive "$v"
}

@test "a forged run slot naming root's own session, with no marker or another's, is never signalled; the job's own marker is" {
	need_root
	config 'defaults = { max_concurrent = 1; };'
	run -0 cb run x -- true
	local v w tok other
	tok=0123456789abcdef0123456789abcdef
	other=fedcba9876543210fedcba9876543210
	victim v setsid sleep 300
	forge x "$v" run.0.job="$(marker_hash "x:$tok")"
	run -0 cb run x -- true
	assert_output --partial "group $v outlived its lease but is not provably the job's; not killed"
	alive "$v"
	# A member that carries the marker of another slot, or another
	# breaker's, proves nothing.
	victim w env CBEXEC_JOB="x:$other" setsid sleep 300
	forge x "$w" run.0.job="$(marker_hash "x:$tok")"
	run -0 cb run x -- true
	assert_output --partial "group $w outlived its lease but is not provably the job's; not killed"
	alive "$w"
	forge x "$w" run.0.job="$(marker_hash "y:$other")"
	run -0 cb run x -- true
	assert_output --partial 'not provably'
	alive "$w"
	# The marker whose hash the slot keeps is the proof.
	forge x "$w" run.0.job="$(marker_hash "x:$other")"
	run -0 cb run x -- true
	assert_output "cbexec: x: killed process group $w of pid 999999, which outlived its lease"
	gone "$w"
	alive "$v"
}

@test "the job carries CBEXEC_JOB=NAME:TOKEN; a probe command, a hook and a job without a slot carry none" {
	config 'defaults = { max_concurrent = 1; };'
	run -0 cb run x -- sh -c 'printf "%s\n" "$CBEXEC_JOB" >"$0/marker"' "$T"
	[[ $(cat marker) =~ ^x:[0-9a-f]{32}$ ]] || fail "marker: $(cat marker)"
	# Inherited from the caller, dropped: the job gets its own or none.
	CBEXEC_JOB=x:0 run -0 cb run y -o max_concurrent=0 -- \
	    sh -c 'printf "[%s]\n" "${CBEXEC_JOB-unset}" >"$0/none"' "$T"
	assert_equal "$(cat none)" '[unset]'
	config 'defaults = { max_concurrent = 1; probe = [ "sh", "-c", "printf \"[%s]\" \"${CBEXEC_JOB-unset}\" >probe.env" ]; };' \
	    "on_transition = [ \"sh\", \"-c\", \"printf '[%s]' \\\"\${CBEXEC_JOB-unset}\\\" >hook.env\" ];"
	run -0 cb trip z --for 1ms
	sleep 0.1
	CBEXEC_JOB=z:1 run -0 cb run z -- sh -c 'printf "%s\n" "$CBEXEC_JOB" >"$0/zjob"' "$T"
	assert_equal "$(cat probe.env)" '[unset]'
	wait_for test -s hook.env
	assert_equal "$(cat hook.env)" '[unset]'
	[[ $(cat zjob) =~ ^z:[0-9a-f]{32}$ ]] || fail "job: $(cat zjob)"
}

@test "a run slot whose group has a member older than its holder is dead: not busy, nothing signalled" {
	need_root
	config 'defaults = { max_concurrent = 1; };'
	run -0 cb run x -- true
	local v start now
	victim v setsid sleep 300
	start=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$v/stat")
	now=$(date +%s%3N)
	# A holder that started after the group's member: the group's id
	# was another's first, so it is not the job's.  Its lease is ahead.
	plant_record x run.0.token=7 run.0.pid=999999 \
	    run.0.start_time=$((start + 100)) run.0.boot=self \
	    run.0.pidns="$(stat -Lc %i /proc/self/ns/pid)" run.0.pgid="$v" \
	    run.0.lease_until=$((now + 3600000)) run.0.lease_ms=3600000 \
	    run.0.since=$((now - 1000)) run.0.host="$(hostname)"
	run -0 cb run x -- touch ran
	assert_output ''
	[ -e ran ]
	alive "$v"
}

@test "a holder hidden by hidepid=2 (EPERM) is not judged dead: the bulkhead holds while it lives" {
	need_root
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	id daemon >/dev/null 2>&1 || skip "no user daemon"
	local dir
	dir=$(mktemp -d /tmp/cbexec-hidepid.XXXXXX)
	echo "$dir" >>"$T/dirs"
	chgrp nogroup "$dir"
	chmod 1770 "$dir"
	printf 'state_mode = "0660";\nlog = "none";\ndefaults = { max_concurrent = 1; };\n' >"$dir/c.conf"
	chmod 0644 "$dir/c.conf"
	# A /proc of our own, mounted hidepid=2: user nobody sees none of
	# user daemon's processes, and kill(2) tells it EPERM.
	# Not run -0: a failure shows what the script said.
	run unshare -m -p -f --mount-proc env D="$dir" CB="$CBEXEC" sh -c '
		mount -o remount,hidepid=2 /proc || exit 9
		as() { u=$1; shift; setpriv --reuid "$u" --regid nogroup \
		    --clear-groups env CBEXEC_STATE="$D/state.mdb" \
		    CBEXEC_CONFIG="$D/c.conf" HOME="$D" "$@"; }
		setpriv --reuid daemon --regid nogroup --clear-groups \
		    sleep 300 &
		p=$!
		# Until setpriv has become daemon, hidepid hides it from
		# daemon too (acquire --pid: no start time to read).
		i=0
		until as daemon sh -c "[ -r /proc/$p/stat ]"; do
			i=$((i + 1))
			[ $i -lt 500 ] || exit 14
			sleep 0.02
		done
		as daemon "$CB" acquire x --pid "$p" >/dev/null 2>"$D/acquire.err" ||
		    { echo "acquire exited $?: $(cat "$D/acquire.err")"; exit 10; }
		[ -e /proc/"$p" ] || exit 11
		as nobody sh -c "[ ! -e /proc/$p ]" || exit 12
		as nobody "$CB" run x -- true 2>/dev/null
		[ $? = 75 ] || exit 13
		kill -9 "$p"
		echo ok'
	assert_output ok
	assert_equal "$status" 0
	rm -rf "$dir"
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
