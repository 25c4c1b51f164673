#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 66-status-record: status tells what the record holds (issues 10.11,
# 11.6, 11.7, 11.8; SPEC 5, 7).  The policy shown is the one the breaker
# last ran under; the runs strip holds runs that ran and counts refusals;
# last_failure survives refusals; JSON has every persisted field;
# Prometheus tells refusals, manual trips and transitions apart; one
# unreadable record hides no other breaker.

load helper

setup() {
	common_setup
	export TZ=UTC LC_ALL=C
}

# prom: `status --prometheus` into $T/m.prom, exit 0.
prom() {
	local rc=0
	"$CBEXEC" status --prometheus >"$T/m.prom" 2>"$T/m.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/m.err" >&2; return 1; }
}

# spoil NAME: bump NAME's record format version to 127 in the state file.
spoil() {
	local hex
	hex=$(printf '%s' "$1" | od -An -tx1 | tr -d ' \n')
	if ! mdb_dump -n -a "$CBEXEC_STATE" >dump 2>/dev/null || ! grep -q '^ ' dump; then
		mdb_dump -n "$CBEXEC_STATE" >dump
	fi
	awk -v k=" $hex" 'prev == k { sub(/^ 4342524b[0-9a-f][0-9a-f]00/, " 4342524b7f00") }
	    { print; prev = $0 }' dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
}

@test "10.11: one unreadable record: every format shows the others, names it on stderr, exits 1" {
	ok_n a 1
	fail_n bad 1
	ok_n z 1
	spoil bad
	run -1 --separate-stderr cb status
	assert_line --partial 'a '
	assert_line --partial 'z '
	[[ $stderr == *"'bad'"*newer* ]] || fail "stderr: $stderr"
	run -1 --separate-stderr cb status --json
	assert_equal "$(jq -r 'map(.name) | join(",")' <<<"$output")" a,z
	[[ $stderr == *"'bad'"* ]] || fail "stderr: $stderr"
	run -1 --separate-stderr cb status --prometheus
	[[ $output == *'cbexec_breaker_state{name="a",state="closed"} 1'* ]] || fail "$output"
	[[ $output == *'name="z"'* ]] || fail "$output"
	[[ $output != *'name="bad"'* ]] || fail "$output"
	[[ $stderr == *"'bad'"* ]] || fail "stderr: $stderr"
	run -1 --separate-stderr cb status --names
	assert_output "$(printf 'a\nz')"
	run -1 --separate-stderr cb status 'b*'
	[[ $stderr == *"'bad'"* ]] || fail "stderr: $stderr"
}

@test "11.6: the detail view shows the policy the breaker last ran under, not the config's" {
	run -1 cb run c -o trip.failures=2 -o open_timeout=5m -- false
	run -0 cb status c
	assert_line --partial 'Failures: 1/2'
	assert_line --regexp 'Policy: trip after 2 consecutive failures; open 5m'
	run -1 cb run c -o trip.failures=2 -o open_timeout=5m -- false
	run -0 cb status c
	assert_line --partial 'Failures: 2/2'
	assert_line --regexp 'Policy: trip after 2 consecutive failures; open 5m'
	assert_line --regexp 'Next probe: in (4m|5m)'
	assert_equal "$(json c '[.policy.trip_policy, .policy.trip_failures, .policy.open_timeout_ms] | join(" ")')" \
	    'consecutive 2 300000'
}

@test "11.6: a preset and a timeout given on the command line are shown" {
	run -0 cb run p --preset curl -t 30s -- true
	run -0 cb status p
	assert_line --partial 'preset curl'
	assert_line --partial 'timeout 30s'
	assert_equal "$(json p '[.policy.preset, .policy.timeout_ms] | join(" ")')" 'curl 30000'
	# A breaker that never ran has no policy of its own.
	run -0 cb trip fresh
	assert_equal "$(json fresh .policy)" null
}

@test "11.7: after 5 failures and 40 refusals the strip still holds the failures" {
	local i
	for i in 1 2 3 4 5; do
		run -7 cb run x -- sh -c 'exit 7'
	done
	for i in $(seq 40); do
		run -75 cb run x -- true
	done
	run -0 cb status x
	assert_line '       Runs: xxxxx  (last 5, newest last; 40 refused since)'
	assert_equal "$(json x '[(.runs | join(",")), .rejected, .refused_since_run] | join(" ")')" \
	    'failure,failure,failure,failure,failure 40 40'
	assert_equal "$(json x '[.last_failure.exit, .last_failure.signal, .last_failure.timed_out] | map(tostring) | join(" ")')" \
	    '7 null false'
	[[ $(json x .last_failure.at) =~ $RFC3339 ]] || fail "last_failure.at"
	assert_equal "$(json x '.run_log | map(.exit) | join(",")')" 7,7,7,7,7
	run -0 cb status x
	assert_line --regexp '^ +Failed: .* \(.*\): exit 7 after '
}

@test "11.7: last_failure tells a timeout and a signal" {
	run -124 cb run t -t 100ms -k 100ms -- sleep 5
	assert_equal "$(json t '[.last_failure.timed_out, .last_failure.exit] | map(tostring) | join(" ")')" \
	    'true 124'
	run -137 cb run k -- sh -c 'kill -9 $$'
	assert_equal "$(json k '.last_failure.signal')" 9
	ok_n fine 1
	assert_equal "$(json fine .last_failure)" null
}

@test "JSON has every persisted field: identity, manual, busy, running, probes' holders, last_used" {
	ok_n a 1
	ok_n b 1
	local ia ib
	ia=$(json a .identity)
	ib=$(json b .identity)
	[[ $ia =~ ^[0-9a-f]{16}$ ]] || fail "identity '$ia'"
	assert [ "$ia" != "$ib" ]
	run -0 cb trip a
	assert_equal "$(json a .identity)" "$ia"
	run -0 cb forget a
	ok_n a 1
	assert [ "$(json a .identity)" != "$ia" ]
	assert_equal "$(json b '[.busy, (.running | length), .manual] | map(tostring) | join(" ")')" \
	    '0 0 false'
	[[ $(json b .last_used_at) =~ $RFC3339 ]] || fail last_used_at
	fail_n h 5
	bg p cb_at +61s run h -- sh -c ': >started; while [ ! -e go ]; do sleep 0.05; done'
	wait_for test -e started
	assert_equal "$(json h '.probes[0] | [.host, (.pid > 0), (.since | test("T")), .lease_ms] | map(tostring) | join(" ")')" \
	    "$(hostname) true true 3600000"
	: >go
	bg_wait p
}

@test "a closed admission refreshes last_used once it is a minute old, and no more often" {
	AT=-600s ok_n x 1
	local t0 t1
	t0=$(time_ms x last_used_at)
	bg 1 cb run x -- sh -c ': >started.1; while [ ! -e go ]; do sleep 0.05; done'
	wait_for test -e started.1
	t1=$(time_ms x last_used_at)
	assert [ "$t1" -gt "$((t0 + 500000))" ]
	# Thirty seconds on, another admission writes nothing.
	bg 2 cb_at +30s run x -- sh -c ': >started.2; while [ ! -e go ]; do sleep 0.05; done'
	wait_for test -e started.2
	assert_equal "$(time_ms x last_used_at)" "$t1"
	: >go
	bg_wait 1 2
	assert_equal "$(json x .calls)" 3
}

@test "JSON: each breaker shows its own policy in one walk, shared or not" {
	# --json keeps the last policy object written and copies it for a
	# breaker whose snapshot is the same: a and c share theirs, b and d
	# differ from it by one field each, e by a code class.
	run -0 cb run a -o max_concurrent=2 -- true
	run -0 cb run b -o max_concurrent=3 -- true
	run -0 cb run c -o max_concurrent=2 -- true
	run -0 cb run d -o max_concurrent=2 -t 5s -- true
	run -0 cb run e -o max_concurrent=2 -o failure_codes=7 -- true
	run -0 cb status --json
	assert_equal "$(jq -r '.[] | [.name, .policy.max_concurrent,
	    .policy.timeout_ms, .policy.failure_codes] | join(" ")' <<<"$output")" \
	    "a 2 0 1-255
b 3 0 1-255
c 2 0 1-255
d 2 5000 1-255
e 2 0 7"
}

@test "JSON: a walk longer than the output buffer, policies alternating, stays whole" {
	# 64 kB of output: the buffer is flushed between breakers, and a
	# policy object kept for copying must never be torn by a flush.
	local k
	for ((k = 0; k < 48; k++)); do
		cb run "n$k" -o max_concurrent=$((k % 2 + 1)) -- true
	done
	run -0 cb status --json
	assert [ "${#output}" -gt 65536 ]
	assert_equal "$(jq -r '[.[] | (.name | ltrimstr("n") | tonumber % 2 + 1)
	    == .policy.max_concurrent] | all and length == 48' <<<"$output")" true
}

@test "11.8: Prometheus: runs that ran, refusals by why, manual, transitions, last transition" {
	fail_n x 5
	run -75 cb run x -- true
	run -75 cb run x -- true
	run -0 cb trip m --reason maintenance
	prom
	run -0 promtool check metrics <m.prom
	grep -qx 'cbexec_calls_total{name="x",outcome="failure"} 5' m.prom
	run -1 grep 'cbexec_calls_total{.*outcome="rejected"' m.prom
	grep -qx 'cbexec_refused_total{name="x",why="open"} 2' m.prom
	grep -qx 'cbexec_refused_total{name="x",why="busy"} 0' m.prom
	grep -qx 'cbexec_manual{name="x"} 0' m.prom
	grep -qx 'cbexec_manual{name="m"} 1' m.prom
	grep -qx 'cbexec_transitions_total{name="x",to="open"} 1' m.prom
	grep -qx 'cbexec_running{name="x"} 0' m.prom
	grep -q '^cbexec_last_transition_seconds{name="x"} [0-9]\{10\}' m.prom
	grep -q '^cbexec_open_until_seconds{name="x"} [0-9]\{10\}' m.prom
	grep -qx 'cbexec_breaker_state{name="m",state="open"} 1' m.prom
	# After a reset the breaker is manual closed, not an outage.
	run -0 cb reset m
	prom
	grep -qx 'cbexec_manual{name="m"} 1' m.prom
	grep -qx 'cbexec_open_until_seconds{name="m"} 0' m.prom
}

@test "11.8: the README's alert rules pass promtool and use cbexec_manual" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	grep -q cbexec_manual rules.yml
	run -0 promtool check rules rules.yml
	assert_output --partial 'SUCCESS'
}

@test "the README's rules on two hosts sharing a name: each host's own outage, maintenance, success and export" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	readme_rules_test <<'YAML'
    input_series:
      # Host a: api tripped by hand (maintenance); b: api open by itself.
      - series: 'cbexec_breaker_state{instance="a",name="api",state="open"}'
        values: '1x1700'
      - series: 'cbexec_manual{instance="a",name="api"}'
        values: '1x1700'
      - series: 'cbexec_breaker_state{instance="b",name="api",state="open"}'
        values: '1x1700'
      - series: 'cbexec_manual{instance="b",name="api"}'
        values: '0x1700'
      # sync: host a succeeds every minute, host b never ran it.
      - series: 'cbexec_last_success_timestamp_seconds{instance="a",name="sync"}'
        values: '60+60x1700'
      - series: 'cbexec_last_run_timestamp_seconds{instance="a",name="sync"}'
        values: '60+60x1700'
      - series: 'cbexec_last_success_timestamp_seconds{instance="b",name="sync"}'
        values: '0x1700'
      - series: 'cbexec_last_run_timestamp_seconds{instance="b",name="sync"}'
        values: '0x1700'
      # b's export runs outside the group; a's textfile stopped at 10m.
      - series: 'cbexec_state_readable{instance="a"}'
        values: '1x1700'
      - series: 'cbexec_state_readable{instance="b"}'
        values: '0x1700'
      - series: 'node_textfile_mtime_seconds{instance="a",file="/var/lib/prometheus/node-exporter/cbexec.prom"}'
        values: '0+60x10 600x1690'
      - series: 'node_textfile_mtime_seconds{instance="b",file="/var/lib/prometheus/node-exporter/cbexec.prom"}'
        values: '0+60x1700'
    alert_rule_test:
      - eval_time: 40m
        alertname: CircuitOpen
        exp_alerts:
          - exp_labels: {instance: b, name: api, state: open}
            exp_annotations: {summary: "api: circuit open for 30m"}
      - eval_time: 26h
        alertname: NoSuccessForADay
        exp_alerts: []
      - eval_time: 30m
        alertname: CbexecStateUnreadable
        exp_alerts:
          - exp_labels: {instance: b}
            exp_annotations: {summary: "b: the cbexec export is not in group cbexec and exports nothing"}
      - eval_time: 30m
        alertname: CbexecExportStale
        exp_alerts:
          - exp_labels: {instance: a, file: /var/lib/prometheus/node-exporter/cbexec.prom}
            exp_annotations: {summary: "a: cbexec.prom not rewritten for 5 minutes"}
YAML
}

@test "11.8: the README's CircuitOpen alert fires for an outage, not for a manual trip" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	readme_rules_test <<'YAML'
    input_series:
      - series: 'cbexec_breaker_state{name="api",state="open"}'
        values: '1x60'
      - series: 'cbexec_manual{name="api"}'
        values: '0x60'
      - series: 'cbexec_breaker_state{name="db",state="open"}'
        values: '1x60'
      - series: 'cbexec_manual{name="db"}'
        values: '1x60'
    alert_rule_test:
      - eval_time: 20m
        alertname: CircuitOpen
        exp_alerts: []
      - eval_time: 40m
        alertname: CircuitOpen
        exp_alerts:
          - exp_labels: {name: api, state: open}
            exp_annotations: {summary: "api: circuit open for 30m"}
      - eval_time: 40m
        alertname: CircuitTrippedByHand
        exp_alerts: []
YAML
}
