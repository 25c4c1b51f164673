#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 78-identity: no outcome of a run that ran is lost (issue 10.8, SPEC 2
# "Identity").  A closed admission refreshes last_used at most once a
# minute, so gc and eviction see a breaker in use; a record that vanished
# while its run was in flight is made anew and the outcome counted there;
# one forgotten and made anew meanwhile has another identity, so the old
# run's outcome is stale.

load helper

# inflight ID NAME EXIT: `cbexec run NAME` in the background, its command
# started (file started.ID) and waiting for file go.ID, then exiting EXIT.
inflight() {
	local id=$1 name=$2 code=$3
	bg "$id" cb run "$name" -- sh -c \
	    "touch started.$id; while [ ! -e go.$id ]; do sleep 0.05; done; exit $code"
	wait_for test -e "started.$id"
}

@test "gc --idle during a run keeps the breaker, and the run's failure opens it" {
	AT=-2h fail_n x 4
	inflight 1 x 1
	run -0 cb gc --idle 1h
	assert_output ''
	touch go.1
	bg_wait 1
	assert_equal "$(bg_rc 1)" 1
	assert_equal "$(json x '[.state, .consecutive_failures, .failures] | join(" ")')" \
	    'open 5 5'
}

@test "a breaker removed while its run was in flight is made anew, and the outcome counted there" {
	fail_n x 4
	inflight 1 x 1
	run -0 cb forget x
	run -1 cb status x
	touch go.1
	bg_wait 1
	assert_equal "$(bg_rc 1)" 1
	assert_equal "$(json x '[.state, .calls, .failures, .consecutive_failures, .stale] | join(" ")')" \
	    'closed 1 1 1 0'
}

@test "a breaker forgotten and made anew while a run was in flight counts that run as stale" {
	fail_n x 4
	inflight 1 x 1
	run -0 cb forget x
	ok_n x 1
	touch go.1
	bg_wait 1
	assert_equal "$(bg_rc 1)" 1
	assert_equal "$(json x '[.epoch, .calls, .successes, .failures, .consecutive_failures, .stale] | join(" ")')" \
	    '0 2 1 0 0 1'
}

@test "eviction during a run takes a less recently used breaker, not the one in flight" {
	config 'max_breakers = 2;'
	AT=-2h ok_n a 1
	AT=-1h ok_n b 1
	inflight 1 a 0
	ok_n c 1
	run -0 cb status --names
	assert_output "$(printf 'a\nc')"
	touch go.1
	bg_wait 1
	assert_equal "$(json a .calls)" 2
}
