#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# child.sh ERRFILE DIR CODE SLEEP NAME: the command the load driver runs.  When
# cbexec admitted it as a half-open probe (its -v line "admitted (probe,
# epoch N)" is already in ERRFILE, cbexec's stderr), it counts itself among
# the probes of breaker NAME's epoch N running at once, under flock, and records any
# excess over DIR/max_probes in DIR/violations.  Then it exits CODE.
set -u
err=$1 dir=$2 code=$3 nap=$4 name=$5
line=$(grep -o 'admitted (probe, epoch [0-9]*)' "$err" | tail -1)
if [ -n "$line" ]; then
	epoch=${line##* }
	epoch=${epoch%)}
	max=$(cat "$dir/max_probes")
	(
		flock 9
		n=$(($(cat "$dir/probes.$name.$epoch" 2>/dev/null || echo 0) + 1))
		echo "$n" >"$dir/probes.$name.$epoch"
		if [ "$n" -gt "$max" ]; then
			echo "$name epoch $epoch: $n probes at once > $max" >>"$dir/violations"
		fi
		echo x >>"$dir/probe_runs"
	) 9>>"$dir/lock"
	sleep "$nap"
	(
		flock 9
		n=$(($(cat "$dir/probes.$name.$epoch") - 1))
		echo "$n" >"$dir/probes.$name.$epoch"
	) 9>>"$dir/lock"
else
	sleep "$nap"
fi
exit "$code"
