#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 95-sentinel: the fleet store through Redis Sentinel (SPEC section 9, "High
# availability").  One cluster for the file, started in setup_file on
# 127.0.0.1 with ports picked free at run time: a master, a replica and
# three `redis-server --sentinel`, every one with a password, failing
# over within a few seconds; stopped by pid in teardown_file.  The
# failover drill kills the master, so it runs last.  Two "hosts" are two
# local state files sharing the cluster (`on HOST ...`, as in 95-redis).

load helper

# free_ports N: N TCP ports of 127.0.0.1 that nothing listens on now.
free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# rcli PORT [PASSWORD] ARGS...: redis-cli on 127.0.0.1:PORT.
rcli() {
	local port=$1 pw=$2
	shift 2
	redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning -a "$pw" "$@"
}

setup_file() {
	command -v redis-server >/dev/null ||
	    skip "redis-server is not installed (make deps)"
	local d=$BATS_FILE_TMPDIR/cluster i p
	mkdir -p "$d"
	read -r MP RP S1 S2 S3 DEAD <<<"$(free_ports 6)"
	export MP RP S1 S2 S3 DEAD D=$d
	# In subshells: no job of ours, so no "Killed" report.
	(redis-server --port "$MP" --bind 127.0.0.1 --save '' --appendonly no \
	    --requirepass mpw --masterauth mpw --dir "$d" \
	    --logfile "$d/m.log" 3>&- & echo $! >"$d/m.pid")
	(redis-server --port "$RP" --bind 127.0.0.1 --save '' --appendonly no \
	    --requirepass mpw --masterauth mpw --replicaof 127.0.0.1 "$MP" \
	    --dir "$d" --logfile "$d/r.log" 3>&- & echo $! >"$d/r.pid")
	for i in 1 2 3; do
		p=S$i
		p=${!p}
		cat >"$d/s$i.conf" <<CONF
port $p
bind 127.0.0.1
dir $d
logfile $d/s$i.log
requirepass spw
sentinel sentinel-pass spw
sentinel monitor mymaster 127.0.0.1 $MP 2
sentinel auth-pass mymaster mpw
sentinel down-after-milliseconds mymaster 1000
sentinel failover-timeout mymaster 4000
CONF
		(redis-server "$d/s$i.conf" --sentinel 3>&- &
		    echo $! >"$d/s$i.pid")
	done
	export SURL="redis-sentinel://127.0.0.1:$S1,127.0.0.1:$S2,127.0.0.1:$S3/mymaster/0"
	# Up: the replica in sync, each sentinel knowing it and the others.
	for ((i = 0; i < 1000; i++)); do
		rcli "$RP" mpw INFO replication 2>/dev/null |
		    grep -q 'master_link_status:up' &&
		    [ "$(rcli "$S1" spw SENTINEL replicas mymaster 2>/dev/null | grep -c "^$RP\$")" -ge 1 ] &&
		    [ "$(rcli "$S3" spw SENTINEL sentinels mymaster 2>/dev/null | grep -c '^ip$')" -ge 2 ] &&
		    return 0
		sleep 0.02
	done
	echo "the cluster did not come up" >&2
	cat "$d"/*.log >&2
	return 1
}

teardown_file() {
	local f pid
	for f in "$BATS_FILE_TMPDIR"/cluster/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		kill -9 "$pid" 2>/dev/null || true
	done
	for f in "$BATS_FILE_TMPDIR"/cluster/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
	done
}

setup() {
	common_setup
	export CBEXEC_REDIS_PASSWORD=mpw CBEXEC_SENTINEL_PASSWORD=spw
}

teardown() {
	if [ -e "$T/fake.pid" ]; then
		kill -9 "$(cat "$T/fake.pid")" 2>/dev/null || true
		gone "$(cat "$T/fake.pid")"
	fi
	common_teardown
}

# on HOST ARGS...: cbexec on HOST: the fleet first, $T/HOST.mdb locally.
on() {
	local host=$1
	shift
	CBEXEC_STATE=$T/$host.mdb "$CBEXEC" -s "$SURL" "$@"
}

# master_port: the port the sentinels name as master now.
master_port() {
	rcli "$S2" spw SENTINEL get-master-addr-by-name mymaster | sed -n 2p
}

@test "breakers written through a sentinel URL are on the master; status reads them back" {
	# Time enough for the first sentinel on a loaded machine.
	config 'store_timeout = "5s";'
	run -0 on a trip api --for 10m
	run -0 on a run job -- true
	run -0 rcli "$MP" mpw EXISTS cbexec:api
	assert_output 1
	run -0 --separate-stderr "$CBEXEC" -s "$SURL" status --names
	assert_equal "$output" "api
job"
	run -75 on b run api -- true
	# config show: the master found, and the sentinel that named it.
	run -0 "$CBEXEC" -s "$SURL" config show
	assert_line --regexp "^master +127\.0\.0\.1:$MP, named by sentinel 127\.0\.0\.1:$S1 +asked now\$"
	refute_output --partial spw
	refute_output --partial mpw
}

@test "the sentinels' and the master's passwords: each where it belongs, never printed" {
	config 'store_timeout = "5s";'
	CBEXEC_SENTINEL_PASSWORD= run -1 "$CBEXEC" -s "$SURL" status
	assert_output "cbexec: no master 'mymaster' found in state '$SURL': cannot ask sentinel 127.0.0.1:$S3: NOAUTH Authentication required"
	CBEXEC_SENTINEL_PASSWORD=nope run -1 "$CBEXEC" -s "$SURL" status
	refute_output --partial nope
	CBEXEC_REDIS_PASSWORD=wrong run -1 "$CBEXEC" -s "$SURL" status
	assert_output --partial "master 127.0.0.1:$MP named by sentinel"
	refute_output --partial wrong
	run -0 "$CBEXEC" -s "$SURL" status
}

@test "hooks and probe commands see neither CBEXEC_REDIS_PASSWORD nor CBEXEC_SENTINEL_PASSWORD" {
	config "on_transition = [ \"sh\", \"-c\", \"env >$T/hook.env\" ];" \
	    "defaults = { probe = [ \"sh\", \"-c\", \"env >$T/probe.env\" ]; open_timeout = \"1s\"; };"
	run -0 cb trip x
	WAIT_S=10 wait_for test -s "$T/hook.env"
	run -1 grep -E 'CBEXEC_(REDIS|SENTINEL)_PASSWORD' "$T/hook.env"
	cb_at +2s run x -- true || true
	WAIT_S=10 wait_for test -s "$T/probe.env"
	run -1 grep -E 'CBEXEC_(REDIS|SENTINEL)_PASSWORD' "$T/probe.env"
	# The wrapped command is the user's: it keeps its environment.
	run -0 cb run y -- sh -c 'echo "$CBEXEC_SENTINEL_PASSWORD"'
	assert_output spw
}

@test "a sentinel naming a replica as master is not written to" {
	# A fake sentinel that names the replica; the replica made writable,
	# so that a write would stick.
	python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
rp = sys.argv[2].encode()
while True:
    c, _ = s.accept()
    f = c.makefile("rb")
    try:
        while True:
            line = f.readline()
            if not line.startswith(b"*"):
                break
            args = []
            for _ in range(int(line[1:])):
                n = int(f.readline()[1:])
                args.append(f.read(n + 2)[:-2])
            if args[0].upper() == b"SENTINEL":
                c.sendall(b"*2\r\n$9\r\n127.0.0.1\r\n$%d\r\n%s\r\n" % (len(rp), rp))
            else:
                c.sendall(b"+OK\r\n")
    except OSError:
        pass
    c.close()' "$T/fake.port" "$RP" 3>&- &
	echo $! >"$T/fake.pid"
	WAIT_S=10 wait_for test -s "$T/fake.port"
	rcli "$RP" mpw CONFIG SET replica-read-only no
	url="redis-sentinel://127.0.0.1:$(cat "$T/fake.port")/mymaster/0"
	run -0 --separate-stderr env CBEXEC_STATE="$T/a.mdb" "$CBEXEC" -s "$url" run notme -- true
	rcli "$RP" mpw CONFIG SET replica-read-only yes
	assert_equal "$stderr" "cbexec: warning: no master 'mymaster' found in state '$url': sentinel 127.0.0.1:$(cat "$T/fake.port") named 127.0.0.1:$RP as master of 'mymaster', but it is not (ROLE: slave); using the local breaker"
	run -0 rcli "$RP" mpw EXISTS cbexec:notme
	assert_output 0
	run -0 rcli "$MP" mpw EXISTS cbexec:notme
	assert_output 0
	[ "$(CBEXEC_STATE=$T/a.mdb json notme .calls)" = 1 ]
}

# silent_sentinel: a port that accepts and never answers, in $T/fake.port.
silent_sentinel() {
	python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
cs = []
while True:
    c, _ = s.accept()
    cs.append(c)' "$T/fake.port" 3>&- &
	echo $! >"$T/fake.pid"
	WAIT_S=10 wait_for test -s "$T/fake.port"
}

@test "a sentinel URL naming no reachable sentinel falls back within store_timeout" {
	# One port refuses, one accepts and never answers.
	silent_sentinel
	config 'store_timeout = "300ms";'
	url="redis-sentinel://127.0.0.1:$DEAD,127.0.0.1:$(cat "$T/fake.port")/mymaster/0"
	start=$(now_ms)
	run -0 --separate-stderr env CBEXEC_STATE="$T/a.mdb" "$CBEXEC" -s "$url" run x -- echo ran
	took=$(($(now_ms) - start))
	assert_output ran
	assert_equal "$stderr" "cbexec: warning: no master 'mymaster' found in state '$url' within the store_timeout: cannot authenticate to sentinel 127.0.0.1:$(cat "$T/fake.port"): no answer within 300ms; using the local breaker"
	# store_timeout and the local run; far from a second per sentinel.
	[ "$took" -lt 1500 ] || fail "took ${took}ms"
}

@test "a silent first sentinel takes its share of store_timeout, not all of it: the healthy ones after it name the master" {
	silent_sentinel
	# Two silent ones first: each gets a share of what is left, with
	# one share kept for the master (1/4, then 1/3 of the rest).
	config 'store_timeout = "8s";'
	p=$(cat "$T/fake.port")
	url="redis-sentinel://127.0.0.1:$p,127.0.0.1:$p,127.0.0.1:$S1/mymaster/0"
	start=$(now_ms)
	run -0 --separate-stderr env CBEXEC_STATE="$T/a.mdb" "$CBEXEC" -s "$url" trip shares --for 1m
	took=$(($(now_ms) - start))
	assert_equal "$stderr" ""
	run -0 rcli "$MP" mpw EXISTS cbexec:shares
	assert_output 1
	# The two silent shares: 8s/4 + (8s - 2s)/3, 4s in all; 2s each for
	# the healthy sentinel and the master, time enough on a loaded
	# machine; all of it would have been the first's.
	[ "$took" -ge 3900 ] && [ "$took" -lt 7900 ] || fail "took ${took}ms"
	run -0 rcli "$MP" mpw DEL cbexec:shares
}

# drill_call NAME HOST ARGS...: one timed call; its ms appended to
# $T/took, "fell back" to $T/fellback when it warned so.
drill_call() {
	local host=$1 start rc=0
	shift
	start=$(now_ms)
	on "$host" "$@" 2>"$T/call.err" || rc=$?
	echo $(($(now_ms) - start)) >>"$T/took"
	grep -q 'using the local breaker' "$T/call.err" && echo x >>"$T/fellback"
	return "$rc"
}

@test "failover drill: every job runs, no call waits past store_timeout, the breakers survive" {
	config 'store_timeout = "250ms";'
	run -0 on a trip api --for 10m
	for i in 1 2 3 4 5; do run -0 on a run "b$i" -- true; done
	# The replica in sync (asynchronous: wait for it to have them).
	before=$(rcli "$MP" mpw --scan --pattern 'cbexec:*' | sort)
	WAIT_S=10 wait_for eval '[ "$(rcli "$RP" mpw --scan --pattern "cbexec:*" | sort)" = "$before" ]'
	kill -9 "$(cat "$D/m.pid")"
	killed=$(now_ms)
	: >"$T/took"
	: >"$T/fellback"
	: >"$T/ran"
	calls=0
	for ((i = 0; i < 600; i++)); do
		drill_call a run job -- sh -c 'echo x >>"$0/ran"' "$T"
		calls=$((calls + 1))
		[ "$(master_port)" = "$RP" ] && ! grep -q . "$T/call.err" && break
		sleep 0.05
	done
	[ "$(master_port)" = "$RP" ] || fail "no failover after $calls calls"
	echo "# drill: promoted $(($(now_ms) - killed))ms after the kill" >&3
	# Every job ran; none waited past store_timeout plus its own run.
	[ "$(wc -l <"$T/ran")" -eq "$calls" ]
	longest=$(sort -n "$T/took" | tail -1)
	fellback=$(wc -l <"$T/fellback")
	echo "# drill: $calls calls, $fellback fell back, longest ${longest}ms" >&3
	[ "$longest" -lt 1250 ] || fail "a call took ${longest}ms"
	# The tripped breaker, and every other, on the new master.
	after=$(rcli "$RP" mpw --scan --pattern 'cbexec:*' | sort)
	lost=$(comm -23 <(echo "$before") <(echo "$after") | grep -c . || true)
	echo "# drill: breakers lost: $lost of $(echo "$before" | wc -l)" >&3
	[ "$lost" -eq 0 ]
	run -75 on b run api -- true
	[ "$(CBEXEC_STATE=$SURL json api .state)" = open ]
	run -0 "$CBEXEC" -s "$SURL" config show
	assert_line --regexp "^master +127\.0\.0\.1:$RP, named by sentinel 127\.0\.0\.1:[0-9]+ +asked now\$"
	# New runs write to the new master.
	run -0 on b run after -- true
	run -0 rcli "$RP" mpw EXISTS cbexec:after
	assert_output 1
	# max_concurrent = 1 across two hosts on the new master.
	bg 1 on a run lock -o max_concurrent=1 -- sh -c \
	    'touch "$0/held"; while [ ! -e "$0/release" ]; do sleep 0.02; done' "$T"
	WAIT_S=10 wait_for test -e "$T/held"
	run -75 on b run lock -o max_concurrent=1 -- true
	assert_output --partial busy
	touch "$T/release"
	WAIT_S=10 bg_wait 1
	[ "$(bg_rc 1)" = 0 ]
	run -0 on b run lock -o max_concurrent=1 -- true
}
