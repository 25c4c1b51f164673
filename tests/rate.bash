# SPDX-License-Identifier: ISC
# rate.bash: what 89-rate.bats and 95-redis.bats share to judge max_rate
# under contention (SPEC 2d), loaded after helper.bash.

# rate_hammer ID [STATE]: 100 runs of breaker rl under max_rate (the
# config's), with STATE as -s if given.  Each admitted run appends to
# $T/adm.ID when its call started and when its job ran (us): its
# admission lies between the two.  Fails on an exit other than 0
# (admitted) or 75 (rate limited).
rate_hammer() {
	local id=$1 i rc s j
	for ((i = 0; i < 100; i++)); do
		rc=0
		s=${EPOCHREALTIME/./}
		j=$("$CBEXEC" ${2:+-s "$2"} -q run rl -- date +%s%6N) || rc=$?
		case $rc in
		0) echo "$s $j" >>"$BATS_TEST_TMPDIR/adm.$id" ;;
		75) ;;
		*) echo "run $i of $id exited $rc"; return 1 ;;
		esac
	done
}

# rate_check T_MS BURST START_US END_US FILE...: the admitted calls in
# FILEs (lines "start job", us) never exceed what GCRA allows.  For every
# window from a call's start x to a job's time y, the calls certainly
# admitted within it (started at or after x, job at or before y) are at
# most BURST + (y - x) / T; over the whole run, START_US to END_US, at
# most BURST + its length / T; and at least half of the turns that came
# were taken (a call whose turn is due is admitted).
rate_check() {
	python3 - "$@" <<'PY'
import sys
t = int(sys.argv[1]) * 1000
b, start, end = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
calls = []
for name in sys.argv[5:]:
    with open(name) as f:
        calls += [tuple(map(int, line.split())) for line in f]
calls.sort()
for i, (x, _) in enumerate(calls):
    js = sorted(j for s, j in calls[i:])
    for k, y in enumerate(js, 1):
        if y >= x and k > b + (y - x) // t:
            sys.exit("%d admitted within %d ms: more than %d" %
                     (k, (y - x) // 1000, b + (y - x) // t))
n, span = len(calls), end - start
if n > b + span // t:
    sys.exit("%d admitted in %d ms: more than %d" %
             (n, span // 1000, b + span // t))
if n < span / t / 2:
    sys.exit("only %d admitted in %d ms" % (n, span // 1000))
print("%d admitted in %d ms (at most %d)" % (n, span // 1000, b + span // t))
PY
}
