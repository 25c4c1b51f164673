#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# load.sh CBEXEC PROCS RUNS BREAKERS: PROCS concurrent workers each make
# RUNS guarded runs with mixed outcomes (success, failure, ignored) spread
# over BREAKERS breakers whose policy trips and probes often.  Every run
# is made with -v, so each worker knows exactly how each of its runs was
# counted ("counted as success") or that it was refused (exit 75).
# Afterwards every total in `status --json` must equal the sum of what the
# workers saw (zero lost updates), calls must add up, and no half-open
# epoch may ever have run more than half_open_max_calls probes at once.
# Prints a summary; exits 0 when every check holds.
set -u
cb=${1:?usage: load.sh CBEXEC PROCS RUNS BREAKERS}
procs=${2:?} runs=${3:?} nbreakers=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/cbexec-load.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export CBEXEC_STATE=$dir/state.mdb CBEXEC_CONFIG=$dir/cbexec.conf
max=2
# LOAD_CHECK_MAX lowers the bound the probes are checked against (not the
# policy's), to show that the check can fail.
echo "${LOAD_CHECK_MAX:-$max}" >"$dir/max_probes"
cat >"$CBEXEC_CONFIG" <<CONF
log = "none";
sync = "none";
defaults = {
  trip = { failures = 3; };
  open_timeout = "30ms"; max_open_timeout = "60ms";
  half_open_max_calls = $max;
  ignore_codes = "3";
};
CONF

worker() {
	local w=$1 i b code rc err=$dir/err.$1 tally=$dir/tally.$1
	RANDOM=$((w * 7919 + 1))
	: >"$tally"
	for ((i = 0; i < runs; i++)); do
		b=b$((RANDOM % nbreakers))
		case $((RANDOM % 20)) in
		[0-9]) code=0 ;;
		1[0-6]) code=1 ;;
		*) code=3 ;;
		esac
		rc=0
		# The child reads cbexec's stderr, which is the file it is given.
		# shellcheck disable=SC2094
		"$cb" -v run "$b" -- "$here/child.sh" "$err" "$dir" "$code" \
		    0.0$((RANDOM % 3)) "$b" 2>"$err" || rc=$?
		if [ "$rc" -eq 75 ]; then
			echo "$b rejected" >>"$tally"
		elif grep -q 'counted as' "$err"; then
			echo "$b $(sed -n 's/.*counted as \([a-z]*\).*/\1/p' "$err")" >>"$tally"
		else
			echo "$b unknown rc=$rc" >>"$tally"
			cat "$err" >>"$dir/problems"
		fi
	done
}

start=$(date +%s)
for ((w = 0; w < procs; w++)); do
	worker "$w" &
done
wait
secs=$(($(date +%s) - start))

fail=0
rc=0
"$cb" status --json >"$dir/status.json" 2>"$dir/status.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: status --json exited $rc: $(cat "$dir/status.err")"
	exit 1
fi
cat "$dir"/tally.* >"$dir/tally"
total=$(wc -l <"$dir/tally")
if [ "$total" -ne $((procs * runs)) ]; then
	echo "FAIL: $total runs tallied, not $((procs * runs))"
	fail=1
fi
if [ -s "$dir/problems" ]; then
	echo "FAIL: runs with no outcome line:"
	head -20 "$dir/problems"
	fail=1
fi
# Expected totals per breaker, from the tallies, as JSON.
awk '{ n[$1 " " $2]++; b[$1] = 1 }
    END { printf "{"; sep = "";
	for (k in b) {
	    printf "%s\"%s\":{\"successes\":%d,\"failures\":%d,\"ignored\":%d,\"interrupted\":0,\"stale\":%d,\"rejected\":%d}",
		sep, k, n[k " success"], n[k " failure"], n[k " ignored"],
		n[k " stale"], n[k " rejected"]; sep = "," }
	print "}" }' "$dir/tally" >"$dir/expected.json"
bad=$(jq -r --slurpfile e "$dir/expected.json" '
	($e[0]) as $exp | map(. as $r | $exp[$r.name] as $x |
	  if $x == null then "\($r.name): in status but never run"
	  else
	    ([ "successes", "failures", "ignored", "interrupted", "stale", "rejected" ][] as $k |
	      select($r[$k] != $x[$k]) | "\($r.name): \($k) \($r[$k]), expected \($x[$k])"),
	    (select($r.calls != ($x.successes + $x.failures + $x.ignored + $x.stale)) |
	      "\($r.name): calls \($r.calls), expected \($x.successes + $x.failures + $x.ignored + $x.stale)"),
	    (select($r.calls != $r.successes + $r.failures + $r.ignored + $r.interrupted + $r.stale) |
	      "\($r.name): calls do not add up")
	  end) | .[]' "$dir/status.json")
nnames=$(jq length "$dir/status.json")
if [ -n "$bad" ]; then
	echo "FAIL: totals differ:"
	echo "$bad" | head -20
	fail=1
fi
if [ "$nnames" -ne "$(jq length "$dir/expected.json")" ]; then
	echo "FAIL: $nnames breakers in status, $(jq length "$dir/expected.json") run"
	fail=1
fi
if [ -s "$dir/violations" ]; then
	echo "FAIL: half-open admitted more than $(cat "$dir/max_probes") probes at once:"
	head -20 "$dir/violations"
	fail=1
fi
probes=0
[ -e "$dir/probe_runs" ] && probes=$(wc -l <"$dir/probe_runs")
summary=$(jq -r '[map(.calls), map(.rejected), map(.stale)] |
	"calls \(.[0] | add), rejected \(.[1] | add), stale \(.[2] | add)"' "$dir/status.json" 2>/dev/null)
echo "load: $procs procs x $runs runs on $nbreakers breakers in ${secs}s: $summary, $probes probes; max $max probes per half-open epoch"
[ "$fail" -eq 0 ] && echo "load: ok (totals exact, no lost update, half-open bound held)"
exit "$fail"
