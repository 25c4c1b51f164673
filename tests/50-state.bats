#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 50-state: the LMDB state file: where it is, the modes it gets, what
# happens when it is not LMDB (never written, on_store_error), many
# processes at once, and many breakers.

load helper

# garbage FILE: a file that is certainly not LMDB, and a copy to compare.
garbage() {
	printf 'this is not an lmdb file.\n%.0s' {1..256} >"$1"
	cp "$1" "$1.orig"
}

@test "-s names the state file and beats CBEXEC_STATE" {
	run -0 cb -s "$T/other.mdb" run x -- true
	assert [ -f "$T/other.mdb" ]
	assert [ ! -e "$CBEXEC_STATE" ]
	run -0 cb --state "$T/other.mdb" status --names
	assert_output x
	run -0 cb status --names
	assert_output ''
}

@test "CBEXEC_STATE names the state file" {
	export CBEXEC_STATE=$T/env.mdb
	run -0 cb run x -- true
	assert [ -f "$T/env.mdb" ]
}

@test "the config's state is used without -s and CBEXEC_STATE" {
	unset CBEXEC_STATE
	config "state = \"$T/from-config.mdb\";"
	run -0 cb run x -- true
	assert [ -f "$T/from-config.mdb" ]
}

@test "CBEXEC_STATE beats the config's state" {
	config "state = \"$T/from-config.mdb\";"
	run -0 cb run x -- true
	assert [ -f "$CBEXEC_STATE" ]
	assert [ ! -e "$T/from-config.mdb" ]
}

@test "missing directories of the state path are created" {
	run -0 cb -s "$T/a/b/c/state.mdb" run x -- true
	assert [ -f "$T/a/b/c/state.mdb" ]
	assert_equal "$(stat -c %a "$T/a/b/c")" 700
}

@test "the state file and its lock get mode 0600 whatever the umask" {
	umask 000
	run -0 cb run x -- true
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 600
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 600
}

@test "state_mode = 0660 is applied exactly under umask 077" {
	config 'state_mode = "0660";'
	umask 077
	run -0 cb -s "$T/shared/state.mdb" run x -- true
	assert_equal "$(stat -c %a "$T/shared/state.mdb")" 660
	assert_equal "$(stat -c %a "$T/shared/state.mdb-lock")" 660
	# The created directory lets the group reach the file.
	assert [ "$(($(stat -c '0%a' "$T/shared") & 010))" -ne 0 ]
}

@test "status on a missing state file shows nothing and does not create it" {
	run -0 cb status
	run -0 cb status --names
	assert_output ''
	assert [ ! -e "$CBEXEC_STATE" ]
}

@test "status on a missing state file creates no directories either" {
	run -0 cb -s "$T/no/such/dir/state.mdb" status
	assert [ ! -e "$T/no" ]
}

@test "a state path that is a directory: run warns and runs, status exits 1" {
	mkdir sdir
	run -0 cb -s "$T/sdir" run x -- touch marker
	assert [ -e marker ]
	assert_output --partial "$T/sdir"
	run -1 cb -s "$T/sdir" status
}

@test "an empty (0-byte) state file is taken as a new store" {
	: >"$CBEXEC_STATE"
	run -0 cb run x -- true
	run -0 cb status --names
	assert_output x
}

@test "a state file that is not LMDB: run runs the command unguarded and warns" {
	garbage "$CBEXEC_STATE"
	run --separate-stderr -3 cb run x -- sh -c 'touch marker; exit 3'
	assert [ -e marker ]
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$output" ''
	assert_regex "$stderr" "^cbexec: warning: .*'$CBEXEC_STATE'.*unguarded"
	cmp "$CBEXEC_STATE" "$CBEXEC_STATE.orig"
}

@test "a state file that is not LMDB: with on_store_error = closed run exits 125 and runs nothing" {
	config 'on_store_error = "closed";'
	garbage "$CBEXEC_STATE"
	run -125 cb run x -- touch marker
	assert [ ! -e marker ]
	assert_output --partial "$CBEXEC_STATE"
	cmp "$CBEXEC_STATE" "$CBEXEC_STATE.orig"
}

@test "a state file that is not LMDB: other commands exit 1 naming it and never write it" {
	garbage "$CBEXEC_STATE"
	run -1 cb status
	assert_output --partial "$CBEXEC_STATE"
	run -1 cb status --json
	run -1 cb check x
	run -1 cb trip x
	run -1 cb reset x
	run -1 cb forget x
	cmp "$CBEXEC_STATE" "$CBEXEC_STATE.orig"
}

@test "a state file that cannot be created: run warns and runs the command" {
	: >"$T/file"
	run -0 cb -s "$T/file/state.mdb" run x -- touch marker
	assert [ -e marker ]
	assert_output --partial "$T/file/state.mdb"
}

@test "a state file that cannot be created: with on_store_error = closed, 125" {
	config 'on_store_error = "closed";'
	: >"$T/file"
	run -125 cb -s "$T/file/state.mdb" run x -- touch marker
	assert [ ! -e marker ]
}

@test "the state file is plain LMDB" {
	run -0 cb run x -- true
	run -0 mdb_stat -n "$CBEXEC_STATE"
}

# meta_writes SYNC: run once with sync = SYNC (or the default when SYNC is
# empty) under strace, and print the synchronous writes of the commit:
# "fdatasync" for each flush of the data, "dsync" for each page written
# through LMDB's O_DSYNC descriptor (the meta page under sync = full).
meta_writes() {
	if [ -n "$1" ]; then config "sync = \"$1\";"; else config '# none'; fi
	run -0 cb run x -- true
	# LeakSanitizer cannot work under ptrace (the ASan pass).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -o trace -e trace=openat,pwrite64,fdatasync,fsync \
	    "$CBEXEC" run x -- true
	awk '{ sub(/^[0-9]+ +/, "") }
	    /O_DSYNC/ && / = [0-9]+$/ { d[$NF] = 1 }
	    /^fdatasync\(|^fsync\(/ { print "fdatasync" }
	    /^pwrite64\(/ { fd = substr($1, 10) + 0; if (fd in d) print "dsync" }' \
	    trace
}

@test "the default sync is meta: a commit is one synchronous write, the data's" {
	command -v strace >/dev/null || skip "no strace"
	run -0 meta_writes ''
	assert_output 'fdatasync'
	run -0 meta_writes meta
	assert_output 'fdatasync'
}

@test "sync = full adds the meta page's synchronous write; none makes none" {
	command -v strace >/dev/null || skip "no strace"
	run -0 meta_writes full
	assert_output "$(printf 'fdatasync\ndsync')"
	run -0 meta_writes none
	assert_output ''
}

@test "a record from a newer cbexec is refused naming file and breaker, and never rewritten" {
	run -0 cb run victim -- true
	run -0 cb run bystander -- true
	# Bump victim's record format version (after the magic CBRK) to 127.
	if ! mdb_dump -n -a "$CBEXEC_STATE" >dump 2>/dev/null || ! grep -q '^ ' dump; then
		mdb_dump -n "$CBEXEC_STATE" >dump
	fi
	grep -q '^ 4342524b[0-9a-f][0-9a-f]00' dump
	awk 'prev == " 76696374696d" { sub(/^ 4342524b[0-9a-f][0-9a-f]00/, " 4342524b7f00") }
	    { print; prev = $0 }' dump >dump.new
	run -1 cmp -s dump dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
	mdb_dump -n -a "$CBEXEC_STATE" >dump.before 2>/dev/null || mdb_dump -n "$CBEXEC_STATE" >dump.before
	run -1 cb status victim
	assert_output --partial "$CBEXEC_STATE"
	assert_output --partial victim
	run -1 cb trip victim
	config 'on_store_error = "closed";'
	run -125 cb run victim -- touch marker
	assert [ ! -e marker ]
	run -0 cb status bystander
	mdb_dump -n -a "$CBEXEC_STATE" >dump.after 2>/dev/null || mdb_dump -n "$CBEXEC_STATE" >dump.after
	cmp dump.before dump.after
}

@test "8 processes x 100 concurrent runs are all counted: calls = 800" {
	local i
	for i in 1 2 3 4 5 6 7 8; do
		bg "$i" bash -c 'for j in {1..100}; do "$CBEXEC" run shared -- true || exit $?; done'
	done
	WAIT_S=60 wait_for eval '[ "$(count rc.*)" -eq 8 ]'
	assert_equal "$(cat rc.* | sort -u)" 0
	assert_equal "$(json_field shared calls)" 800
	assert_equal "$(json_field shared successes)" 800
}

@test "3000 breakers with long names force the map to grow and all stay readable" {
	# sync = none: this is about the map, not about fsync.
	config 'sync = "none";'
	# Names made by one printf each: a loop runs bats' trap per command.
	local names
	mapfile -t names < <(printf 'breaker-%0190d\n' {0..1499})
	run -0 cb trip "${names[@]}"
	mapfile -t names < <(printf 'breaker-%0190d\n' {1500..2999})
	run -0 cb trip "${names[@]}"
	# Larger than LMDB's default 1 MiB map.
	assert [ "$(stat -c %s "$CBEXEC_STATE")" -gt 1048576 ]
	run -0 cb status --names
	assert_equal "${#lines[@]}" 3000
	assert_equal "${lines[0]}" "$(printf 'breaker-%0190d' 0)"
	assert_equal "${lines[2999]}" "$(printf 'breaker-%0190d' 2999)"
	status_json
	assert_equal "$(jq '[.[] | select(.state == "open")] | length' status.json)" 3000
	run -75 cb run "$(printf 'breaker-%0190d' 2999)" -- true
	run -0 cb run after-growth -- true
	run -0 mdb_stat -n "$CBEXEC_STATE"
}

@test "max_breakers evicts the least recently used breaker" {
	config 'max_breakers = 3;'
	ok_n a 1
	ok_n b 1
	ok_n c 1
	ok_n d 1
	run -0 cb status --names
	assert_output "$(printf 'b\nc\nd')"
}

@test "max_breakers evicts closed breakers before open ones" {
	config 'max_breakers = 3;'
	run -0 cb trip a
	ok_n b 1
	ok_n c 1
	ok_n d 1
	run -0 cb status --names
	assert_output "$(printf 'a\nc\nd')"
}

@test "a reader killed inside its read transaction leaves a stale slot that the next run clears" {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	command -v mdb_stat >/dev/null || skip "mdb_stat (lmdb-utils) is not installed"
	run -0 cb run x -- true
	# Two readers: one that lives on (while the environment is open
	# somewhere, LMDB keeps the reader table as it is) and one killed.
	mkfifo live.in dead.in
	"$HOLD_WRITER" -r "$CBEXEC_STATE" <live.in >live.out 3>&- &
	local live=$!
	echo "$live" >live.pid
	"$HOLD_WRITER" -r "$CBEXEC_STATE" <dead.in >dead.out 3>&- &
	local dead=$!
	echo "$dead" >dead.pid
	exec 4>live.in 5>dead.in
	WAIT_S=10 wait_for grep -q held live.out
	WAIT_S=10 wait_for grep -q held dead.out
	kill -9 "$dead"
	wait "$dead" 2>/dev/null || true
	exec 5>&-
	# The dead one's slot is still in the reader table.  (mdb_stat -r
	# exits 1 whenever it printed the table: its status says nothing.)
	run mdb_stat -n -r "$CBEXEC_STATE"
	assert_line --index 0 "Reader Table Status"
	assert_line --regexp "^ *$live +[0-9a-f]+ +[0-9]+$"
	assert_line --regexp "^ *$dead +[0-9a-f]+ +[0-9]+$"
	run -0 cb run x -- true
	run mdb_stat -n -r "$CBEXEC_STATE"
	assert_line --regexp "^ *$live +[0-9a-f]+ +[0-9]+$"
	refute_line --regexp "^ *$dead "
	exec 4>&-
	assert_equal "$(json_field x calls)" 2
}

@test "a config state with an unknown scheme or a relative path is a config error, not a path" {
	unset CBEXEC_STATE
	mkdir "$T/cwd"
	cd "$T/cwd"
	config 'state = "redis-sentinal://127.0.0.1:26379/mymaster/0";'
	run -1 cb config check
	assert_output "cbexec: $CBEXEC_CONFIG:1: state: unknown scheme 'redis-sentinal://': cbexec knows redis://, redis-sentinel:// and unix:, and file paths"
	run cb run x -- true
	assert_line --index 0 "cbexec: $CBEXEC_CONFIG:1: state: unknown scheme 'redis-sentinal://': cbexec knows redis://, redis-sentinel:// and unix:, and file paths"
	# Cron's working directory is not yours: nothing made there.
	config 'state = "var/state.mdb";'
	run -1 cb config check
	assert_output "cbexec: $CBEXEC_CONFIG:1: state: must be an absolute path or a Redis URL, not 'var/state.mdb' (cron's working directory is not yours)"
	run cb run x -- true
	assert_line --index 0 --partial "$CBEXEC_CONFIG:1: state: must be an absolute path"
	run -0 ls -A "$T/cwd"
	assert_output ''
	config "state = \"$T/abs.mdb\";"
	run -0 cb config check
}

@test "-s and CBEXEC_STATE with an unknown scheme are errors; their relative paths stay paths" {
	mkdir "$T/cwd"
	cd "$T/cwd"
	run -1 cb -s 'rediss://h:6379/0' status
	assert_output "cbexec: state from -s: unknown scheme 'rediss://': cbexec knows redis://, redis-sentinel:// and unix:, and file paths"
	CBEXEC_STATE='redis-sentinal://h/m/0' run -1 cb status
	assert_output --partial "state from \$CBEXEC_STATE: unknown scheme 'redis-sentinal://'"
	run -0 ls -A "$T/cwd"
	assert_output ''
	CBEXEC_STATE=rel.mdb run -0 cb run x -- true
	[ -e "$T/cwd/rel.mdb" ]
}

# hold_writer: another process takes the state's writer lock and keeps it
# until release_writer (HOLD_WRITER: tests/hold-writer.c).
hold_writer() {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	mkfifo hold.in
	"$HOLD_WRITER" "$CBEXEC_STATE" <hold.in >hold.out 3>&- &
	echo $! >holder.pid
	exec 8>hold.in
	wait_for grep -q held hold.out
}

release_writer() {
	exec 8>&-
	wait "$(cat holder.pid)"
}

@test "a writer that never lets go: past lock_timeout, run follows on_store_error, and other commands exit 1 naming the file" {
	config 'lock_timeout = "1s";' 'log = "none";'
	run -0 cb run x -- true
	hold_writer
	# timeout(1): 0.2.0 waited for ever.
	run -0 timeout 60 "$CBEXEC" run x -o max_concurrent=1 -- touch ran 8>&-
	assert_output --partial "state '$CBEXEC_STATE' stayed locked by another process for lock_timeout (1s)"
	assert_output --partial "running 'touch' unguarded"
	[ -e ran ]
	rm ran
	config 'lock_timeout = "1s";' 'log = "none";' 'on_store_error = "closed";'
	run -125 timeout 60 "$CBEXEC" run x -o max_concurrent=1 -- touch ran 8>&-
	assert_output --partial "refusing to run 'touch' (on_store_error = closed)"
	[ ! -e ran ]
	run -1 timeout 60 "$CBEXEC" reset x 8>&-
	assert_output --partial "state '$CBEXEC_STATE' stayed locked"
	# A closed breaker admits without the writer lock; its outcome is
	# not recorded, and said so.
	run -0 timeout 60 "$CBEXEC" run x -- true 8>&-
	assert_output --partial "stayed locked by another process"
	# Readers never wait for the writer.
	run -0 cb status --names 8>&-
	release_writer
	assert_equal "$(json_field x calls)" 1
}

@test "a lock file held exclusive by another process: opening the state waits lock_timeout at most" {
	command -v python3 >/dev/null || skip "no python3"
	config 'lock_timeout = "1s";' 'log = "none";'
	run -0 cb run x -- true
	mkfifo hold.in
	python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX, 1, 0)
print("held", flush=True)
sys.stdin.read()' "$CBEXEC_STATE-lock" <hold.in >hold.out 3>&- &
	echo $! >holder.pid
	exec 8>hold.in
	wait_for grep -q held hold.out
	run -1 timeout 60 "$CBEXEC" status 8>&-
	assert_output --partial "state '$CBEXEC_STATE' stayed locked by another process for lock_timeout (1s)"
	run -0 timeout 60 "$CBEXEC" run x -- true 8>&-
	assert_output --partial "running 'true' unguarded"
	release_writer
	assert_equal "$(json_field x calls)" 1
}

@test "a writer SIGKILLed while it holds the writer lock: the next run repairs the lock (LMDB, through cbexec's own pthread_mutex_lock) and records" {
	config 'lock_timeout = "2s";' 'log = "none";'
	run -0 cb run x -- true
	# A reader that lives on keeps the environment open: else the next
	# opener would find itself alone and make the locks afresh.
	mkfifo live.in
	"$HOLD_WRITER" -r "$CBEXEC_STATE" <live.in >live.out 3>&- &
	echo $! >live.pid
	exec 4>live.in
	wait_for grep -q held live.out
	hold_writer
	kill -KILL "$(cat holder.pid)"
	wait "$(cat holder.pid)" || true
	exec 8>&-
	# EOWNERDEAD is LMDB's to repair, not a lock to wait lock_timeout for.
	run -0 timeout 60 "$CBEXEC" run x -- true 4>&-
	refute_output --partial "locked"
	run -0 timeout 60 "$CBEXEC" reset x 4>&-
	exec 4>&-
	wait "$(cat live.pid)"
	assert_equal "$(json_field x calls)" 2
}

@test "a writer that never lets go is waited for lock_timeout, not ten times that" {
	config 'lock_timeout = "1s";' 'log = "none";'
	run -0 cb run x -- true
	hold_writer
	t0=$(date +%s%N)
	run -1 timeout 60 "$CBEXEC" reset x 8>&-
	ms=$((($(date +%s%N) - t0) / 1000000))
	release_writer
	assert_output --partial "stayed locked by another process for lock_timeout (1s)"
	# Generous bounds: the wait is one lock_timeout, in 20 ms slices.
	[ "$ms" -ge 900 ] || fail "gave up after $ms ms, before lock_timeout"
	[ "$ms" -lt 8000 ] || fail "waited $ms ms for a 1s lock_timeout"
}

# live_reader: a reader that lives on until fd 4 closes keeps the
# environment open, so that no opener finds itself alone and makes the
# locks afresh (which would undo what a test did to the lock file).
live_reader() {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	mkfifo live.in
	"$HOLD_WRITER" -r "$CBEXEC_STATE" <live.in >live.out 3>&- &
	echo $! >live.pid
	exec 4>live.in
	wait_for grep -q held live.out
}

end_live_reader() {
	exec 4>&-
	wait "$(cat live.pid)"
}

@test "a writer lock of a kind LMDB never makes (priority protection, written into the lock file): refused naming the state, no abort" {
	config 'lock_timeout = "1s";' 'log = "none";' 'defaults = { max_concurrent = 1; };' \
	    'on_store_error = "closed";'
	run -0 cb run x -- true
	live_reader
	"$HOLD_WRITER" -k 192 "$CBEXEC_STATE"
	run -125 timeout 60 "$CBEXEC" run x -- touch ran 4>&-
	assert_output "cbexec: state '$CBEXEC_STATE': its lock file holds a lock of a kind LMDB never makes (written by another process?); refusing it; refusing to run 'touch' (on_store_error = closed)"
	[ ! -e ran ]
	run -1 timeout 60 "$CBEXEC" reset x 4>&-
	assert_output --partial "state '$CBEXEC_STATE': its lock file holds a lock of a kind LMDB never makes"
	config 'lock_timeout = "1s";' 'log = "none";' 'defaults = { max_concurrent = 1; };'
	run -0 timeout 60 "$CBEXEC" run x -- touch ran 4>&-
	assert_output --partial "running 'touch' unguarded"
	[ -e ran ]
	end_live_reader
}

# stuck_repair: a run waiting for a run slot (--wait) meets a writer lock
# whose owner died (SIGKILLed) while a stale reader is in the table and
# another process holds the reader table's lock: LMDB's repair waits for
# that lock.  Leaves the run's pid in run.pid, the holder's stdin on fd 7.
stuck_repair() {
	run -0 cb run x -- true
	live_reader
	run -0 cb acquire x
	"$CBEXEC" -v run x --wait 1h -- touch ran 4>&- 2>run.err &
	echo $! >run.pid
	wait_for grep -q "busy, waiting" run.err
	mkfifo stale.in held.in
	"$HOLD_WRITER" -r "$CBEXEC_STATE" <stale.in >stale.out 3>&- 4>&- &
	echo $! >stale.pid
	exec 5>stale.in
	wait_for grep -q held stale.out
	kill -KILL "$(cat stale.pid)"
	wait "$(cat stale.pid)" || true
	exec 5>&-
	"$HOLD_WRITER" -R "$CBEXEC_STATE" <held.in >held.out 3>&- 4>&- &
	echo $! >held.pid
	exec 7>held.in
	wait_for grep -q held held.out
	hold_writer 4>&- 7>&-
	kill -KILL "$(cat holder.pid)"
	wait "$(cat holder.pid)" || true
	exec 8>&-
}

# repaired: once the reader table is free, the next writer repairs the
# lock and records (a lock left unrepaired is not recoverable: every
# later write fails).
repaired() {
	exec 7>&-
	wait "$(cat held.pid)"
	run -1 timeout 60 "$CBEXEC" run x -o max_concurrent=0 -- false 4>&-
	refute_output --partial "recoverable"
	refute_output --partial "not recorded"
	end_live_reader
	assert_equal "$(json_field x failures)" 1
}

@test "LMDB's repair of a dead writer's lock waiting for a reader table held elsewhere ends by lock_timeout: the job runs unguarded, the next writer repairs" {
	config 'lock_timeout = "1s";' 'log = "none";' 'defaults = { max_concurrent = 1; };'
	stuck_repair
	t0=$(date +%s%N)
	WAIT_S=8 wait_for eval '! alive "$(cat run.pid)"'
	ms=$((($(date +%s%N) - t0) / 1000000))
	wait "$(cat run.pid)"
	[ "$ms" -lt 8000 ] || fail "still waiting after $ms ms"
	run cat run.err
	assert_output --partial "repairing the lock of a writer that died, LMDB waited lock_timeout (1s) for the reader table, locked by another process; left for the next writer; running 'touch' unguarded"
	[ -e ran ]
	repaired
}

@test "the same with on_store_error = closed: exit 125, the job never runs, the next writer repairs" {
	config 'lock_timeout = "1s";' 'log = "none";' 'defaults = { max_concurrent = 1; };' \
	    'on_store_error = "closed";'
	stuck_repair
	WAIT_S=8 wait_for eval '! alive "$(cat run.pid)"'
	run -125 wait "$(cat run.pid)"
	run cat run.err
	assert_output --partial "left for the next writer; refusing to run 'touch' (on_store_error = closed)"
	[ ! -e ran ]
	repaired
}

@test "lock_timeout is a duration from 1ms to 1h; config show names it" {
	config 'lock_timeout = "250ms";'
	run -0 cb config show
	assert_output --regexp 'lock_timeout +"250ms" +.*cbexec.conf:1'
	config 'lock_timeout = "2h";'
	run -1 cb config check
	assert_output --partial 'lock_timeout: must be a duration from 1ms to 1h'
	config 'lock_timout = "1s";'
	run -1 cb config check
	assert_output --partial 'lock_timeout'
	: >"$CBEXEC_CONFIG"
	run -0 cb config show
	assert_output --regexp 'lock_timeout +"10s" +built-in'
}

@test "many processes opening a new state at once: none finds it 'not LMDB' and runs unguarded" {
	# LMDB writes a new file's meta pages after opening it and reads them
	# without a lock: the others wait for them, and never unlink the lock
	# file the maker shares.  A race, so many rounds of 8 first opens.
	local round id n
	for round in $(seq 1 20); do
		mkdir "fresh.$round"
		for id in 1 2 3 4 5 6 7 8; do
			"$CBEXEC" -s "$T/fresh.$round/state.mdb" run x \
			    -o max_concurrent=8 -- true \
			    2>>"$T/fresh.err" 3>&- &
		done
		wait
		n=$(CBEXEC_STATE="$T/fresh.$round/state.mdb" json x .calls)
		[ "$n" = 8 ] ||
		    fail "round $round: $n of 8 runs recorded: $(cat "$T/fresh.err")"
	done
	assert_equal "$(cat "$T/fresh.err")" ''
}
