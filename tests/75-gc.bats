#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 75-gc: `cbexec gc [--idle D] [--dry-run]` removes closed breakers unused
# for D (default 30d), prints their names, and never removes an open or
# half-open one; check counts as a use, written at most once a minute.
# --dry-run says "would remove NAME" of the same and removes nothing.

load helper

teardown() {
	[ -z "${GC_DIR:-}" ] || rm -rf "$GC_DIR"
	common_teardown
}

@test "gc removes nothing recent and prints nothing" {
	ok_n x 1
	run -0 cb gc
	assert_output ''
	run -0 cb status --names
	assert_output x
}

@test "gc --idle D removes closed breakers unused for D and prints their names" {
	AT=-2d ok_n old 1
	AT=-3d ok_n older 1
	ok_n new 1
	run -0 cb gc --idle 1d
	assert_output "$(printf 'old\nolder')"
	run -0 cb status --names
	assert_output new
	# The removed names start afresh.
	run -0 cb run old -- true
	assert_equal "$(json_field old calls)" 1
}

@test "gc --dry-run lists what gc would remove, one a line, and removes nothing" {
	AT=-2d ok_n old 1
	AT=-3d ok_n older 1
	AT=-3d fail_n down 5
	ok_n new 1
	run -0 cb gc --dry-run --idle 1d
	assert_output "$(printf 'would remove old\nwould remove older')"
	run -0 cb status --names
	assert_output "$(printf 'down\nnew\nold\nolder')"
	run -0 cb -q gc --dry-run --idle 1d
	assert_output ''
	# What the dry run listed is what gc then removes.
	run -0 cb gc --idle 1d
	assert_output "$(printf 'old\nolder')"
}

@test "gc --dry-run on a missing state file prints nothing and creates nothing" {
	run -0 cb gc --dry-run
	assert_output ''
	assert [ ! -e "$CBEXEC_STATE" ]
}

@test "gc's default is 30 days" {
	AT=-31d ok_n stale 1
	AT=-29d ok_n young 1
	run -0 cb gc
	assert_output stale
	run -0 cb status --names
	assert_output young
}

@test "gc never removes an open or a half-open breaker, however old" {
	config 'defaults = { half_open_max_calls = 2; };'
	AT=-40d fail_n open 5
	AT=-40d fail_n half 5
	# One probe of two succeeds after the cool-down: half-open.
	run -0 cb_at -39d run half -- true
	assert_equal "$(json_field half state)" half-open
	AT=-40d ok_n closed 1
	run -0 cb gc --idle 1d
	assert_output closed
	run -0 cb status --names
	assert_output "$(printf 'half\nopen')"
}

@test "gc never removes a breaker tripped by hand" {
	run -0 cb_at -40d trip manual --for 1h
	run -0 cb gc --idle 1d
	assert_output ''
	run -0 cb status --names
	assert_output manual
}

@test "a reset counts as a use" {
	AT=-2d fail_n x 5
	run -0 cb reset x
	run -0 cb gc --idle 1d
	assert_output ''
}

@test "check counts as a use" {
	AT=-2d ok_n x 1
	run -0 cb check x
	run -0 cb gc --idle 1d
	assert_output ''
	run -0 cb status --names
	assert_output x
}

@test "check writes its use at most once a minute" {
	AT=-2d ok_n x 1
	run -0 cb_at -30s check x
	local used
	used=$(time_ms x last_used_at)
	assert [ "$used" -lt "$(($(now_ms) - 20000))" ]
	# 30s later: younger than a minute, not written again.
	run -0 cb check x
	assert_equal "$(time_ms x last_used_at)" "$used"
}

@test "check still answers when the state file is read-only for it" {
	local as=()
	if [ "$(id -u)" -eq 0 ]; then
		# Root can write anyway: user nobody checks its own file.
		id nobody >/dev/null 2>&1 || skip "no user nobody"
		GC_DIR=$(mktemp -d /tmp/cbexec-gc.XXXXXX)
		chmod 0755 "$GC_DIR"
		chown nobody "$GC_DIR"
		export CBEXEC_STATE=$GC_DIR/state.mdb
		export CBEXEC_CONFIG=$GC_DIR/cbexec.conf
		: >"$CBEXEC_CONFIG"
		as=(setpriv --reuid nobody --regid nogroup --clear-groups)
	fi
	"${as[@]}" env FAKETIME_DONT_FAKE_MONOTONIC=1 \
	    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    faketime -f -2d "$CBEXEC" run x -- true
	chmod 0400 "$CBEXEC_STATE"
	run -0 "${as[@]}" "$CBEXEC" check x
	assert_output ''
	# It could not record its use: gc still finds x idle for 2 days.
	chmod 0600 "$CBEXEC_STATE"
	run -0 "${as[@]}" "$CBEXEC" gc --idle 1d
	assert_output x
}

@test "gc -q removes without printing" {
	AT=-2d ok_n x 1
	run -0 cb -q gc --idle 1d
	assert_output ''
	run -0 cb status --names
	assert_output ''
}

@test "gc --idle 0 removes every closed breaker" {
	ok_n a 1
	fail_n b 5
	run -0 cb gc --idle 0
	assert_output a
}

@test "gc on a missing state file exits 0 and creates nothing" {
	run -0 cb gc
	assert [ ! -e "$CBEXEC_STATE" ]
	assert [ ! -e "$CBEXEC_STATE-lock" ]
}

@test "gc usage errors exit 2" {
	run -2 cb gc extra
	run -2 cb gc --idle soon
	assert_output --partial -- '--idle'
	run -2 cb gc --idle
	run -2 cb gc --bogus
	run -2 cb gc --dry-run=yes
	run -0 cb gc --help
	assert_output --partial -- '--dry-run'
	assert_output --partial 'usage: cbexec gc'
}

@test "gc keeps a record it cannot read, says so, and leaves it as it was" {
	AT=-2d ok_n victim 1
	AT=-2d ok_n bystander 1
	# Bump victim's record format version (after the magic CBRK) to 127.
	if ! mdb_dump -n -a "$CBEXEC_STATE" >dump 2>/dev/null || ! grep -q '^ ' dump; then
		mdb_dump -n "$CBEXEC_STATE" >dump
	fi
	awk 'prev == " 76696374696d" { sub(/^ 4342524b[0-9a-f][0-9a-f]00/, " 4342524b7f00") }
	    { print; prev = $0 }' dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
	run -0 cb gc --idle 1d
	assert_line bystander
	assert_line --partial 'kept 1 record this cbexec cannot read'
	run -1 cb status victim
	assert_output --partial 'newer'
}

@test "gc on a state file that is not LMDB exits 1 naming it" {
	echo 'not lmdb' >"$CBEXEC_STATE"
	run -1 cb gc
	assert_output --partial "$CBEXEC_STATE"
	assert_equal "$(cat "$CBEXEC_STATE")" 'not lmdb'
}
