#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 90-faults: the state file under faults.  Whatever happens, cbexec never
# truncates, overwrites or "repairs" a state file it cannot use (cmp before
# and after), and on_store_error decides between running the command
# unguarded (open, the default: exit status of the command, one warning)
# and refusing (closed: exit 125, nothing run).

load helper

setup() {
	common_setup
	NOBODY_DIR=
	MNT=
}

teardown() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$NOBODY_DIR" ] && rm -rf "$NOBODY_DIR"
	common_teardown
}

# as_nobody CMD...: run CMD as user nobody (no groups), or skip.
as_nobody() {
	setpriv --reuid nobody --regid nogroup --clear-groups "$@"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (setpriv, chown, mount)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
}

# nobody_dir: a directory user nobody can reach, in $NOBODY_DIR.
nobody_dir() {
	NOBODY_DIR=$(mktemp -d /tmp/cbexec-faults.XXXXXX)
	chmod 0755 "$NOBODY_DIR"
	export CBEXEC_CONFIG=$NOBODY_DIR/cbexec.conf
	: >"$CBEXEC_CONFIG"
}

# small_tmpfs SIZE: a tmpfs of SIZE at $T/mnt, or skip.
small_tmpfs() {
	need_root
	mkdir -p "$T/mnt"
	mount -t tmpfs -o "size=$1" tmpfs "$T/mnt" 2>/dev/null ||
	    skip "mount -t tmpfs is not permitted here"
	MNT=$T/mnt
}

# fill_disk: fill $MNT, and show that it is full: not one more block.
fill_disk() {
	dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true
	run -1 dd if=/dev/zero of="$MNT/probe" bs=4k count=1
	assert_output --partial "No space left on device"
	rm -f "$MNT/probe"
}

@test "state directory read-only: run warns and runs unguarded; with on_store_error = closed, 125" {
	small_tmpfs 1m
	export CBEXEC_STATE=$MNT/state.mdb
	run -0 cb run x -- true
	cp "$CBEXEC_STATE" before
	mount -o remount,ro "$MNT"
	run -0 cb run x -- touch ran
	assert [ -e ran ]
	assert_output --partial "running 'touch' unguarded"
	config 'on_store_error = "closed";'
	run -125 cb run x -- touch ran2
	assert [ ! -e ran2 ]
	cmp before "$CBEXEC_STATE"
}

@test "state directory read-only: status still reads the breakers" {
	small_tmpfs 1m
	export CBEXEC_STATE=$MNT/state.mdb
	run -1 cb run x -- false
	mount -o remount,ro "$MNT"
	run -0 cb status --json x
	assert_output --partial '"failures": 1'
}

@test "state file owned by another user: run runs unguarded, status exits 1, file unchanged" {
	need_root
	nobody_dir
	export CBEXEC_STATE=$NOBODY_DIR/state.mdb
	run -0 cb run x -- true
	cp "$CBEXEC_STATE" "$T/before"
	run -0 as_nobody "$CBEXEC" run x -- true
	assert_output --partial "$CBEXEC_STATE"
	assert_output --partial unguarded
	run -1 as_nobody "$CBEXEC" status
	assert_output --partial "$CBEXEC_STATE"
	printf 'on_store_error = "closed";\n' >"$NOBODY_DIR/c.conf"
	run -125 as_nobody "$CBEXEC" -c "$NOBODY_DIR/c.conf" run x -- true
	cmp "$T/before" "$CBEXEC_STATE"
}

@test "disk full: a new state file cannot be written: run runs unguarded, or refuses when closed" {
	small_tmpfs 64k
	fill_disk
	export CBEXEC_STATE=$MNT/state.mdb
	run -0 cb run x -- touch ran
	assert [ -e ran ]
	assert_output --partial unguarded
	config 'on_store_error = "closed";'
	run -125 cb run x -- touch ran2
	assert [ ! -e ran2 ]
}

@test "disk full around an existing state file: nothing is lost once space returns" {
	small_tmpfs 2m
	export CBEXEC_STATE=$MNT/state.mdb
	run -1 cb run keep -- false
	fill_disk
	for i in $(seq 1 40); do
		cb run "n$i-$(name_of_len 150)" -- true 2>>full.err || true
	done
	# Some of them did hit the full disk (and ran unguarded).
	grep -q unguarded full.err
	rm -f "$MNT/filler"
	run -0 cb status --json keep
	assert_output --partial '"failures": 1'
	run -0 cb run keep -- true
	run -0 json_field keep calls
	assert_output 2
}

@test "map full: a state file with a tiny map grows it and keeps every breaker" {
	run -0 cb run first -- true
	mdb_dump -n "$CBEXEC_STATE" | sed 's/^mapsize=.*/mapsize=65536/' >dump
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump "$CBEXEC_STATE"
	# 120 runs fill the 64 KiB map: it grows (format 4's smaller records
	# fill it once, where format 3's filled it twice).
	local long
	long=$(name_of_len 180)
	for i in $(seq 1 120); do
		cb run "b$i-$long" -- true || return 1
	done
	run -0 cb status --names
	assert_equal "$(echo "$output" | wc -l)" 121
	local map
	map=$(mdb_stat -n -e "$CBEXEC_STATE" | awk '/Map size:/ { print $3 }')
	assert [ "$map" -ge 131072 ]
}

@test "a file that is not LMDB: run follows on_store_error, others exit 1; never written" {
	head -c 8192 /dev/urandom >"$CBEXEC_STATE"
	cp "$CBEXEC_STATE" before
	run -0 cb run x -- touch ran
	assert [ -e ran ]
	run -1 cb status
	assert_output --partial "$CBEXEC_STATE"
	run -1 cb reset x
	run -1 cb trip x
	config 'on_store_error = "closed";'
	run -125 cb run x -- touch ran2
	assert [ ! -e ran2 ]
	cmp before "$CBEXEC_STATE"
}

@test "an empty state file is a new store: status shows nothing and writes nothing, run uses it" {
	: >"$CBEXEC_STATE"
	run -0 cb status
	assert_output "cbexec: no breakers in $CBEXEC_STATE; 'cbexec run NAME -- COMMAND' makes one"
	assert [ ! -s "$CBEXEC_STATE" ]
	run -0 cb run x -- true
	run -0 json_field x calls
	assert_output 1
}

@test "a record from a newer version: refused naming file and breaker, file unchanged" {
	run -0 cb run v -- true
	patch_record v 'sub(/^ 4342524b[0-9a-f][0-9a-f]00/, " 4342524b7f00")'
	cp "$CBEXEC_STATE" before
	run -1 cb status v
	assert_output --partial "$CBEXEC_STATE"
	assert_output --partial "'v'"
	assert_output --partial newer
	run -1 cb reset v
	run -0 cb run v -- touch ran
	assert [ -e ran ]
	config 'on_store_error = "closed";'
	run -125 cb run v -- touch ran2
	assert [ ! -e ran2 ]
	cmp before "$CBEXEC_STATE"
}

@test "a truncated record: refused naming file and breaker, file unchanged" {
	run -0 cb run t -- true
	patch_record t '$0 = substr($0, 1, 41)'
	cp "$CBEXEC_STATE" before
	run -1 cb status t
	assert_output --partial "'t'"
	assert_output --partial truncated
	config 'on_store_error = "closed";'
	run -125 cb run t -- touch ran
	assert [ ! -e ran ]
	run -0 cb run other -- true
	cmp <(mdb_dump -n before | grep -A1 '^ 74$') \
	    <(mdb_dump -n "$CBEXEC_STATE" | grep -A1 '^ 74$')
}

# fallback_dir: a /var/tmp of this test's own, $T/vartmp (1777), which
# as_nobody_vartmp mounts over /var/tmp: no leftover /var/tmp/cbexec-UID
# of another run, or of a run beside this one, is seen or touched.
# FALLBACK is nobody's fallback directory as this shell sees it,
# FALLBACK_NAME as cbexec names it.
fallback_dir() {
	unshare --mount --propagation private true 2>/dev/null ||
	    skip "no private mount namespace here"
	mkdir -m 1777 "$T/vartmp"
	FALLBACK=$T/vartmp/cbexec-$(id -u nobody)
	FALLBACK_NAME=/var/tmp/cbexec-$(id -u nobody)
}

# as_nobody_vartmp CMD...: as_nobody, with $T/vartmp as /var/tmp.
as_nobody_vartmp() {
	unshare --mount --propagation private sh -c 'mount --bind "$0" /var/tmp &&
	    exec setpriv --reuid nobody --regid nogroup --clear-groups "$@"' \
	    "$T/vartmp" "$@"
}

@test "a service account with no usable home falls back to /var/tmp/cbexec-UID, guarded and silent" {
	need_root
	nobody_dir
	config 'log = "none";'	# no syslog here: the opening would go to stderr
	fallback_dir
	unset CBEXEC_STATE XDG_STATE_HOME
	# HOME=/nonexistent, as for nobody; and a home owned by root.
	for home in /nonexistent "$NOBODY_DIR"; do
		name=svc-$RANDOM
		for i in 1 2 3 4; do
			run -1 as_nobody_vartmp env HOME="$home" "$CBEXEC" run "$name" -- false
			assert_output ''
		done
		# Nothing about the fallback: only the opening this call caused.
		run -1 as_nobody_vartmp env HOME="$home" "$CBEXEC" run "$name" -- false
		assert_output --regexp "^cbexec: $name: circuit opened after 5 consecutive failures; refusing runs until [0-9:]{8}\$"
		run -75 as_nobody_vartmp env HOME="$home" "$CBEXEC" run "$name" -- touch "$T/ran"
		assert [ ! -e "$T/ran" ]
	done
	assert [ -f "$FALLBACK/state.mdb" ]
	assert [ ! -L "$FALLBACK" ]
	assert_equal "$(stat -c '%a %U' "$FALLBACK")" "700 nobody"
	assert_equal "$(stat -c '%a %U' "$FALLBACK/state.mdb")" "600 nobody"
	run -1 as_nobody_vartmp env -u HOME "$CBEXEC" run "svc-$RANDOM" -- false
	assert_output ''
}

@test "a fallback directory another user made (a symlink, theirs, open to others): run exits 125 naming the owner and the fix, whatever on_store_error says" {
	need_root
	nobody_dir
	fallback_dir
	unset CBEXEC_STATE XDG_STATE_HOME
	config 'on_store_error = "open";'
	chmod 0644 "$CBEXEC_CONFIG"
	mkdir -m 0700 "$NOBODY_DIR/elsewhere"
	chown nobody "$NOBODY_DIR/elsewhere"
	ln -s "$NOBODY_DIR/elsewhere" "$FALLBACK"
	run -125 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" run x -- touch "$T/ran"
	# The line says what is wrong with it.
	assert_output --partial "cannot use directory '$FALLBACK_NAME': it is a symbolic link"
	refute_output --partial unguarded
	assert [ ! -e "$T/ran" ]
	assert [ ! -e "$NOBODY_DIR/elsewhere/state.mdb" ]
	rm "$FALLBACK"
	# Squatted before the service account's first run: a max_concurrent
	# guard of a job that must not overlap would go.
	mkdir -m 0777 "$FALLBACK"
	chown daemon "$FALLBACK"
	run -125 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" run x -o max_concurrent=1 -- touch "$T/ran"
	assert_output "cbexec: cannot use directory '$FALLBACK_NAME': owned by user 'daemon' (uid $(id -u daemon)), not by user 'nobody' (uid $(id -u nobody)); remove it, or give this user a state (-s, \$CBEXEC_STATE or the config's state); refusing to run 'touch'"
	assert [ ! -e "$T/ran" ]
	assert [ ! -e "$FALLBACK/state.mdb" ]
	chown nobody "$FALLBACK"
	chmod 0750 "$FALLBACK"
	run -125 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" run x -- touch "$T/ran"
	assert_output --partial "cannot use directory '$FALLBACK_NAME': mode 0750, not 0700"
	assert [ ! -e "$FALLBACK/state.mdb" ]
	assert [ ! -e "$T/ran" ]
	# Given a state of its own, it runs guarded.
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" -s "$NOBODY_DIR/elsewhere/s.mdb" run x -- true
	assert [ -e "$NOBODY_DIR/elsewhere/s.mdb" ]
}

@test "read-only commands of a user with no usable home create no /var/tmp/cbexec-UID" {
	need_root
	nobody_dir
	fallback_dir
	unset CBEXEC_STATE XDG_STATE_HOME
	chmod 0644 "$CBEXEC_CONFIG"
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" status
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" status --prometheus
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" check x
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" config show
	assert_output --partial "$FALLBACK_NAME/state.mdb"
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" --version
	assert [ ! -e "$FALLBACK" ]
	# The first run makes it.
	run -0 as_nobody_vartmp env HOME=/nonexistent "$CBEXEC" run x -- true
	assert_equal "$(stat -c '%a %U' "$FALLBACK")" "700 nobody"
}

@test "a truncated state file: no SIGBUS; run follows on_store_error, others exit 1, file unchanged" {
	for i in 1 2 3 4 5 6; do
		cb run "b$i-$(name_of_len 150)" -- false 2>/dev/null || true
	done
	for i in $(seq 1 40); do
		cb trip "t$i-$(name_of_len 180)" >/dev/null
	done
	[ "$(stat -c %s "$CBEXEC_STATE")" -gt 8192 ]
	truncate -s 8192 "$CBEXEC_STATE"
	cp "$CBEXEC_STATE" before
	run -0 cb run b1 -- touch ran
	assert [ -e ran ]
	assert_output --partial "$CBEXEC_STATE"
	assert_output --partial unguarded
	run -7 cb run b1 -- sh -c 'exit 7'
	for cmd in status 'status --json' 'status --prometheus' 'check b1' \
	    'trip b1' 'reset b1' 'forget b1' 'gc --idle 1s' 'acquire b1'; do
		# shellcheck disable=SC2086 # the words of cmd are its arguments
		run -1 cb $cmd
		assert_output --partial "$CBEXEC_STATE"
		assert_output --partial truncated
	done
	config 'on_store_error = "closed";'
	run -125 cb run b1 -- touch ran2
	assert [ ! -e ran2 ]
	assert_output --partial "$CBEXEC_STATE"
	cmp before "$CBEXEC_STATE"
}

@test "HOME unset with XDG_STATE_HOME set: the state goes there" {
	# As another user: root's default is /var/lib/cbexec, not for a test.
	need_root
	nobody_dir
	chown nobody "$NOBODY_DIR"
	unset CBEXEC_STATE
	run -0 as_nobody env -u HOME XDG_STATE_HOME="$NOBODY_DIR/xdg" \
	    "$CBEXEC" run x -- true
	assert_output ''
	assert [ -e "$NOBODY_DIR/xdg/cbexec/state.mdb" ]
}

@test "a NAME of 200 bytes is accepted, 201 refused naming the length" {
	run -0 cb run "$(name_of_len 200)" -- true
	run -125 cb run "$(name_of_len 201)" -- touch ran
	assert [ ! -e ran ]
	assert_output --partial "201 bytes, at most 200"
	run -2 cb status "$(name_of_len 201)"
	run -0 json_field "$(name_of_len 200)" calls
	assert_output 1
}

@test "a huge argv (20000 arguments, 1 MB) reaches the command whole" {
	local -a args
	# One printf, no loop: bats traps every command a test runs.
	mapfile -t args < <(printf 'arg-%045d\n' {0..19999})
	"$CBEXEC" run big -- printf '%s\n' "${args[@]}" >out
	[ "$(wc -l <out)" -eq 20000 ]
	[ "$(tail -1 out)" = "${args[19999]}" ]
}

@test "the command missing: 127, counted as ignored, never trips the breaker" {
	for i in 1 2 3 4 5 6; do
		run -127 cb run m -- /nonexistent/cmd
	done
	run -0 json m '"\(.state) \(.ignored) \(.failures)"'
	assert_output "closed 6 0"
}
