#!/usr/bin/env bats
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

@test "config check with no config file at all exits 0" {
	unset CBEXEC_CONFIG
	run -0 cb config check
	assert_output --partial 'built-in defaults'
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
	assert_equal "${#lines[@]}" 25
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
	assert_equal "$(show_line api-1 trip.failures)" "trip.failures        3                        $CBEXEC_CONFIG:2"
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

@test "config show usage errors exit 2: no name, a bad name, a bad option, a stray word" {
	run -2 cb config show
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
