#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 83-config-cmd: `config check` reports every problem of the config file
# with FILE:LINE; `config show NAME` prints the effective policy, one key a
# line, with where each value came from.

load helper

# show_line NAME KEY [RUN-OPTIONS...]: the line `config show` prints for KEY.
show_line() {
	local name=$1 key=$2 rc=0
	shift 2
	"$CBEXEC" config show "$name" "$@" >show.out 2>show.err || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "config show exited $rc" >&2
		cat show.err >&2
		return 1
	fi
	awk -v k="$key" '$1 == k' show.out
}

@test "config check on a good file prints FILE: ok and exits 0" {
	config 'defaults = { trip = { failures = 3; }; };'
	run -0 cb config check
	assert_output "$CBEXEC_CONFIG: ok"
}

@test "config check with no config file at all exits 0 and lists the paths it searched" {
	need_private_etc
	unset CBEXEC_CONFIG
	run -0 private_etc "$CBEXEC" config check
	assert_line 'no config file: built-in defaults'
	assert_line "searched $XDG_CONFIG_HOME/cbexec/cbexec.conf: not found"
	assert_line 'searched /etc/cbexec.conf: not found'
	assert_equal "${#lines[@]}" 3
}

@test "config check -q prints nothing on success" {
	run -0 cb -q config check
	refute_output
}

@test "config check reports every problem, each with FILE:LINE, and exits 1" {
	config 'defaults = {' \
	    '  trip = { failures = 3; bogus = 1; };' \
	    '  open_timeout = "30x";' \
	    '};' \
	    'breakers = (' \
	    '  { match = "db"; jitter = 2.0; },' \
	    '  { preset = "wget"; },' \
	    '  { match = "x"; failure_codes = "7"; ignore_codes = "7"; }' \
	    ');' \
	    'sync = "sometimes";'
	run -1 cb config check
	assert_line "cbexec: $CBEXEC_CONFIG:2: trip.bogus: unknown key"
	assert_line --partial "$CBEXEC_CONFIG:3: open_timeout: invalid duration '30x'"
	assert_line --partial "$CBEXEC_CONFIG:6: jitter: must be a number from 0 to 1"
	assert_line --partial "$CBEXEC_CONFIG:7: breakers: entry 2 has no match"
	assert_line --partial "$CBEXEC_CONFIG:8: breakers entry 'x': failure_codes"
	assert_line --partial "$CBEXEC_CONFIG:10: sync: must be one of full, meta, none"
	assert_equal "${#lines[@]}" 6
}

@test "run reports every problem too, then runs the command unguarded" {
	config 'defaults = { trip = { bogus = 1; }; jitter = 5.0; };'
	run -0 cb -q run x -- true
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --partial 'trip.bogus'
	assert_line --index 1 --partial 'jitter'
}

@test "config check reports a syntax error with its line" {
	config 'defaults = {' '  open_timeout = ;' '};'
	run -1 cb config check
	assert_output --regexp "^cbexec: $CBEXEC_CONFIG:2: "
}

@test "config check of a missing -c file exits 1 naming it" {
	run -1 cb -c "$T/nope.conf" config check
	assert_output --partial "$T/nope.conf"
}

@test "config show prints every policy key once with value and origin" {
	run -0 cb config show x
	assert_equal "${#lines[@]}" 33
	assert_line --regexp '^expect_every +"none" +built-in$'
	assert_line --regexp '^max_rate +"none" +built-in$'
	assert_line --regexp '^rate_burst +1 +built-in$'
	assert_line --regexp '^output +"pass" +built-in$'
	assert_line --regexp '^probe +"none" +built-in$'
	assert_line --regexp '^probe_timeout +"10s" +built-in$'
	assert_line --regexp '^trip\.policy +"consecutive" +built-in$'
	assert_line --regexp '^trip\.failures +5 +built-in$'
	assert_line --regexp '^open_timeout +"1m" +built-in$'
	assert_line --regexp '^failure_codes +"1-255" +built-in$'
	assert_line --regexp '^open_exit_code +75 +built-in$'
	assert_line --regexp '^retries +0 +built-in$'
	assert_line --regexp '^retry_delay +"1s" +built-in$'
}

@test "config show names the FILE:LINE of values from defaults and from the matching entry" {
	config 'defaults = {' \
	    '  trip = { failures = 3; };' \
	    '};' \
	    'breakers = (' \
	    '  { match = "api-*";' \
	    '    preset = "curl"; timeout = "20s"; },' \
	    '  { match = "api-1"; timeout = "1s"; }' \
	    ');'
	run -0 show_line api-1 trip.failures
	assert_output --regexp "^trip\\.failures +3 +$CBEXEC_CONFIG:2\$"
	run -0 show_line api-1 timeout
	assert_output --regexp "^timeout +\"20s\" +$CBEXEC_CONFIG:6\$"
	# The preset's classes come from the line that names the preset.
	run -0 show_line api-1 failure_codes
	assert_output --regexp "^failure_codes +\"5-7,28,35,52,55-56,96-97\" +$CBEXEC_CONFIG:6\$"
	run -0 show_line other timeout
	assert_output --regexp '^timeout +"none" +built-in$'
}

@test "config show applies run's options after NAME as the command line" {
	config 'defaults = { timeout = "20s"; };'
	run -0 show_line x timeout -t 5s
	assert_output --regexp '^timeout +"5s" +command line$'
	run -0 show_line x jitter -o jitter=0.25
	assert_output --regexp '^jitter +0.25 +command line$'
	run -0 show_line x retries --retries 3
	assert_output --regexp '^retries +3 +command line$'
	run -0 show_line x failure_codes --preset ssh
	assert_output --regexp '^failure_codes +"255" +command line$'
	run -0 show_line x on_open --on-open skip
	assert_output --regexp '^on_open +"skip" +command line$'
}

@test "config show says when a built-in value was adjusted to an explicit one" {
	run -0 show_line x trip.min_calls -o trip.window=4
	assert_output --regexp '^trip\.min_calls +4 +built-in, capped at trip\.window$'
}

@test "config show usage errors exit 2: a bad name, a bad option, a stray word" {
	run -2 cb config show 'a b'
	run -2 cb config show x --bogus
	run -2 cb config show x extra
	run -2 cb config show x -o nokey=1
	run -2 cb config show x -t soon
	run -2 cb config
	run -2 cb config frobnicate
	run -2 cb config check extra
}

@test "config show of a broken config file exits 1" {
	config 'defaults = { jitter = 5.0; };'
	run -1 cb config show x
	assert_output --partial 'jitter'
}

@test "help config describes check and show" {
	run -0 cb help config
	assert_output --partial 'check'
	assert_output --partial 'show NAME'
}

# show_all: `config show` with no NAME into show.out; fails on a non-zero exit.
show_all() {
	local rc=0
	"$CBEXEC" "$@" config show >show.out 2>show.err || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "config show exited $rc" >&2
		cat show.err >&2
		return 1
	fi
}

@test "config show with no NAME: the file, the state and its store, the settings, the entries in order, with origins" {
	config 'sync = "meta";' \
	    'on_transition = [ "/usr/local/bin/cb-alert" ];' \
	    'defaults = { trip = { failures = 3; }; };' \
	    'breakers = (' \
	    '  { match = "warehouse-*"; preset = "curl"; },' \
	    '  { match = "payments-api";' \
	    '    open_timeout = "15s"; }' \
	    ');'
	show_all
	run -0 cat show.out
	assert_line --regexp "^config +$CBEXEC_CONFIG +\\\$CBEXEC_CONFIG\$"
	assert_line --regexp "^state +$CBEXEC_STATE +\\\$CBEXEC_STATE\$"
	assert_line --regexp '^store +lmdb +the state path$'
	assert_line --regexp "^sync +\"meta\" +$CBEXEC_CONFIG:1\$"
	assert_line --regexp "^on_transition +\\[ \"/usr/local/bin/cb-alert\" \\] +$CBEXEC_CONFIG:2\$"
	assert_line --regexp '^state_mode +"0600" +built-in$'
	assert_line --regexp '^max_breakers +100000 +built-in$'
	assert_line --regexp '^on_store_error +"open" +built-in$'
	assert_line --regexp '^log +"syslog" +built-in$'
	assert_line --regexp "^defaults +1 value +$CBEXEC_CONFIG:3\$"
	# The entries in file order, each with the line it starts on.
	run -0 grep '^breakers' show.out
	assert_line --index 0 --regexp "^breakers\\[1\\] +match \"warehouse-\\*\" +$CBEXEC_CONFIG:5\$"
	assert_line --index 1 --regexp "^breakers\\[2\\] +match \"payments-api\" +$CBEXEC_CONFIG:6\$"
	assert_equal "${#lines[@]}" 2
}

@test "config show with no NAME and no file lists every path searched" {
	need_private_etc
	unset CBEXEC_CONFIG CBEXEC_STATE
	run -0 --separate-stderr private_etc "$CBEXEC" config show
	assert_line --regexp '^config +none: built-in defaults +searched$'
	assert_line --index 1 --regexp "^searched +$XDG_CONFIG_HOME/cbexec/cbexec.conf +not found\$"
	assert_line --index 2 --regexp '^searched +/etc/cbexec.conf +not found$'
	assert_line --regexp '^sync +"meta" +built-in$'
	assert_line --regexp '^state +/.*state.mdb +built-in$'
	refute_line --partial 'breakers['
}

@test "config show with no NAME: -c and -s are named as the origin, a redis state as its store" {
	config 'state = "redis://127.0.0.1:1/0";'
	cp "$CBEXEC_CONFIG" "$T/other.conf"
	show_all -c "$T/other.conf" -s "$T/x.mdb"
	run -0 cat show.out
	assert_line --regexp "^config +$T/other.conf +command line \\(-c\\)\$"
	assert_line --regexp "^state +$T/x.mdb +command line \\(-s\\)\$"
	unset CBEXEC_STATE
	show_all
	run -0 cat show.out
	assert_line --regexp "^state +redis://127.0.0.1:1/0 +$CBEXEC_CONFIG:1\$"
	assert_line --regexp '^store +redis +the state path$'
	# Nothing was opened: the state file was not created.
	assert [ ! -e "$T/x.mdb" ]
	# With a Redis state, where the local breakers of fallback = "local"
	# live: the state path rules with every Redis URL skipped.
	CBEXEC_STATE=$T/local.mdb show_all
	run -0 cat show.out
	assert_line --regexp '^store +lmdb +the state path$'
	refute_line --regexp '^local state'
	CBEXEC_STATE=redis://127.0.0.1:1/0 show_all -s "$T/x.mdb"
	run -0 cat show.out
	refute_line --regexp '^local state'
	CBEXEC_STATE=$T/local.mdb show_all -s redis://127.0.0.1:1/0
	run -0 cat show.out
	assert_line --regexp "^local state +$T/local.mdb +if Redis does not answer \\(fallback\\)\$"
	config 'state = "redis://127.0.0.1:1/0";' 'fallback = "none";'
	CBEXEC_STATE=$T/local.mdb show_all -s redis://127.0.0.1:1/0
	run -0 cat show.out
	assert_line --regexp "^local state +$T/local.mdb +unused: fallback is \"none\"\$"
	assert [ ! -e "$T/local.mdb" ]
}

@test "config show with no NAME of a broken config file exits 1" {
	config 'sync = "sometimes";'
	run -1 cb config show
	assert_output --partial "$CBEXEC_CONFIG:1"
}

@test "config show keeps its columns aligned when a value is long" {
	config 'defaults = { failure_codes = "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41"; };'
	run -0 cb config show x
	# Every origin starts in the same column, after the longest value.
	run -0 awk '{ print index($0, $NF) }' <<<"$output"
	run -0 sort -u <<<"$output"
	assert_equal "${#lines[@]}" 1
	run -0 show_line x failure_codes
	assert_output --regexp "^failure_codes +\"1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41\" $CBEXEC_CONFIG:1\$"
}

@test "config show with no NAME never prints the password of a Redis URL" {
	# In the file, a password in the URL is a config error (SPEC 9:
	# never from the command line or the file), named without it.
	config 'state = "redis://cbexec:s3cret@127.0.0.1:1/0";'
	unset CBEXEC_STATE
	run -1 cb config show
	assert_output --partial "$CBEXEC_CONFIG:1: state: invalid Redis URL: a password in the URL is not accepted"
	refute_output --partial s3cret
	: >"$CBEXEC_CONFIG"
	show_all -s "redis://cbexec:s3cret@127.0.0.1:1/0"
	run -0 cat show.out
	assert_line --regexp "^state +redis://cbexec:\*\*\*@127\.0\.0\.1:1/0 +command line \\(-s\\)\$"
	refute_output --partial s3cret
}
