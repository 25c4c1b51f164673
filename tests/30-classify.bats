#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 30-classify: which outcome a finished run counts as: the three exit code
# classes from the config file, the command line and presets; timeouts,
# signals and slow calls.

load helper

# counts NAME: successes, failures and ignored of NAME from status --json.
counts() {
	json "$1" '"s=\(.successes) f=\(.failures) i=\(.ignored)"'
}

@test "by default exit 0 is a success and every other code a failure" {
	run -0 cb run x -- true
	run -3 cb run x -- sh -c 'exit 3'
	run -255 cb run x -- sh -c 'exit 255'
	assert_equal "$(counts x)" 's=1 f=2 i=0'
}

@test "failure_codes in the config: listed codes fail, unlisted ones succeed" {
	config 'defaults = { failure_codes = "3"; };'
	run -3 cb run x -- sh -c 'exit 3'
	assert_equal "$(counts x)" 's=0 f=1 i=0'
	run -4 cb run x -- sh -c 'exit 4'
	assert_equal "$(counts x)" 's=1 f=1 i=0'
	assert_equal "$(json_field x consecutive_failures)" 0
}

@test "success_codes in the config takes codes out of the default failure class" {
	config 'defaults = { success_codes = "0,1"; };'
	fail_n x 6
	assert_equal "$(counts x)" 's=6 f=0 i=0'
	assert_equal "$(json_field x state)" closed
	run -2 cb run x -- sh -c 'exit 2'
	assert_equal "$(counts x)" 's=6 f=1 i=0'
}

@test "ignore_codes = 3 alone is fine: 3 is ignored, other codes still fail" {
	config 'defaults = { ignore_codes = "3"; };'
	run -3 cb run x -- sh -c 'exit 3'
	assert_equal "$(counts x)" 's=0 f=0 i=1'
	run -4 cb run x -- sh -c 'exit 4'
	assert_equal "$(counts x)" 's=0 f=1 i=1'
}

@test "an ignored run neither breaks nor extends the failure streak" {
	fail_n x 4
	run -3 cb run x --ignore-codes 3 -- sh -c 'exit 3'
	assert_equal "$(json_field x consecutive_failures)" 4
	assert_equal "$(json_field x state)" closed
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "--failure-codes on the command line" {
	run -1 cb run x --failure-codes 7 -- false
	assert_equal "$(counts x)" 's=1 f=0 i=0'
	run -7 cb run x --failure-codes 6,7,28 -- sh -c 'exit 7'
	assert_equal "$(counts x)" 's=1 f=1 i=0'
}

@test "--success-codes on the command line" {
	run -1 cb run x --success-codes 0,1 -- false
	assert_equal "$(counts x)" 's=1 f=0 i=0'
}

@test "--ignore-codes on the command line, with a range" {
	run -52 cb run x --ignore-codes 50-59 -- sh -c 'exit 52'
	assert_equal "$(counts x)" 's=0 f=0 i=1'
	run -60 cb run x --ignore-codes 50-59 -- sh -c 'exit 60'
	assert_equal "$(counts x)" 's=0 f=1 i=1'
}

@test "-o failure_codes=7 works like --failure-codes 7" {
	run -1 cb run x -o failure_codes=7 -- false
	run -7 cb run x -o failure_codes=7 -- sh -c 'exit 7'
	assert_equal "$(counts x)" 's=1 f=1 i=0'
}

@test "the command line beats the config: --success-codes 1 over failure_codes = 1" {
	config 'defaults = { failure_codes = "1"; };'
	run -1 cb run x --success-codes 1 -- false
	assert_equal "$(counts x)" 's=1 f=0 i=0'
}

@test "a breakers entry beats defaults: its ignore_codes over defaults' failure_codes" {
	config 'defaults = { failure_codes = "1-10"; };' \
	    'breakers = ( { match = "x"; ignore_codes = "5"; } );'
	run -5 cb run x -- sh -c 'exit 5'
	run -6 cb run x -- sh -c 'exit 6'
	assert_equal "$(counts x)" 's=0 f=1 i=1'
}

@test "a code in two explicit classes of the config's defaults is a config error" {
	config 'defaults = {' '  failure_codes = "1-10";' '  ignore_codes = "5";' '};'
	run -0 cb run x -- touch marker
	assert [ -e marker ]
	refute_output --partial unguarded
	assert_output --partial failure_codes
	assert_output --partial ignore_codes
	assert_output --partial 5
}

@test "a code in two explicit classes of one breakers entry is a config error" {
	config 'breakers = ( { match = "other"; success_codes = "0,2"; failure_codes = "1-3"; } );'
	run -0 cb run x -- true
	assert_output --partial success_codes
	assert_output --partial failure_codes
}

@test "an overlap in the config is said by every command; only config check exits 1" {
	config 'defaults = { failure_codes = "1-10"; ignore_codes = "5"; };'
	run -0 cb status
	assert_output --partial ignore_codes
	run -0 cb check x
	assert_output --partial ignore_codes
	run -1 cb config check
}

@test "a code in two explicit classes on the command line is a usage error (125)" {
	run -125 cb run x --failure-codes 1-10 --ignore-codes 5 -- touch marker
	assert [ ! -e marker ]
	assert_output --partial 5
}

@test "a code list that is not one is refused (125)" {
	run -125 cb run x --failure-codes 256 -- true
	run -125 cb run x --failure-codes abc -- true
	run -125 cb run x --failure-codes 9-3 -- true
}

@test "timeout_is = ignore: a timeout is counted as a timeout and ignored" {
	run -124 cb run x -o timeout_is=ignore -t 100ms -- sleep 5
	assert_equal "$(counts x)" 's=0 f=0 i=1'
	assert_equal "$(json_field x timeouts)" 1
}

@test "timeout_is = success: a timeout is counted as a timeout and a success" {
	config 'defaults = { timeout_is = "success"; };'
	run -124 cb run x -t 100ms -- sleep 5
	assert_equal "$(counts x)" 's=1 f=0 i=0'
	assert_equal "$(json_field x timeouts)" 1
}

@test "by default a death by signal is a failure" {
	run -137 cb run x -- sh -c 'kill -9 $$'
	assert_equal "$(counts x)" 's=0 f=1 i=0'
}

@test "signal_is = success: a death by signal counts as a success" {
	run -137 cb run x -o signal_is=success -- sh -c 'kill -9 $$'
	assert_equal "$(counts x)" 's=1 f=0 i=0'
}

@test "signal_is = ignore: a death by signal is ignored" {
	config 'defaults = { signal_is = "ignore"; };'
	run -143 cb run x -- sh -c 'kill -TERM $$'
	assert_equal "$(counts x)" 's=0 f=0 i=1'
}

@test "a bad timeout_is value is refused (125)" {
	run -125 cb run x -o timeout_is=maybe -- true
}

@test "preset curl: exit 7 (cannot connect) is a failure" {
	run -7 cb run x --preset curl -- sh -c 'exit 7'
	assert_equal "$(counts x)" 's=0 f=1 i=0'
}

@test "preset curl: exit 6 and 28 are failures" {
	run -6 cb run x --preset curl -- sh -c 'exit 6'
	run -28 cb run x --preset curl -- sh -c 'exit 28'
	assert_equal "$(counts x)" 's=0 f=2 i=0'
}

@test "preset curl: exit 22 (HTTP error, the server answered) is not a failure" {
	run -22 cb run x --preset curl -- sh -c 'exit 22'
	assert_equal "$(json_field x failures)" 0
}

@test "preset curl from a breakers entry" {
	config 'breakers = ( { match = "warehouse-*"; preset = "curl"; } );'
	run -22 cb run warehouse-api -- sh -c 'exit 22'
	run -7 cb run warehouse-api -- sh -c 'exit 7'
	assert_equal "$(json warehouse-api .failures)" 1
	run -22 cb run other -- sh -c 'exit 22'
	assert_equal "$(json other .failures)" 1
}

@test "an explicit failure_codes replaces the preset's failure class" {
	run -22 cb run x --preset curl --failure-codes 22 -- sh -c 'exit 22'
	run -7 cb run x --preset curl --failure-codes 22 -- sh -c 'exit 7'
	assert_equal "$(counts x)" 's=1 f=1 i=0'
}

@test "the presets wget, ssh, rsync and psql exist" {
	local p
	for p in wget ssh rsync psql; do
		run -0 cb run "x-$p" --preset "$p" -- true
	done
}

@test "an unknown preset is refused (125)" {
	run -125 cb run x --preset gopher -- touch marker
	assert [ ! -e marker ]
	assert_output --partial gopher
}

@test "slow_call: a success slower than slow_call is a failure" {
	run -0 cb run x -o slow_call=100ms -- sleep 0.3
	assert_equal "$(counts x)" 's=0 f=1 i=0'
}

@test "slow_call: a success faster than slow_call is a success" {
	run -0 cb run x -o slow_call=5s -- true
	assert_equal "$(counts x)" 's=1 f=0 i=0'
}

@test "--failure-codes 0 makes exit 0 a failure: named codes leave the default classes" {
	run -0 cb run x --failure-codes 0 -- true
	assert_equal "$(counts x)" 's=0 f=1 i=0'
}

@test "--ignore-codes 7 with preset curl: 7 leaves the preset's failure class" {
	run -7 cb run x --preset curl --ignore-codes 7 -- sh -c 'exit 7'
	assert_equal "$(counts x)" 's=0 f=0 i=1'
	run -6 cb run x --preset curl --ignore-codes 7 -- sh -c 'exit 6'
	assert_equal "$(counts x)" 's=0 f=1 i=1'
}

@test "a timeout counts by timeout_is whatever the code classes say" {
	run -124 cb run x --failure-codes 7 -t 100ms -- sleep 5
	assert_equal "$(counts x)" 's=0 f=1 i=0'
	assert_equal "$(json_field x timeouts)" 1
}

@test "a death by signal counts by signal_is whatever the code classes say" {
	run -137 cb run x --success-codes 0,137 -- sh -c 'kill -9 $$'
	assert_equal "$(counts x)" 's=0 f=1 i=0'
}
