#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 88-readme: the README's examples, copied out of README.md and run, so
# that they cannot rot.  A block is tested when the line before it (blank
# lines aside) is an HTML comment `<!-- test: MODE -->`, invisible on the
# rendered page:
#
#   sh          a shell script, run as a whole by bash, top to bottom; a
#               cron schedule or a systemd `ExecStart=`-style key before a
#               command is dropped.  It must exit 0 and reach its end (unless
#               it ends with an `exit` of its own), call cbexec at least
#               once, and no call may end in a usage error (2, 125).
#   transcript  `$ COMMAND` lines run in one shell, in order; the lines
#               under a command are its exact output (stdout and stderr).
#               The wall clock is frozen, so the retry times shown hold.
#   conf        a cbexec.conf(5) file: `config check` must accept it.
#   unit        a systemd unit: its Exec*= lines run as an sh block; every
#               other line must be a comment, a [Section] or a Key=value.
#
# The examples' own programs (curl, sync-orders, psql, ...) are stubs on
# PATH that exit 0, and /usr/local/bin/ is dropped from the commands, so
# that /usr/local/bin/cbexec is the binary under test; the state and the
# config are the test's own (helper.bash).  What is checked is cbexec's
# side: that every command line shown still parses and does what is shown.

load helper

README=$BATS_TEST_DIRNAME/../README.md
STUBS='curl psql pg_dump upload sync-orders sync_orders cb-alert mail'

setup() {
	common_setup
	mkdir bin blocks
	# cbexec, logging each call's status; frozen in time when asked.
	cat >bin/cbexec <<'SH'
#!/bin/bash
rc=0
if [ -n "${README_FROZEN:-}" ]; then
	FAKETIME_DONT_FAKE_MONOTONIC=1 \
	    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    faketime "$README_FROZEN" "$CBEXEC" "$@" || rc=$?
else
	"$CBEXEC" "$@" || rc=$?
fi
printf '%s\t%s\n' "$rc" "$*" >>"$README_CALLS"
exit "$rc"
SH
	chmod +x bin/cbexec
	cp bin/cbexec ./cbexec
	local s
	for s in $STUBS; do
		printf '#!/bin/sh\nexit 0\n' >"bin/$s"
		chmod +x "bin/$s"
	done
	export README_CALLS=$T/calls.log
	PATH=$T/bin:$PATH
	extract
}

# extract: every marked block of README.md into blocks/N (its text, the
# four-space indent removed) and a line "N MODE LINE" in blocks/index.
extract() {
	awk -v dir="$T/blocks" '
	function flush() {
		if (n > 0) {
			while (n > 0 && text[n] == "")
				n--
			k++
			f = dir "/" k
			for (i = 1; i <= n; i++)
				print text[i] > f
			close(f)
			print k, mode, first >> (dir "/index")
		}
		n = 0; mode = ""; inblock = 0; first = 0
	}
	/^<!-- test: [a-z]+/ {
		flush()
		mode = $3
		next
	}
	mode != "" && !inblock && /^$/ { next }
	mode != "" && /^    / {
		if (n == 0)
			first = NR
		inblock = 1
		text[++n] = substr($0, 5)
		next
	}
	mode != "" && inblock && /^$/ { text[++n] = ""; next }
	mode != "" { flush() }
	END { flush() }
	' "$README"
}

# blocks MODE: the numbers of the blocks of that mode.
blocks() {
	awk -v m="$1" '$2 == m { print $1 }' "$T/blocks/index"
}

# where N: "README.md:LINE" of block N.
where() {
	awk -v k="$1" '$1 == k { print "README.md:" $3 }' "$T/blocks/index"
}

# as_script: stdin to a runnable script: cron schedules and Exec*= keys
# dropped, /usr/local/bin/ removed from paths.
as_script() {
	sed -E \
	    -e 's#^[*0-9/,-]+ +[*0-9/,-]+ +[*0-9/,-]+ +[*0-9/,-]+ +[*0-9/,-]+ +##' \
	    -e 's#^@(reboot|yearly|annually|monthly|weekly|daily|hourly) +##' \
	    -e 's#^Exec[A-Za-z]*=##' \
	    -e 's#/usr/local/bin/##g'
}

# run_sh FILE WHERE: run FILE as an sh block; prints what is wrong, and
# fails, when it does not hold.
run_sh() {
	local file=$1 at=$2 rc=0 last
	as_script <"$file" >script.sh
	last=$(grep -v '^[[:space:]]*$' script.sh | tail -n 1)
	[[ $last == exit* ]] || echo 'echo README-BLOCK-DONE' >>script.sh
	if ! bash -n script.sh 2>syntax.err; then
		echo "$at: not a valid shell script:"
		cat syntax.err
		return 1
	fi
	: >"$README_CALLS"
	bash script.sh >block.out 2>&1 </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$at: exited $rc:"
		cat block.out
		return 1
	fi
	if [[ $last != exit* ]] && ! grep -qx README-BLOCK-DONE block.out; then
		echo "$at: did not reach its end:"
		cat block.out
		return 1
	fi
	if [ ! -s "$README_CALLS" ]; then
		echo "$at: never called cbexec"
		return 1
	fi
	if grep -E $'^(2|125)\t' "$README_CALLS"; then
		echo "$at: a cbexec command line above is refused:"
		cat block.out
		return 1
	fi
}

@test "README.md marks its examples for this test" {
	run -0 cat "$T/blocks/index"
	assert [ "$(blocks sh | wc -l)" -ge 5 ]
	assert [ "$(blocks transcript | wc -l)" -ge 1 ]
	assert [ "$(blocks conf | wc -l)" -ge 1 ]
	assert [ "$(blocks unit | wc -l)" -ge 1 ]
	# Each block holds something.
	local k
	for k in $(blocks sh) $(blocks transcript) $(blocks conf) $(blocks unit); do
		[ -s "$T/blocks/$k" ] || fail "$(where "$k"): an empty block"
	done
}

@test "README.md: every shell example runs, and cbexec accepts each command line" {
	local k bad=0
	for k in $(blocks sh); do
		run_sh "$T/blocks/$k" "$(where "$k")" || bad=1
	done
	[ "$bad" = 0 ]
}

@test "README.md: every transcript prints what it shows" {
	local k at line n i bad=0
	for k in $(blocks transcript); do
		at=$(where "$k")
		# One shell runs the commands in order, each one's output to
		# out.I; the lines under a command are its expected output.
		rm -f out.* want.*
		: >script.sh
		n=0
		while IFS= read -r line; do
			if [[ $line == '$ '* ]]; then
				n=$((n + 1))
				printf '{ %s\n} >out.%d 2>&1\n' "${line#\$ }" "$n" >>script.sh
				: >"want.$n"
			elif [ "$n" -gt 0 ]; then
				printf '%s\n' "$line" >>"want.$n"
			fi
		done <"$T/blocks/$k"
		[ "$n" -gt 0 ] || fail "$at: no \$ command in the transcript"
		: >"$README_CALLS"
		README_FROZEN='2026-12-01 08:00:00' bash script.sh </dev/null
		for ((i = 1; i <= n; i++)); do
			[ -s "want.$i" ] || continue
			if ! diff -u "want.$i" "out.$i"; then
				echo "$at: command $i of the transcript prints otherwise (above: - README, + real)"
				bad=1
			fi
		done
		if grep -E $'^(2|125)\t' "$README_CALLS"; then
			echo "$at: a cbexec command line is refused"
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

@test "README.md: every configuration example passes config check" {
	local k
	for k in $(blocks conf); do
		cp "$T/blocks/$k" readme.conf
		run -0 cb -c readme.conf config check
		assert_output 'readme.conf: ok'
	done
}

@test "README.md: every systemd unit is a unit whose Exec lines run" {
	local k line bad=0
	for k in $(blocks unit); do
		: >exec.txt
		while IFS= read -r line; do
			case $line in
			'' | '#'*) ;;
			Exec*=*) printf '%s\n' "$line" >>exec.txt ;;
			'['*']') ;;
			[A-Za-z]*=*) ;;
			*)
				echo "$(where "$k"): not a unit file line: $line"
				bad=1
				;;
			esac
		done <"$T/blocks/$k"
		run_sh exec.txt "$(where "$k")" || bad=1
	done
	[ "$bad" = 0 ]
}

@test "the test catches a README example that rotted" {
	# A block with an option cbexec does not know, one that stops
	# halfway, and a transcript that prints otherwise.
	printf '%s\n' 'cbexec run x --no-such-option -- true' >rotten
	run -1 run_sh rotten README.md:1
	assert_output --partial 'is refused'
	printf '%s\n' 'cbexec trip x' 'tok=$(cbexec acquire x) || exit' 'cbexec release "$tok" success' >rotten
	run -1 run_sh rotten README.md:1
	printf '%s\n' 'cbexec run x -- false' 'echo $?' >rotten
	run -0 run_sh rotten README.md:1
}
