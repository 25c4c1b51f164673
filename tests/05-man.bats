#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 05-man: the man pages as they render, which `mandoc -T lint` does not
# judge: table cells that lose a first word that is also an mdoc macro
# (man/check-tables.py, part of `make lint`), quotes that close early,
# lines past the margin and quotes never closed at 80 and 60 columns with
# both man-db and mandoc (man/check-render.py).

load helper

MAN=$BATS_TEST_DIRNAME/../man
CHECK=$MAN/check-tables.py
RENDER=$MAN/check-render.py

# page NAME: the page rendered as plain text, one space between words.
page() {
	mandoc -T ascii -O width=200 "$MAN/$1" | col -b | tr -s ' \t' ' '
}

@test "check-tables passes on both man pages" {
	run -0 python3 "$CHECK" "$MAN/cbexec.1" "$MAN/cbexec.conf.5"
	assert_output ''
}

@test "check-tables fails on a table cell that lost its first word, naming each row" {
	run -1 python3 "$CHECK" "$BATS_TEST_DIRNAME/fixtures/lost-word.5"
	assert_line --partial 'lost-word.5:11: table row lost words'
	assert_line --partial "'success | 3 | No attempt was made (for example due to invalid'"
	assert_line --partial 'lost-word.5:13: table row lost words'
	# Inside a cell too: "said No and" renders "said and".
	assert_line --partial 'lost-word.5:14: table row lost words'
	assert_equal "${#lines[@]}" 3
}

@test "check-tables passes once the cells are escaped with \\&" {
	sed 's/Ta No attempt/Ta \\\&No attempt/; s/Ta An error/Ta \\\&An error/; s/said No/said \\\&No/' \
	    "$BATS_TEST_DIRNAME/fixtures/lost-word.5" >fixed.5
	run -0 python3 "$CHECK" fixed.5
}

@test "cbexec.conf(5): the preset tables keep every word" {
	run -0 page cbexec.conf.5
	assert_line --partial "job 3 No attempt was made"
	assert_line --partial "job 3 An error occurred in a script"
	assert_line --partial "failure 255 An error of ssh's own"
}

@test "cbexec.conf(5): the ssh quote holds the whole sentence; retry_delay's default reads plainly" {
	run -0 page cbexec.conf.5
	assert_output --partial '"ssh exits with the exit status of the remote command or with 255 if an error occurred."'
	assert_line --partial 'retry_delay (duration, default "1s", at most "60s")'
}

@test "both pages fit 80 and 60 columns, with man-db and mandoc, every quote closed" {
	command -v man >/dev/null || skip "man-db is missing (make deps installs it)"
	run -0 python3 "$RENDER" "$MAN/cbexec.1" "$MAN/cbexec.conf.5"
	assert_output ''
}

@test "check-render names a line past the margin and a nested or unclosed quote" {
	command -v man >/dev/null || skip "man-db is missing (make deps installs it)"
	local f=$BATS_TEST_DIRNAME/fixtures/bad-render.5 how
	run -1 python3 "$RENDER" "$f"
	for how in "man 80" "mandoc 80" "man 60" "mandoc 60"; do
		assert_line --regexp "^$f: $how: line [0-9]+: quote “ opened inside another: .*\(“exit 7, “timed out"
		assert_line --regexp "^$f: $how: line [0-9]+: quote “ never closed"
		assert_line --regexp "^$f: $how: line [0-9]+: 89 columns: state_mode"
		assert_line --regexp "^$f: $how: line [0-9]+: a bracket moved out of its quote: .*pg_isready\"’\]"
	done
	assert_line --regexp "^$f: man 60: line [0-9]+: 72 columns: probe"
	assert_line --regexp "^$f: mandoc 60: line [0-9]+: 72 columns: probe"
	refute_line --regexp ": (man|mandoc) 80: .*72 columns"
}

@test "cbexec(1): the last run's examples are three quotes side by side" {
	run -0 page cbexec.1
	assert_output --partial '("exit 7", "timed out", "killed by SIGKILL")'
}

@test "cbexec.conf(5): a preset's success class reads as config show prints it" {
	run -0 page cbexec.conf.5
	assert_output --partial "its success class is 0 alone"
	printf '' >empty.conf
	run -0 "$CBEXEC" -c empty.conf config show x --preset wget
	assert_line --regexp '^success_codes +"0" '
	assert_line --regexp '^failure_codes +"4" '
}
