#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 91-security: file modes, the root config check, no shell anywhere, no
# descriptor leaks, no secrets on display.

load helper
load plant

setup() {
	common_setup
	NOBODY_DIR=
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (setpriv, chown)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	getent group nogroup >/dev/null || skip "no group nogroup"
}

# as_member CMD...: CMD as user nobody in group nogroup, the group of the
# shared directory that shared_dir makes.
as_member() {
	setpriv --reuid nobody --regid nogroup --clear-groups "$@"
}

# shared_dir MODE: a directory root:nogroup of MODE in $NOBODY_DIR, with a
# config (state_mode 0660) that user nobody can read; victim files of
# root's in $T.
shared_dir() {
	NOBODY_DIR=$(mktemp -d /tmp/cbexec-shared.XXXXXX)
	chgrp nogroup "$NOBODY_DIR"
	chmod "$1" "$NOBODY_DIR"
	export CBEXEC_CONFIG=$NOBODY_DIR/c.conf
	printf 'state_mode = "0660";\nlog = "none";\n' >"$CBEXEC_CONFIG"
	export CBEXEC_STATE=$NOBODY_DIR/state.mdb
	head -c 8192 /dev/urandom >"$T/victim"
	cp "$T/victim" "$T/victim.orig"
}

# shared_ns MEMBERS: the head of $T/ns.sh, a script for `unshare -m`
# that gives itself a private /var/lib and /var/tmp, a group database of
# its own whose group cbexec (the host's, if any, is not this one) lists
# MEMBERS, and /var/lib/cbexec root:cbexec 3770, as the package makes it.
shared_ns() {
	local gid=64000
	while getent group "$gid" >/dev/null; do gid=$((gid + 1)); done
	grep -v '^cbexec:' /etc/group >"$T/group"
	echo "cbexec:x:$gid:$1" >>"$T/group"
	cat >"$T/ns.sh" <<'EOS'
		mount --make-rprivate / && mount -t tmpfs tmpfs /var/lib &&
		    mount -t tmpfs -o mode=1777 tmpfs /var/tmp &&
		    mount --bind "$T/group" /etc/group || exit 99
		mkdir /var/lib/cbexec && chown root:cbexec /var/lib/cbexec &&
		    chmod 3770 /var/lib/cbexec || exit 98
		unset CBEXEC_STATE CBEXEC_CONFIG XDG_STATE_HOME XDG_CONFIG_HOME
EOS
}

teardown() {
	[ -n "$NOBODY_DIR" ] && rm -rf "$NOBODY_DIR"
	common_teardown
}

@test "state and lock files are 0600 by default, even under umask 0" {
	umask 0
	run -0 cb run x -- true
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 600
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 600
}

@test "state_mode = 0640 is honoured exactly under umask 077" {
	config 'state_mode = "0640";'
	umask 077
	run -0 cb run x -- true
	assert_equal "$(stat -c %a "$CBEXEC_STATE")" 640
	assert_equal "$(stat -c %a "$CBEXEC_STATE-lock")" 640
}

@test "as root, a group- or other-writable config file is refused: run stays guarded, the rest work" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	for m in 0664 0646; do
		chmod "$m" "$CBEXEC_CONFIG"
		run -0 cb run x -- touch ran
		assert [ -e ran ]
		rm ran
		assert_output --partial "writable by group or others"
		run -0 cb status
		assert_output --partial "writable by group or others"
	done
	chmod 0644 "$CBEXEC_CONFIG"
	assert_equal "$(json_field x calls)" 2
}

@test "as another user, a world-writable config file is accepted" {
	[ "$(id -u)" = 0 ] || skip "needs root for setpriv"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	NOBODY_DIR=$(mktemp -d /tmp/cbexec-sec.XXXXXX)
	chmod 1777 "$NOBODY_DIR"
	printf 'log = "none";\n' >"$NOBODY_DIR/c.conf"
	chmod 0666 "$NOBODY_DIR/c.conf"
	run -0 setpriv --reuid nobody --regid nogroup --clear-groups \
	    env CBEXEC_CONFIG="$NOBODY_DIR/c.conf" \
	    CBEXEC_STATE="$NOBODY_DIR/state.mdb" "$CBEXEC" run x -- true
	assert_output ''
}

@test "arguments never pass through a shell" {
	run -0 cb run x -- printf '%s|' '$(touch pwned1)' '`touch pwned2`' ';' 'touch pwned3' '&&' '*'
	assert_output '$(touch pwned1)|`touch pwned2`|;|touch pwned3|&&|*|'
	assert [ ! -e pwned1 ]
	assert [ ! -e pwned2 ]
	assert [ ! -e pwned3 ]
}

@test "a NAME with shell syntax is refused before anything runs" {
	run -125 cb run '$(touch pwned)' -- touch ran
	run -125 cb run 'a;touch pwned' -- touch ran
	assert [ ! -e pwned ]
	assert [ ! -e ran ]
}

@test "hook argv and variables never pass through a shell" {
	config 'log = "none";' \
	    "on_transition = [ \"$T/hook.sh\", \"\$(touch pwned1)\", \";touch pwned2\" ];"
	printf '#!/bin/sh\nprintf "%%s\\n" "$@" "$CBEXEC_REASON" >>"%s/hook.out"\n' "$T" >hook.sh
	chmod +x hook.sh
	run -0 cb trip x --reason '$(touch pwned3); `touch pwned4`'
	wait_for test -s hook.out
	run cat hook.out
	assert_line '$(touch pwned1)'
	assert_line ';touch pwned2'
	assert_output --partial '$(touch pwned3); `touch pwned4`'
	for i in 1 2 3 4; do assert [ ! -e "pwned$i" ]; done
}

@test "the command and the hook inherit no descriptor of cbexec's" {
	# ls lists its own directory descriptor (3) too, and nothing else.
	# Descriptors the caller passed (7 here) reach the command only.
	config 'log = "none";' 'on_transition = [ "/bin/ls", "/proc/self/fd" ];'
	run -0 bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done
	    exec 7</dev/null
	    exec "$CBEXEC" run x -- /bin/ls /proc/self/fd'
	assert_output "$(printf '0\n1\n2\n3\n7')"
	run -0 bash -c 'exec 7</dev/null; exec "$CBEXEC" -q trip x'
	assert_output "$(printf '0\n1\n2\n3')"
}

@test "a CBEXEC_REDIS_PASSWORD in the environment appears in neither argv nor status" {
	export CBEXEC_REDIS_PASSWORD=s3cr3t-pw
	bg a cb run x -- sh -c 'echo $PPID >cb.pid; exec sleep 30'
	wait_for test -s cb.pid
	run -0 tr '\0' ' ' <"/proc/$(cat cb.pid)/cmdline"
	refute_output --partial s3cr3t
	run -0 cb status --json
	refute_output --partial s3cr3t
	run -0 cb status x
	refute_output --partial s3cr3t
	kill -TERM "$(cat cb.pid)"
	bg_wait a
}

@test "started with stdin and stderr closed, cbexec writes no message into its state file" {
	run -0 cb trip x
	# The refusal line goes to fd 2: it must not be the state file.
	"$CBEXEC" run x -- true <&- 2>&- && rc=0 || rc=$?
	assert_equal "$rc" 75
	run -0 cb status --json
	run -1 grep -c 'circuit open' "$CBEXEC_STATE"
}

@test "a member of a sticky shared directory swaps its lock file for a symlink: root refuses it, the victim is unchanged" {
	need_root
	shared_dir 3770
	run -1 as_member "$CBEXEC" run x -- false
	assert_equal "$(stat -c '%a %U %G' "$CBEXEC_STATE-lock")" "660 nobody nogroup"
	run -0 as_member rm "$CBEXEC_STATE-lock"
	run -0 as_member ln -s "$T/victim" "$CBEXEC_STATE-lock"
	run -0 cb run x -- touch "$T/ran"
	assert [ -e "$T/ran" ]
	assert_output --partial "'$CBEXEC_STATE-lock' is a symbolic link"
	assert_output --partial unguarded
	run -1 cb status
	assert_output --partial "'$CBEXEC_STATE-lock' is a symbolic link"
	run -1 cb trip x
	cmp "$T/victim.orig" "$T/victim"
	assert [ -L "$CBEXEC_STATE-lock" ]
}

@test "a member swaps its data file for a symlink: root refuses it and creates no target" {
	need_root
	shared_dir 3770
	run -1 as_member "$CBEXEC" run x -- false
	run -0 as_member mv "$CBEXEC_STATE" "$NOBODY_DIR/moved.mdb"
	run -0 as_member ln -s "$T/target" "$CBEXEC_STATE"
	run -0 cb run x -- true
	assert_output --partial "'$CBEXEC_STATE' is a symbolic link"
	assert_output --partial unguarded
	run -1 cb status
	assert_output --partial "'$CBEXEC_STATE' is a symbolic link"
	assert [ ! -e "$T/target" ]
	run -0 as_member ln -sf "$T/victim" "$CBEXEC_STATE"
	run -0 cb run x -- true
	run -1 cb status
	cmp "$T/victim.orig" "$T/victim"
}

@test "a symlink planted before the files exist is refused too" {
	need_root
	shared_dir 3770
	run -0 as_member ln -s "$T/victim" "$CBEXEC_STATE-lock"
	run -0 cb run x -- true
	assert_output --partial "'$CBEXEC_STATE-lock' is a symbolic link"
	cmp "$T/victim.orig" "$T/victim"
	assert [ ! -e "$CBEXEC_STATE" ]
}

@test "root's files in a sticky shared directory are the member's to use, not to replace" {
	need_root
	shared_dir 3770
	run -1 cb run x -- false
	assert_equal "$(stat -c '%a %U %G' "$CBEXEC_STATE")" "660 root nogroup"
	run -1 as_member "$CBEXEC" run x -- false
	run -1 as_member rm -f "$CBEXEC_STATE-lock"
	run -1 as_member mv "$CBEXEC_STATE" "$NOBODY_DIR/moved"
	run -0 json_field x failures
	assert_output 2
}

@test "a group-writable state directory without the sticky bit (0.1's 0770) is refused, naming it" {
	need_root
	shared_dir 0755
	run -0 cb run x -- true
	chmod 0770 "$NOBODY_DIR"
	run -0 as_member rm -f "$CBEXEC_STATE-lock"
	run -0 as_member ln -s "$T/victim" "$CBEXEC_STATE-lock"
	run -0 cb run x -- true
	assert_output --partial "directory '$NOBODY_DIR' is writable by its group and not sticky"
	assert_output --partial unguarded
	run -1 cb status
	assert_output --partial "$NOBODY_DIR"
	cmp "$T/victim.orig" "$T/victim"
	chmod 0777 "$NOBODY_DIR"
	run -1 cb status
	assert_output --partial "directory '$NOBODY_DIR' is writable by others and not sticky"
}

@test "a state directory owned by another user is refused, naming it" {
	need_root
	shared_dir 0755
	chown nobody "$NOBODY_DIR"
	run -0 cb run x -- true
	assert_output --partial "directory '$NOBODY_DIR' is owned by uid $(id -u nobody)"
	assert [ ! -e "$CBEXEC_STATE" ]
}

@test "a state or lock file with a second hard link is refused" {
	run -0 cb run x -- true
	ln "$CBEXEC_STATE-lock" "$T/hard"
	run -1 cb status
	assert_output --partial "'$CBEXEC_STATE-lock' has 2 hard links"
	rm "$T/hard"
	ln "$CBEXEC_STATE" "$T/hard"
	run -1 cb status
	assert_output --partial "'$CBEXEC_STATE' has 2 hard links"
}

@test "as root, a config owned by another user is refused and its hook never runs" {
	need_root
	shared_dir 0755
	printf 'log = "none";\non_transition = [ "/usr/bin/touch", "%s/hooked" ];\n' \
	    "$T" >"$CBEXEC_CONFIG"
	chmod 0644 "$CBEXEC_CONFIG"
	chown nobody "$CBEXEC_CONFIG"
	run -0 cb trip x
	assert_output --partial "config '$CBEXEC_CONFIG' is owned by uid $(id -u nobody)"
	run -0 cb status
	assert_output --partial "config '$CBEXEC_CONFIG' is owned by uid $(id -u nobody)"
	run -75 cb run x -- false
	assert_output --partial "config '$CBEXEC_CONFIG'"
	run -0 cb reset x
	run -1 cb run x -- false
	assert [ ! -e "$T/hooked" ]
	chown root "$CBEXEC_CONFIG"
	run -0 cb trip x
	wait_for test -e "$T/hooked"
}

@test "a user refuses a config owned by another user, and accepts root's" {
	need_root
	id daemon >/dev/null 2>&1 || skip "no user daemon"
	shared_dir 1777
	chown daemon "$CBEXEC_CONFIG"
	run -0 as_member "$CBEXEC" status
	assert_output --partial "config '$CBEXEC_CONFIG' is owned by uid $(id -u daemon)"
	chown root "$CBEXEC_CONFIG"
	run -0 as_member "$CBEXEC" status
}

@test "members of the group cbexec share /var/lib/cbexec/state.mdb (0660) with root, and cannot plant a symlink there" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	head -c 8192 /dev/urandom >"$T/victim"
	cp "$T/victim" "$T/victim.orig"
	# In a private mount namespace: a blank /var/lib, /var/tmp (the
	# stranger's fallback) and a group cbexec of its own.
	shared_ns ''
	cat >>"$T/ns.sh" <<'EOS'
		S=/var/lib/cbexec/state.mdb
		member() {
			setpriv --reuid nobody --regid nogroup --groups cbexec \
			    env HOME=/nonexistent "$CBEXEC" "$@"
		}
		stranger() {
			setpriv --reuid nobody --regid nogroup --clear-groups \
			    env HOME=/nonexistent "$CBEXEC" "$@"
		}
		member run m -- false; echo "member run $?"
		"$CBEXEC" run r -- false; echo "root run $?"
		echo "root sees $("$CBEXEC" status --names | tr '\n' ' ')"
		echo "member sees $(member status --names | tr '\n' ' ')"
		echo "stranger sees $(stranger status --names 2>/dev/null | tr '\n' ' ')"
		echo "modes $(stat -c '%a:%U:%G' "$S" "$S-lock" | tr '\n' ' ')"
		setpriv --reuid nobody --regid nogroup --groups cbexec \
		    sh -c "rm -f $S-lock && ln -s $T/victim $S-lock"
		"$CBEXEC" run r -- true 2>"$T/ns.err"; echo "root run $?"
		"$CBEXEC" status >/dev/null 2>>"$T/ns.err"; echo "root status $?"
EOS
	T=$T run -0 private_etc bash "$T/ns.sh"
	assert_line "member run 1"
	assert_line "root run 1"
	assert_line "root sees m r "
	assert_line "member sees m r "
	assert_line "stranger sees "
	assert_line "modes 660:nobody:cbexec 660:nobody:cbexec "
	assert_line "root run 0"
	assert_line "root status 1"
	run -0 cat "$T/ns.err"
	assert_output --partial "'/var/lib/cbexec/state.mdb-lock' is a symbolic link"
	cmp "$T/victim.orig" "$T/victim"
}

@test "a file a member makes in a sticky shared directory without setgid gets the directory's group" {
	need_root
	getent group daemon >/dev/null || skip "no group daemon"
	shared_dir 1770
	run -1 setpriv --reuid nobody --regid daemon --groups nogroup \
	    "$CBEXEC" run x -- false
	assert_equal "$(stat -c '%a %U %G' "$CBEXEC_STATE")" "660 nobody nogroup"
	assert_equal "$(stat -c '%a %U %G' "$CBEXEC_STATE-lock")" "660 nobody nogroup"
	run -1 cb run x -- false
	run -0 json_field x failures
	assert_output 2
}

@test "a lock file swapped for a symlink while LMDB opens the state: LMDB still gets the file checked" {
	command -v strace >/dev/null || skip "no strace"
	run -0 cb run x -- true
	head -c 8192 /dev/urandom >victim
	cp victim victim.orig
	# Hold cbexec for 2 s right after it made its second link for LMDB,
	# the lock file's: between its checks and LMDB's open(2).
	# LeakSanitizer cannot work under ptrace (the ASan pass).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    bg a strace -o trace -e trace=symlink \
	    -e inject=symlink:delay_exit=2000000:when=2 \
	    "$CBEXEC" run x -- true
	wait_for grep -q 'state-lock' trace
	rm "$CBEXEC_STATE-lock"
	ln -s "$T/victim" "$CBEXEC_STATE-lock"
	bg_wait a
	assert_equal "$(bg_rc a)" 0
	# The outcome's operation opens the state again, by the path, and
	# meets the symlink there (SPEC 5, Containers: nothing is held open
	# while the command runs).
	run -0 cat "$T/err.a"
	assert_output "cbexec: warning: state lock file '$CBEXEC_STATE-lock' is a symbolic link; refusing to follow it; outcome of 'true' not recorded"
	cmp victim.orig victim
	run -1 cb status
	assert_output --partial "'$CBEXEC_STATE-lock' is a symbolic link"
}

@test "without /proc to pin the files through, the state is not opened by name: on_store_error, and symlinks are still refused" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	run -0 cb run x -- true
	head -c 8192 /dev/urandom >victim
	cp victim victim.orig
	cat >ns.sh <<'EOS'
		mount --make-rprivate / && mount -t tmpfs tmpfs /proc || exit 99
		# The sanitizer pass: ASan reads its options from
		# /proc/self/environ, not from environ, and LeakSanitizer reads
		# /proc at exit, dying with a status of its own that hides
		# cbexec's.  A plain file there, with leak checks off, and still
		# no /proc/self/fd to pin through.  Without /proc/self/maps ASan
		# warns that it cannot see the stack: on stderr, not as a report
		# file (log_path) that fails the pass; a real error still exits
		# 86, which the statuses below catch.
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:log_path=stderr"
		mkdir /proc/self && env -0 >/proc/self/environ || exit 99
		# A /dev/shm of its own: a pin left there by a cbexec that
		# another test SIGKILLed before it removed it is not ours.
		[ ! -d /dev/shm ] || mount -t tmpfs tmpfs /dev/shm || exit 99
		"$CBEXEC" run x -- false; echo "run $?"
		ls -A /dev/shm /tmp 2>/dev/null | grep -c cbexec-open; echo "pins left"
		"$CBEXEC" status; echo "status $?"
		echo 'on_store_error = "closed";' >"$CBEXEC_CONFIG"
		"$CBEXEC" run x -- touch ran; echo "closed run $?"
		: >"$CBEXEC_CONFIG"
		rm "$CBEXEC_STATE-lock" && ln -s "$PWD/victim" "$CBEXEC_STATE-lock"
		"$CBEXEC" status 2>&1; echo "symlink status $?"
EOS
	run -0 --separate-stderr unshare -m bash ns.sh
	assert_line "run 1"
	assert_line "0"
	assert_line "status 1"
	assert_line "closed run 125"
	assert_line --partial "'$CBEXEC_STATE-lock' is a symbolic link"
	assert_line "symlink status 1"
	[ ! -e ran ]
	cmp victim.orig victim
	# Unguarded, by the warning's word: nothing was recorded.
	run -0 grep -c "cannot pin it for LMDB (No such file or directory); refusing to open it by name" <<<"$stderr"
	assert_output 3
	run -0 grep -c "running 'false' unguarded" <<<"$stderr"
	assert_output 1
}

# full_pins_sh: the start of a script for `unshare -m`: /dev/shm and /tmp
# of its own, tiny tmpfs whose inodes are all taken, as a member of the
# group can do to the real ones.  The test's directory ($T, under /tmp)
# stays reachable as $R, where the script then works, and the binary
# under test (a copy under /tmp, setup_suite.bash) as $CBEXEC.
full_pins_sh='
	mount --make-rprivate / || exit 99
	mount --bind /tmp /mnt || exit 97
	R=$T
	case $T in /tmp/*) R=/mnt${T#/tmp} ;; esac
	case $CBEXEC in /tmp/*) CBEXEC=/mnt${CBEXEC#/tmp} ;; esac
	for d in /dev/shm /tmp; do
		mount -t tmpfs -o nr_inodes=16,size=64k tmpfs "$d" || exit 99
		i=0
		while : 2>/dev/null >"$d/fill.$i"; do i=$((i + 1)); done
		mkdir "$d/probe" 2>/dev/null && exit 98
	done
	export CBEXEC_STATE=$R/state.mdb CBEXEC_CONFIG=$R/cbexec.conf HOME=$R/home
	cd "$R" || exit 96
'

@test "a state that cannot be pinned (/dev/shm and /tmp full) is never opened by name: on_store_error, and the lock file is never swapped for a victim" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	command -v python3 >/dev/null || skip "no python3"
	[ -d /mnt ] || skip "no /mnt to keep the test's directory in sight"
	run -0 cb run x -- true
	head -c 8192 /dev/urandom >victim
	cp victim victim.orig
	ln -s victim lnk
	cat >ns.sh <<EOS
		$full_pins_sh
		"\$CBEXEC" run x -- true; echo "run \$?"
		"\$CBEXEC" status; echo "status \$?"
		"\$CBEXEC" reset x; echo "reset \$?"
		# The race of issue 18: the lock file and a symlink to a victim
		# swapped in a loop, while root runs cbexec over and over.
		python3 "$BATS_TEST_DIRNAME/fixtures/swap-loop.py" \
		    "\$CBEXEC_STATE-lock" lnk 3 >swaps &
		end=\$((SECONDS + 3))
		while [ \$SECONDS -lt \$end ]; do
			"\$CBEXEC" status >/dev/null 2>&1
			"\$CBEXEC" run x -- true >/dev/null 2>&1
		done
		wait
EOS
	T=$T run -0 --separate-stderr unshare -m bash ns.sh
	cmp victim.orig victim
	assert_line "run 0"
	assert_line "status 1"
	assert_line "reset 1"
	[ ! -L "$CBEXEC_STATE-lock" ]
	run -0 grep -c "cannot pin it for LMDB (No space left on device); refusing to open it by name" <<<"$stderr"
	assert_output 3
	# Nothing recorded: the one call before.
	run -0 json_field x calls
	assert_output 1
}

@test "the lock file swapped with a symlink in a loop while cbexec runs: LMDB only ever gets the file checked" {
	command -v python3 >/dev/null || skip "no python3"
	run -0 cb run x -- true
	head -c 8192 /dev/urandom >victim
	cp victim victim.orig
	ln -s "$T/victim" lnk
	python3 "$BATS_TEST_DIRNAME/fixtures/swap-loop.py" \
	    "$CBEXEC_STATE-lock" lnk 3 >swaps &
	echo $! >swap.pid
	local n=0 end=$((SECONDS + 3))
	while [ $SECONDS -lt $end ]; do
		"$CBEXEC" status >/dev/null 2>&1 && n=$((n + 1))
		"$CBEXEC" run x -- true >/dev/null 2>&1
	done
	wait "$(cat swap.pid)"
	cmp victim.orig victim
	[ ! -L "$CBEXEC_STATE-lock" ]
	run -0 cb status
}

@test "the pins are removed: none is left in /dev/shm after runs, refusals and failures" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	cat >ns.sh <<'EOS'
		mount --make-rprivate / && mount -t tmpfs tmpfs /dev/shm || exit 99
		"$CBEXEC" run x -- true
		"$CBEXEC" run x -- false
		"$CBEXEC" trip x
		"$CBEXEC" run x -- true
		"$CBEXEC" status >/dev/null
		echo "not lmdb" >bad.mdb
		CBEXEC_STATE=$PWD/bad.mdb "$CBEXEC" status
		echo "pins $(ls -A /dev/shm | grep -c cbexec-open)"
EOS
	run -0 unshare -m bash ns.sh
	assert_line "pins 0"
}

@test "a member of group cbexec whose process lacks the group is told its state splits, with the fix" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	id daemon >/dev/null 2>&1 || skip "no user daemon"
	# nobody is a member in the group database; daemon is not.
	shared_ns nobody
	cat >>"$T/ns.sh" <<'EOS'
		# A session older than usermod -aG: no supplementary group.
		setpriv --reuid nobody --regid nogroup --clear-groups \
		    env HOME=/nonexistent "$CBEXEC" run s -- true 2>"$T/split.err"
		echo "split run $?"
		setpriv --reuid nobody --regid nogroup --clear-groups \
		    env HOME=/nonexistent "$CBEXEC" status 2>"$T/split-status.err"
		setpriv --reuid nobody --regid nogroup --clear-groups \
		    env HOME=/nonexistent "$CBEXEC" -q run s -- true 2>"$T/quiet.err"
		# With the group: the shared state, nothing said.
		setpriv --reuid nobody --regid nogroup --groups cbexec \
		    env HOME=/nonexistent "$CBEXEC" run m -- true 2>"$T/member.err"
		echo "member run $?"
		# Not a member at all: its private state is no surprise.
		setpriv --reuid daemon --regid daemon --clear-groups \
		    env HOME=/nonexistent "$CBEXEC" run d -- true 2>"$T/stranger.err"
		echo "stranger run $?"
		"$CBEXEC" config show >"$T/show.out" 2>&1
EOS
	T=$T run -0 private_etc bash "$T/ns.sh"
	assert_line "split run 0"
	assert_line "member run 0"
	assert_line "stranger run 0"
	local want="cbexec: you are in group 'cbexec' but this process is not (a session older than 'usermod -aG', or a unit without SupplementaryGroups=); using the private state /var/tmp/cbexec-$(id -u nobody)/state.mdb; log in again or add SupplementaryGroups=cbexec"
	run -0 cat "$T/split.err"
	assert_output "$want"
	run -0 cat "$T/split-status.err"
	assert_line --index 0 "$want"
	run -0 cat "$T/quiet.err"
	assert_output ''
	run -0 cat "$T/member.err"
	assert_output ''
	run -0 cat "$T/stranger.err"
	assert_output ''
	# config show: the mode the shared state's files really get.
	run -0 cat "$T/show.out"
	assert_line --regexp '^state +/var/lib/cbexec/state.mdb +built-in$'
	assert_line --regexp "^state_mode +\"0660\" +built-in, for group cbexec's shared state$"
}

@test "an exporter outside group cbexec is told the shared state is not its to read, and exports cbexec_state_readable 0" {
	need_root
	command -v unshare >/dev/null || skip "no unshare"
	id daemon >/dev/null 2>&1 || skip "no user daemon"
	shared_ns ''
	cat >>"$T/ns.sh" <<'EOS'
		"$CBEXEC" -c /dev/null run api -- true || exit 97
		as_daemon() {
			setpriv --reuid daemon --regid daemon --clear-groups \
			    env HOME=/nonexistent "$CBEXEC" -c /dev/null "$@"
		}
		as_daemon status --prometheus >"$T/prom" 2>"$T/prom.err"
		echo "prom $?"
		as_daemon status 2>"$T/table.err"
		as_daemon run own -- true
		as_daemon status --prometheus >"$T/prom2" 2>"$T/prom2.err"
EOS
	T=$T run -0 unshare -m bash "$T/ns.sh"
	assert_line "prom 0"
	want="cbexec: /var/lib/cbexec/state.mdb is not readable to user daemon (not in group cbexec); showing its private state, which is empty"
	run -0 cat "$T/prom.err"
	assert_output "$want"
	run -0 cat "$T/table.err"
	assert_output "$want"
	run -0 cat "$T/prom"
	assert_line 'cbexec_state_readable 0'
	assert_line 'cbexec_config_ok 1'
	refute_output --partial 'name="api"'
	# Its own breakers: a private state that is no surprise.
	run -0 cat "$T/prom2.err"
	assert_output ''
	run -0 grep -c '^cbexec_state_readable 1$' "$T/prom2"
}

@test "a planted snapshot out of range (time policy, trip.failures 0, 1000 failure times) is a corrupt record under a broken config: named, never used, never rewritten" {
	run -0 cb run victim -- true
	plant_record victim policy.trip_policy=2 policy.trip_failures=0 \
	    failtimes=1000
	state_dump dump.before
	# A config that cannot be used: the breaker would run under its
	# record's snapshot (SPEC 4), which is out of range.
	config 'defaults = { trip = { failures = 0; }; };'
	run -0 cb run victim -- touch ran
	[ -e ran ]
	assert_output --partial "breaker 'victim' in state"
	assert_output --partial 'trip.failures out of range'
	state_dump dump.after
	cmp dump.before dump.after
	run -1 cb status victim
	assert_output --partial 'record policy has trip.failures out of range'
}

@test "a planted snapshot with half_open_max_calls 0 or preset 30000 is a corrupt record for run, status and config show" {
	run -0 cb run victim -- true
	plant_record victim policy.half_open_max_calls=0
	state_dump dump.before
	config 'on_store_error = "closed";' 'defaults = { bogus = 1; };'
	run -125 cb run victim -- touch ran
	[ ! -e ran ]
	assert_output --partial 'half_open_max_calls out of range'
	run -1 cb status victim
	assert_output --partial 'half_open_max_calls out of range'
	state_dump dump.after
	cmp dump.before dump.after

	config ''
	run -0 cb run other -- true
	plant_record other policy.preset=30000
	run --separate-stderr cb config show other
	refute_output --partial '(null)'
	run -1 cb status other
	assert_output --partial 'preset out of range'
}
