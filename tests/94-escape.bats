#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 94-escape: bytes from the state are data, never terminal control (SPEC
# 5).  Keys and reasons are planted raw into a real state file, as any
# writer of the state could (mdb_dump / mdb_load): a key that is not a
# NAME is skipped by every listing and named escaped on stderr (exit 1);
# a reason's control bytes, C1 controls and invalid UTF-8 are shown as
# \xNN; --json stays JSON and --prometheus passes promtool.

load helper

setup() {
	common_setup
	printf 'log = "none";\n' >"$CBEXEC_CONFIG"
}

# hex FORMAT: the bytes printf FORMAT makes, in lower-case hex.
hex() {
	# shellcheck disable=SC2059
	printf "$1" | od -An -tx1 | tr -d ' \n'
}

# plant SRC FORMAT...: copy breaker SRC's record under each key that
# printf FORMAT makes, byte for byte.
plant() {
	local src k keys=
	src=$(hex "$1")
	shift
	for k; do
		keys="$keys $(hex "$k")"
	done
	mdb_dump -n "$CBEXEC_STATE" >dump
	awk -v src=" $src" -v keys="$keys" '
	    $0 == "DATA=END" {
		n = split(keys, ks, " ")
		for (i = 1; i <= n; i++) { print " " ks[i]; print val }
	    }
	    grab { val = $0; grab = 0 }
	    $0 == src { grab = 1 }
	    { print }' dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
}

# The three keys of the issue: a screen clear and window title, bytes
# that are not UTF-8, a C1 CSI (U+009B) UTF-8 encoded.
plant_bad() {
	plant good '\033[2J\033]0;pwned\007' '\377\376' '\302\233x'
}

# The reason's placeholder and what poison puts there (16 bytes each):
# ESC sequences, BEL, a C1 CSI in UTF-8, a byte that is not UTF-8.
Q=QQQQQQQQQQQQQQQQ
POISON='\033[2J\033]0;pw\007\302\233\377zz'
SHOWN='\x1b[2J\x1b]0;pw\x07\xc2\x9b\xffzz'

# poison: every stored copy of $Q (reason, transition history) becomes
# the bytes of $POISON.
poison() {
	mdb_dump -n "$CBEXEC_STATE" >dump
	sed "s/$(hex "$Q")/$(hex "$POISON")/g" dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
}

# The stderr lines naming the keys plant_bad made, in key order.
bad_named() {
	local s=$CBEXEC_STATE
	printf '%s\n' \
	    "cbexec: key '\\x1b[2J\\x1b]0;pwned\\x07' in state '$s': not a breaker name; skipped" \
	    "cbexec: key '\\xc2\\x9bx' in state '$s': not a breaker name; skipped" \
	    "cbexec: key '\\xff\\xfe' in state '$s': not a breaker name; skipped"
}

# no_control TEXT: no ESC, BEL, C1 CSI (raw or UTF-8) or 0xff in TEXT.
no_control() {
	case $1 in
	*$'\e'* | *$'\a'* | *$'\xc2\x9b'* | *$'\x9b'* | *$'\xff'*)
		echo "control bytes in: $(printf '%s' "$1" | od -c | head)" >&2
		return 1 ;;
	esac
}

@test "status skips a key that is not a NAME, names it escaped on stderr, exits 1" {
	ok_n good 1
	plant_bad
	run -1 --separate-stderr cb status
	no_control "$output"
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp '^NAME +STATE'
	assert_line --index 1 --regexp '^good +closed '
	assert_equal "$stderr" "$(bad_named)"
}

@test "status --names lists only NAMEs; the others are named on stderr" {
	ok_n good 1
	plant_bad
	run -1 --separate-stderr cb status --names
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
}

@test "a GLOB names a bad key only when it matches it; an exact NAME never" {
	ok_n good 1
	plant_bad
	run -0 --separate-stderr cb status --names 'g*'
	assert_output good
	assert_equal "$stderr" ""
	run -0 --separate-stderr cb status good
	no_control "$output"
	assert_equal "$stderr" ""
	run -1 --separate-stderr cb status --names '*'
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
}

@test "gc --dry-run and gc keep a key that is not a NAME, name it, exit 1" {
	AT=-40d ok_n good 1
	plant_bad
	run -1 --separate-stderr cb gc --dry-run
	assert_output 'would remove good'
	assert_equal "$stderr" "$(bad_named)"
	run -1 --separate-stderr cb gc
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
	# The three planted records are still there, untouched.
	mdb_dump -n "$CBEXEC_STATE" >dump
	run -0 grep -c "^ $(hex '\377\376')\$" dump
	run -0 grep -c "^ $(hex '\302\233x')\$" dump
	run -1 grep -c "^ $(hex good)\$" dump
}

@test "reset, trip and forget with a GLOB skip a key that is not a NAME" {
	ok_n good 1
	plant_bad
	run -1 --separate-stderr cb trip '*'
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
	run -1 --separate-stderr cb reset '*'
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
	run -1 --separate-stderr cb forget '*'
	assert_output good
	assert_equal "$stderr" "$(bad_named)"
	mdb_dump -n "$CBEXEC_STATE" >dump
	run -0 grep -c "^ $(hex '\377\376')\$" dump
}

@test "--json stays JSON and --prometheus passes promtool whatever the keys" {
	ok_n good 1
	cb trip tripped --reason "$Q"
	poison
	plant_bad
	run -1 --separate-stderr cb status --json
	assert_equal "$stderr" "$(bad_named)"
	no_control "$output"
	printf '%s' "$output" >s.json
	run -0 jq -r 'map(.name) | join(" ")' s.json
	assert_output 'good tripped'
	run -0 jq -r '.[1].reason' s.json
	assert_output "manual trip by $(id -un): "$'\e[2J\e]0;pw\a\u009b\ufffdzz'
	run -1 --separate-stderr cb status --prometheus --output "$T/m.prom"
	assert_equal "$stderr" "$(bad_named)"
	run -0 promtool check metrics <"$T/m.prom"
	run -0 grep -c 'cbexec_breaker_state{name="good",state="closed"} 1' "$T/m.prom"
}

@test "a stored reason's escapes are shown as \\xNN by run's refusal and the detail view" {
	cb trip api --reason "$Q"
	poison
	run -75 --separate-stderr cb run api -- true
	assert_equal "$output" ""
	no_control "$stderr"
	[[ $stderr == "cbexec: api: circuit open, retry in "*" (manual trip by $(id -un): $SHOWN)" ]]
	run -0 --separate-stderr cb status api
	no_control "$output"
	assert_line --regexp "^ +State: open since .*: manual trip by $(id -un): \\\\x1b\\[2J"
	assert_output --partial "manual trip by $(id -un): $SHOWN"
	run -75 --separate-stderr cb check api
	no_control "$stderr"
}

@test "a transition's log line shows a --reason's C1 control as \\xNN" {
	printf 'log = "stderr";\n' >"$CBEXEC_CONFIG"
	run -0 --separate-stderr cb trip api --reason $'a\xc2\x9b31mb'
	assert_equal "$stderr" \
	    "cbexec: api: closed -> open (manual trip by $(id -un): a\\xc2\\x9b31mb)"
	run -75 --separate-stderr cb run api -- true
	[[ $stderr == *"(manual trip by $(id -un): a\\xc2\\x9b31mb)" ]]
}

@test "an overlong UTF-8 form of a C1 control in a reason is shown byte by byte" {
	# U+009B (CSI) in four bytes, the form UTF-8 forbids: its last byte
	# is a raw 0x9b, which an 8-bit terminal takes as CSI.
	run -0 --separate-stderr cb trip api --reason $'a\xf0\x80\x82\x9b31mb'
	run -75 --separate-stderr cb run api -- true
	no_control "$stderr"
	[[ $stderr == *"(manual trip by $(id -un): a\\xf0\\x80\\x82\\x9b31mb)" ]]
	run -0 --separate-stderr cb status api
	no_control "$output"
	assert_output --partial 'a\xf0\x80\x82\x9b31mb'
}

@test "every message is escaped whole: an option or a state path with escapes" {
	run -2 --separate-stderr cb status $'--a\e[2Jb'
	no_control "$stderr"
	assert_equal "${stderr_lines[0]}" \
	    "cbexec: status: unknown option '--a\\x1b[2Jb'"
	printf 'not lmdb\n' >"$T/"$'\e]0;x\a'".mdb"
	run -1 --separate-stderr cb -s "$T/"$'\e]0;x\a'".mdb" status
	no_control "$stderr"
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"$T/\\x1b]0;x\\x07.mdb"* ]]
}

@test "config show writes a string's controls, C1 and invalid UTF-8 as libconfig's \\xNN" {
	printf 'log = "none";\non_transition = ["/bin/true", "a\302\233b\377\033[2J\\"q"];\n' \
	    >"$CBEXEC_CONFIG"
	run -0 --separate-stderr cb config show
	no_control "$output"
	assert_line --regexp '^on_transition +\[ "/bin/true", "a\\xc2\\x9bb\\xff\\x1b\[2J\\"q" \] '
}

@test "a key holding a NUL byte is not its prefix: listed nowhere, matched by no GLOB" {
	ok_n good 1
	ok_n other 1
	plant other 'go\000od'
	bad="cbexec: key 'go\\x00od' in state '$CBEXEC_STATE': not a breaker name; skipped"
	run -1 --separate-stderr cb status --names
	assert_output "good
other"
	assert_equal "$stderr" "$bad"
	# A GLOB that the prefix would match acts on good alone.
	run -1 --separate-stderr cb trip 'go*' --for 1h
	assert_output good
	assert_equal "$stderr" "$bad"
	run -1 --separate-stderr cb status --json
	assert_equal "$(printf '%s' "$output" | jq -r '[.[].name] | join(" ")')" \
	    "good other"
	# The planted record is still there, untouched.
	mdb_dump -n "$CBEXEC_STATE" >dump
	run -0 grep -c "^ $(hex 'go\000od')\$" dump
}
