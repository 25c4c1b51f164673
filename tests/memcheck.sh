#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# memcheck.sh CBEXEC: the core paths (run, status, reset) under valgrind
# memcheck: zero errors and zero definite or indirect leaks, or the case
# fails.  Prints TAP-style "ok"/"not ok" lines and, last, "PASSED FAILED".
set -u
cb=${1:?usage: memcheck.sh CBEXEC}
dir=$(mktemp -d /tmp/cbexec-memcheck.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export CBEXEC_STATE=$dir/state.mdb CBEXEC_CONFIG=$dir/cbexec.conf
export HOME=$dir
printf '%s\n' 'log = "none";' \
    'defaults = { trip = { failures = 2; }; open_timeout = "1h"; };' \
    'breakers = ( { match = "r*"; trip = { policy = "rate"; min_calls = 1; }; } );' \
    >"$CBEXEC_CONFIG"
pass=0 fail=0 n=0

# vg WANT-STATUS ARGS...: one cbexec invocation under memcheck.
vg() {
	local want=$1 rc=0
	shift
	n=$((n + 1))
	valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect \
	    --show-leak-kinds=definite,indirect --track-fds=no \
	    "$cb" "$@" >"$dir/out" 2>"$dir/err" </dev/null || rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n memcheck: cbexec $*"
		pass=$((pass + 1))
	else
		echo "not ok $n memcheck: cbexec $* (exit $rc, wanted $want)"
		sed 's/^/#   /' "$dir/err"
		fail=$((fail + 1))
	fi
}

vg 0 run db -- true
vg 1 run db -- false
vg 1 run db -t 5s -- false
vg 75 run db -- true
vg 0 -q run db --on-open skip -- true
vg 127 run other -- /nonexistent/command
vg 1 run rate -- false
vg 0 status
vg 0 status --json
vg 0 status db
vg 0 status --names 'd*'
vg 0 reset db --reason memcheck
vg 0 run db -- true
vg 1 reset nosuch
vg 125 run 'bad name' -- true
vg 2 status 'bad name'
echo "$pass $fail"
[ "$fail" -eq 0 ]
