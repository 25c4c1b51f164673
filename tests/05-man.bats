#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 05-man: the man pages as they render, which `mandoc -T lint` does not
# judge: table cells that lose a first word that is also an mdoc macro
# (man/check-tables.py, part of `make lint`), quotes that close early.

load helper

MAN=$BATS_TEST_DIRNAME/../man
CHECK=$MAN/check-tables.py

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
	assert_line --partial "success 3 No attempt was made"
	assert_line --partial "success 3 An error occurred in a script"
	assert_line --partial "failure 255 An error of ssh's own"
}

@test "cbexec.conf(5): the ssh quote holds the whole sentence; retry_delay's default reads plainly" {
	run -0 page cbexec.conf.5
	assert_output --partial '"ssh exits with the exit status of the remote command or with 255 if an error occurred."'
	assert_line --partial 'retry_delay (duration, default "1s", at most "60s")'
}
