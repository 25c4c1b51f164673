#!/bin/bash
# SPDX-License-Identifier: ISC
# bench/run.sh: the figures of `make bench`.  cbexec next to the floor
# (bench/floor.c: the least an LMDB-backed breaker can do per call), next to
# `timeout 60 /bin/true` and /bin/true, in one hyperfine run; then
# contention, scale (1,000,000 breakers written by bench/gen.c through
# cbexec's own store code), peak memory, and a closed run on the fleet
# store (a private redis-server on loopback) when cbexec has Redis.  Ends
# with one `ratios ...` line.
#
#   bench/run.sh CBEXEC FLOOR GEN
#
# Environment: BENCH_RUNS (default 200), BENCH_WARMUP (20), BENCH_SCALE_N
# (1000000), BENCH_DIR (default: a new directory under /tmp, removed at the
# end; the state files need about 400 MB there), BENCH_BASE (another
# cbexec, say 0.2.0's, whose closed and refused runs are timed alongside on
# state files of their own).  Timings are wall-clock
# medians on this machine, so run it on an otherwise idle one.

set -euo pipefail

if [ $# -ne 3 ]; then
	echo "usage: bench/run.sh CBEXEC FLOOR GEN" >&2
	exit 2
fi
CB=$(realpath "$1")
FLOOR=$(realpath "$2")
GEN=$(realpath "$3")
RUNS=${BENCH_RUNS:-200}
WARMUP=${BENCH_WARMUP:-20}
SCALE_N=${BENCH_SCALE_N:-1000000}

for tool in hyperfine jq mdb_dump /usr/bin/time; do
	if ! command -v "$tool" >/dev/null; then
		echo "bench: '$tool' is missing (make deps installs it)" >&2
		exit 1
	fi
done

RPID=
SPID=
if [ -n "${BENCH_DIR:-}" ]; then
	D=$BENCH_DIR
	mkdir -p "$D"
	KEEP=1
else
	D=$(mktemp -d /tmp/cbexec-bench.XXXXXX)
	KEEP=0
fi
cleanup() {	# our redis-servers by their pids, then the scratch directory
	local p
	for p in "$SPID" "$RPID"; do
		if [ -n "$p" ] && kill "$p" 2>/dev/null; then
			wait "$p" 2>/dev/null || true
		fi
	done
	[ "$KEEP" = 1 ] || rm -rf "$D"
}
trap cleanup EXIT
rm -rf "${D:?}"/*

# No user or system config is found unless a command names one with -c:
# the default run is the one most cron lines make, at the default sync
# (meta), and the floor without -S uses the same.
export HOME=$D/home
unset XDG_CONFIG_HOME XDG_STATE_HOME CBEXEC_CONFIG CBEXEC_STATE CBEXEC_DISABLE
mkdir -p "$HOME"
for m in full meta none; do
	printf 'sync = "%s";\n' "$m" >"$D/sync-$m.conf"
done
# A closed run with a concurrency limit: admission takes a run slot, so
# it writes (SPEC 2b).
printf 'defaults = { max_concurrent = 4; };\n' >"$D/bulkhead.conf"
# The rate limit (SPEC 2d) against the bulkhead: a closed run under a
# max_rate it never reaches writes its turn, as max_concurrent = 1 writes
# its slot; a rate limited refusal against a busy one.
printf 'defaults = { max_concurrent = 1; };\n' >"$D/conc1.conf"
printf 'defaults = { max_rate = "1000000/1s"; };\n' >"$D/rate.conf"
printf 'defaults = { max_rate = "1/1d"; };\n' >"$D/rate-slow.conf"

# hyperfine's JSON files -> "name median_seconds" lines, the runs of every
# round pooled per command.
medians() {
	jq -rs 'map(.results[]) | group_by(.command)[] |
	    (map(.times) | add | sort) as $t | ($t | length) as $n |
	    "\(.[0].command) \(if $n % 2 == 1 then $t[($n - 1) / 2]
	    else ($t[$n / 2 - 1] + $t[$n / 2]) / 2 end)"' "$@"
}
# Median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
	    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}
ms() {
	awk -v s="$1" 'BEGIN { printf "%.3f", s * 1000 }'
}
expect() {	# expect STATUS COMMAND...: a sanity check before timing
	local want=$1 rc=0
	shift
	"$@" >/dev/null 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "bench: '$*' exited $rc, not $want" >&2
		exit 1
	fi
}

S=$D/cb.mdb
F=$D/floor.mdb
echo "== setup in $D"
expect 0 "$CB" -s "$S" run b -- /bin/true
expect 0 "$CB" -s "$S" run b -t 60s -- /bin/true
expect 0 "$CB" -s "$S" trip o --for 1d
expect 75 "$CB" -s "$S" run o -- /bin/true
for m in full meta none; do
	expect 0 "$CB" -c "$D/sync-$m.conf" -s "$D/cb-$m.mdb" run b -- /bin/true
	expect 0 "$FLOOR" -S "$m" "$D/floor-$m.mdb" b /bin/true
done
expect 0 "$FLOOR" "$F" b /bin/true
expect 0 "$FLOOR" -n "$F" b
expect 0 "$CB" -c "$D/bulkhead.conf" -s "$D/cb-bh.mdb" run b -- /bin/true
expect 0 "$CB" -c "$D/conc1.conf" -s "$D/cb-c1.mdb" run b -- /bin/true
expect 0 "$CB" -c "$D/rate.conf" -s "$D/cb-rate.mdb" run b -- /bin/true
expect 0 "$CB" -c "$D/conc1.conf" -s "$D/cb-busy.mdb" acquire o --lease 1d
expect 75 "$CB" -c "$D/conc1.conf" -s "$D/cb-busy.mdb" run o -- /bin/true
expect 0 "$CB" -c "$D/rate-slow.conf" -s "$D/cb-rl.mdb" run o -- /bin/true
expect 75 "$CB" -c "$D/rate-slow.conf" -s "$D/cb-rl.mdb" run o -- /bin/true
BASE=()
if [ -n "${BENCH_BASE:-}" ]; then
	B=$(realpath "$BENCH_BASE")
	expect 0 "$B" -s "$D/base.mdb" run b -- /bin/true
	expect 0 "$B" -s "$D/base.mdb" trip o --for 1d
	expect 75 "$B" -s "$D/base.mdb" run o -- /bin/true
	BASE=(-n base_closed "$B -s $D/base.mdb run b -- /bin/true"
	    -n base_refused "$B -s $D/base.mdb run o -- /bin/true")
fi

# The fleet store (issue 7): a private redis-server on a free loopback
# port, no persistence, stopped by its pid.  Skipped, with a message, when
# cbexec was built without hiredis or redis-server is not installed.
FLEET=()
if ! "$CB" -s unix:/nonexistent.sock status >/dev/null 2>"$D/probe.err" &&
    grep -q 'built without Redis' "$D/probe.err"; then
	echo "bench: cbexec built without Redis (hiredis missing or" \
	    "WITH_REDIS=0): no fleet row"
elif ! command -v redis-server >/dev/null ||
    ! command -v redis-cli >/dev/null; then
	echo "bench: redis-server or redis-cli missing (make deps installs" \
	    "them): no fleet row"
else
	for ((try = 0; try < 20; try++)); do
		RPORT=$((20000 + RANDOM % 40000))
		redis-server --port "$RPORT" --bind 127.0.0.1 --save '' \
		    --appendonly no --dir "$D" --logfile "$D/redis.log" &
		RPID=$!
		for ((i = 0; i < 500; i++)); do	# up (10 s at most), or gone
			[ "$(redis-cli -h 127.0.0.1 -p "$RPORT" ping \
			    2>/dev/null)" = PONG ] && break 2
			kill -0 "$RPID" 2>/dev/null || break
			sleep 0.02
		done
		if kill "$RPID" 2>/dev/null; then
			wait "$RPID" 2>/dev/null || true
		fi
		RPID=
	done
	if [ -z "$RPID" ]; then
		echo "bench: no redis-server came up (see $D/redis.log)" >&2
		exit 1
	fi
	RURL=redis://127.0.0.1:$RPORT/0
	# The record must be in Redis: a fallback to the local file would
	# time LMDB again (and warn on stderr).
	if ! "$CB" -s "$RURL" run b -- /bin/true 2>"$D/fleet.err" ||
	    [ -s "$D/fleet.err" ] || [ "$(redis-cli -h 127.0.0.1 \
	    -p "$RPORT" exists cbexec:b)" != 1 ]; then
		echo "bench: the fleet run did not reach Redis:" >&2
		cat "$D/fleet.err" >&2
		exit 1
	fi
	echo "fleet store: redis-server (pid $RPID) on $RURL"
	FLEET=(-n fleet "$CB -s $RURL run b -- /bin/true")
	# The same server through one Sentinel (issue 20): each call asks the
	# sentinel for the master and checks ROLE first.  Skipped with a
	# message when no sentinel comes up.
	SPORT=$((20000 + RANDOM % 40000))
	printf 'port %s\nbind 127.0.0.1\nsentinel monitor cb 127.0.0.1 %s 1\n' \
	    "$SPORT" "$RPORT" >"$D/sentinel.conf"
	redis-server "$D/sentinel.conf" --sentinel \
	    --logfile "$D/sentinel.log" &
	SPID=$!
	SURL=redis-sentinel://127.0.0.1:$SPORT/cb/0
	for ((i = 0; i < 500; i++)); do	# it names the master (10 s at most)
		[ "$(redis-cli -h 127.0.0.1 -p "$SPORT" sentinel \
		    get-master-addr-by-name cb 2>/dev/null | head -1)" = \
		    127.0.0.1 ] && break
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.02
	done
	if "$CB" -s "$SURL" run s -- /bin/true 2>"$D/sentinel.err" &&
	    [ ! -s "$D/sentinel.err" ] && [ "$(redis-cli -h 127.0.0.1 \
	    -p "$RPORT" exists cbexec:s)" = 1 ]; then
		echo "fleet store: sentinel (pid $SPID) on $SURL"
		FLEET+=(-n sentinel "$CB -s $SURL run s -- /bin/true")
	else
		echo "bench: no Sentinel row: the run did not reach Redis" \
		    "through 127.0.0.1:$SPORT ($(head -c 200 "$D/sentinel.err"))"
	fi
fi

# -------------------------------------------------------------------------
# Other load on the machine comes and goes, and hyperfine runs one command
# after the other: in ROUNDS rounds of RUNS/ROUNDS runs each, every command
# sees the same mix of quiet and busy moments.  Medians over all runs.
ROUNDS=${BENCH_ROUNDS:-5}
PER=$(((RUNS + ROUNDS - 1) / ROUNDS))
echo "== latency: $ROUNDS rounds of $PER runs each after $WARMUP warm-up" \
    "runs (hyperfine -N)"
for ((r = 1; r <= ROUNDS; r++)); do
# A refused call exits 75, hence -i; every exit status was checked above.
hyperfine -N -i --style none --warmup "$WARMUP" --runs "$PER" \
    --export-json "$D/lat-$r.json" \
    -n true		"/bin/true" \
    -n timeout		"timeout 60 /bin/true" \
    -n floor		"$FLOOR $F b /bin/true" \
    -n floor_noexec	"$FLOOR -n $F b" \
    -n closed		"$CB -s $S run b -- /bin/true" \
    -n closed_t		"$CB -s $S run b -t 60s -- /bin/true" \
    -n refused		"$CB -s $S run o -- /bin/true" \
    -n closed_full	"$CB -c $D/sync-full.conf -s $D/cb-full.mdb run b -- /bin/true" \
    -n closed_meta	"$CB -c $D/sync-meta.conf -s $D/cb-meta.mdb run b -- /bin/true" \
    -n closed_none	"$CB -c $D/sync-none.conf -s $D/cb-none.mdb run b -- /bin/true" \
    -n closed_bulkhead	"$CB -c $D/bulkhead.conf -s $D/cb-bh.mdb run b -- /bin/true" \
    -n closed_conc1	"$CB -c $D/conc1.conf -s $D/cb-c1.mdb run b -- /bin/true" \
    -n closed_rate	"$CB -c $D/rate.conf -s $D/cb-rate.mdb run b -- /bin/true" \
    -n busy_refused	"$CB -c $D/conc1.conf -s $D/cb-busy.mdb run o -- /bin/true" \
    -n rate_refused	"$CB -c $D/rate-slow.conf -s $D/cb-rl.mdb run o -- /bin/true" \
    -n floor_full	"$FLOOR -S full $D/floor-full.mdb b /bin/true" \
    -n floor_meta	"$FLOOR -S meta $D/floor-meta.mdb b /bin/true" \
    -n floor_none	"$FLOOR -S none $D/floor-none.mdb b /bin/true" \
    "${FLEET[@]}" "${BASE[@]}" \
    >"$D/lat-$r.txt"
done
declare -A M
while read -r n v; do
	M[$n]=$v
done < <(medians "$D"/lat-*.json)

# -------------------------------------------------------------------------
echo "== contention: 8 workers x 250 runs on one breaker, median of 3"
worker() {	# worker N COMMAND...: N runs, one after the other
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 || true
	done
}
contend() {	# contend COMMAND...: invocations per second of 8 x 250
	local t0 t1
	t0=$(date +%s.%N)
	for _ in 1 2 3 4 5 6 7 8; do
		worker 250 "$@" &
	done
	wait
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 2000 / (b - a) }'
}
CT_CB=()
CT_FL=()
for rep in 1 2 3; do
	rm -f "$D/ct.mdb" "$D/ct.mdb-lock" "$D/ctf.mdb" "$D/ctf.mdb-lock"
	expect 0 "$CB" -s "$D/ct.mdb" run c -- /bin/true
	"$CB" -s "$D/ct.mdb" forget c
	CT_CB+=("$(contend "$CB" -s "$D/ct.mdb" run c -- /bin/true)")
	CT_FL+=("$(contend "$FLOOR" "$D/ctf.mdb" c /bin/true)")
	calls=$("$CB" -s "$D/ct.mdb" status --json c | jq '.[0].calls')
	if [ "$calls" != 2000 ]; then
		echo "bench: contention round $rep recorded $calls calls," \
		    "not 2000" >&2
		exit 1
	fi
	echo "round $rep: cbexec ${CT_CB[-1]}/s, floor ${CT_FL[-1]}/s," \
	    "recorded calls $calls (exact)"
done
CT_CB_BEST=$(printf '%s\n' "${CT_CB[@]}" | median)
CT_FL_BEST=$(printf '%s\n' "${CT_FL[@]}" | median)

# -------------------------------------------------------------------------
echo "== scale: $SCALE_N breakers (bench/gen.c through src/store-lmdb.c)"
S1=$D/scale-big.mdb
S10=$D/scale-10.mdb
t0=$(date +%s.%N)
"$GEN" "$S1" "$SCALE_N"
t1=$(date +%s.%N)
"$GEN" "$S10" 10
printf 'max_breakers = %d;\n' "$SCALE_N" >"$D/max-big.conf"
printf 'max_breakers = 10;\n' >"$D/max-10.conf"
BYTES=$(stat -c %s "$S1")
BPB=$(awk -v b="$BYTES" -v n="$SCALE_N" 'BEGIN { printf "%.0f", b / n }')
awk -v a="$t0" -v b="$t1" -v n="$SCALE_N" -v s="$BYTES" 'BEGIN {
    printf "generated %d breakers in %.1fs: %d bytes, %.0f bytes a breaker\n",
    n, b - a, s, s / n }'
# status first: the floor below writes a record that is not cbexec's.
SRUNS=${BENCH_STATUS_RUNS:-5}
hyperfine -N --style none --warmup 1 --runs "$SRUNS" \
    --export-json "$D/status.json" \
    -n status_json	"$CB -s $S1 status --json" \
    -n mdb_dump		"mdb_dump -n -a $S1" \
    >"$D/status.txt"
while read -r n v; do
	M[$n]=$v
done < <(medians "$D/status.json")
# The floor on the same two files shows what the tree's depth costs any
# LMDB breaker (a commit rewrites the path from the root to the leaf).
old=bench-0000005
fold=bench-0000007
expect 0 "$CB" -c "$D/max-big.conf" -s "$S1" run "$old" -- /bin/true
for ((r = 1; r <= ROUNDS; r++)); do
hyperfine -N --style none --warmup "$WARMUP" --runs "$PER" \
    --export-json "$D/scale-$r.json" \
    -n scale_10		"$CB -c $D/max-10.conf -s $S10 run $old -- /bin/true" \
    -n scale_big	"$CB -c $D/max-big.conf -s $S1 run $old -- /bin/true" \
    -n floor_10		"$FLOOR $S10 $fold /bin/true" \
    -n floor_big	"$FLOOR $S1 $fold /bin/true" \
    >"$D/scale-$r.txt"
done
while read -r n v; do
	M[$n]=$v
done < <(medians "$D"/scale-*.json)
# A new name every run: one single-run benchmark per name, in rounds.
for ((r = 1; r <= ROUNDS; r++)); do
	names=$(seq -s, $(((r - 1) * PER + 1)) $((r * PER)))
	for f in 10 big; do
		hyperfine -N --style none --runs 1 \
		    --export-json "$D/new-$f-$r.json" -L n "$names" \
		    "$CB -c $D/max-$f.conf -s $D/scale-$f.mdb run new-{n} -- /bin/true" \
		    >/dev/null
	done
done
for f in 10 big; do
	M[new_$f]=$(jq -r '.results[].times[]' "$D"/new-$f-*.json | median)
done

# -------------------------------------------------------------------------
echo "== memory: peak RSS (kB), median of 21"
rss() {
	local i
	for i in $(seq 21); do
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	done | median
}
RSS_CB=$(rss "$CB" -s "$S" run b -- /bin/true)
RSS_TO=$(rss timeout 60 /bin/true)
RSS_FL=$(rss "$FLOOR" "$F" b /bin/true)

# -------------------------------------------------------------------------
echo
echo "median wall time, ms ($((PER * ROUNDS)) runs each; ratio against its floor)"
row() {	# row LABEL NAME [BASE]
	if [ $# -eq 3 ]; then
		printf '  %-44s %8s   %s\n' "$1" "$(ms "${M[$2]}")" \
		    "$(ratio "${M[$2]}" "${M[$3]}")"
	else
		printf '  %-44s %8s\n' "$1" "$(ms "${M[$2]}")"
	fi
}
row "/bin/true" true
row "timeout 60 /bin/true" timeout
row "floor: open, txn, fork/exec, txn (meta)" floor
row "floor without exec: open, txn, txn" floor_noexec
row "cbexec run, closed (no config: sync = meta)" closed floor
row "cbexec run, refused (open)" refused floor_noexec
row "cbexec run, closed, -t 60s" closed_t timeout
for m in full meta none; do
	row "cbexec run, closed, sync = $m (-c)" "closed_$m" "floor_$m"
done
for m in full meta none; do
	row "floor, sync = $m" "floor_$m"
done
row "cbexec run, closed, max_concurrent = 4" closed_bulkhead closed
row "cbexec run, closed, max_concurrent = 1" closed_conc1 closed
row "cbexec run, closed, max_rate (never reached)" closed_rate closed_conc1
row "cbexec run, busy (max_concurrent = 1)" busy_refused refused
row "cbexec run, rate limited (max_rate)" rate_refused busy_refused
if [ ${#FLEET[@]} -gt 0 ]; then
	row "cbexec run, closed, fleet (Redis, loopback)" fleet closed
	if [ ${#FLEET[@]} -gt 2 ]; then
		row "cbexec run, closed, fleet through Sentinel" sentinel fleet
	fi
else
	printf '  %-44s %8s\n' "cbexec run, closed, fleet (Redis)" skipped
fi
if [ ${#BASE[@]} -gt 0 ]; then
	row "BENCH_BASE run, closed" base_closed
	row "BENCH_BASE run, refused" base_refused
	row "cbexec run, closed, against BENCH_BASE's" closed base_closed
	row "cbexec run, refused, against BENCH_BASE's" refused base_refused
fi
row "run, existing name, 10 breakers" scale_10
row "run, existing name, $SCALE_N breakers" scale_big scale_10
row "floor, existing name, 10 breakers" floor_10
row "floor, existing name, $SCALE_N breakers" floor_big floor_10
row "run, new name, 10 breakers (max_breakers 10)" new_10
row "run, new name, $SCALE_N (max_breakers $SCALE_N)" new_big new_10
row "status --json, $SCALE_N breakers" status_json mdb_dump
row "mdb_dump -a, same file" mdb_dump
printf '  %-44s %8s   %s\n' "contention, cbexec (runs/s, median of 3)" \
    "$CT_CB_BEST" "$(ratio "$CT_CB_BEST" "$CT_FL_BEST")"
printf '  %-44s %8s\n' "contention, floor (runs/s, median of 3)" "$CT_FL_BEST"
printf '  %-44s %8s\n' "state file bytes per breaker" "$BPB"
printf '  %-44s %8s   %s\n' "peak RSS kB, cbexec run" "$RSS_CB" \
    "$(ratio "$RSS_CB" "$RSS_TO")"
printf '  %-44s %8s\n' "peak RSS kB, timeout 60 /bin/true" "$RSS_TO"
printf '  %-44s %8s\n' "peak RSS kB, floor" "$RSS_FL"
echo
printf 'ratios closed/floor=%s refused/floor_noexec=%s closed/timeout=%s' \
    "$(ratio "${M[closed]}" "${M[floor]}")" \
    "$(ratio "${M[refused]}" "${M[floor_noexec]}")" \
    "$(ratio "${M[closed]}" "${M[timeout]}")"
printf ' contention/floor=%s scale_1M/scale_10=%s new_1M/new_10=%s' \
    "$(ratio "$CT_CB_BEST" "$CT_FL_BEST")" \
    "$(ratio "${M[scale_big]}" "${M[scale_10]}")" \
    "$(ratio "${M[new_big]}" "${M[new_10]}")"
printf ' status_1M/mdb_dump=%s bytes_per_breaker=%s rss/timeout=%s' \
    "$(ratio "${M[status_json]}" "${M[mdb_dump]}")" "$BPB" \
    "$(ratio "$RSS_CB" "$RSS_TO")"
printf ' floor_1M/floor_10=%s closed_full/timeout=%s closed_none/timeout=%s' \
    "$(ratio "${M[floor_big]}" "${M[floor_10]}")" \
    "$(ratio "${M[closed_full]}" "${M[timeout]}")" \
    "$(ratio "${M[closed_none]}" "${M[timeout]}")"
printf ' bulkhead/closed=%s closed_t/timeout=%s' \
    "$(ratio "${M[closed_bulkhead]}" "${M[closed]}")" \
    "$(ratio "${M[closed_t]}" "${M[timeout]}")"
printf ' rate_refused/busy_refused=%s closed_rate/closed_conc1=%s' \
    "$(ratio "${M[rate_refused]}" "${M[busy_refused]}")" \
    "$(ratio "${M[closed_rate]}" "${M[closed_conc1]}")"
printf ' fleet/closed=%s sentinel/fleet=%s' \
    "$([ ${#FLEET[@]} -gt 0 ] && ratio "${M[fleet]}" "${M[closed]}" ||
    echo -)" \
    "$([ ${#FLEET[@]} -gt 2 ] && ratio "${M[sentinel]}" "${M[fleet]}" ||
    echo -)"
if [ ${#BASE[@]} -gt 0 ]; then
	printf ' closed/base=%s refused/base=%s' \
	    "$(ratio "${M[closed]}" "${M[base_closed]}")" \
	    "$(ratio "${M[refused]}" "${M[base_refused]}")"
fi
echo
