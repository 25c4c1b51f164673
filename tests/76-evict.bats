#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 76-evict: max_breakers bounds the state file.  Creating a breaker beyond
# it evicts the least recently used closed breaker; an open or half-open
# one only when every breaker is open, with a warning naming it.  Up to
# 1024 breakers the choice is exact; above, it is sampled, but a closed
# breaker still always goes before an open one.

load helper

@test "a breaker created by trip evicts like one created by run" {
	config 'max_breakers = 2;'
	ok_n a 1
	ok_n b 1
	run -0 cb trip c
	run -0 cb status --names
	assert_output "$(printf 'b\nc')"
}

@test "use keeps a breaker: the least recently used goes, not the oldest" {
	config 'max_breakers = 3;'
	ok_n a 1
	ok_n b 1
	ok_n c 1
	ok_n a 1
	ok_n d 1
	run -0 cb status --names
	assert_output "$(printf 'a\nc\nd')"
}

@test "an existing breaker never evicts anything" {
	config 'max_breakers = 2;'
	ok_n a 1
	ok_n b 1
	ok_n a 3
	fail_n b 2
	run -0 cb status --names
	assert_output "$(printf 'a\nb')"
}

@test "when every breaker is open, the least recently used open one goes, with a warning" {
	config 'max_breakers = 2;'
	run -0 cb trip a
	run -0 cb trip b
	run -0 cb run c -- true
	assert_output "cbexec: warning: max_breakers (2) reached and every breaker is open or running: evicted breaker 'a'"
	run -0 cb status --names
	assert_output "$(printf 'b\nc')"
}

@test "-q silences the warning; the eviction still happens" {
	config 'max_breakers = 1;'
	run -0 cb trip a
	run -0 cb -q trip b
	assert_output ''
	run -0 cb status --names
	assert_output b
}

@test "-v reports the eviction of a closed breaker" {
	config 'max_breakers = 1;'
	ok_n a 1
	run -0 cb -v run b -- true
	assert_line --partial "a: evicted (max_breakers 1, least recently used)"
}

@test "a lowered max_breakers shrinks the store as new breakers come" {
	local i
	for i in 1 2 3 4 5 6; do ok_n "b$i" 1; done
	config 'max_breakers = 3;'
	ok_n new 1
	run -0 cb status --names
	assert_output "$(printf 'b5\nb6\nnew')"
}

@test "above 1024 breakers (sampled): a recently used breaker is not the one evicted" {
	config 'max_breakers = 1100;' 'sync = "none";'
	local names
	names=(idle-{0..1098})
	run -0 cb_at -1d trip "${names[@]}"
	run -0 cb_at -1d reset "${names[@]}"
	ok_n hot 1
	ok_n new 1
	run -0 cb status --names
	assert_equal "${#lines[@]}" 1100
	assert_line hot
	assert_line new
}

@test "above 1024 breakers: the one closed breaker goes before any open one" {
	config 'max_breakers = 1100;' 'sync = "none";'
	local names
	names=(open-{0..1098})
	run -0 cb_at -1d trip "${names[@]}"
	ok_n lonely 1
	run -0 cb run new -- true
	assert_output ''
	run -0 cb status --names
	assert_equal "${#lines[@]}" 1100
	refute_line lonely
	assert_line new
	assert_line open-0
}

@test "acquire of a new name evicts like run does, and warns for an open one" {
	config 'max_breakers = 1;'
	run -0 cb trip a
	run --separate-stderr -0 cb acquire b
	assert_regex "$stderr" "evicted breaker 'a'"
	run -0 cb status --names
	assert_output b
}
