#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 66-check: a green `make check` means that the tests ran.  The summary
# logic (tests/check-summary.sh) keeps each pass's exit status, holds bats
# to its 1..N plan, to a plan above 0 and at least `bats --count` of what
# it was given, and to "Executed N instead of expected M", takes the
# unit binary's own counts, lists every skip and names every failure above
# the closing line, and under CI=true fails a skip whose reason is not a
# known one; the Makefile runs every pass through it.

load helper

SUMMARY=$BATS_TEST_DIRNAME/check-summary.sh

setup() {
	common_setup
	# Whatever the CI this runs in: each test sets CI itself.
	unset CI KNOWN_SKIPS
}

# fake NAME SCRIPT: an executable $T/bin/NAME that runs SCRIPT (sh).
fake() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\n%s\n' "$2" >"$T/bin/$1"
	chmod +x "$T/bin/$1"
}

# fake_bats COUNT SCRIPT: a bats that answers --count with COUNT, as real
# bats does for the tests it was given, and otherwise runs SCRIPT.
fake_bats() {
	fake bats "[ \"\$1\" = --count ] && { echo $1; exit 0; }
$2"
}

@test "a bats that plans 442 tests and exits 1 fails check, whatever else passed" {
	fake_bats 442 'echo 1..442; exit 1'
	PATH=$T/bin:$PATH run -0 "$SUMMARY" bats "bats (build)" "$T/counts" bats --tap tests
	assert_output "1..442
check: bats (build): 0 of 442 planned tests ran"
	# fuzz-smoke and memcheck passed: 21 passes.
	echo "5 0" >>"$T/counts"
	echo "16 0" >>"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: bats (build): 0 of 442 planned tests ran
check: 21 passed, 1 failed, 0 skipped"
}

@test "fewer results than the plan fail the pass, even with exit 0" {
	fake_bats 3 'printf "1..3\nok 1 a\nok 2 b\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" "check: b: 2 of 3 planned tests ran"
	run -0 cat "$T/counts"
	assert_output $'# b: 2 of 3 planned tests ran\n2 1 0 b'
	run -1 "$SUMMARY" total "$T/counts"
}

@test "bats' 'Executed N instead of expected M' fails the pass" {
	fake_bats 2 'printf "1..2\nok 1 a\nnot ok 2 b # skip\n# bats warning: Executed 2 instead of expected 3 tests\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" "check: b: bats warning: Executed 2 instead of expected 3 tests"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: b: not ok 2 b # skip
check: failed: b: bats warning: Executed 2 instead of expected 3 tests
check: 1 passed, 2 failed, 0 skipped"
}

@test "no plan line, or a non-zero exit with no failed test, fails the pass" {
	fake_bats 1 'echo "ok 1 a"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" "check: b: no 1..N plan line"
	fake_bats 1 'printf "1..1\nok 1 a\n"; exit 3'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats c "$T/counts" bats
	assert_equal "$stderr" "check: c: exited 3 with no failed test"
	run -0 cat "$T/counts"
	assert_output "# b: no 1..N plan line
1 1 0 b
# c: exited 3 with no failed test
1 1 0 c"
	run -1 "$SUMMARY" total "$T/counts"
}

@test "a complete run passes, skips counted apart, its TAP echoed" {
	fake_bats 3 'printf "1..3\nok 1 a\nok 2 b # skip no redis\nnot ok 3 c\n"; exit 1'
	PATH=$T/bin:$PATH run -0 "$SUMMARY" bats b "$T/counts" bats
	assert_line "not ok 3 c"
	fake_bats 2 'printf "1..2\nok 1 a\nok 2 b # skip (why)\n"'
	: >"$T/counts"
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" ""
	run -0 "$SUMMARY" total "$T/counts"
	assert_output "check: skipped: b: b: (why)
check: 1 passed, 0 failed, 1 skipped"
}

@test "every skipped test of every pass is listed with its reason above the closing line" {
	fake_bats 3 'printf "1..3\nok 1 a\nok 2 b b # skip no strace\nok 3 c # skip\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats "bats (build)" "$T/counts" bats
	assert_equal "$stderr" ""
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats "bats (build-san)" "$T/counts" bats
	run -0 cat "$T/counts"
	assert_output "~ bats (build): b b: no strace
~ bats (build): c: no reason given
1 0 2 bats (build)
~ bats (build-san): b b: no strace
~ bats (build-san): c: no reason given
1 0 2 bats (build-san)"
	printf '# fuzz smoke: record\n4 1\n' >>"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: skipped: bats (build): b b: no strace
check: skipped: bats (build): c: no reason given
check: skipped: bats (build-san): b b: no strace
check: skipped: bats (build-san): c: no reason given
check: failed: fuzz smoke: record
check: 6 passed, 1 failed, 4 skipped"
}

@test "under CI=true a skip fails its pass, unless its reason is a known one of tests/README.md" {
	local redis='cbexec built without Redis support (WITH_REDIS=0)'
	# The reason is one of README's known ones, word for word.
	run -0 grep -Fx -- "- \`$redis\`: a build without" "$BATS_TEST_DIRNAME/README.md"
	fake_bats 4 "printf '1..4\nok 1 a\nok 2 b # skip needs root\nok 3 c # skip\nok 4 d # skip %s\n' '$redis'"
	CI=true PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" "check: b: skipped under CI: b (needs root)
check: b: skipped under CI: c (no reason given)"
	run -0 cat "$T/counts"
	assert_output "~ b: d: $redis
# b: skipped under CI: b (needs root)
# b: skipped under CI: c (no reason given)
1 2 1 b"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: skipped: b: d: $redis
check: failed: b: skipped under CI: b (needs root)
check: failed: b: skipped under CI: c (no reason given)
check: 1 passed, 2 failed, 1 skipped"
	# A reason that only begins like a known one is not one.
	fake_bats 2 "printf '1..2\nok 1 a\nok 2 b # skip %s and more\n' '$redis'"
	: >"$T/counts"
	CI=true PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" "check: b: skipped under CI: b ($redis and more)"
	# Outside CI the same skips are listed, and pass.
	fake_bats 4 "printf '1..4\nok 1 a\nok 2 b # skip needs root\nok 3 c # skip\nok 4 d # skip %s\n' '$redis'"
	: >"$T/counts"
	CI=false PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats
	assert_equal "$stderr" ""
	run -0 "$SUMMARY" total "$T/counts"
	assert_line "check: 1 passed, 0 failed, 3 skipped"
}

@test "the real bats: a test that skips fails the pass under CI=true" {
	printf '@test "a" { true; }\n@test "b" { skip "no strace"; }\n' >"$T/two.bats"
	run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats --tap "$T/two.bats"
	assert_equal "$stderr" ""
	CI=true run -0 --separate-stderr "$SUMMARY" bats c "$T/counts" bats --tap "$T/two.bats"
	assert_equal "$stderr" "check: c: skipped under CI: b (no strace)"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: skipped: b: b: no strace
check: failed: c: skipped under CI: b (no strace)
check: 2 passed, 1 failed, 1 skipped"
}

@test "a pass that plans no tests fails, though the unit pass passed (issue 18.14)" {
	# Real bats on a directory with no tests: 1..0, exit 0.
	mkdir "$T/empty"
	run -0 --separate-stderr "$SUMMARY" bats "bats (build)" "$T/counts" bats --tap "$T/empty"
	assert_equal "$output" "1..0"
	assert_equal "$stderr" "check: bats (build): planned no tests (1..0)"
	echo "1503 0 0 unit (build)" >>"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: bats (build): planned no tests (1..0)
check: 1503 passed, 1 failed, 0 skipped"
}

@test "a plan below bats --count of what bats was given fails the pass" {
	fake_bats 442 'printf "1..0\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats --tap tests
	assert_equal "$stderr" "check: b: planned no tests (1..0)
check: b: planned 0 of the 442 tests given (bats --count)"
	fake_bats 5 'printf "1..2\nok 1 a\nok 2 b\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats c "$T/counts" bats --tap tests
	assert_equal "$stderr" "check: c: planned 2 of the 5 tests given (bats --count)"
	run -0 cat "$T/counts"
	assert_output "# b: planned no tests (1..0)
# b: planned 0 of the 442 tests given (bats --count)
0 2 0 b
# c: planned 2 of the 5 tests given (bats --count)
2 1 0 c"
	run -1 "$SUMMARY" total "$T/counts"
}

@test "a bats whose --count gives no number fails the pass" {
	fake bats 'printf "1..1\nok 1 a\n"'
	PATH=$T/bin:$PATH run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats --tap tests
	assert_equal "$stderr" "check: b: bats --count gave no number"
	run -1 "$SUMMARY" total "$T/counts"
}

@test "the real bats, given real tests, passes with its count" {
	printf '@test "a" { true; }\n@test "b" { true; }\n' >"$T/two.bats"
	run -0 --separate-stderr "$SUMMARY" bats b "$T/counts" bats --tap "$T/two.bats"
	assert_equal "$stderr" ""
	run -0 cat "$T/counts"
	assert_output "2 0 0 b"
}

@test "the unit binary's counts go into the summary, and its exit status must agree" {
	fake unit 'echo "unit: 1503 passed, 0 failed"'
	run -0 "$SUMMARY" unit "unit (build)" "$T/counts" "$T/bin/unit"
	fake unit 'echo "unit: 7 passed, 2 failed"; exit 1'
	run -0 "$SUMMARY" unit u2 "$T/counts" "$T/bin/unit"
	fake unit 'echo "unit: 7 passed, 0 failed"; exit 1'
	run -0 --separate-stderr "$SUMMARY" unit u3 "$T/counts" "$T/bin/unit"
	assert_equal "$stderr" "check: u3: exited 1 with no failed test"
	fake unit 'echo crashed; exit 134'
	run -0 --separate-stderr "$SUMMARY" unit u4 "$T/counts" "$T/bin/unit"
	assert_equal "$stderr" "check: u4: no 'unit: N passed, M failed' line"
	run -0 cat "$T/counts"
	assert_output "1503 0 0 unit (build)
# u2: 2 failed
7 2 0 u2
# u3: exited 1 with no failed test
7 1 0 u3
# u4: no 'unit: N passed, M failed' line
0 1 0 u4"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: u2: 2 failed
check: failed: u3: exited 1 with no failed test
check: failed: u4: no 'unit: N passed, M failed' line
check: 1517 passed, 4 failed, 0 skipped"
}

@test "the closing lines name every failure, of every pass, above the count" {
	fake_bats 3 'printf "1..3\nok 1 a\nnot ok 2 b fails\nnot ok 3 c fails too\n"; exit 1'
	PATH=$T/bin:$PATH run -0 "$SUMMARY" bats "bats (build)" "$T/counts" bats
	PATH=$T/bin:$PATH run -0 "$SUMMARY" bats "bats (build-san)" "$T/counts" bats
	# What the Makefile writes for a failed memcheck case and fuzz harness.
	printf '# memcheck: cbexec status (exit 1, wanted 0)\n15 1\n' >>"$T/counts"
	printf '# fuzz smoke: record\n4 1\n' >>"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: bats (build): not ok 2 b fails
check: failed: bats (build): not ok 3 c fails too
check: failed: bats (build-san): not ok 2 b fails
check: failed: bats (build-san): not ok 3 c fails too
check: failed: memcheck: cbexec status (exit 1, wanted 0)
check: failed: fuzz smoke: record
check: 21 passed, 6 failed, 0 skipped"
}

@test "nothing passed, or a garbled counts line, fails the total" {
	echo "0 0 0 x" >"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: 0 passed, 0 failed, 0 skipped"
	printf '3 0 0 a\ngarbage\n' >"$T/counts"
	run -1 --separate-stderr "$SUMMARY" total "$T/counts"
	assert_equal "$stderr" "check: bad counts line 2: garbage"
}

# copy_tree: the project's files in $T/src, for make to run in.
copy_tree() {
	mkdir "$T/src"
	(cd "$BATS_TEST_DIRNAME/.." && git ls-files -z -co --exclude-standard |
	    xargs -0 cp --parents -t "$T/src")
}

@test "make check runs each pass through the summary, and lint once" {
	# In a copy: make -n still rewrites build/.flags.
	copy_tree
	run -0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u WERROR -u SANITIZE \
	    make -C "$T/src" -n --no-print-directory check SANITIZE=1
	[ "$(grep -c 'mandoc -T lint' <<<"$output")" -eq 1 ]
	# Each pass: the files run side by side, then the ones run alone.
	[ "$(grep -c 'check-summary.sh bats' <<<"$output")" -eq 4 ]
	[ "$(grep -c 'check-summary.sh unit' <<<"$output")" -eq 2 ]
	[ "$(grep -c 'check-summary.sh total' <<<"$output")" -eq 1 ]
	[ "$(grep -c 'check-summary.sh reports' <<<"$output")" -eq 2 ]
	run -1 grep -n '|| true' <(sed -n '/^check-one:/,/^$/p' "$T/src/Makefile")
}

@test "a failed memcheck case and a failed fuzz harness are named in the counts" {
	local h fuzzers=(record duration codes name config token redis-url) old=()
	copy_tree
	cd "$T/src"
	printf '#!/bin/sh\n%s\n' 'printf "ok 1 memcheck: cbexec a\nnot ok 2 memcheck: cbexec b (exit 1, wanted 0)\n1 1\n"; exit 1' \
	    >tests/memcheck.sh
	mkdir -p build build-fuzz
	: >build/.check-counts
	# Harnesses that stand built (-o): codes fails, the others pass.
	for h in "${fuzzers[@]}"; do
		if [ "$h" = codes ]; then
			printf '#!/bin/sh\necho crash; exit 1\n'
		else
			printf '#!/bin/sh\necho "stat::number_of_executed_units: 5"\n'
		fi >"build-fuzz/fuzz-$h"
		chmod +x "build-fuzz/fuzz-$h"
		old+=(-o "build-fuzz/fuzz-$h")
	done
	run -0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
	    -o build/cbexec "${old[@]}" memcheck fuzz-smoke SANITIZE=0
	run -1 "$SUMMARY" total build/.check-counts
	assert_output "check: failed: memcheck: cbexec b (exit 1, wanted 0)
check: failed: fuzz smoke: codes
check: 7 passed, 2 failed, 0 skipped"
}

@test "sanitizer reports fail the pass, each named in the closing lines" {
	mkdir "$T/reports"
	run -0 "$SUMMARY" reports "sanitizer reports (build-san)" "$T/counts" "$T/reports"
	assert_output ''
	printf '==42==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n' >"$T/reports/asan.42"
	printf 'src/x.c:3:5: runtime error: signed integer overflow\n' >"$T/reports/ubsan.43"
	run -0 --separate-stderr "$SUMMARY" reports "sanitizer reports (build-san)" "$T/counts" "$T/reports"
	assert_line "==42==ERROR: AddressSanitizer: heap-use-after-free on address 0x1"
	assert_equal "$stderr" "check: sanitizer reports (build-san): asan.42: ==42==ERROR: AddressSanitizer: heap-use-after-free on address 0x1
check: sanitizer reports (build-san): ubsan.43: src/x.c:3:5: runtime error: signed integer overflow"
	echo "1503 0 0 unit (build-san)" >>"$T/counts"
	run -1 "$SUMMARY" total "$T/counts"
	assert_output "check: failed: sanitizer reports (build-san): asan.42: ==42==ERROR: AddressSanitizer: heap-use-after-free on address 0x1
check: failed: sanitizer reports (build-san): ubsan.43: src/x.c:3:5: runtime error: signed integer overflow
check: 1503 passed, 2 failed, 0 skipped"
}

@test "the sanitizer pass's options catch a report from a process whose status nobody checks" {
	command -v cc >/dev/null || skip "no C compiler"
	local env dir
	copy_tree
	run -0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE \
	    make -C "$T/src" -n --no-print-directory check-one SANITIZE=1
	env=$(grep -o 'ASAN_OPTIONS=[^ ]* UBSAN_OPTIONS=[^ ]*' <<<"$output" | head -n 1)
	assert [ -n "$env" ]
	dir=$(grep -o 'log_path=[^ :]*/asan' <<<"$env" | head -n 1)
	dir=${dir#log_path=}
	assert_equal "$dir" "$T/src/build-san/san-reports/asan"
	printf '%s\n' '#include <stdlib.h>' \
	    'int main(void) { int *p = malloc(4); free(p); return p[0]; }' >uaf.c
	cc -fsanitize=address,undefined -g -o uaf uaf.c ||
	    skip "no sanitizer runtime here"
	mkdir -p "${dir%/*}"
	# As a background holder or a `|| true` would: the status is lost.
	# shellcheck disable=SC2086
	env $env ./uaf 2>stderr || true
	run -1 grep -c . stderr
	run -0 --separate-stderr "$SUMMARY" reports san "$T/counts" "${dir%/*}"
	assert_line --partial "ERROR: AddressSanitizer: heap-use-after-free"
	assert_equal "${stderr%%:*}" "check"
	run -1 "$SUMMARY" total "$T/counts"
	assert_line --partial "check: failed: san: asan."
}
