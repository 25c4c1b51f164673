#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# chaos.sh CBEXEC WORKERS RUNS: WORKERS workers make RUNS guarded runs in
# all on three breakers that trip and probe often, and SIGKILL cbexec (a
# third of the runs) or its child (a sixth) at a random moment: during
# start-up, inside a store transaction, while the command runs, while the
# outcome is written.  Then:
#   - the state file opens (status --json exits 0);
#   - on every breaker calls = successes + failures + ignored +
#     interrupted + stale;
#   - successes <= runs whose command finished with 0 (a run killed
#     mid-flight is never a success);
#   - every child of a SIGKILLed cbexec dies within 5s (PR_SET_PDEATHSIG);
#   - every breaker closes again within a bounded time: probe slots of
#     dead holders are reclaimed, none stays half-open;
#   - then gc and max_breakers eviction SIGKILLed at random moments leave
#     a state file that opens, within its bound, with totals that add up
#     (second phase, below).
#
# chaos.sh CBEXEC WORKERS RUNS bulkhead: the bulkhead mode instead (SPEC
# 2b): the runs share one breaker with max_concurrent = 2, SIGKILLed the
# same way.  Then the state file opens, totals add up, busy refusals
# tripped nothing (closed, no failure, epoch 0), and after the next call no
# run slot is held by a dead process.
set -u
cb=${1:?usage: chaos.sh CBEXEC WORKERS RUNS [bulkhead]}
workers=${2:?} runs=${3:?} mode=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/cbexec-chaos.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export CBEXEC_STATE=$dir/state.mdb CBEXEC_CONFIG=$dir/cbexec.conf
cat >"$CBEXEC_CONFIG" <<CONF
log = "none";
defaults = {
  trip = { failures = 3; }; signal_is = "ignore";
  open_timeout = "100ms"; max_open_timeout = "400ms";
  half_open_max_calls = 2;
};
CONF

alive() {
	local st
	read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" || return 1
	[ "$st" != Z ] && [ "$st" != X ]
}

worker() {
	local w=$1 i id pid cpid code t k
	RANDOM=$((w * 104729 + 7))
	for ((i = 0; i < (runs + workers - 1 - w) / workers; i++)); do
		id=$w.$i
		code=$(((RANDOM % 3) == 0))
		"$cb" -q run "b$((RANDOM % 3))" -- "$here/chaos-child.sh" \
		    "$dir" "$id" "$code" "0.$((RANDOM % 20))" \
		    >/dev/null 2>>"$dir/cbexec.err" &
		pid=$!
		k=$((RANDOM % 6))
		t=0.0$((RANDOM % 10))$((RANDOM % 10))
		case $k in
		0 | 1)	# SIGKILL cbexec at a random moment
			sleep "$t"
			kill -9 "$pid" 2>/dev/null && echo "$id" >>"$dir/killed-cbexec.$w"
			wait "$pid" 2>/dev/null
			# Its child, if it had one, must not outlive it.
			if [ -e "$dir/pid.$id" ]; then
				read -r cpid <"$dir/pid.$id"
				for ((t = 0; t < 250 && ${#cpid} > 0; t++)); do
					alive "$cpid" || break
					sleep 0.02
				done
				if [ -n "$cpid" ] && alive "$cpid"; then
					echo "run $id: child $cpid outlived SIGKILLed cbexec" >>"$dir/orphans"
					kill -9 "$cpid" 2>/dev/null
				fi
			fi
			;;
		2)	# SIGKILL the child once it is there
			for ((t = 0; t < 50; t++)); do
				[ -e "$dir/pid.$id" ] && break
				alive "$pid" || break
				sleep 0.01
			done
			if [ -e "$dir/pid.$id" ]; then
				read -r cpid <"$dir/pid.$id"
				[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
			fi
			wait "$pid" 2>/dev/null
			;;
		*)
			wait "$pid" 2>/dev/null
			;;
		esac
	done
}

# The bulkhead mode: one breaker, two run slots, holders SIGKILLed.
bulk_worker() {
	local w=$1 i id pid cpid t
	RANDOM=$((w * 6151 + 11))
	for ((i = 0; i < (runs + workers - 1 - w) / workers; i++)); do
		id=$w.$i
		"$cb" -q run bh -- "$here/chaos-child.sh" "$dir" "$id" 0 \
		    "0.$((RANDOM % 20))" >/dev/null 2>>"$dir/cbexec.err" &
		pid=$!
		case $((RANDOM % 6)) in
		0 | 1)	# SIGKILL cbexec, holding its slot or not
			sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
			kill -9 "$pid" 2>/dev/null && echo "$id" >>"$dir/killed-cbexec.$w"
			;;
		2)	# SIGKILL the child once it is there
			for ((t = 0; t < 50; t++)); do
				[ -e "$dir/pid.$id" ] && break
				alive "$pid" || break
				sleep 0.01
			done
			if [ -e "$dir/pid.$id" ]; then
				read -r cpid <"$dir/pid.$id"
				[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
			fi
			;;
		esac
		wait "$pid" 2>/dev/null
	done
}

if [ "$mode" = bulkhead ]; then
	cat >"$CBEXEC_CONFIG" <<CONF
log = "none";
defaults = {
  max_concurrent = 2; trip = { failures = 3; }; signal_is = "ignore";
};
CONF
	start=$(date +%s)
	for ((w = 0; w < workers; w++)); do
		bulk_worker "$w" &
	done
	wait
	secs=$(($(date +%s) - start))
	fail=0
	killed=$(cat "$dir"/killed-cbexec.* 2>/dev/null | wc -l)
	rc=0
	"$cb" status --json >"$dir/status.json" 2>"$dir/status.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: bulkhead: the state file does not open: status exited $rc: $(cat "$dir/status.err")"
		exit 1
	fi
	bad=$(jq -r '.[] | select(.calls != .successes + .failures + .ignored + .interrupted + .stale) |
		"\(.name): calls \(.calls) != sum of outcomes"' "$dir/status.json")
	[ -n "$bad" ] && { echo "FAIL: bulkhead: $bad"; fail=1; }
	# Every command exits 0 or dies of a signal (ignored): busy refusals
	# and reclaimed slots must have tripped nothing.
	got=$(jq -r '.[0] | "\(.state) \(.failures) \(.epoch)"' "$dir/status.json")
	if [ "$got" != "closed 0 0" ]; then
		echo "FAIL: bulkhead: state, failures, epoch are $got, not closed 0 0"
		fail=1
	fi
	summary=$(jq -r '.[0] | "\(.calls) calls, \(.busy) busy"' \
	    "$dir/status.json")
	# A SIGKILLed cbexec's job holds its slot while its process group has
	# a member (SPEC 2b): wait for the last one (a sleep of under 0.2s).
	groups=$(cat "$dir"/pid.* 2>/dev/null | tr '\n' ' ')
	for ((t = 0; t < 250; t++)); do
		ps -e -o pgid=,stat= | awk -v gs="$groups" '
			BEGIN { n = split(gs, a, " "); for (i = 1; i <= n; i++) g[a[i]] = 1 }
			($1 in g) && $2 !~ /^Z/ { f = 1 }
			END { exit !f }' || break
		sleep 0.02
	done
	# The next call reclaims every slot of a dead holder: it and a call
	# nested in it take both slots (status lists live slots only, so a
	# dead holder's slot left in the record would show as a busy here).
	rc=0
	"$cb" -q run bh -- "$cb" run bh -- true 2>>"$dir/next.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: bulkhead: the next calls exited $rc, not 0: $(cat "$dir/next.err")"
		"$cb" status bh
		fail=1
	fi
	held=$("$cb" status --json bh | jq '.[0].running | length')
	if [ "$held" != 0 ]; then
		echo "FAIL: bulkhead: $held run slots still held after the next call:"
		"$cb" status --json bh | jq -c '.[0].running'
		fail=1
	fi
	echo "chaos: bulkhead: $workers workers, $runs runs in ${secs}s, $killed cbexec SIGKILLed; $summary"
	[ "$fail" -eq 0 ] && echo "chaos: bulkhead ok (state opens, totals add up, busy trips nothing, no slot held by the dead after the next call)"
	exit "$fail"
fi

start=$(date +%s)
for ((w = 0; w < workers; w++)); do
	worker "$w" &
done
wait
secs=$(($(date +%s) - start))

fail=0
killed=$(cat "$dir"/killed-cbexec.* 2>/dev/null | wc -l)
oks=$(find "$dir" -name 'ok.*' | wc -l)
rc=0
"$cb" status --json >"$dir/status.json" 2>"$dir/status.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: the state file does not open: status exited $rc: $(cat "$dir/status.err")"
	exit 1
fi
bad=$(jq -r '.[] | select(.calls != .successes + .failures + .ignored + .interrupted + .stale) |
	"\(.name): calls \(.calls) != sum of outcomes"' "$dir/status.json")
[ -n "$bad" ] && { echo "FAIL: $bad"; fail=1; }
succ=$(jq '[.[].successes] | add // 0' "$dir/status.json")
if [ "$succ" -gt "$oks" ]; then
	echo "FAIL: $succ successes counted but only $oks commands finished with 0"
	fail=1
fi
if [ -s "$dir/orphans" ]; then
	echo "FAIL: children outlived their SIGKILLed cbexec:"
	head "$dir/orphans"
	fail=1
fi
calls=$(jq '[.[].calls] | add // 0' "$dir/status.json")
summary=$(jq -r 'map("\(.name) \(.state) epoch \(.epoch)") | join(", ")' "$dir/status.json")

# Recovery: every breaker must close again, reclaiming dead probe slots.
for b in b0 b1 b2; do
	closed=0
	for ((t = 0; t < 200; t++)); do
		"$cb" -q run "$b" -- true 2>/dev/null
		st=$("$cb" status --json "$b" 2>/dev/null | jq -r '.[0].state')
		[ "$st" = closed ] && { closed=1; break; }
		sleep 0.05
	done
	if [ "$closed" -ne 1 ]; then
		echo "FAIL: $b did not close again (state $st)"
		"$cb" status "$b"
		fail=1
	fi
done
echo "chaos: $workers workers, $runs runs in ${secs}s, $killed cbexec SIGKILLed; $calls calls counted, $succ successes <= $oks clean exits 0; before recovery: $summary"

# Second phase: gc and max_breakers eviction, SIGKILLed at random moments.
# Every run creates a breaker in a store bounded to 16 (each creation
# evicts in its own transaction), a sixth are trips (open: pinned), and
# one worker runs gc --idle 0 every eighth step.  Then the state file
# opens, holds at most 16 breakers whose totals add up, and one more gc
# leaves no closed breaker.
edir=$dir/evict
mkdir "$edir"
cat >"$edir/cbexec.conf" <<CONF
log = "none";
max_breakers = 16;
CONF
ecb() {
	CBEXEC_STATE=$edir/state.mdb CBEXEC_CONFIG=$edir/cbexec.conf "$cb" -q "$@"
}

evict_worker() {
	local w=$1 i pid
	RANDOM=$((w * 7919 + 3))
	for ((i = 0; i < (runs + workers - 1 - w) / workers; i++)); do
		if ((w == 0 && i % 8 == 4)); then
			ecb gc --idle 0 >/dev/null 2>>"$edir/err" &
		elif ((RANDOM % 6 == 0)); then
			ecb trip "e$w.$i" --for 1h >/dev/null 2>>"$edir/err" &
		else
			ecb run "e$w.$i" -- sh -c "exit $((RANDOM % 2))" \
			    >/dev/null 2>>"$edir/err" &
		fi
		pid=$!
		if ((RANDOM % 3 == 0)); then
			sleep "0.00$((RANDOM % 10))"
			kill -9 "$pid" 2>/dev/null && echo "$w.$i" >>"$edir/killed.$w"
		fi
		wait "$pid" 2>/dev/null
	done
}

for ((w = 0; w < workers; w++)); do
	evict_worker "$w" &
done
wait
ekilled=$(cat "$edir"/killed.* 2>/dev/null | wc -l)
rc=0
ecb status --json >"$edir/status.json" 2>"$edir/status.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: evict: the state file does not open: status exited $rc: $(cat "$edir/status.err")"
	fail=1
else
	n=$(jq length "$edir/status.json")
	if [ "$n" -gt 16 ]; then
		echo "FAIL: evict: $n breakers held, max_breakers is 16"
		fail=1
	fi
	bad=$(jq -r '.[] | select(.calls != .successes + .failures + .ignored + .interrupted + .stale) |
		"\(.name): calls \(.calls) != sum of outcomes"' "$edir/status.json")
	[ -n "$bad" ] && { echo "FAIL: evict: $bad"; fail=1; }
	if ! ecb gc --idle 0 >/dev/null 2>"$edir/gc.err"; then
		echo "FAIL: evict: gc after the chaos failed: $(cat "$edir/gc.err")"
		fail=1
	fi
	left=$(ecb status --json | jq '[.[] | select(.state == "closed")] | length')
	if [ "$left" != 0 ]; then
		echo "FAIL: evict: $left closed breakers left after gc --idle 0"
		fail=1
	fi
	echo "chaos: evict: $runs runs, trips and gcs, $ekilled SIGKILLed; $n breakers held (max 16)"
fi
[ "$fail" -eq 0 ] && echo "chaos: ok (state opens, totals add up, no orphan, all breakers closed again; gc and eviction survive SIGKILL)"
exit "$fail"
