# SPDX-License-Identifier: ISC
# helper.bash: what every cbexec bats file shares.  Each test runs the real
# binary ("$CBEXEC") in a private temporary directory with its own state
# file, its own (empty) config file and its own HOME, so tests never see
# each other's breakers or the machine's /etc and ~/.config.
#
# Conventions: `run -N cb ...` pins the exact exit status; the binary's
# output is never piped (a pipe would hide its status): helpers that need
# its output write it to a file first and check the status.

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

CBEXEC=${CBEXEC:-$BATS_TEST_DIRNAME/../cbexec}
export CBEXEC

common_setup() {
	T=$BATS_TEST_TMPDIR
	# Builtins only where they will do: setup and teardown run for every
	# test.  umask 022 so that a root cbexec accepts the config file.
	umask 022
	export HOME=$T/home
	export XDG_CONFIG_HOME=$HOME/.config
	export XDG_STATE_HOME=$HOME/.local/state
	export XDG_DATA_HOME=$HOME/.local/share
	export XDG_CACHE_HOME=$HOME/.cache
	export XDG_RUNTIME_DIR=$T/run
	unset XDG_CONFIG_DIRS XDG_DATA_DIRS
	mkdir -m 0700 "$HOME" "$XDG_RUNTIME_DIR"

	export CBEXEC_STATE=$T/state.mdb
	export CBEXEC_CONFIG=$T/cbexec.conf
	: >"$CBEXEC_CONFIG"
	unset CBEXEC_DISABLE NO_COLOR
	cd "$T" || return 1
}

# Kill what a test left running in the background: every pid written to a
# *.pid file in the test's directory, if it is still alive.
common_teardown() {
	local f pid
	# Background commands of the tests wait for this file.
	: >>"$BATS_TEST_TMPDIR/release"
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$f" ] || continue
		read -r pid 2>/dev/null <"$f" || continue
		case $pid in '' | *[!0-9]*) continue ;; esac
		alive "$pid" && kill -9 "$pid" 2>/dev/null
	done
	return 0
}

setup() {
	common_setup
}

teardown() {
	common_teardown
}

# cb ARGS...: the binary itself.
cb() {
	"$CBEXEC" "$@"
}

# cb_at WHEN ARGS...: the binary with the wall clock moved by faketime
# (WHEN is a libfaketime spec: '+61s', '-1d', '@2026-01-01 00:00:00').
# Relative offsets count from the real now.  Monotonic time stays real, so
# timeouts behave.  verify_asan_link_order=0 lets the sanitizer build run
# under LD_PRELOAD.
cb_at() {
	local when=$1
	shift
	FAKETIME_DONT_FAKE_MONOTONIC=1 \
	    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    faketime -f "$when" "$CBEXEC" "$@"
}

# private_etc CMD...: CMD (a program, not a function) with a private
# /etc that has no cbexec.conf and no group cbexec, whatever the host has:
# as root, in a mount namespace (private-etc.sh); as another user, who
# cannot make one, as it is, after need_private_etc.  For the tests of
# config discovery and of the shared state.
private_etc() {
	if [ "$(id -u)" = 0 ]; then
		unshare -m "$BATS_TEST_DIRNAME/private-etc.sh" \
		    "$BATS_TEST_TMPDIR/.private-etc" "$@"
	else
		"$@"
	fi
}

# need_private_etc: skip when private_etc cannot hide what the host has.
need_private_etc() {
	[ "$(id -u)" = 0 ] || [ ! -e /etc/cbexec.conf ] ||
	    skip "/etc/cbexec.conf exists and only root can hide it"
}

# config TEXT...: replace the config file with these lines.
config() {
	printf '%s\n' "$@" >"$CBEXEC_CONFIG"
}

# cbx ARGS...: the binary, under faketime when AT is set (AT=+61s fail_n ..).
cbx() {
	if [ -n "${AT:-}" ]; then
		cb_at "$AT" "$@"
	else
		"$CBEXEC" "$@"
	fi
}

# fail_n NAME N [RUN-OPTIONS...]: N runs of `false`, each of which must be
# admitted and exit 1.
fail_n() {
	local name=$1 n=$2 i rc
	shift 2
	for ((i = 1; i <= n; i++)); do
		rc=0
		cbx run "$name" "$@" -- false 2>>"$BATS_TEST_TMPDIR/fail_n.err" || rc=$?
		if [ "$rc" -ne 1 ]; then
			echo "fail_n: run $i of $n on '$name' exited $rc, not 1" >&2
			cat "$BATS_TEST_TMPDIR/fail_n.err" >&2
			return 1
		fi
	done
}

# ok_n NAME N [RUN-OPTIONS...]: N runs of `true`, each admitted, exit 0.
ok_n() {
	local name=$1 n=$2 i rc
	shift 2
	for ((i = 1; i <= n; i++)); do
		rc=0
		cbx run "$name" "$@" -- true || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "ok_n: run $i of $n on '$name' exited $rc, not 0" >&2
			return 1
		fi
	done
}

# status_json: `status --json` into $T/status.json, checking that it exits
# 0 and prints a JSON array.
status_json() {
	local rc=0
	"$CBEXEC" status --json >"$BATS_TEST_TMPDIR/status.json" \
	    2>"$BATS_TEST_TMPDIR/status.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "status --json exited $rc:" >&2
		cat "$BATS_TEST_TMPDIR/status.err" >&2
		return 1
	fi
	if ! jq -e 'type == "array"' "$BATS_TEST_TMPDIR/status.json" >/dev/null; then
		echo "status --json printed no JSON array:" >&2
		cat "$BATS_TEST_TMPDIR/status.json" >&2
		return 1
	fi
}

# json NAME FILTER: FILTER applied to NAME's object in `status --json`
# (jq -r: strings raw, null as "null").  Fails when status fails or NAME
# is not listed.  One jq per call: jq's start-up is most of the suite's time.
json() {
	local name=$1 filter=$2 rc=0
	"$CBEXEC" status --json >"$BATS_TEST_TMPDIR/status.json" \
	    2>"$BATS_TEST_TMPDIR/status.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "status --json exited $rc:" >&2
		cat "$BATS_TEST_TMPDIR/status.err" >&2
		return 1
	fi
	jq -r --arg n "$name" "
	    if type != \"array\" then error(\"status --json printed no array\")
	    else map(select(.name == \$n)) |
		if length == 1 then .[0] | ($filter)
		else error(\"no breaker \\(\$n) in status --json\") end
	    end" "$BATS_TEST_TMPDIR/status.json"
}

# json_field NAME FIELD: one field of NAME's object.
json_field() {
	json "$1" ".$2"
}

# Milliseconds since the epoch of an RFC 3339 time (jq function).
JQ_MS='def ms: if . == null then null else
	((sub("\\.[0-9]+"; "") | sub("(?<z>[+-][0-9]{2}):?(?<m>[0-9]{2})$"; "Z") | fromdateiso8601) * 1000)
	+ ((capture("\\.(?<f>[0-9]+)") // {f: "0"}) | .f | (. + "000")[0:3] | tonumber)
	- (if test("[+-][0-9]{2}:?[0-9]{2}$") then
	    (capture("(?<s>[+-])(?<h>[0-9]{2}):?(?<m>[0-9]{2})$")
	     | (if .s == "-" then -1 else 1 end) * ((.h | tonumber) * 3600000 + (.m | tonumber) * 60000))
	  else 0 end) end;'

# open_period NAME: open_until - opened_at in milliseconds.
open_period() {
	json "$1" "$JQ_MS (.open_until | ms) - (.opened_at | ms)"
}

# time_ms NAME FIELD: an RFC 3339 field of NAME in milliseconds.
time_ms() {
	json "$1" "$JQ_MS .$2 | ms"
}

# at_record NAME FIELD SECONDS: a faketime spec for cb_at, SECONDS (maybe
# negative) after NAME's recorded FIELD (open_until, probes[0].lease_until
# ...), in whole seconds rounded down.  A check just before a boundary
# times itself from the record, not from the real now, which a loaded
# machine moves on: SECONDS below the boundary stays below it, and 1 or
# more past it stays past it.
at_record() {
	local ms
	ms=$(time_ms "$1" "$2") || return 1
	[[ $ms =~ ^[0-9]+$ ]] || return 1
	echo "@$(date -d "@$((ms / 1000 + $3))" '+%F %T')"
}

# now_ms: the real wall clock in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# shellcheck disable=SC2034 # used by the test files
RFC3339='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'

# alive PID: the process exists and is not a zombie.
alive() {
	local st
	read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# wait_for TEST... : poll (every 20ms, at most WAIT_S seconds, default 5)
# until the command succeeds.
wait_for() {
	local i
	for ((i = 0; i < ${WAIT_S:-5} * 50; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# gone PID: wait (at most 5s) until PID is gone or a zombie.
gone() {
	wait_for eval "! alive $1"
}

# group_alive PGID: process group PGID has a member that is no zombie.
group_alive() {
	ps -e -o pgid=,stat= |
	    awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'
}

# group_gone PGID: wait (at most 5s) until group PGID has no live member: a
# SIGKILLed cbexec's job holds its run slot until then (SPEC 2b).
group_gone() {
	wait_for eval "! group_alive $1"
}

# count GLOB: how many files match.
count() {
	local n=0 f
	for f in "$@"; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# name_of_len N: a valid breaker name N bytes long.
name_of_len() {
	local s
	printf -v s '%*s' "$1" ''
	echo "${s// /n}"
}

# bg ID CMD...: run CMD in the background; its exit status goes to rc.ID,
# its stdout to out.ID and its stderr to err.ID.  bg_wait collects it.
bg() {
	local id=$1
	shift
	(
		rc=0
		"$@" >"$BATS_TEST_TMPDIR/out.$id" 2>"$BATS_TEST_TMPDIR/err.$id" || rc=$?
		echo "$rc" >"$BATS_TEST_TMPDIR/.rc.$id"
		mv "$BATS_TEST_TMPDIR/.rc.$id" "$BATS_TEST_TMPDIR/rc.$id"
	) 3>&- &
	echo "$!" >"$BATS_TEST_TMPDIR/job.$id.pid"
}

# bg_wait ID...: wait (at most 5s each) for background jobs to end.
bg_wait() {
	local id
	for id in "$@"; do
		wait_for test -e "$BATS_TEST_TMPDIR/rc.$id" || return 1
		wait "$(cat "$BATS_TEST_TMPDIR/job.$id.pid")" 2>/dev/null || true
	done
}

# bg_rc ID: a finished background job's exit status.
bg_rc() {
	cat "$BATS_TEST_TMPDIR/rc.$1"
}

# with_syslog CMD...: CMD in a mount namespace whose /dev holds only null
# and a private syslog socket as log; what reaches it is appended to
# $T/syslog.
with_syslog() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m sh -c '
		mkdir -p "$T/dev" && rm -f "$T/dev/log" && : >>"$T/dev/null" &&
		    mount --bind /dev/null "$T/dev/null" || exit 99
		python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], \"ab\", buffering=0) as f:
    while True:
        f.write(s.recv(4096) + b\"\\n\")
" "$T/dev/log" "$T/syslog" &
		i=0
		while [ ! -S "$T/dev/log" ] && [ $i -lt 250 ]; do
			sleep 0.02; i=$((i + 1))
		done
		mount --rbind "$T/dev" /dev || exit 99
		rc=0; "$@" || rc=$?
		# What was sent may still be queued: let it be written.
		i=0
		while [ ! -s "$T/syslog" ] && [ $i -lt 250 ]; do
			sleep 0.02; i=$((i + 1))
		done
		kill $!
		exit $rc' sh "$@"
}

# patch_record NAME AWK-ACTION: rewrite NAME's value in the state file with
# AWK-ACTION on its hex dump line (sub(), gsub(), $0 = ...), through
# mdb_dump and mdb_load; the dump must change.  For planting records.
patch_record() {
	local hexname
	hexname=$(printf '%s' "$1" | od -An -tx1 | tr -d ' \n')
	mdb_dump -n "$CBEXEC_STATE" >dump
	awk -v k=" $hexname" "prev == k { $2 } { print; prev = \$0 }" dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
}

# readme_rules_test: a promtool test of rules.yml (the README's rules, as
# the caller extracted them), its input series and alert tests read from
# stdin as they stand under "tests: - interval: 1m"; it must pass.
readme_rules_test() {
	{
		printf 'rule_files: [rules.yml]\nevaluation_interval: 1m\n'
		printf 'tests:\n  - interval: 1m\n'
		cat
	} >t.yml
	run -0 promtool test rules t.yml
	assert_output --partial SUCCESS
}
