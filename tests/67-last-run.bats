#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 67-last-run: what record format 4 keeps and status shows (issue 18.7,
# 19.3, 19.4; SPEC 7): the whole policy a breaker last ran under, command
# line included (the detail view and --json `policy`), when the last
# success was (detail, --json, Prometheus, and the README's alert rule),
# and who ran the last run: user, host and argv[0], never the arguments,
# also in the transition log lines.

load helper

setup() {
	common_setup
	export TZ=UTC LC_ALL=C
}

@test "18.7: -o open_exit_code=76 refuses with 76, and status says so" {
	run -1 cb run x -o trip.failures=1 -o open_exit_code=76 -- false
	run -76 cb run x -o open_exit_code=76 -- true
	run -0 cb status x
	assert_line --partial '; on open: fail (exit 76)'
	status_json
	run -0 jq -r '.[0].policy.open_exit_code' status.json
	assert_output 76
}

@test "18.7: the detail view and --json policy show every class and mode the breaker ran under" {
	config 'breakers = ( { match = "x"; probe = [ "true" ]; probe_timeout = "7s"; } );'
	run -0 cb run x -t 20s -k 3s -o slow_call=15s -o max_concurrent=2 \
	    -o on_busy=skip -o success_codes=0,6 -o ignore_codes=9 \
	    -o timeout_is=ignore -o signal_is=success -o on_open=skip \
	    -o jitter=0.25 -- true
	# The config file emptied: still the policy the breaker ran under.
	config 
	run -0 cb status x
	assert_line '     Policy: trip after 5 consecutive failures; open 1m, x2 per failed probe up to 10m, jitter 0.25; 1 probe by the probe command (killed after 7s); timeout 20s, SIGKILL 3s later; slower than 15s fails; at most 2 running; on busy: skip (exit 0); on open: skip (exit 0)'
	assert_line '      Codes: failure 1-5,7-8,10-255, success 0,6, ignored 9; timeout: ignored, signal: success'
	status_json
	run -0 jq -c '.[0].policy | [.timeout_ms, .kill_after_ms, .slow_call_ms,
	    .max_concurrent, .on_busy, .on_open, .open_exit_code, .probe_set,
	    .probe_timeout_ms, .failure_codes, .success_codes, .ignore_codes,
	    .timeout_is, .signal_is, .jitter, .probe_lease_ms]' status.json
	assert_output '[20000,3000,15000,2,"skip","skip",75,true,7000,"1-5,7-8,10-255","0,6","9","ignore","success",0.25,3600000]'
	# Not applicable: null.
	run -0 cb run y -- true
	status_json
	run -0 jq -c '.[] | select(.name == "y") | .policy |
	    [.slow_call_ms, .probe_set, .probe_timeout_ms]' status.json
	assert_output '[null,false,null]'
}

@test "19.3: last_success in the detail view, --json and Prometheus, 0 or null before the first" {
	run -1 cb_at '@2026-01-01 00:00:00' run x -- false
	status_json
	run -0 jq -r '.[0].last_success' status.json
	assert_output null
	run -0 cb status --prometheus
	assert_line 'cbexec_last_success_timestamp_seconds{name="x"} 0'
	run -0 cb status x
	assert_line '  Succeeded: never'
	run -0 cb_at '@2026-01-01 00:01:00' run x -- true
	run -1 cb_at '@2026-01-01 00:02:00' run x -- false
	status_json
	# faketime's clock runs on from the time it is given: the run's
	# milliseconds are real.
	run -0 jq -r '.[0].last_success' status.json
	assert_output --regexp '^2026-01-01T00:01:00\.[0-9]{3}Z$'
	run -0 cb status --prometheus
	assert_line --regexp '^cbexec_last_success_timestamp_seconds\{name="x"\} 1767225660\.[0-9]{3}$'
	assert_line --regexp '^cbexec_last_run_timestamp_seconds\{name="x"\} 1767225720\.[0-9]{3}$'
	assert_line --regexp '^cbexec_last_duration_seconds\{name="x"\} [0-9]+\.[0-9]{3}$'
	run -0 cb_at '@2026-01-01 01:00:00' status x
	assert_line --regexp '^  Succeeded: 2026-01-01 00:01:00 UTC \(5[89]m ago\)$'
}

@test "19.3: the README's NoSuccessForADay alert fires a day after the last success, not before" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	grep -q cbexec_last_success_timestamp_seconds rules.yml
	run -0 promtool check rules rules.yml
	readme_rules_test <<'YAML'
    input_series:
      # Last success at 1h, runs on (failing, or refused and skipped).
      - series: 'cbexec_last_success_timestamp_seconds{name="api"}'
        values: '3600x1700'
      - series: 'cbexec_last_run_timestamp_seconds{name="api"}'
        values: '60+60x1700'
      # Succeeds every minute.
      - series: 'cbexec_last_success_timestamp_seconds{name="ok"}'
        values: '60+60x1700'
      - series: 'cbexec_last_run_timestamp_seconds{name="ok"}'
        values: '60+60x1700'
      # Never ran.
      - series: 'cbexec_last_success_timestamp_seconds{name="new"}'
        values: '0x1700'
      - series: 'cbexec_last_run_timestamp_seconds{name="new"}'
        values: '0x1700'
    alert_rule_test:
      - eval_time: 25h30m
        alertname: NoSuccessForADay
        exp_alerts: []
      - eval_time: 27h
        alertname: NoSuccessForADay
        exp_alerts:
          - exp_labels: {name: api}
            exp_annotations: {summary: "api: no success for over a day"}
YAML
}

@test "19.4: last_run_by names the user, the host and argv[0], never the arguments" {
	run -0 cb run x -- sh -c 'exit 0' secret-token-42
	run -0 cb status x
	assert_line "     Run by: $(id -un) on $(hostname): sh"
	status_json
	run -0 jq -c '.[0].last_run_by' status.json
	assert_output "{\"user\":\"$(id -un)\",\"host\":\"$(hostname)\",\"command\":\"sh\"}"
	run -1 grep -q secret-token-42 status.json
	run -1 grep -aq secret-token-42 "$CBEXEC_STATE"
	# The last run's, whoever made it.
	run -0 cb run x -- true
	run -0 jq -r '.[0].last_run_by.command' <(cb status --json)
	assert_output true
}

@test "19.4: a transition's log line names the user, host and command of the call that caused it" {
	config 'log = "stderr";'
	run -1 --separate-stderr cb run x -o trip.failures=1 -- false --password hunter2
	[[ $stderr == *"x: closed -> open (1 consecutive failure) [$(id -un)@$(hostname): false]"* ]] ||
	    fail "stderr: $stderr"
	[[ $stderr != *hunter2* ]] || fail "stderr: $stderr"
}

@test "last_success is set by a success, not by exit 0: --success-codes 0,3 with exit 3, and exit 0 under --failure-codes 0" {
	run -3 cb run x --success-codes 0,3 -- sh -c 'exit 3'
	run -0 jq -r '.[0].last_success' <(cb status --json)
	refute_output null
	run -0 cb run y --failure-codes 0 -- true
	run -0 jq -r '.[0].successes, .[0].last_success' <(cb status --json y)
	assert_output "0
null"
}

@test "a probe's token handed back by release names the releaser, not the run before it" {
	run -0 cb run x -- sh -c 'exit 0'
	run -0 cb trip x --for 1m
	run -0 cb_at +2m acquire x
	token=$output
	run -0 cb_at +2m release "$token" success
	run -0 jq -c '.[0] | [.state, .last_run_by]' <(cb status --json)
	assert_output "[\"closed\",{\"user\":\"$(id -un)\",\"host\":\"$(hostname)\",\"command\":null}]"
}

@test "expect_every: a daily and a weekly job overdue by the same rule, in the table, --json, Prometheus and the detail view" {
	cb_at '@2026-01-01 00:00:00' run daily -o expect_every=1d -- true
	cb_at '@2026-01-01 00:00:00' run weekly -o expect_every=7d -- true
	cb_at '@2026-01-01 00:00:00' run plain -- true
	# A day and two hours on: the daily job is overdue, the weekly not.
	run -0 cb_at '@2026-01-02 02:00:30' status
	assert_line --regexp '^daily +closed, overdue (2h|1h59m) +0/5 '
	assert_line --regexp '^weekly +closed +0/5 '
	assert_line --regexp '^plain +closed +0/5 '
	run -0 cb_at '@2026-01-02 02:00:30' status --json
	run -0 jq -c 'map([.name, (.overdue / 60 | floor), .policy.expect_every_ms])' <<<"$output"
	assert_output '[["daily",120,86400000],["plain",0,null],["weekly",0,604800000]]'
	run -0 cb_at '@2026-01-02 02:00:30' status --prometheus
	assert_line 'cbexec_overdue{name="daily"} 1'
	assert_line 'cbexec_overdue{name="weekly"} 0'
	assert_line 'cbexec_overdue{name="plain"} 0'
	assert_line 'cbexec_expected_interval_seconds{name="weekly"} 604800.000'
	assert_line 'cbexec_expected_interval_seconds{name="plain"} 0'
	run -0 cb_at '@2026-01-02 02:00:30' status daily
	assert_line --regexp '^  Succeeded: 2026-01-01 00:00:00 UTC \(1d ago\); expected every 1d: overdue 2h[0-9]+s$'
	# Eight days on, both; a success ends it.
	run -0 cb_at '@2026-01-09 00:00:00' status --prometheus
	assert_line 'cbexec_overdue{name="weekly"} 1'
	cb_at '@2026-01-09 00:00:00' run weekly -o expect_every=7d -- true
	run -0 cb_at '@2026-01-09 00:01:00' status --prometheus
	assert_line 'cbexec_overdue{name="weekly"} 0'
	# A breaker that never succeeded counts from when it was made.
	run -1 cb_at '@2026-01-09 00:00:00' run never -o expect_every=1h -- false
	run -0 cb_at '@2026-01-09 01:30:00' status --prometheus
	assert_line 'cbexec_overdue{name="never"} 1'
}

@test "the README's JobOverdue alert fires for a daily and a weekly job alike, on its own host" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	grep -q 'cbexec_overdue == 1' rules.yml
	readme_rules_test <<'YAML'
    input_series:
      - series: 'cbexec_overdue{instance="a",name="daily"}'
        values: '0x30 1x30'
      - series: 'cbexec_overdue{instance="b",name="weekly"}'
        values: '0x50 1x10'
      - series: 'cbexec_overdue{instance="a",name="weekly"}'
        values: '0x60'
    alert_rule_test:
      - eval_time: 45m
        alertname: JobOverdue
        exp_alerts:
          - exp_labels: {instance: a, name: daily}
            exp_annotations: {summary: "daily: no success within its expect_every"}
      - eval_time: 61m
        alertname: JobOverdue
        exp_alerts:
          - exp_labels: {instance: a, name: daily}
            exp_annotations: {summary: "daily: no success within its expect_every"}
          - exp_labels: {instance: b, name: weekly}
            exp_annotations: {summary: "weekly: no success within its expect_every"}
YAML
}
