#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 85-bulkhead: max_concurrent, on_busy and --wait (SPEC 2b, issue 13.1).
# At most N admitted calls of a breaker run at once; a busy call is
# refused with one line naming the holders, counted as busy and never as a
# failure; a SIGKILLed holder frees its slot at the next call; --wait
# waits for a slot, and a signal ends the wait recording nothing.

load helper

# hold ID NAME [RUN-OPTIONS...]: a run of NAME in the background whose
# command writes its pid to cmd.ID.pid and waits for $T/release (teardown
# touches it); cbexec's own pid goes to holder.ID.pid.  Returns once the
# command has started, so the slot is held.
hold() {
	local id=$1 name=$2
	shift 2
	"$CBEXEC" run "$name" "$@" -- sh -c \
	    'echo $$ >"$0/cmd.$1.pid"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" "$id" 3>&- &
	echo "$!" >"$T/holder.$id.pid"
	WAIT_S=30 wait_for test -s "$T/cmd.$id.pid"
}

# running NAME: how many live run slots status --json lists.
running() {
	json "$1" '.running | length'
}

# overlap FILE...: the most commands that ran at once, from lines
# "TIME +1" (start) and "TIME -1" (end), an end first at a tie.
overlap() {
	sort -k1,1n -k2,2n "$@" |
	    awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}

@test "8 concurrent runs with max_concurrent = 3: never more than 3 at once, busy + calls = 8" {
	config 'defaults = { max_concurrent = 3; };'
	mkdir marks
	# Each command marks its own start and end (ns); all start on "go".
	# An admitted command holds its slot until three have started (30 s
	# at most), so the overlap reaches the limit whatever the load.
	for id in 1 2 3 4 5 6 7 8; do
		bg "$id" sh -c '
			while [ ! -e "$0/go" ]; do sleep 0.01; done
			exec "$1" run pile -- sh -c "
				echo \"\$(date +%s%N) 1\" >>$0/marks/$2
				i=0
				while [ \$(ls $0/marks | wc -l) -lt 3 ] &&
				    [ \$i -lt 3000 ]; do
					sleep 0.01; i=\$((i + 1))
				done
				echo \"\$(date +%s%N) -1\" >>$0/marks/$2
			"' "$T" "$CBEXEC" "$id"
	done
	touch go
	WAIT_S=60 bg_wait 1 2 3 4 5 6 7 8
	local id ran=0 busy=0
	for id in 1 2 3 4 5 6 7 8; do
		case $(bg_rc "$id") in
		0) ran=$((ran + 1)) ;;
		75)
			busy=$((busy + 1))
			grep -q '^cbexec: pile: busy, 3 of 3 running (pid [0-9]* since [0-9:]*, pid [0-9]* since [0-9:]*, pid [0-9]* since [0-9:]*)$' \
			    "$T/err.$id" || fail "job $id: $(cat "$T/err.$id")"
			;;
		*) fail "job $id exited $(bg_rc "$id"): $(cat "$T/err.$id")" ;;
		esac
	done
	# Every admitted command left both marks; the overlap is at most 3.
	assert_equal "$(count marks/*)" "$ran"
	assert_equal "$(cat marks/* | wc -l)" $((2 * ran))
	[ "$ran" -ge 3 ] || fail "only $ran ran"
	local most
	most=$(overlap marks/*)
	[ "$most" -eq 3 ] || fail "$most commands ran at once, not 3"
	assert_equal "$(json pile '[.calls, .busy, .failures, .rejected] | map(tostring) | join(" ")')" \
	    "$ran $busy 0 0"
	assert_equal $((ran + busy)) 8
	assert_equal "$(running pile)" 0
}

@test "while 3 slots are held, every other call is busy, check says so, status lists the holders" {
	config 'defaults = { max_concurrent = 3; };'
	hold 1 x
	hold 2 x
	hold 3 x
	assert_equal "$(running x)" 3
	local pids
	pids=$(json x '.running | map(.pid) | sort | map(tostring) | join(" ")')
	assert_equal "$pids" "$(cat holder.{1,2,3}.pid | sort -n | tr '\n' ' ' | sed 's/ $//')"
	run -75 --separate-stderr cb run x -- touch ran
	[ ! -e ran ]
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} =~ ^cbexec:\ x:\ busy,\ 3\ of\ 3\ running\ \(pid\ [0-9]+\ since\ [0-9]{2}:[0-9]{2}:[0-9]{2},\ pid\ [0-9]+\ since\ [0-9:]{8},\ pid\ [0-9]+\ since\ [0-9:]{8}\)$ ]] ||
	    fail "stderr: $stderr"
	[[ ${stderr_lines[0]} == *"pid $(cat holder.1.pid) since"* ]] || fail "stderr: $stderr"
	# check: open_exit_code with the same line, nothing with -q.
	run -75 --separate-stderr cb check x
	[[ $stderr == "cbexec: x: busy, 3 of 3 running (pid "* ]] || fail "stderr: $stderr"
	run -75 --separate-stderr cb -q check x
	assert_equal "$stderr" ''
	run -75 --separate-stderr cb -q run x -- true
	assert_equal "$stderr" ''
	# open_exit_code is the busy exit too.
	run -9 cb run x -o open_exit_code=9 -- true
	# The detail view: the holders and the busy count.
	run -0 cb status x
	assert_line --regexp "^    Running: pid $(cat holder.1.pid) on .* since .*, lease until .*$"
	assert_line --regexp '^     Totals: 0 calls: .*; 0 rejected, 3 busy$'
	assert_line --partial 'at most 3 running'
	assert_equal "$(json x '[.busy, .rejected, .calls] | map(tostring) | join(" ")')" '3 0 0'
	touch release
	local id
	for id in 1 2 3; do
		gone "$(cat holder.$id.pid)"
	done
	assert_equal "$(json x '[.calls, .successes] | map(tostring) | join(" ")')" '3 3'
	assert_equal "$(running x)" 0
	run -0 cb check x
	run -0 cb run x -- true
}

@test "check takes run's options: the -o max_concurrent=1 of the cron line is the limit it tests" {
	hold 1 c -o max_concurrent=1
	# The config says nothing of a limit: without the option, admitted.
	run -0 cb check c
	run -75 --separate-stderr cb check c -o max_concurrent=1
	[[ $stderr == "cbexec: c: busy, 1 of 1 running (pid "* ]] || fail "stderr: $stderr"
	# The rest of run's policy options too; a bad one is a usage error.
	run -9 cb -q check c -o max_concurrent=1 -o open_exit_code=9
	run -75 cb -q check c --preset curl -t 30s --on-open skip -o max_concurrent=1
	run -2 cb check c -o nosuchkey=1
	run -2 cb check c -- true
	touch release
	gone "$(cat holder.1.pid)"
	run -0 cb check c -o max_concurrent=1
}

@test "a SIGKILLed holder frees its slot at the next call, and the breaker stays closed" {
	hold 1 x -o max_concurrent=1
	assert_equal "$(running x)" 1
	run -75 cb run x -o max_concurrent=1 -- true
	kill -9 "$(cat holder.1.pid)"
	gone "$(cat holder.1.pid)"
	# Its command (dead of PDEATHSIG) leads the job's group, which holds
	# the slot until its last member (a sleep 0.02) is gone too.
	group_gone "$(cat cmd.1.pid)"
	run -0 --separate-stderr cb run x -o max_concurrent=1 -- touch ran
	assert_equal "$stderr" ''
	[ -e ran ]
	assert_equal "$(json x '[.state, .failures, .consecutive_failures, .calls, .busy] | map(tostring) | join(" ")')" \
	    'closed 0 0 1 1'
	assert_equal "$(running x)" 0
	# Not a transition either: the breaker never left closed.
	assert_equal "$(json x .epoch)" 0
}

@test "busy refusals never trip the breaker, whatever the trip policy" {
	config 'defaults = { max_concurrent = 1; trip = { failures = 2; }; };'
	hold 1 x
	local n
	for n in 1 2 3 4 5 6; do
		run -75 cb -q run x -- true
	done
	run -75 cb -q run x -o trip.policy=rate -o trip.window=2 -o trip.min_calls=2 -- true
	assert_equal "$(json x '[.state, .busy, .failures, .consecutive_failures, .rejected] | map(tostring) | join(" ")')" \
	    'closed 7 0 0 0'
	touch release
	gone "$(cat holder.1.pid)"
	run -0 cb run x -- true
	assert_equal "$(json x .state)" closed
}

@test "on_busy = skip exits 0 silently and still counts the call as busy" {
	config 'breakers = ( { match = "job"; max_concurrent = 1; on_busy = "skip"; } );'
	run -0 cb config show job
	assert_line --regexp '^on_busy +"skip" +.*cbexec.conf:1$'
	assert_line --regexp '^max_concurrent +1 +.*cbexec.conf:1$'
	hold 1 job
	run -0 --separate-stderr cb run job -- touch ran
	assert_equal "$output" ''
	assert_equal "$stderr" ''
	[ ! -e ran ]
	assert_equal "$(json job .busy)" 1
	# -o on_busy=fail wins over the file; on_open = skip does not hide busy.
	run -75 cb run job -o on_busy=fail -- true
	run -75 cb run job -o on_busy=fail -o on_open=skip -- true
	# check and acquire refuse whatever on_busy says.
	run -75 cb -q check job
	run -75 --separate-stderr cb acquire job
	assert_equal "$output" ''
}

@test "--wait runs the command once the slot frees, and counts no busy refusal" {
	config 'defaults = { max_concurrent = 1; };'
	hold 1 x
	# Free the slot in a second or so.
	(sleep 1.5 && touch "$T/release") 3>&- &
	local t0 t1
	t0=$(date +%s%N)
	run -0 --separate-stderr cb run x --wait 60s -- touch ran
	t1=$(date +%s%N)
	assert_equal "$stderr" ''
	[ -e ran ]
	# It waited for the holder, not for the whole minute.
	[ $(((t1 - t0) / 1000000)) -ge 1000 ] || fail "ran after $(((t1 - t0) / 1000000))ms"
	[ $(((t1 - t0) / 1000000)) -lt 50000 ]
	assert_equal "$(json x '[.busy, .calls, .successes] | map(tostring) | join(" ")')" '0 2 2'
}

@test "--wait that runs out is one busy refusal, after the wait" {
	hold 1 x -o max_concurrent=1
	local t0 t1
	t0=$(date +%s%N)
	run -75 --separate-stderr cb run x -o max_concurrent=1 --wait 1500ms -- touch ran
	t1=$(date +%s%N)
	[ ! -e ran ]
	[ $(((t1 - t0) / 1000000)) -ge 1500 ] || fail "refused after $(((t1 - t0) / 1000000))ms"
	[[ $stderr == "cbexec: x: busy, 1 of 1 running (pid $(cat holder.1.pid) since "*")" ]] ||
	    fail "stderr: $stderr"
	assert_equal "$(json x .busy)" 1
	# A bad --wait is a usage error naming the option.
	run -125 cb run x --wait soon -- true
	assert_output --partial 'run: --wait: '
	run -2 cb acquire x --wait soon
	assert_output --partial 'acquire: --wait: '
}

# txn_id: the state file's last transaction ID (mdb_stat -e): one more
# for each write transaction committed.
txn_id() {
	mdb_stat -n -e "$CBEXEC_STATE" | awk '/Last transaction ID:/ { print $4 }'
}

@test "--wait is no busy loop: a waiting cbexec sleeps, and commits a few times" {
	command -v mdb_stat >/dev/null || skip "no mdb_stat (lmdb-utils)"
	hold 1 x -o max_concurrent=1
	local before after
	before=$(txn_id)
	"$CBEXEC" run x -o max_concurrent=1 --wait 60s -- true 3>&- &
	local pid=$!
	echo "$pid" >waiter.pid
	sleep 3
	# utime + stime of the waiter, in clock ticks: far below its 3s.
	local ticks hz
	ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	after=$(txn_id)
	hz=$(getconf CLK_TCK)
	[ "$ticks" -lt $((hz / 2)) ] || fail "the waiter used $ticks ticks in 3s"
	# Tries 50ms apart at first, doubled up to 1s: 7 in 3s, 9 should the
	# 3s stretch to 5 on a loaded machine.  A loop that sleeps too little
	# commits hundreds (about 300 for ms/1000), each one synced, and
	# costs little CPU.
	[ -n "$before" ] && [ -n "$after" ] || fail "no transaction ID"
	[ $((after - before)) -le 15 ] ||
	    fail "$((after - before)) transactions in 3s of waiting"
	touch release
	wait "$pid"
}

@test "SIGTERM during --wait exits 143 and records nothing; SIGHUP 129; acquire too" {
	config 'defaults = { max_concurrent = 1; };'
	hold 1 x
	local sig want pid rc
	# A background job starts with SIGINT ignored (and so is cbexec's
	# wait then): SIGHUP stands for the others here, at its default (bats
	# may run under nohup).
	for sig in TERM HUP; do
		for cmd in run acquire; do
			if [ "$cmd" = run ]; then
				env --default-signal=HUP "$CBEXEC" run x --wait 60s -- touch "$T/ran" 3>&- &
			else
				env --default-signal=HUP "$CBEXEC" acquire x --wait 60s >"$T/tok" 3>&- &
			fi
			pid=$!
			echo "$pid" >waiter.pid
			sleep 1.5
			alive "$pid"
			kill -"$sig" "$pid"
			rc=0
			wait "$pid" || rc=$?
			if [ "$sig" = TERM ]; then want=143; else want=129; fi
			[ "$rc" = "$want" ] || fail "$cmd: SIG$sig: exit $rc, not $want"
		done
	done
	[ ! -e ran ]
	assert_equal "$(cat tok)" ''
	assert_equal "$(json x '[.busy, .calls, .rejected, .interrupted] | map(tostring) | join(" ")')" '0 0 0 0'
	assert_equal "$(running x)" 1
}

@test "gc never removes a breaker whose run slot is held" {
	# A lease of 100 days: the slot is live two days on.
	hold 1 x -o max_concurrent=1 -o probe_lease=100d
	run -0 cb_at +2d gc --idle 1d
	assert_output ''
	assert_equal "$(running x)" 1
	run -0 cb_at +2d gc --idle 1d --dry-run
	assert_output ''
	touch release
	gone "$(cat holder.1.pid)"
	# Free, the same breaker goes.
	run -0 cb_at +2d gc --idle 1d
	assert_output x
}

@test "acquire takes a run slot even closed; refused, no token; release or a dead --pid frees it" {
	config 'defaults = { max_concurrent = 1; };'
	local tok
	tok=$(cb acquire x)
	assert_equal "$(running x)" 1
	assert_equal "$(json x .state)" closed
	run -75 --separate-stderr cb acquire x
	assert_equal "$output" ''
	[[ $stderr == "cbexec: x: busy, 1 of 1 running (a token since "*")" ]] || fail "stderr: $stderr"
	run -75 cb -q run x -- true
	run -0 cb release "$tok" success
	assert_equal "$(running x)" 0
	run -0 cb run x -- true
	# A --pid holder that dies frees the slot at the next call.
	sleep 100 3>&- &
	local holder=$!
	echo "$holder" >sleeper.pid
	tok=$(cb acquire x --pid "$holder")
	run -75 cb -q acquire x
	kill -9 "$holder"
	gone "$holder"
	run -0 cb acquire x
	assert_equal "$(json x '[.state, .failures] | map(tostring) | join(" ")')" 'closed 0'
}

@test "acquire --wait gets the slot once a holder releases it" {
	config 'defaults = { max_concurrent = 1; };'
	local tok
	tok=$(cb acquire x)
	(sleep 1.5 && "$CBEXEC" release "$tok" success) 3>&- &
	run -0 --separate-stderr cb acquire x --wait 60s
	[[ $output == cb1-* ]] || fail "no token: $output"
	assert_equal "$stderr" ''
	assert_equal "$(json x '[.busy, .successes] | map(tostring) | join(" ")')" '0 1'
	run -0 cb release "$output" success
}

@test "a run holds its slot while its command runs, named by cbexec's pid; no limit, no slot" {
	run -0 cb run x -o max_concurrent=2 -- sh -c \
	    '"$0" status --json >"$1"; echo $PPID >"$2"' "$CBEXEC" "$T/during.json" "$T/ppid"
	assert_equal "$(jq -r '.[0].running | length' during.json)" 1
	assert_equal "$(jq -r '.[0].running[0].pid' during.json)" "$(cat ppid)"
	[[ $(jq -r '.[0].running[0].since' during.json) =~ $RFC3339 ]]
	[[ $(jq -r '.[0].running[0].lease_until' during.json) =~ $RFC3339 ]]
	assert_equal "$(running x)" 0
	run -0 cb run x -- sh -c '"$0" status --json >"$1"' "$CBEXEC" "$T/during.json"
	assert_equal "$(jq -r '.[0].running | length' during.json)" 0
}
