#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 86-probe: the probe command of SPEC section 2c (issue 13.2).  When a
# call is admitted as a half-open probe and `probe` is set, the probe runs
# instead of the job: exit 0 is a probe success (the job then runs in the
# same invocation once the breaker has closed), anything else re-opens the
# breaker with backoff and the job never starts.  The cool-downs pass by
# faketime (cb_at), not by sleeping.

load helper

# probe_conf [KEY = VALUE; ...]: trip at the first failure, a 10s cool-down
# doubled by each failed probe, no jitter, and $T/probe as the probe (a
# script each test writes); the words given are added to defaults.
probe_conf() {
	config "defaults = { trip = { failures = 1; }; open_timeout = \"10s\";" \
	    "  backoff = 2.0; jitter = 0.0; probe = [ \"$T/probe\" ]; $*  };"
}

# probe_script BODY: $T/probe logs "probe" to $T/log, then runs BODY.
probe_script() {
	printf '#!/bin/sh\necho probe >>"%s/log"\n%s\n' "$T" "$1" >"$T/probe"
	chmod +x "$T/probe"
}

# open_x: breaker x opened by one failure, now.
open_x() {
	fail_n x 1
	assert_equal "$(json x .state)" open
}

@test "a passing probe closes the breaker and the job runs in the same invocation" {
	probe_conf
	probe_script 'exit 0'
	open_x
	run -0 cb_at +11s run x -- sh -c "echo job >>'$T/log'"
	assert_equal "$(cat "$T/log")" "probe
job"
	assert_equal "$(json x '[.state, .calls, .successes, .failures] | join(" ")')" \
	    'closed 3 2 1'
	# The probe's run is a call of its own, marked; the job's is not.
	assert_equal "$(json x '[.run_log[] | "\(.outcome):\(.probe)"] | join(" ")')" \
	    'failure:false success:true success:false'
	assert_equal "$(json x .reason)" '1 probe command succeeded'
}

@test "a failing probe re-opens with a doubled cool-down and the job does not run" {
	probe_conf
	probe_script 'exit 7'
	open_x
	assert_equal "$(open_period x)" 10000
	run -75 --separate-stderr cb_at +11s run x -- touch job
	[[ $stderr =~ "x: circuit open, retry in "(19|20)"s (probe failed: exit 7)" ]] ||
	    fail "stderr: $stderr"
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(cat "$T/log")" probe
	assert_equal "$(json x '[.state, .reason, .calls, .failures] | join(" ")')" \
	    'open probe failed: exit 7 2 2'
	assert_equal "$(open_period x)" 20000
	assert_equal "$(json x '.run_log[-1] | "\(.outcome):\(.probe):\(.exit)"')" \
	    'failure:true:7'
	# The next failed probe doubles it again.
	run -75 cb_at +32s run x -- touch job
	assert_equal "$(open_period x)" 40000
	[ ! -e job ] || fail "the job ran"
}

@test "a probe killed by a signal is a failure said without nested parentheses" {
	probe_conf
	probe_script 'kill -9 $$'
	open_x
	run -75 --separate-stderr cb_at +11s run x -- touch job
	[[ $stderr == *"x: circuit re-opened (probe failed: killed by SIGKILL); refusing runs until "* ]] ||
	    fail "stderr: $stderr"
	# 20s from the whole second the probe started in.
	[[ $stderr =~ "x: circuit open, retry in "(19|20)"s (probe failed: killed by SIGKILL)" ]] ||
	    fail "stderr: $stderr"
	[ ! -e job ] || fail "the job ran"
}

@test "a probe that cannot be run is a failure, said as run says it" {
	config "defaults = { trip = { failures = 1; }; open_timeout = \"10s\";" \
	    "  probe = [ \"$T/no-such-probe\" ]; };"
	open_x
	run -75 --separate-stderr cb_at +11s run x -- touch job
	[[ $stderr == *"failed to run probe command '$T/no-such-probe': No such file or directory"* ]] ||
	    fail "stderr: $stderr"
	[[ $stderr == *"(probe failed: exit 127)"* ]] || fail "stderr: $stderr"
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(json x .state)" open
}

@test "a hanging probe and its whole group are killed at probe_timeout" {
	probe_conf 'probe_timeout = "1s";'
	probe_script "sleep 300 & echo \$! >'$T/grandchild.pid'
echo \$\$ >'$T/probe.pid'
sleep 300"
	open_x
	local t0 t1
	t0=$(now_ms)
	run -75 --separate-stderr cb_at +11s run x -- touch job
	t1=$(now_ms)
	[[ $stderr == *"(probe failed: timed out after 1s)"* ]] || fail "stderr: $stderr"
	# Killed at 1s; 30s is only there to catch a probe left to run.
	[ $((t1 - t0)) -lt 30000 ] || fail "took $((t1 - t0))ms"
	[ $((t1 - t0)) -ge 1000 ] || fail "killed after $((t1 - t0))ms"
	gone "$(cat probe.pid)"
	gone "$(cat grandchild.pid)"
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(json x '[.state, .reason, .timeouts] | join(" ")')" \
	    'open probe failed: timed out after 1s 1'
}

@test "what a passing probe left in its group is killed when it exits; the job runs" {
	# No faketime here: under it the background sleep does not stay.
	config "defaults = { trip = { failures = 1; }; open_timeout = \"1s\";" \
	    "  probe = [ \"$T/probe\" ]; };"
	probe_script "sleep 300 2>/dev/null & echo \$! >'$T/grandchild.pid'
exit 0"
	open_x
	sleep 1.5
	run -0 cb run x -- touch job
	gone "$(cat grandchild.pid)"
	[ -e job ] || fail "the job did not run"
	assert_equal "$(json x .state)" closed
}

@test "a signal to cbexec during the probe reaches the probe, ends the call and counts as interrupted" {
	config "defaults = { trip = { failures = 1; }; open_timeout = \"1s\";" \
	    "  probe = [ \"$T/probe\" ]; };"
	probe_script "echo \$\$ >'$T/probe.pid'
exec sleep 300"
	open_x
	sleep 1.5
	"$CBEXEC" run x -- touch job 2>err &
	echo $! >cb.pid
	wait_for test -s probe.pid
	kill -TERM "$(cat cb.pid)"
	local rc=0
	wait "$(cat cb.pid)" || rc=$?
	assert_equal "$rc" 143
	gone "$(cat probe.pid)"
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(json x '[.state, .interrupted, .failures] | join(" ")')" \
	    'half-open 1 1'
	assert_equal "$(json x '.run_log[-1] | "\(.outcome):\(.probe)"')" \
	    'interrupted:true'
}

@test "a closed breaker never runs the probe" {
	probe_conf
	probe_script 'exit 0'
	run -0 cb run x -- sh -c "echo job >>'$T/log'"
	run -0 cb run x -- sh -c "echo job >>'$T/log'"
	assert_equal "$(cat "$T/log")" "job
job"
}

@test "an open breaker refuses without running the probe" {
	probe_conf
	probe_script 'exit 0'
	open_x
	run -75 cb run x -- touch job
	[ ! -e "$T/log" ] || fail "the probe ran: $(cat "$T/log")"
	[ ! -e job ] || fail "the job ran"
}

@test "check never runs the probe and takes no slot" {
	probe_conf
	probe_script 'exit 0'
	open_x
	run -0 cb_at +11s check x
	run -0 cb_at +11s check x
	[ ! -e "$T/log" ] || fail "the probe ran: $(cat "$T/log")"
	run -0 cb_at +11s run x -- true
	assert_equal "$(cat "$T/log")" probe
	assert_equal "$(json x .state)" closed
}

@test "half_open_max_calls = 2: the first passing probe is refused as half-open, the second runs the job" {
	probe_conf 'half_open_max_calls = 2;'
	probe_script 'exit 0'
	open_x
	run -75 --separate-stderr cb_at +11s run x -- touch job
	[[ $stderr == *"x: circuit half-open, probe command succeeded, 1 of 2 successes to close, retry later"* ]] ||
	    fail "stderr: $stderr"
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(json x '[.state, .half_open_successes] | join(" ")')" 'half-open 1'
	run -0 cb_at +11s run x -- touch job
	[ -e job ] || fail "the job did not run"
	assert_equal "$(json x '[.state, .reason] | join(" ")')" \
	    'closed 2 probe commands succeeded'
	assert_equal "$(grep -c probe "$T/log")" 2
}

@test "the probe gets /dev/null on stdin and stdout, no CBEXEC_REDIS_PASSWORD and no descriptor of the caller's" {
	probe_conf
	# Read in a command substitution: the shell's own descriptors, as a
	# redirection of readlink's would not be.
	probe_script "in=\$(readlink /proc/\$\$/fd/0) out=\$(readlink /proc/\$\$/fd/1)
echo \"\$in\" >'$T/fd0'
echo \"\$out\" >'$T/fd1'
[ -e /proc/\$\$/fd/7 ] && echo open >'$T/fd7'
env >'$T/env'
echo on-stdout
exit 0"
	open_x
	echo input >in
	# 7, not 3: faketime's own shared memory takes 3 in the probe.
	CBEXEC_REDIS_PASSWORD=hunter2 cb_at +11s run x -- true <in >out 7>extra
	assert_equal "$(cat fd0)" /dev/null
	assert_equal "$(cat fd1)" /dev/null
	[ ! -e fd7 ] || fail "the probe got descriptor 7"
	[ -s env ] || fail "the probe wrote no environment"
	! grep -q CBEXEC_REDIS_PASSWORD env || fail "the probe saw the password"
	! grep -q on-stdout out || fail "the probe's stdout reached the caller's"
	assert_equal "$(json x .state)" closed
}

@test "--retries: a refusal after a failed probe ends the loop, the job never runs" {
	probe_conf
	probe_script 'exit 7'
	open_x
	run -75 cb_at +11s run x --retries 3 --retry-delay 0 -- touch job
	[ ! -e job ] || fail "the job ran"
	assert_equal "$(cat "$T/log")" probe
	# With on_open = skip: silent and 0, the job still not run.
	run -0 --separate-stderr cb_at +32s run x --on-open skip --retries 3 -- touch job
	# The probe's failure re-opened it: said; the refusal: not.
	assert_regex "$stderr" '^cbexec: x: circuit re-opened \(probe failed: exit 7\); refusing runs until [0-9:]{8}$'
	assert_equal "$(grep -c probe "$T/log")" 2
	[ ! -e job ] || fail "the job ran"
}

@test "acquire runs the probe when it would take a probe slot" {
	probe_conf
	probe_script 'exit "$(cat '"'$T/rc'"')"'
	echo 7 >rc
	open_x
	# A failing probe: refused, no token, open_exit_code whatever on_open.
	run -75 --separate-stderr cb_at +11s acquire x
	assert_output ''
	[[ $stderr == *"(probe failed: exit 7)"* ]] || fail "stderr: $stderr"
	assert_equal "$(json x .state)" open
	# A passing one: closed, and the token is an ordinary closed call's.
	echo 0 >rc
	local tok
	tok=$(cb_at +32s acquire x)
	[[ $tok == cb1-* ]] || fail "no token: $tok"
	assert_equal "$(json x .state)" closed
	run -0 cb release "$tok" success
	assert_equal "$(json x '[.state, .calls, .successes] | join(" ")')" 'closed 4 2'
	assert_equal "$(grep -c probe "$T/log")" 2
}

@test "status NAME shows the probe command's runs and the reason" {
	probe_conf
	probe_script 'exit 0'
	open_x
	run -0 cb_at +11s run x -- true
	LC_ALL=C run -0 cb status x
	assert_line --partial 'Runs: xP+  (last 3, newest last)'
	assert_line --partial 'PF probe command passed/failed'
	assert_line --regexp 'half-open -> closed +1 probe command succeeded$'
	# The same letters in UTF-8: U+2714 and U+2718 read as a run's marks.
	LC_ALL=C.UTF-8 run -0 cb status x
	assert_line --partial 'Runs: ✗P✓  (last 3, newest last)'
	assert_line --partial '✓ success  ✗ failure  ⏱ timeout  · ignored/interrupted/stale  PF probe command passed/failed'
}

@test "config show prints the probe and probe_timeout with their origin" {
	config 'defaults = {' \
	    '  probe = [ "pg_isready", "-h", "db" ];' \
	    '  probe_timeout = "3s";' \
	    '};'
	run -0 cb config show x
	assert_line --regexp '^probe +\[ "pg_isready", "-h", "db" \] +.*cbexec\.conf:2$'
	assert_line --regexp '^probe_timeout +"3s" +.*cbexec\.conf:3$'
	config ''
	run -0 cb config show x
	assert_line --regexp '^probe +"none" +built-in$'
	assert_line --regexp '^probe_timeout +"10s" +built-in$'
}

@test "a bad probe value is a config error naming file, line and key" {
	config 'defaults = {' '  probe = [];' '};'
	run -1 --separate-stderr cb config check
	[[ $stderr == *"cbexec.conf:2: probe: must name a command, not an empty list"* ]] ||
	    fail "stderr: $stderr"
	config 'defaults = {' '  probe = ( "curl", 7 );' '};'
	run -1 --separate-stderr cb config check
	[[ $stderr == *"cbexec.conf:2: probe: element 2 must be a string, not an integer"* ]] ||
	    fail "stderr: $stderr"
	config 'defaults = {' '  probe = "curl -fsS http://db/health";' '};'
	run -1 --separate-stderr cb config check
	[[ $stderr == *"cbexec.conf:2: probe: must be a list of strings"*"not the string 'curl -fsS http://db/health'"* ]] ||
	    fail "stderr: $stderr"
	config 'defaults = {' '  probe = [ "" ];' '};'
	run -1 --separate-stderr cb config check
	[[ $stderr == *"cbexec.conf:2: probe: the command must not be empty"* ]] ||
	    fail "stderr: $stderr"
	config 'defaults = {' '  probe_timeout = "0s";' '};'
	run -1 --separate-stderr cb config check
	[[ $stderr == *"cbexec.conf:2: probe_timeout: must be longer than 0"* ]] ||
	    fail "stderr: $stderr"
}

@test "-o probe takes a list in the file's syntax, read by libconfig; -o probe=none takes it back" {
	# Not split by a rule of ours: a bare command line is no list.
	run -125 --separate-stderr cb run x -o 'probe=curl -fsS http://db/health' -- touch job
	[[ $stderr == *"run: -o: probe: must be a list of strings in the config file's syntax"* ]] ||
	    fail "stderr: $stderr"
	run -125 --separate-stderr cb run x -o 'probe=("curl", 7)' -- touch job
	assert_equal "${stderr_lines[0]}" "cbexec: run: -o: probe: element 2 must be a string, not an integer"
	run -125 --separate-stderr cb run x -o 'probe=["a"]; timeout = 1' -- touch job
	run -125 --separate-stderr cb run x -o 'probe=[]' -- touch job
	assert [ ! -e job ]
	# The file's syntax, with its quoting: one argument holds a space.
	probe_conf
	probe_script "echo \"args:\$*\" >>'$T/log'; exit 7"
	open_x
	run -75 cb_at +11s run x -o "probe=[\"$T/probe\", \"a b\", \"c\"] # why" -- touch job
	assert_equal "$(cat "$T/log")" "probe
args:a b c"
	assert [ ! -e job ]
	rm "$T/log"
	run -0 cb config show x -o "probe=( \"$T/probe\", \"-h\", \"db\" )"
	assert_line --regexp "^probe +\[ \"$T/probe\", \"-h\", \"db\" \] +command line\$"
	run -0 cb forget x
	probe_conf
	probe_script 'exit 7'
	open_x
	run -0 cb_at +11s run x -o probe=none -- touch job
	[ -e job ] || fail "the job did not run as the probe"
	[ ! -e "$T/log" ] || fail "the probe ran"
}

@test "a probe that passes within probe_timeout closes the breaker, though it outlasts the run's own lease" {
	# The probe lease is the run's timeout + kill-after + 5s plus
	# probe_timeout (SPEC 2).  cbexec's wall clock runs 20 times as fast
	# as the probe's (faketime): a 0.5s probe lasts 10s and more to the
	# lease, past the 1s + 1s + 5s of the run alone, well within 5m.
	probe_conf 'probe_timeout = "5m";'
	probe_script 'exec env -u LD_PRELOAD sleep 0.5'
	open_x
	run -0 --separate-stderr cb_at '+11s x20' run x -t 1s -k 1s -- touch ran
	[[ $stderr != *outlived* ]] || fail "stderr: $stderr"
	[ -e ran ]
	assert_equal "$(json x '[.state, .successes, .failures] | map(tostring) | join(" ")')" \
	    'closed 2 1'
}
