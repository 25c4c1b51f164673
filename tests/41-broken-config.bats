#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 41-broken-config: a config file that cannot be used never stops a job and
# never weakens a guard (SPEC section 4, issue 18.6).  Each breaker runs,
# guarded and recorded, under the policy it last ran under with the command
# line's options on top; nothing the file names is executed; every command
# says the problem, even with -q, and it is logged once per content of the
# file; the admin commands and the export keep working.  And a config that
# is not a regular file (18.5) is never waited on; -c /dev/null is none.

load helper

# typo [LINE...]: a config whose one problem is a typo'd key on line 1.
typo() {
	config 'defaults = { open_timout = "30s"; };' "$@"
}

# The line every command prints for typo's config.
typo_said() {
	echo "cbexec: $CBEXEC_CONFIG:1: open_timout: unknown key (did you mean open_timeout?)"
}

# nobody_tree: as root, a directory $d that user nobody can reach, with
# its home $d/home and a state directory $d/s of its own (removed by
# teardown); skips elsewhere.
nobody_tree() {
	[ "$(id -u)" = 0 ] || skip "needs root (setpriv, chown)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	d=$(mktemp -d /tmp/cbexec-nobody.XXXXXX)
	echo "$d" >"$T/nobody-tree"
	chmod 0755 "$d"
	mkdir -m 0700 "$d/home" "$d/s"
	chown nobody "$d/home" "$d/s"
}

teardown() {
	[ ! -e "$T/nobody-tree" ] || rm -rf "$(cat "$T/nobody-tree")"
	common_teardown
}

@test "CBEXEC_DISABLE=1 with a broken config runs unguarded and opens no state" {
	typo
	CBEXEC_DISABLE=1 run -0 --separate-stderr "$CBEXEC" run x -- touch ran
	assert [ -e ran ]
	assert_equal "${stderr_lines[0]}" "$(typo_said)"
	CBEXEC_DISABLE=1 run -0 --separate-stderr "$CBEXEC" acquire x
	assert [ ! -e "$CBEXEC_STATE" ]
}

@test "-o max_concurrent=1 on the command line still holds: two runs never overlap" {
	typo
	bg a cb run x -o max_concurrent=1 -- sh -c ': >started; while [ ! -e release ]; do sleep 0.05; done'
	wait_for test -e started
	run -75 --separate-stderr cb run x -o max_concurrent=1 -- touch second
	assert [ ! -e second ]
	assert_equal "${stderr_lines[0]}" "$(typo_said)"
	assert_regex "${stderr_lines[1]}" '^cbexec: x: busy, 1 of 1 running'
	: >release
	bg_wait a
	assert_equal "$(bg_rc a)" 0
	assert_equal "$(json_field x calls)" 1
}

@test "an open breaker stays refused, by run and by check" {
	config 'defaults = { trip = { failures = 1; }; open_timeout = "1h"; };'
	fail_n x 1
	typo
	run -75 --separate-stderr cb run x -- touch ran
	assert_equal "${stderr_lines[0]}" "$(typo_said)"
	assert_regex "${stderr_lines[1]}" '^cbexec: x: circuit open, retry in '
	run -75 cb check x
	assert [ ! -e ran ]
	assert_equal "$(json_field x rejected)" 1
}

@test "the last good run's policy holds: its timeout still kills, its threshold still opens" {
	config 'defaults = { trip = { failures = 2; }; timeout = "200ms"; };' \
	    'breakers = ( { match = "y"; open_exit_code = 70; } );'
	run -0 cb run x -- true
	typo
	run -124 cb run x -- sleep 30
	run -1 cb run x -- false
	# Two failures opened it, where the built-in defaults want five.
	assert_equal "$(json_field x state)" open
	# A breaker with no record: what the last clean file gave its name
	# (SPEC 4), the command line over it.
	run -0 cb trip y
	run -70 cb run y -- true
	run -76 cb run y -o open_exit_code=76 -- true
	# Remembered beside the state in use, not the system's.
	assert [ -f "$CBEXEC_STATE-configs.$(id -u)" ]
}

@test "the last good run's modes hold too: open_exit_code, on_open = skip" {
	config 'defaults = { trip = { failures = 1; }; open_exit_code = 70; };' \
	    'breakers = ( { match = "q"; on_open = "skip"; } );'
	run -1 cb run x -- false
	run -1 cb run q -- false
	typo
	run -70 cb run x -- touch ran
	run -0 --separate-stderr cb run q -- touch ran
	assert_equal "$stderr" "$(typo_said)"
	assert [ ! -e ran ]
}

@test "a probe command named by the broken file is not run: the job probes itself" {
	printf '#!/bin/sh\n: >"%s/probed"\nexit 0\n' "$T" >probe
	chmod +x probe
	config "defaults = { probe = [ \"$T/probe\" ]; open_timout = 1; };"
	run -0 cb trip x --for 10s
	run -0 cb_at +11s run x -- touch job
	assert [ -e job ]
	assert [ ! -e probed ]
	assert_equal "$(json_field x state)" closed
}

@test "a hook named by the broken file is not run" {
	config "on_transition = [ \"/bin/touch\", \"$T/hooked\" ];" \
	    'defaults = { open_timout = 1; trip = { failures = 1; }; };'
	run -0 cb trip x
	run -0 cb reset x
	fail_n y 5
	assert_equal "$(json_field y state)" open
	assert [ ! -e hooked ]
	# The same hook runs once the file is fixed.
	config "on_transition = [ \"/bin/touch\", \"$T/hooked\" ];"
	run -0 cb trip z
	assert [ -e hooked ]
}

@test "-q still prints the problem, once, on every command" {
	typo
	run -0 cb run a -- true
	local c
	for c in "run x -- true" "check x" "status" "status --json" \
	    "trip y" "reset y" "forget y" "gc" "config show"; do
		# shellcheck disable=SC2086 # the words of the command
		run --separate-stderr cb -q $c
		assert_equal "$stderr" "$(typo_said)"
	done
	run -0 --separate-stderr cb -q acquire z
	assert_equal "$stderr" "$(typo_said)"
	run -0 --separate-stderr cb -q release "$output" success
	assert_equal "$stderr" "$(typo_said)"
}

@test "status, reset, trip, forget, gc and release work with their usual exit status" {
	ok_n a 1
	typo
	run -0 cb status
	run -0 cb status a
	run -0 cb status 'nomatch*'
	run -0 cb trip a --for 1h
	assert_equal "$(json_field a state)" open
	run -0 cb reset a
	assert_equal "$(json_field a state)" closed
	run -1 cb reset 'nomatch*'
	run -0 --separate-stderr cb acquire b --lease 1m
	run -0 cb release "$output" failure
	assert_equal "$(json_field b failures)" 1
	run -0 cb forget a
	run -1 cb forget a
	run -0 cb gc --dry-run
	run -0 cb gc
}

@test "status --prometheus writes cbexec_config_ok 0, and 1 once the file is fixed" {
	typo
	run -0 cb run x -- true
	"$CBEXEC" status --prometheus >m.prom 2>m.err
	run -0 grep '^cbexec_config_ok ' m.prom
	assert_output 'cbexec_config_ok 0'
	run -0 grep -c '^cbexec_calls_total{name="x",outcome="success"} 1$' m.prom
	if command -v promtool >/dev/null; then
		run -0 promtool check metrics <m.prom
	fi
	: >"$CBEXEC_CONFIG"
	"$CBEXEC" status --prometheus >m.prom
	run -0 grep '^cbexec_config_ok ' m.prom
	assert_output 'cbexec_config_ok 1'
}

@test "command-line errors stay usage errors; config check and config show exit 1" {
	typo
	run -125 cb run x -o bogus=1 -- touch m
	run -125 cb run x --failure-codes 1-999 -- touch m
	run -125 cb run 'a b' -- touch m
	run -125 cb -c "$T/nope.conf" run x -- touch m
	assert [ ! -e m ]
	run -2 cb check 'a b'
	run -2 cb -c "$T/nope.conf" status
	run -1 --separate-stderr cb config check
	assert_equal "$stderr" "$(typo_said)"
	run -1 cb config show x
	run -1 cb config show
}

@test "the state the broken file names is used, when it could be read that far" {
	unset CBEXEC_STATE
	config "state = \"$T/named.mdb\";" 'defaults = { open_timout = 1; };'
	run -0 cb run x -- true
	assert [ -e named.mdb ]
	run -1 --separate-stderr cb config show
	assert_line --regexp "^state +$T/named.mdb "
	# A syntax error reads nothing: the default state (shown, not made:
	# as root it is the system's).
	config "state = \"$T/other.mdb\";" 'defaults = {'
	run -1 --separate-stderr cb config show
	refute_line --partial other.mdb
	assert_line --regexp "^state +($XDG_STATE_HOME/cbexec|/var/lib/cbexec)/state.mdb "
}

@test "the problem is logged to syslog once per content of the file" {
	command -v python3 >/dev/null || skip "no python3 for a syslog listener"
	unshare -m true 2>/dev/null || skip "no mount namespace"
	export T
	typo
	run -0 with_syslog "$CBEXEC" run x -- true
	run -0 grep -c 'cbexec\[[0-9]*\]: config: .*:1: open_timout: unknown key' syslog
	assert_output 1
	run -0 with_syslog "$CBEXEC" status
	run -0 with_syslog "$CBEXEC" -q run x -- true
	run -0 grep -c 'open_timout' syslog
	assert_output 1
	# Another content: logged again, once.
	typo '# edited'
	run -0 with_syslog "$CBEXEC" run x -- true
	run -0 with_syslog "$CBEXEC" run x -- true
	run -0 grep -c 'open_timout' syslog
	assert_output 2
}

@test "a FIFO or a device as the config is never waited on: the run is guarded, the problem said" {
	rm "$CBEXEC_CONFIG"
	mkfifo "$CBEXEC_CONFIG"
	run -0 --separate-stderr timeout 10 "$CBEXEC" run x -- true
	assert_equal "$stderr" "cbexec: cannot read config '$CBEXEC_CONFIG': a FIFO, not a regular file"
	run -1 timeout 10 "$CBEXEC" config check
	assert_equal "$(json_field x calls)" 1
	run -0 --separate-stderr cb -c /dev/zero run x -- true
	assert_equal "$stderr" "cbexec: cannot read config '/dev/zero': a device, not a regular file"
	assert_equal "$(json_field x calls)" 2
	# A symbolic link to a regular file is followed, as before.
	rm "$CBEXEC_CONFIG"
	printf 'defaults = { open_exit_code = 90; };\n' >real.conf
	ln -s real.conf "$CBEXEC_CONFIG"
	run -0 cb trip x
	run -90 --separate-stderr cb run x -- true
	assert_equal "${#stderr_lines[@]}" 1
}

@test "-c /dev/null or CBEXEC_CONFIG=/dev/null is no config file: built-in defaults, silently" {
	run -0 --separate-stderr cb -c /dev/null run x -- true
	assert_equal "$stderr" ''
	CBEXEC_CONFIG=/dev/null run -0 --separate-stderr "$CBEXEC" status --prometheus
	assert_equal "$stderr" ''
	assert_line 'cbexec_config_ok 1'
	run -0 cb -c /dev/null config check
	assert_output 'no config file: built-in defaults'
}

@test "the README's CbexecConfigBroken alert fires on cbexec_config_ok 0, and only then" {
	command -v promtool >/dev/null || skip "no promtool"
	awk '/^    groups:/,/^$/ { sub(/^    /, ""); print }' "$BATS_TEST_DIRNAME/../README.md" >rules.yml
	readme_rules_test <<'YAML'
    input_series:
      - series: 'cbexec_config_ok{instance="web1"}'
        values: '0x30'
      - series: 'cbexec_config_ok{instance="web2"}'
        values: '1x30'
    alert_rule_test:
      - eval_time: 5m
        alertname: CbexecConfigBroken
        exp_alerts: []
      - eval_time: 15m
        alertname: CbexecConfigBroken
        exp_alerts:
          - exp_labels: {instance: web1}
            exp_annotations: {summary: "web1: cbexec config broken, breakers run under their last policy"}
YAML
}

@test "a config that cannot be read leads to the state it named when it last loaded, not to the default one" {
	# As nobody, whose default state is under a home of its own.
	nobody_tree
	printf 'state = "%s/s/real.mdb";\nlog = "none";\n' "$d" >"$d/cbexec.conf"
	chown nobody "$d/cbexec.conf"
	as() {
		setpriv --reuid nobody --regid nogroup --clear-groups \
		    env -u CBEXEC_STATE -u XDG_STATE_HOME HOME="$d/home" \
		    CBEXEC_CONFIG="$d/cbexec.conf" "$CBEXEC" "$@"
	}
	run -0 as run x -- true
	run -0 as trip x --for 1h
	assert [ -e "$d/s/real.mdb" ]
	# Unreadable now: its problem is said, and the breaker open in the
	# state it named still refuses.
	chmod 000 "$d/cbexec.conf"
	run -75 as run x -- touch "$d/s/ran"
	assert_line --partial "$d/cbexec.conf"
	assert_line --regexp "^cbexec: x: circuit open"
	assert [ ! -e "$d/s/ran" ]
	assert [ ! -e "$d/home/.local/state/cbexec/state.mdb" ]
	run -1 as config show
	assert_line --regexp "^state +$d/s/real.mdb "
	memo=$d/home/.local/state/cbexec/state.mdb-configs.$(id -u nobody)
	assert_equal "$(sed -n 1,2p "$memo")" "@$d/cbexec.conf
$d/s/real.mdb"
	cp "$memo" "$d/memo.then"
	# Loaded cleanly naming no state: forgotten, the default is used.
	chmod 0644 "$d/cbexec.conf"
	printf 'log = "none";\n' >"$d/cbexec.conf"
	run -0 as run y -- true
	assert_equal "$(sed -n 1p "$memo")" "@$d/cbexec.conf"
	assert_equal "$(sed -n 2p "$memo")" ""
	chmod 000 "$d/cbexec.conf"
	run -0 as run x -- touch "$d/s/ran"
	assert [ -e "$d/s/ran" ]
	# A memo of another user (here root's) is not believed.
	cp "$d/memo.then" "$memo"
	chown root "$memo"
	rm "$d/s/ran"
	run -0 as run x -- touch "$d/s/ran"
	assert [ -e "$d/s/ran" ]
}

@test "a breaker that never ran gets what the last clean config gave its name, not the built-in defaults" {
	nobody_tree
	conf=$d/cbexec.conf
	as() {
		setpriv --reuid nobody --regid nogroup --clear-groups \
		    env -u XDG_STATE_HOME HOME="$d/home" CBEXEC_CONFIG="$conf" \
		    CBEXEC_STATE="$d/s/state.mdb" "$CBEXEC" "$@"
	}
	# A pattern may begin with '@', as a NAME may.
	printf '%s\n' 'log = "none";' 'defaults = { timeout = "1s"; };' \
	    'breakers = ( { match = "@x*"; timeout = "5s"; },' \
	    '  { match = "job-*"; timeout = "2s"; trip = { failures = 1; }; } );' >"$conf"
	chown nobody "$conf"
	# Any write under the clean file remembers it; nothing ran yet.
	run -0 as trip other --for 1m
	# A typo: a new job still gets its entry's timeout and threshold,
	# another name the defaults' timeout.
	printf '%s\n' 'log = "none";' 'defaults = { timeout = "1s"; };' \
	    'breakers = ( { match = "job-*"; timeot = "2s"; } );' >"$conf"
	run -124 --separate-stderr as run job-new -- sleep 10
	[[ $stderr == *"job-new: timed out after 2s"* ]] || fail "$stderr"
	[[ $stderr == *"timeot: unknown key"* ]] || fail "$stderr"
	[[ $stderr == *"circuit opened after 1 consecutive failure"* ]] || fail "$stderr"
	run -124 --separate-stderr as run plain -- sleep 10
	[[ $stderr == *"plain: timed out after 1s"* ]] || fail "$stderr"
}
