#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 95-redis: the fleet store (SPEC section 9).  Every test starts its own
# redis-server on 127.0.0.1 on a free port (no persistence, KEYS renamed
# away so that a KEYS call would fail), stopped by its pid in teardown.
# Two "hosts" are two local state files sharing that one Redis: `on a ...`
# runs cbexec with the fleet URL first and $T/a.mdb as its local fallback.

load helper
load rate

setup() {
	common_setup
	# Only a WITH_REDIS=0 build skips (make deps installs hiredis).
	if ! "$CBEXEC" -s unix:/nonexistent.sock status >/dev/null \
	    2>"$T/probe.err" && grep -q 'built without Redis' "$T/probe.err"; then
		skip "cbexec built without Redis support (WITH_REDIS=0)"
	fi
}

teardown() {
	# Stop our server quietly (no "Killed" job report), then the rest.
	if [ -e "$T/redis.pid" ]; then
		redis_stop 2>/dev/null || true
	fi
	common_teardown
}

# redis_up PORT: the server answers PING.
redis_up() {
	[ "$(redis-cli -h 127.0.0.1 -p "$1" ${REDIS_PASS:+--no-auth-warning -a "$REDIS_PASS"} ping 2>/dev/null)" = PONG ]
}

# redis_start [PORT]: start a private server (on PORT, else a free one) and
# set PORT, URL and RCLI.  Extra server arguments in REDIS_ARGS (array).
redis_start() {
	local try port pid i
	for ((try = 0; try < 20; try++)); do
		port=${1:-$((20000 + RANDOM % 40000))}
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
		    --appendonly no --rename-command KEYS '' \
		    --unixsocket "$T/redis.sock" --unixsocketperm 700 \
		    --dir "$T" --logfile "$T/redis.log" "${REDIS_ARGS[@]}" \
		    3>&- &
		pid=$!
		echo "$pid" >"$T/redis.pid"
		# Up, or gone (port taken): at most 10s either way.
		for ((i = 0; i < 500; i++)); do
			if redis_up "$port"; then
				PORT=$port
				URL=redis://127.0.0.1:$port/0
				RCLI=(redis-cli -h 127.0.0.1 -p "$port")
				[ -n "${REDIS_PASS:-}" ] &&
				    RCLI+=(--no-auth-warning -a "$REDIS_PASS")
				return 0
			fi
			alive "$pid" || break
			sleep 0.02
		done
		{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true
		cat "$T/redis.log" >>"$T/redis-failed.log"
		[ -z "${1:-}" ] || sleep 0.2
	done
	echo "redis_start: no redis-server came up" >&2
	cat "$T/redis-failed.log" >&2
	return 1
}

# redis_stop: stop the server and wait until it is gone.
redis_stop() {
	local pid
	pid=$(cat "$T/redis.pid")
	{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true
	gone "$pid"
}

# on HOST ARGS...: cbexec on HOST: the fleet first, $T/HOST.mdb locally.
on() {
	local host=$1
	shift
	CBEXEC_STATE=$T/$host.mdb "$CBEXEC" -s "$URL" "$@"
}

# refused_n N: exactly N of the background runs 1..6 have exited 75.
refused_n() {
	local id n=0
	for id in 1 2 3 4 5 6; do
		[ -e "$T/rc.$id" ] && [ "$(cat "$T/rc.$id")" = 75 ] &&
		    n=$((n + 1))
	done
	[ "$n" -eq "$1" ]
}

# fleet NAME FILTER: jq FILTER over NAME's object in the fleet's status.
fleet() {
	CBEXEC_STATE=$URL json "$1" "$2"
}

# local_json HOST NAME FILTER: the same over HOST's local state file.
local_json() {
	CBEXEC_STATE=$T/$1.mdb json "$2" "$3"
}

@test "two hosts share one breaker: failures on one open it for the other" {
	redis_start
	for i in 1 2 3 4 5; do
		run -1 on a run api -- false
	done
	run -75 on b run api -- true
	# From the whole second the opening call started in: 59s or 1m.
	assert_output --regexp '^cbexec: api: circuit open, retry in (59s|1m) \(5 consecutive failures\)$'
	[ "$(fleet api '.state + " " + (.calls|tostring) + " " + (.rejected|tostring)')" = "open 5 1" ]
	# Nothing went to the local state files.
	[ ! -e "$T/a.mdb" ]
	[ ! -e "$T/b.mdb" ]
	run -0 "${RCLI[@]}" TYPE cbexec:api
	assert_output string
}

@test "a manual reset on one host closes the breaker for every host" {
	redis_start
	run -0 on a trip api --for 10m --reason "deploy"
	run -75 on b run api -- true
	run -0 on b reset api
	run -0 on a run api -- true
	[ "$(fleet api .state)" = closed ]
}

@test "8 concurrent writers x 100 runs give exact totals across hosts" {
	redis_start
	writer() {
		local host=$1 cmd=$2 want=$3 i rc
		for ((i = 0; i < 100; i++)); do
			rc=0
			on "$host" run hot -o trip.failures=1000 -- "$cmd" || rc=$?
			if [ "$rc" -ne "$want" ]; then
				echo "run $i on $host exited $rc, not $want"
				return 1
			fi
		done
	}
	for w in 1 2 3 4 5 6 7 8; do
		if ((w % 2)); then host=a; else host=b; fi
		if ((w <= 4)); then
			bg "$w" writer "$host" true 0
		else
			bg "$w" writer "$host" false 1
		fi
	done
	WAIT_S=600 bg_wait 1 2 3 4 5 6 7 8
	for w in 1 2 3 4 5 6 7 8; do
		[ "$(bg_rc "$w")" = 0 ] || { cat "$T/out.$w" "$T/err.$w"; false; }
	done
	[ "$(fleet hot '[.calls, .successes, .failures, .stale, .rejected] | map(tostring) | join(" ")')" = "800 400 400 0 0" ]
	[ "$(fleet hot .state)" = closed ]
}

@test "two hosts x 4 processes x 100 calls with max_rate = 20/1s share one quota (SPEC 2d)" {
	redis_start
	config 'defaults = { max_rate = "20/1s"; };'
	# A "host": its own local state, the fleet first.
	host_hammer() {
		CBEXEC_STATE=$T/$1.mdb rate_hammer "$2" "$URL"
	}
	local id start end out
	start=${EPOCHREALTIME/./}
	for id in 1 2 3 4 5 6 7 8; do
		if ((id % 2)); then host=a; else host=b; fi
		bg "$id" host_hammer "$host" "$id"
	done
	WAIT_S=120 bg_wait 1 2 3 4 5 6 7 8
	end=${EPOCHREALTIME/./}
	for id in 1 2 3 4 5 6 7 8; do
		[ "$(bg_rc "$id")" = 0 ] || { cat "$T/out.$id" "$T/err.$id"; false; }
	done
	out=$(rate_check 50 1 "$start" "$end" adm.*) || { echo "$out"; false; }
	echo "# $out" >&3
	# Both hosts were admitted, all through the fleet.
	[ -s adm.1 ] && [ -s adm.2 ]
	[ ! -e "$T/a.mdb" ] && [ ! -e "$T/b.mdb" ]
	[ "$(fleet rl '[.calls + .rate_limited, .rejected, .failures] | map(tostring) | join(" ")')" = "800 0 0" ]
}

@test "only one of several concurrent probes across hosts runs" {
	redis_start
	run -0 on a trip api --for 1s
	WAIT_S=10 wait_for on b check api
	for id in 1 2 3 4 5 6; do
		if ((id % 2)); then host=a; else host=b; fi
		bg "$id" on "$host" run api -- sh -c \
		    'echo x >>"$0/started"; while [ ! -e "$0/release" ]; do sleep 0.02; done' "$T"
	done
	# Five are refused at once; the one admitted waits for release.
	WAIT_S=30 wait_for refused_n 5
	[ "$(wc -l <"$T/started")" -eq 1 ]
	grep -h "half-open, 1 of 1 probes running" "$T"/err.* >/dev/null
	touch "$T/release"
	WAIT_S=30 bg_wait 1 2 3 4 5 6
	[ "$(cat "$T"/rc.* | sort | tr '\n' ' ')" = "0 75 75 75 75 75 " ]
	[ "$(fleet api .state)" = closed ]
}

@test "a probe's lease expiring frees its slot for other hosts" {
	redis_start
	run -0 on a trip api --for 1s
	WAIT_S=10 wait_for on a check api
	bg 1 on a run api -o probe_lease=1s -- sh -c \
	    'while [ ! -e "$0/release" ]; do sleep 0.02; done' "$T"
	WAIT_S=10 wait_for eval '[ "$(fleet api ".probes | length")" = 1 ]'
	sleep 1.2
	# Host b finds the lease passed: a failed probe, the breaker re-opens.
	run -75 on b run api -- true
	[ "$(fleet api .state)" = open ]
	[ "$(fleet api .reason)" = "probe lease expired" ]
	touch "$T/release"
	bg_wait 1
	# The late holder's outcome is stale: counted, nothing more.
	[ "$(bg_rc 1)" = 0 ]
	[ "$(fleet api '.stale')" = 1 ]
	[ "$(fleet api .state)" = open ]
}

@test "a probe holder that died on this host is reclaimed through the fleet" {
	redis_start
	run -0 on a trip api --for 1s
	WAIT_S=10 wait_for on a check api
	# The command outlives cbexec and ends when teardown releases it.
	CBEXEC_STATE=$T/a.mdb "$CBEXEC" -s "$URL" run api -- sh -c \
	    'echo $$ >"$0/job"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" 3>&- &
	pid=$!
	echo "$pid" >"$T/holder.pid"
	WAIT_S=10 wait_for eval '[ "$(fleet api ".probes | length")" = 1 ]'
	WAIT_S=10 wait_for test -s "$T/job"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	# The job's group holds the slot until its last member is gone.
	group_gone "$(cat "$T/job")"
	run -75 on b run api -- true
	[ "$(fleet api .reason)" = "probe slot lost: holder pid $pid died" ]
}

@test "Redis not answering: local fallback, one warning, exit codes kept; then fleet state again" {
	redis_start
	run -0 on a trip api --for 10m
	run -75 on a run api -- true
	kill -STOP "$(cat "$T/redis.pid")"
	run -3 --separate-stderr on a run api -- sh -c 'exit 3'
	[ "${#stderr_lines[@]}" -eq 1 ]
	assert_equal "${stderr_lines[0]}" "cbexec: warning: cannot update breaker 'api' in state '$URL': no answer within 250ms; using the local breaker"
	run -0 --separate-stderr on b run api -- true
	[ "${#stderr_lines[@]}" -eq 1 ]
	# Each host counted its run in its own local breaker.
	[ "$(local_json a api '(.calls|tostring) + " " + .state')" = "1 closed" ]
	[ "$(local_json b api '(.calls|tostring) + " " + .state')" = "1 closed" ]
	kill -CONT "$(cat "$T/redis.pid")"
	run -75 on a run api -- true
	assert_output --partial "circuit open"
	[ "$(local_json a api .calls)" = 1 ]
}

@test "Redis stopped mid-outage: runs fall back, and a restarted Redis is used again" {
	redis_start
	for i in 1 2 3 4 5; do
		run -1 on a run api -- false
	done
	run -75 on b run api -- true
	redis_stop
	for code in 7 0 7; do
		run "-$code" --separate-stderr on b run api -- sh -c "exit $code"
		[ "${#stderr_lines[@]}" -eq 1 ]
		assert_equal "${stderr_lines[0]}" "cbexec: warning: cannot connect to Redis in state '$URL': Connection refused; using the local breaker"
	done
	[ "$(local_json b api '[.calls, .failures] | map(tostring) | join(" ")')" = "3 2" ]
	# The same server back (empty: no persistence): the fleet decides again.
	redis_start "$PORT"
	run -0 --separate-stderr on a run api -- true
	[ "${#stderr_lines[@]}" -eq 0 ]
	for i in 1 2 3 4 5; do
		run -1 on b run api -- false
	done
	run -75 on a run api -- true
	[ "$(fleet api .calls)" = 6 ]
	[ "$(local_json b api .calls)" = 3 ]
}

@test "Redis dying while the command runs loses no exit code" {
	redis_start
	bg 1 on a run api -- sh -c \
	    'while [ ! -e "$0/go" ]; do sleep 0.02; done; exit 5' "$T"
	WAIT_S=10 wait_for eval '[ "$(fleet api .last_used_at)" != null ]'
	redis_stop
	touch "$T/go"
	bg_wait 1
	[ "$(bg_rc 1)" = 5 ]
	grep -q "outcome of 'sh' not recorded" "$T/err.1"
	[ "$(wc -l <"$T/err.1")" -eq 1 ]
}

@test "fallback = none follows on_store_error" {
	redis_start
	redis_stop
	config 'fallback = "none";' 'on_store_error = "closed";'
	run -125 on a run api -- true
	assert_output "cbexec: cannot connect to Redis in state '$URL': Connection refused; refusing to run 'true' (on_store_error = closed)"
	config 'fallback = "none";'
	run -4 on a run api -- sh -c 'exit 4'
	assert_output "cbexec: warning: cannot connect to Redis in state '$URL': Connection refused; running 'sh' unguarded"
	[ ! -e "$T/a.mdb" ]
}

@test "status, reset, trip, forget and check work against Redis" {
	redis_start
	export CBEXEC_STATE=$URL
	run -1 cb status api
	assert_output "cbexec: no such breaker 'api'"
	run -0 cb trip api db-1 --for 5m --reason "maintenance"
	run -75 cb check api
	run -0 cb status --names
	assert_output $'api\ndb-1'
	[ "$(json api '.state + " " + .reason')" = "open manual trip by $(id -un): maintenance" ]
	run -0 cb status
	assert_line --regexp '^api +open '
	run -0 cb status api
	assert_line --partial "api - open (epoch 1)"
	run -0 cb reset api
	run -0 cb check api
	[ "$(json api .state)" = closed ]
	run -0 cb forget api
	run -0 "${RCLI[@]}" EXISTS cbexec:api
	assert_output 0
	run -1 cb forget api
	assert_output "cbexec: no such breaker 'api'"
	run -0 cb status --names
	assert_output db-1
}

@test "GLOBs of reset, trip and forget, and gc --dry-run, work against Redis" {
	redis_start
	config 'log = "none";'	# transitions stay out of the output
	export CBEXEC_STATE=$URL
	run -0 cb trip db-1 db-2 web
	run -0 cb reset 'db-*'
	assert_output $'db-1\ndb-2'
	[ "$(json db-1 .state)/$(json db-2 .state)/$(json web .state)" = closed/closed/open ]
	run -1 cb trip 'nomatch-*'
	assert_output "cbexec: no breaker matches 'nomatch-*'"
	run -0 cb gc --dry-run --idle 0
	assert_output $'would remove db-1\nwould remove db-2'
	run -0 cb status --names
	assert_output $'db-1\ndb-2\nweb'
	run -0 cb forget 'db-?'
	assert_output $'db-1\ndb-2'
	run -0 "${RCLI[@]}" EXISTS cbexec:db-1
	assert_output 0
	run -0 cb status --names
	assert_output web
}

@test "status walks every breaker with SCAN (KEYS is disabled) under its prefix only" {
	redis_start
	run -0 on a run seed -- true
	run -0 "${RCLI[@]}" EVAL "for i = 1, 1200 do redis.call('SET', 'cbexec:n' .. i, redis.call('GET', KEYS[1])) end return 1" 1 cbexec:seed
	run -0 "${RCLI[@]}" SET other:x junk
	run -0 "${RCLI[@]}" HSET cbexec:hash a b
	CBEXEC_STATE=$URL "$CBEXEC" status --names >"$T/names"
	[ "$(wc -l <"$T/names")" -eq 1201 ]
	sort -c "$T/names"
	run -1 grep -qx -e x -e hash "$T/names"
}

@test "redis_prefix keeps teams apart on one server" {
	redis_start
	config 'redis_prefix = "team-a:";'
	run -1 on a run api -- false
	run -0 "${RCLI[@]}" EXISTS team-a:api cbexec:api
	assert_output 1
	run -0 "${RCLI[@]}" EXISTS team-a:api
	assert_output 1
	config ''
	run -0 on a status --names
	assert_output ''
	config 'redis_prefix = "team-a:";'
	run -0 on a status --names
	assert_output api
}

@test "the password comes from CBEXEC_REDIS_PASSWORD and is never printed" {
	REDIS_ARGS=(--requirepass 's3cret-pw')
	REDIS_PASS=s3cret-pw redis_start
	export CBEXEC_STATE=$URL
	run -1 cb status
	assert_output --partial "NOAUTH"
	CBEXEC_REDIS_PASSWORD=wrong-pw run -1 cb status
	assert_output --partial "Redis refused AUTH"
	refute_output --partial "wrong-pw"
	# The server's sentence ends the line, or "; using ...", without its
	# full stop (not "disabled.; using the local breaker").
	refute_output --regexp '[.]$'
	CBEXEC_REDIS_PASSWORD=wrong-pw run -0 on a run x -- true
	assert_output --partial "Redis refused AUTH"
	refute_output --partial ".;"
	CBEXEC_REDIS_PASSWORD=s3cret-pw run -0 cb trip api
	CBEXEC_REDIS_PASSWORD=s3cret-pw run -0 cb status --names
	assert_output api
	# An ACL user: AUTH user password.
	run -0 redis-cli -h 127.0.0.1 -p "$PORT" --no-auth-warning -a s3cret-pw \
	    ACL SETUSER alice on '>alice-pw' '~cbexec:*' '+@all'
	CBEXEC_REDIS_PASSWORD=alice-pw run -0 cb -s "redis://alice@127.0.0.1:$PORT/0" status --names
	assert_output api
	run -1 cb -s "redis://alice@127.0.0.1:$PORT/0" status
	assert_output --partial "names a user but CBEXEC_REDIS_PASSWORD is not set"
	run -1 cb -s "redis://alice:alice-pw@127.0.0.1:$PORT/0" status
	assert_output "cbexec: invalid Redis URL: a password in the URL is not accepted (set CBEXEC_REDIS_PASSWORD)"
	refute_output --partial alice-pw
}

@test "unix: socket URLs and database numbers" {
	redis_start
	run -0 cb -s "unix:$T/redis.sock?db=2" trip api
	run -0 redis-cli -s "$T/redis.sock" -n 2 EXISTS cbexec:api
	assert_output 1
	run -0 redis-cli -s "$T/redis.sock" -n 0 EXISTS cbexec:api
	assert_output 0
	run -0 cb -s "redis://127.0.0.1:$PORT/2" status --names
	assert_output api
	config "state = \"$URL\";"
	CBEXEC_STATE='' run -0 cb status --names
	assert_output ''
	run -1 cb -s "redis://127.0.0.1:$PORT/x" status
	assert_output --partial "invalid Redis URL"
	run -1 cb -s "unix:relative.sock" status
	assert_output --partial "absolute socket path"
}

@test "the command inherits no connection to Redis" {
	redis_start
	run -0 on a run api -- sh -c 'for f in /proc/$$/fd/*; do readlink "$f"; done; true'
	refute_output --partial "socket:"
}

@test "store_timeout, fallback and redis_prefix are checked in the config" {
	# A broken config is said, and status works all the same (SPEC 4).
	config 'store_timeout = "0";'
	run -0 cb status
	assert_output --partial "cbexec.conf:1: store_timeout: must be a duration from 1ms to 60s"
	config 'store_timeout = 90;'
	run -0 cb status
	assert_output --partial "store_timeout: must be a duration from 1ms to 60s, not 90"
	config 'fallback = "maybe";'
	run -0 cb status
	assert_output --partial "fallback: must be one of local, none, not 'maybe'"
	config 'redis_prefix = "a b";'
	run -0 cb status
	assert_output --partial "redis_prefix: must be 1 to 64 printable bytes"
	config 'store_timeout = "100ms";' 'fallback = "local";' 'redis_prefix = "x:";'
	run -0 cb status
}

@test "store_timeout bounds the wait for a Redis that does not answer" {
	redis_start
	config 'store_timeout = "50ms";'
	kill -STOP "$(cat "$T/redis.pid")"
	run -0 on a run api -- true
	assert_output --partial "no answer within 50ms; using the local breaker"
	kill -CONT "$(cat "$T/redis.pid")"
}

@test "the command sees no descriptor of cbexec's with a Redis state: no socket" {
	redis_start
	run -0 cb -s "$URL" trip x --for 1ms
	sleep 0.01
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec "$CBEXEC" -s "'"$URL"'" run x -- sh -c "ls /proc/\$\$/fd/" 2>/dev/null'
	assert_equal "${lines[*]}" "0 1 2"
	run -0 "${RCLI[@]}" --scan --pattern 'cbexec:*'
	assert_output --partial x
}

@test "gc on Redis removes the idle closed breakers and keeps open and recent ones" {
	redis_start
	config 'log = "none";'
	export CBEXEC_STATE=$URL
	run -0 cb_at -2d run old -- true
	run -0 cb_at -3d run older -- true
	run -0 cb_at -3d trip tripped --for 10d
	run -0 cb run new -- true
	run -0 "${RCLI[@]}" SET other:old junk
	run -0 cb gc --idle 1d
	assert_output $'old\nolder'
	run -0 cb status --names
	assert_output $'new\ntripped'
	run -0 "${RCLI[@]}" EXISTS cbexec:old cbexec:older other:old
	assert_output 1
	run -0 cb gc --idle 1d
	assert_output ""
}

@test "gc on Redis removes hundreds of idle breakers, across MGET batches" {
	redis_start
	export CBEXEC_STATE=$URL
	run -0 cb_at -2d run seed -- true
	run -0 "${RCLI[@]}" EVAL "for i = 1, 300 do redis.call('SET', 'cbexec:n' .. i, redis.call('GET', KEYS[1])) end return 1" 1 cbexec:seed
	run -0 cb_at -2d trip zz --for 1ms
	run -0 cb reset zz
	run -0 cb gc --idle 1d
	[ "${#lines[@]}" -eq 301 ]
	run -0 cb status --names
	assert_output zz
}

@test "gc on a Redis that does not answer exits 1 and says so" {
	redis_start
	config 'store_timeout = "100ms";'
	run -0 cb -s "$URL" run api -- true
	kill -STOP "$(cat "$T/redis.pid")"
	run -1 cb -s "$URL" gc --idle 1s
	assert_output --partial "in state '$URL': no answer within 100ms"
	kill -CONT "$(cat "$T/redis.pid")"
}

@test "gc with a Redis URL never looks for a file of that name" {
	redis_start
	export CBEXEC_STATE=$URL
	run -0 cb_at -2d run old -- true
	# A file named like the URL, below the working directory.
	mkdir -p "$T/cwd/redis:/127.0.0.1:$PORT"
	: >"$T/cwd/$URL"
	cd "$T/cwd"
	run -0 cb gc --idle 1d
	assert_output old
}

@test "max_breakers holds on Redis: the least recently used closed breaker goes" {
	redis_start
	config 'max_breakers = 3;'
	export CBEXEC_STATE=$URL
	run -0 cb_at -4m run a -- true
	run -0 cb_at -3m run b -- true
	run -0 cb_at -2m trip c --for 1h
	run -0 cb run d -- true
	run -0 cb status --names
	assert_output $'b\nc\nd'
	run -0 "${RCLI[@]}" EXISTS cbexec:a
	assert_output 0
	# An existing breaker evicts nothing.
	run -0 cb run d -- true
	run -0 cb status --names
	assert_output $'b\nc\nd'
	# -v names the victim.
	run -0 cb -v run e -- true
	assert_line "cbexec: b: evicted (max_breakers 3, least recently used)"
	run -0 cb status --names
	assert_output $'c\nd\ne'
}

@test "max_breakers on Redis: when every breaker is open, the oldest open one goes, with a warning" {
	redis_start
	config 'max_breakers = 2;' 'log = "none";'
	export CBEXEC_STATE=$URL
	run -0 cb_at -2m trip a
	run -0 cb_at -1m trip b
	run -0 cb run c -- true
	assert_output "cbexec: warning: max_breakers (2) reached and every breaker is open or running: evicted breaker 'a'"
	run -0 cb status --names
	assert_output $'b\nc'
}

@test "max_breakers on Redis counts only its prefix's keys" {
	redis_start
	config 'max_breakers = 2;'
	run -0 "${RCLI[@]}" MSET other:1 x other:2 x other:3 x
	export CBEXEC_STATE=$URL
	run -0 cb run a -- true
	run -0 cb run b -- true
	run -0 cb status --names
	assert_output $'a\nb'
	run -0 "${RCLI[@]}" DBSIZE
	assert_output 5
}

@test "check falls back to the local breaker when Redis does not answer" {
	redis_start
	run -0 on a trip api --for 10m
	run -75 on a check api
	kill -STOP "$(cat "$T/redis.pid")"
	# The local breaker of host a knows nothing of api: admitted.
	run -0 --separate-stderr on a check api
	assert_equal "$stderr" "cbexec: warning: cannot read breaker 'api' in state '$URL': no answer within 250ms; using the local breaker"
	# A local breaker that is open refuses.
	CBEXEC_STATE=$T/b.mdb run -0 cb trip local-only --for 10m
	run -75 on b check local-only
	# fallback = "none": check fails as before.
	config 'fallback = "none";'
	run -1 on a check api
	assert_output "cbexec: cannot read breaker 'api' in state '$URL': no answer within 250ms"
	kill -CONT "$(cat "$T/redis.pid")"
	run -75 on a check api
}

@test "store_timeout bounds the name lookup too: a resolver that never answers" {
	[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace for resolv.conf)"
	unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
	local ns=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1)).53
	# A DNS server that takes every query and answers none: glibc alone
	# would wait timeout x attempts = 10s.
	printf 'nameserver %s\noptions timeout:5 attempts:2\n' "$ns" >"$T/resolv.conf"
	timeout 60 python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
print("up", flush=True)
time.sleep(60)' "$ns" >"$T/dns.out" 3>&- &
	local dns=$!
	WAIT_S=10 wait_for grep -q up "$T/dns.out"
	local t0 t1
	t0=$(now_ms)
	run -0 --separate-stderr unshare -m sh -c 'mount --bind "$1" /etc/resolv.conf &&
	    shift && exec "$@"' sh "$T/resolv.conf" env CBEXEC_STATE="$T/a.mdb" \
	    "$CBEXEC" -s redis://fleet.example:6379/0 run api -- true
	t1=$(now_ms)
	kill "$dns"
	wait "$dns" 2>/dev/null || true
	assert_equal "$stderr" "cbexec: warning: cannot connect to Redis in state 'redis://fleet.example:6379/0': no answer within 250ms; using the local breaker"
	# Bounded by store_timeout (250ms), with room for a loaded machine.
	[ $((t1 - t0)) -lt 5000 ]
	[ "$(local_json a api .calls)" = 1 ]
}

@test "a host name that resolves is connected to by its address" {
	redis_start
	grep -qw localhost /etc/hosts || skip "no localhost in /etc/hosts"
	run -0 cb -s "redis://localhost:$PORT/0" run api -- true
	assert_output ""
	run -0 "${RCLI[@]}" EXISTS cbexec:api
	assert_output 1
}

@test "max_concurrent holds across the fleet: 2 of 6 runs on two hosts, the others busy" {
	redis_start
	for id in 1 2 3 4 5 6; do
		if ((id % 2)); then host=a; else host=b; fi
		bg "$id" on "$host" run job -o max_concurrent=2 -- sh -c \
		    'echo x >>"$0/started"; while [ ! -e "$0/release" ]; do sleep 0.02; done' "$T"
	done
	WAIT_S=30 wait_for refused_n 4
	[ "$(wc -l <"$T/started")" -eq 2 ]
	grep -h "busy, 2 of 2 running (pid [0-9]* since [0-9:]*, pid [0-9]* since [0-9:]*)" "$T"/err.* >/dev/null
	[ "$(fleet job '.running | length')" = 2 ]
	touch "$T/release"
	WAIT_S=30 bg_wait 1 2 3 4 5 6
	[ "$(cat "$T"/rc.* | sort | tr '\n' ' ')" = "0 0 75 75 75 75 " ]
	[ "$(fleet job '[.calls, .busy, .failures, (.running | length)] | map(tostring) | join(" ")')" = "2 4 0 0" ]
	[ "$(fleet job .state)" = closed ]
}

@test "a run slot whose holder was SIGKILLed is freed through the fleet, silently" {
	redis_start
	CBEXEC_STATE=$T/a.mdb "$CBEXEC" -s "$URL" run job -o max_concurrent=1 -- sh -c \
	    'echo $$ >"$0/job"; while [ ! -e "$0/release" ]; do sleep 0.02; done' \
	    "$T" 3>&- &
	pid=$!
	echo "$pid" >"$T/holder.pid"
	WAIT_S=10 wait_for eval '[ "$(fleet job ".running | length")" = 1 ]'
	WAIT_S=10 wait_for test -s "$T/job"
	run -75 on b run job -o max_concurrent=1 -- true
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	group_gone "$(cat "$T/job")"
	run -0 --separate-stderr on b run job -o max_concurrent=1 -- true
	assert_equal "$stderr" ''
	[ "$(fleet job '[.state, .calls, .busy, .failures, (.running | length)] | map(tostring) | join(" ")')" = "closed 1 1 0 0" ]
}

# fake_start MODE: a fake Redis on the unix socket $T/fake.sock (URL set),
# a python3 script that answers GET, SCAN and MGET with `$100000` and then
# one byte a tenth of a second (drip), or SCAN with cursor 1 for ever (scan1;
# scan1slow: each after 50 ms, with DBSIZE 1e11, as the issue's server);
# WATCH, MULTI and the like with +OK, DBSIZE with 10.  Each GET it takes
# is appended to $T/fake.log.
fake_start() {
	cat >"$T/fake.py" <<'PY'
import socket, sys, threading, time
mode, path, log = sys.argv[1:4]
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(16)
def command(f):
    line = f.readline()
    if not line.startswith(b'*'):
        return None
    args = []
    for _ in range(int(line[1:])):
        n = int(f.readline()[1:])
        args.append(f.read(n + 2)[:-2])
    return args
def serve(c):
    f = c.makefile('rb')
    try:
        while True:
            cmd = command(f)
            if cmd is None:
                return
            name = cmd[0].upper()
            if name == b'GET':
                with open(log, 'a') as l:
                    l.write('GET\n')
            if name in (b'GET', b'SCAN', b'MGET') and mode == 'drip':
                c.sendall(b'$100000\r\n')
                while True:
                    time.sleep(0.1)
                    c.sendall(b'x')
            elif name == b'SCAN' and mode.startswith('scan1'):
                if mode == 'scan1slow':
                    time.sleep(0.05)
                c.sendall(b'*2\r\n$1\r\n1\r\n*0\r\n')
            elif name == b'DBSIZE' and mode == 'scan1slow':
                c.sendall(b':100000000000\r\n')
            elif name == b'DBSIZE':
                c.sendall(b':10\r\n')
            elif name == b'GET':
                c.sendall(b'$-1\r\n')
            else:
                c.sendall(b'+OK\r\n')
    except OSError:
        pass
    finally:
        c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
	python3 "$T/fake.py" "$1" "$T/fake.sock" "$T/fake.log" 3>&- &
	echo "$!" >"$T/redis.pid"
	URL=unix:$T/fake.sock
	WAIT_S=10 wait_for test -S "$T/fake.sock"
}

@test "store_timeout bounds a whole command: a reply dripped a byte at a time falls back" {
	fake_start drip
	config 'store_timeout = "300ms";'
	start=$(now_ms)
	run -0 --separate-stderr timeout -s KILL 20 "$CBEXEC" -s "$URL" run fk -o max_concurrent=1 -- echo ran
	took=$(($(now_ms) - start))
	assert_output ran
	assert_equal "$stderr" "cbexec: warning: cannot update breaker 'fk' in state '$URL': no answer within 300ms; using the local breaker"
	# At most store_timeout, then the local breaker: far from the 10 s
	# the dripped reply would take, let alone 100000 bytes of it.
	[ "$took" -lt 5000 ] || fail "took ${took}ms"
	grep -q GET "$T/fake.log"
	# The plain read (no run slot) too, and status.
	run -0 timeout -s KILL 20 "$CBEXEC" -s "$URL" run fk -- true
	run -1 timeout -s KILL 20 "$CBEXEC" -s "$URL" status fk
	assert_output --partial "no answer within 300ms"
}

@test "SIGTERM ends a wait for a dripping Redis at once, exit 143, nothing recorded" {
	fake_start drip
	config 'store_timeout = "30s";'
	CBEXEC_STATE=$T/a.mdb "$CBEXEC" -s "$URL" run fk -o max_concurrent=1 -- touch "$T/ran" \
	    >"$T/out" 2>"$T/err" 3>&- &
	pid=$!
	WAIT_S=10 wait_for grep -q GET "$T/fake.log"
	kill -TERM "$pid"
	# Gone at once (0.2.0 ignored it for as long as the drip lasted).
	if ! WAIT_S=5 gone "$pid"; then
		kill -9 "$pid"
		wait "$pid" || true
		fail "SIGTERM did not end cbexec"
	fi
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ] || fail "exit $rc"
	[ ! -e "$T/ran" ]
	# Nothing recorded: not in the local fallback either.
	[ ! -e "$T/a.mdb" ] || [ "$(CBEXEC_STATE=$T/a.mdb "$CBEXEC" status --names)" = "" ]
}

@test "a SCAN that never ends is bounded by scan_timeout: status and gc fail naming the state" {
	fake_start scan1
	config 'scan_timeout = "1s";'
	start=$(now_ms)
	run -1 timeout -s KILL 60 "$CBEXEC" -s "$URL" status
	assert_output "cbexec: cannot list breakers in state '$URL': SCAN did not end within 1s"
	took=$(($(now_ms) - start))
	run -1 timeout -s KILL 60 "$CBEXEC" -s "$URL" gc --dry-run
	assert_output --partial "SCAN did not end within 1s"
	# One deadline, not a count of steps: at least the second, far from
	# 256 steps' worth (or 72 hours' with DBSIZE 1e11).
	[ "$took" -ge 1000 ] && [ "$took" -lt 5000 ] || fail "took ${took}ms"
}

@test "a slow SCAN with DBSIZE 1e11 ends by scan_timeout, its default 30s in config show" {
	fake_start scan1slow
	config 'scan_timeout = "1500ms";'
	start=$(now_ms)
	run -1 timeout -s KILL 60 "$CBEXEC" -s "$URL" status --json
	took=$(($(now_ms) - start))
	assert_output --partial "cannot list breakers in state '$URL': SCAN did not end within 1s500ms"
	[ "$took" -ge 1500 ] && [ "$took" -lt 6000 ] || fail "took ${took}ms"
	config 'log = "none";'
	run -0 cb config show
	assert_line --regexp '^scan_timeout +"30s" +built-in$'
}

@test "a Redis key under the prefix that is not a NAME is skipped, named escaped, exit 1" {
	redis_start
	config 'log = "none";'
	export CBEXEC_STATE=$URL
	run -0 cb_at -40d run good -- true
	run -0 "${RCLI[@]}" COPY cbexec:good $'cbexec:\e[2J\e]0;pwned\a'
	run -0 "${RCLI[@]}" COPY cbexec:good $'cbexec:\xff\xfe'
	run -1 --separate-stderr cb status --names
	assert_output good
	assert_equal "$stderr" "cbexec: key '\\x1b[2J\\x1b]0;pwned\\x07' in state '$URL': not a breaker name; skipped
cbexec: key '\\xff\\xfe' in state '$URL': not a breaker name; skipped"
	run -1 --separate-stderr cb status --prometheus
	printf '%s\n' "$output" >"$T/m.prom"
	run -0 promtool check metrics <"$T/m.prom"
	run -1 --separate-stderr cb gc --idle 1d
	assert_output good
	run -0 "${RCLI[@]}" EXISTS $'cbexec:\xff\xfe'
	assert_output 1
}

@test "pods on one kernel (one boot id, two PID namespaces) never take each other's live run slots" {
	[ "$(id -u)" = 0 ] || skip "needs root (unshare)"
	redis_start
	local pod job='echo $$ >"$0/job"; while [ ! -e "$0/release" ]; do sleep 0.02; done'
	# pod-a runs in this PID namespace, pod-b in one of its own (its
	# cbexec is pid 1 there): each holds the slot while the other asks.
	for pod in a b; do
		rm -f "$T/job" "$T/release"
		if [ "$pod" = a ]; then
			CBEXEC_STATE=$T/a.mdb "$CBEXEC" -s "$URL" run job \
			    -o max_concurrent=1 -- sh -c "$job" "$T" 3>&- &
		else
			CBEXEC_STATE=$T/b.mdb unshare -p -f --mount-proc \
			    "$CBEXEC" -s "$URL" run job -o max_concurrent=1 -- \
			    sh -c "$job" "$T" 3>&- &
		fi
		echo "$!" >"$T/holder.pid"
		WAIT_S=10 wait_for test -s "$T/job"
		if [ "$pod" = a ]; then
			run -75 env CBEXEC_STATE="$T/b.mdb" unshare -p -f \
			    --mount-proc "$CBEXEC" -s "$URL" run job \
			    -o max_concurrent=1 -- true
		else
			run -75 on a run job -o max_concurrent=1 -- true
			assert_output --regexp 'busy, 1 of 1 running \(pid 1 in pid:\[[0-9]+\] since'
		fi
		touch "$T/release"
		wait "$(cat "$T/holder.pid")"
	done
	[ "$(fleet job '[.calls, .busy, .failures, (.running | length)] | map(tostring) | join(" ")')" = "2 2 0 0" ]
}
