#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 62-prometheus: `status --prometheus` in the text exposition format
# (checked by promtool), its values, and --output FILE written atomically
# with mode 0644 for node_exporter's textfile collector.

load helper

# prom [ARGS...]: `status --prometheus ARGS` into $T/m.prom, exit 0.
prom() {
	local rc=0
	"$CBEXEC" status --prometheus "$@" >"$T/m.prom" 2>"$T/m.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "status --prometheus exited $rc:" >&2
		cat "$T/m.err" >&2
		return 1
	fi
}

# promtool_ok FILE: promtool accepts FILE, lint included.
promtool_ok() {
	run -0 promtool check metrics <"$1"
	assert_output ''
}

@test "promtool accepts the metrics of closed, open and half-open breakers" {
	ok_n 'a.b_c-d:e@f/g+h' 1
	fail_n open 5
	fail_n half 5
	bg p cb_at +61s run half -- sh -c ': >started; while [ ! -e release ]; do sleep 0.05; done'
	wait_for test -e started
	run -124 cb run slow -t 100ms -k 100ms -- sleep 5
	prom
	promtool_ok m.prom
	run -0 grep -c '^cbexec_breaker_state{name="half",state="half-open"} 1$' m.prom
	: >release
	bg_wait p
}

@test "promtool accepts the output of an empty or missing state" {
	prom
	promtool_ok m.prom
	run -0 grep -c '^# TYPE ' m.prom
	assert_output 18
	run -0 grep -v '^#' m.prom
	assert_output 'cbexec_config_ok 1
cbexec_state_readable 1'
}

@test "every family has HELP and TYPE lines, and the documented type" {
	ok_n x 1
	prom
	local m
	for m in breaker_state:gauge calls_total:counter timeouts_total:counter \
	    transitions_total:counter consecutive_failures:gauge \
	    open_until_seconds:gauge last_run_timestamp_seconds:gauge \
	    refused_total:counter last_transition_seconds:gauge manual:gauge \
	    running:gauge config_ok:gauge; do
		run -0 grep -c "^# HELP cbexec_${m%%:*} " m.prom
		run -0 grep -c "^# TYPE cbexec_${m%%:*} ${m#*:}$" m.prom
	done
}

@test "the state is 1 for the current state and 0 for the other two" {
	fail_n x 5
	prom
	run -0 grep '^cbexec_breaker_state{name="x"' m.prom
	assert_output "$(printf '%s\n' \
	    'cbexec_breaker_state{name="x",state="closed"} 0' \
	    'cbexec_breaker_state{name="x",state="open"} 1' \
	    'cbexec_breaker_state{name="x",state="half-open"} 0')"
}

@test "calls that ran by outcome, refusals by why, timeouts apart, transitions by target state" {
	ok_n x 2
	fail_n x 1
	run -124 cb run x -t 100ms -k 100ms -- sleep 5
	run -127 cb run x -- no-such-command-cbexec-test
	fail_n x 3
	run -75 cb run x -- true
	prom
	run -0 grep -E '^cbexec_(calls|refused|timeouts|transitions)_total\{name="x"' m.prom
	assert_output "$(printf '%s\n' \
	    'cbexec_calls_total{name="x",outcome="success"} 2' \
	    'cbexec_calls_total{name="x",outcome="failure"} 5' \
	    'cbexec_calls_total{name="x",outcome="ignored"} 1' \
	    'cbexec_calls_total{name="x",outcome="interrupted"} 0' \
	    'cbexec_calls_total{name="x",outcome="stale"} 0' \
	    'cbexec_refused_total{name="x",why="open"} 1' \
	    'cbexec_refused_total{name="x",why="busy"} 0' \
	    'cbexec_timeouts_total{name="x"} 1' \
	    'cbexec_transitions_total{name="x",to="closed"} 0' \
	    'cbexec_transitions_total{name="x",to="open"} 1' \
	    'cbexec_transitions_total{name="x",to="half-open"} 0')"
}

@test "open_until_seconds is the Unix time of open_until, 0 when not open" {
	fail_n x 5
	ok_n y 1
	prom
	local want got
	want=$(time_ms x open_until)
	got=$(sed -n 's/^cbexec_open_until_seconds{name="x"} //p' m.prom)
	assert_equal "$got" "$((want / 1000)).$(printf '%03d' $((want % 1000)))"
	run -0 grep -c '^cbexec_open_until_seconds{name="y"} 0$' m.prom
}

@test "a GLOB or NAME limits the breakers; an unknown NAME exits 1" {
	ok_n api-1 1
	ok_n db 1
	prom 'api-*'
	run -0 grep -c 'name="api-1"' m.prom
	run -1 grep -c 'name="db"' m.prom
	run -1 cb status --prometheus nosuch
	assert_output --partial "no such breaker 'nosuch'"
}

@test "--prometheus with --json or --names is a usage error" {
	run -2 cb status --prometheus --json
	assert_output --partial 'only one of'
	run -2 cb status --names --prometheus
}

@test "--output writes the file with mode 0644 whatever the umask, and nothing else" {
	fail_n x 5
	mkdir textfile
	umask 077
	run -0 cb status --prometheus --output textfile/cbexec.prom
	assert_output ''
	assert_equal "$(stat -c %a textfile/cbexec.prom)" 644
	assert_equal "$(ls -A textfile)" cbexec.prom
	promtool_ok textfile/cbexec.prom
	run -0 grep -c '^cbexec_breaker_state{name="x",state="open"} 1$' textfile/cbexec.prom
}

@test "--output replaces the file by rename, never rewriting it in place" {
	ok_n x 1
	mkdir textfile
	cb status --prometheus --output textfile/cbexec.prom
	ln textfile/cbexec.prom old-link
	fail_n x 5
	run -0 cb status --prometheus --output=textfile/cbexec.prom
	run -0 grep -c 'state="open"} 1$' textfile/cbexec.prom
	run -1 grep -c 'state="open"} 1$' old-link
	assert_equal "$(ls -A textfile)" cbexec.prom
}

@test "--output keeps the old file when status fails, and leaves no temporary" {
	ok_n x 1
	mkdir textfile
	cb status --prometheus --output textfile/cbexec.prom
	cp textfile/cbexec.prom before
	run -1 cb status --prometheus --output textfile/cbexec.prom x nosuch
	cmp before textfile/cbexec.prom
	assert_equal "$(ls -A textfile)" cbexec.prom
}

@test "--output into a directory that does not exist exits 1" {
	run -1 cb status --prometheus --output nodir/cbexec.prom
	assert_output --partial "cannot create 'nodir/.cbexec.prom."
	[ ! -e nodir ]
}

@test "--output works for the other formats too" {
	ok_n x 1
	run -0 cb status --json --output s.json
	run -0 jq -r '.[0].name' s.json
	assert_output x
}
