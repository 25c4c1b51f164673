#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 00-usage: the command line itself: help, version, usage errors and their
# exit codes (2 for most commands, 125 for run), breaker names, and the
# first run on a machine with no config and no state.

load helper

@test "a mistyped command gets the nearest one; a bare run says where the help is" {
	run -2 --separate-stderr cb stauts
	assert_equal "${stderr_lines[0]}" "cbexec: unknown command 'stauts' (did you mean status?)"
	run -2 --separate-stderr cb bogus
	assert_equal "${stderr_lines[0]}" "cbexec: unknown command 'bogus'"
	run -125 --separate-stderr cb run
	[[ ${stderr_lines[0]} == "usage: cbexec run NAME "* ]] || fail "$stderr"
	assert_equal "${stderr_lines[1]}" "Try 'cbexec help run' for more."
}

@test "--help exits 0 and lists the commands" {
	run -0 cb --help
	assert_output --partial run
	assert_output --partial status
	assert_output --partial trip
	assert_output --partial reset
	assert_output --partial forget
	assert_output --partial check
}

@test "--version exits 0 and prints a version number" {
	run -0 cb --version
	assert_output --regexp '[0-9]+\.[0-9]+\.[0-9]+'
}

@test "--version names the stores built in, the library versions and this user's state" {
	unset CBEXEC_STATE
	run -0 cb --version
	assert_line --index 0 --regexp '^cbexec [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --index 1 --regexp '^stores: lmdb \(LMDB [0-9]+\.[0-9]+\.[0-9]+\), (redis \(hiredis [0-9.]+\)|no redis .*)$'
	assert_line --index 2 --regexp '^config: libconfig [0-9]+\.[0-9]+\.[0-9]+$'
	if [ "$(id -u)" -eq 0 ]; then
		assert_line --index 3 'state: /var/lib/cbexec/state.mdb'
	else
		assert_line --index 3 "state: $XDG_STATE_HOME/cbexec/state.mdb"
	fi
	run -0 cb --version -s "$T/other.mdb"
	assert_line --index 3 "state: $T/other.mdb"
}

@test "--help gives the state default for root and for other users" {
	run -0 cb --help
	assert_output --partial '/var/lib/cbexec/state.mdb for root'
	assert_output --partial '~/.local/state/cbexec/state.mdb for others'
}

@test "help with no command exits 0 and lists the commands" {
	run -0 cb help
	assert_output --partial run
	assert_output --partial status
}

@test "help run exits 0 and describes run's options" {
	run -0 cb help run
	assert_output --partial --timeout
	assert_output --partial --kill-after
	assert_output --partial --on-open
	assert_output --partial --foreground
}

@test "help for an unknown command is a usage error (2)" {
	run -2 cb help frobnicate
	assert_output --partial frobnicate
}

@test "no command at all is a usage error (2)" {
	run -2 cb
}

@test "an unknown command is a usage error (2) that names it" {
	run -2 cb frobnicate
	assert_output --partial frobnicate
}

@test "an unknown global option is a usage error (2)" {
	run -2 cb --bogus status
}

@test "an empty -s is a usage error (2), for run too" {
	run -2 cb -s '' status
	assert_line --index 0 "cbexec: option '-s' needs a state path, not an empty one"
	run -2 cb --state= run x -- touch marker
	assert [ ! -e marker ]
}

@test "an unknown option of status is a usage error (2)" {
	run -2 cb status --bogus
}

@test "an unknown option of trip is a usage error (2)" {
	run -2 cb trip x --bogus
}

@test "an unknown option of run is a usage error of run (125) and runs nothing" {
	run -125 cb run x --bogus -- touch marker
	assert [ ! -e marker ]
}

@test "a global option after the command says where it belongs" {
	run -125 cb run x -q -- touch marker
	assert_line --index 0 "cbexec: run: unknown option '-q': a global option, given before the command (cbexec -q run ...)"
	assert [ ! -e marker ]
	run -2 cb status --state=/tmp/x
	assert_line --index 0 "cbexec: status: unknown option '--state=/tmp/x': a global option, given before the command (cbexec -s PATH status ...)"
	run -2 cb trip x -vq
	assert_line --index 0 "cbexec: trip: unknown option '-v': a global option, given before the command (cbexec -v trip ...)"
}

@test "run without a command is a usage error (125)" {
	run -125 cb run x
	run -125 cb run x --
}

@test "run without a name is a usage error (125)" {
	run -125 cb run
}

@test "a bad timeout duration is a usage error of run (125)" {
	run -125 cb run x -t 5parsecs -- touch marker
	run -125 cb run x -t -1s -- touch marker
	assert [ ! -e marker ]
}

@test "a name with a space is refused naming the byte and its offset" {
	run -125 cb run 'a b' -- touch marker
	assert_output --partial "invalid breaker name 'a b': byte 0x20 at offset 1"
	assert [ ! -e marker ]
}

@test "a name with a non-ASCII byte is refused naming that byte" {
	run -125 cb run 'café' -- true
	assert_output --partial 'byte 0xc3 at offset 3'
}

@test "a name with control bytes is shown escaped, never raw" {
	run -125 cb run "$(printf 'a\033[2Jb')" -- true
	assert_output --partial "invalid breaker name 'a\\x1b[2Jb': byte 0x1b at offset 1"
	refute_output --partial "$(printf '\033')"
}

@test "an option before NAME is a usage error, never a breaker called -t" {
	run -125 cb run -t 5s api -- touch marker
	assert_output "cbexec: invalid breaker name '-t': byte 0x2d at offset 0 (a name may not begin with '-'; options come after NAME)"
	assert [ ! -e marker ]
	run -125 cb run --preset curl y -- touch marker
	assert_output --partial "invalid breaker name '--preset': byte 0x2d at offset 0"
	assert_output --partial 'options come after NAME'
	assert [ ! -e marker ]
	run -2 cb check -x
	assert_output --partial "byte 0x2d at offset 0"
	run -0 cb status --names
	assert_output ''
}

@test "a name with '-' after its first byte is fine" {
	run -0 cb run a-b -- true
	run -0 cb status --names
	assert_output a-b
}

@test "an option missing its value says so, not \"unknown option\"" {
	run -2 cb trip x --reason
	assert_line --index 0 "cbexec: trip: option '--reason' needs an argument"
	run -2 cb trip x --for
	assert_line --index 0 "cbexec: trip: option '--for' needs an argument"
	run -2 cb reset x --reason
	assert_line --index 0 "cbexec: reset: option '--reason' needs an argument"
	run -125 cb run x --retries
	assert_line --index 0 "cbexec: run: option '--retries' needs an argument"
	run -125 cb run x --preset
	assert_line --index 0 "cbexec: run: option '--preset' needs an argument"
	run -125 cb run x -t
	assert_line --index 0 "cbexec: run: option '-t' needs an argument"
	run -2 cb trip x --bogus
	assert_line --index 0 "cbexec: trip: unknown option '--bogus'"
}

@test "a bad name is a usage error (2) for commands other than run" {
	run -2 cb trip 'a b'
	assert_output --partial 'byte 0x20'
	run -2 cb reset 'a;b'
	run -2 cb forget 'a;b'
	run -2 cb check 'a b'
}

@test "an empty name is refused" {
	run -125 cb run '' -- true
	run -2 cb trip ''
}

@test "a 201-byte name is refused and nothing is stored" {
	run -125 cb run "$(name_of_len 201)" -- touch marker
	assert [ ! -e marker ]
	run -2 cb trip "$(name_of_len 201)"
	run -0 cb status --names
	assert_output ''
}

@test "a 200-byte name works" {
	local name
	name=$(name_of_len 200)
	run -0 cb run "$name" -- true
	run -0 cb status --names
	assert_output "$name"
}

@test "every allowed character works in a name" {
	run -0 cb run 'AZaz09._-:@/+' -- true
	run -0 cb status --names
	assert_output 'AZaz09._-:@/+'
}

@test "with no config file at all, run works and creates the state file 0600 and its directories" {
	need_private_etc
	unset CBEXEC_CONFIG
	mkdir -p "$XDG_CONFIG_HOME"
	export CBEXEC_STATE=$T/deep/er/state.mdb
	run -0 private_etc "$CBEXEC" run demo -- true
	assert [ -f "$CBEXEC_STATE" ]
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 600
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 600
	assert_equal "$(stat -c %a "$T/deep/er")" 700
	run -0 private_etc "$CBEXEC" status --names
	assert_output demo
}

@test "option parsing stops at the command: run x printf -t 5 passes -t to printf" {
	run --separate-stderr -0 cb run x printf -t 5
	assert_output -- '-t'
}

@test "option parsing stops at --: options after it belong to the command" {
	run -0 cb run x -- printf '%s|' -t 5 --foreground
	assert_output -- '-t|5|--foreground|'
}

@test "options before the command are cbexec's: run x -t 5s echo hi" {
	run -0 cb run x -t 5s echo hi
	assert_output hi
}

@test "help for every command exits 0" {
	local c
	for c in run check status reset trip forget gc help; do
		run -0 cb help "$c"
		assert_output --partial "$c"
	done
}

@test "usage errors go to stderr, not stdout" {
	run --separate-stderr -2 cb frobnicate
	assert_output ''
	assert [ -n "$stderr" ]
	run --separate-stderr -125 cb run x --bogus -- true
	assert_output ''
}

@test "a global option without its value is a usage error (2)" {
	run -2 cb -s
	run -2 cb -c
}

@test "a run option without its value is a usage error of run (125)" {
	run -125 cb run x -t
	run -125 cb run x -o
}
