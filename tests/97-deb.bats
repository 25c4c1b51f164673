#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 97-deb: `make deb` (SPEC 10) in a scratch copy of the tree: lintian
# finds no error or warning, the package holds every file it promises, its
# maintainer scripts are sound, and it installs, shares one state between
# root and the cbexec group, is removed and purged in a throwaway root (an
# overlay over / in a private mount namespace: the real dpkg and adduser
# run, and the machine is not touched).  Needs dpkg-buildpackage and
# lintian (make deps); the install test needs root.

load helper

ROOT=$BATS_TEST_DIRNAME/..

setup_file() {
	command -v dpkg-buildpackage >/dev/null && command -v lintian \
	    >/dev/null || return 0
	local d=$BATS_FILE_TMPDIR/src
	mkdir -p "$d"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -z -co --exclude-standard |
		    xargs -0 cp --parents -t "$d")
	else
		tar -C "$ROOT" -c --exclude=./build --exclude=./build-san \
		    --exclude=./build-fuzz --exclude=./cbexec \
		    --exclude='./cbexec_*' . | tar -C "$d" -x
	fi
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$d" deb \
	    >"$BATS_FILE_TMPDIR/build.log" 2>&1 || true
}

setup() {
	common_setup
	command -v dpkg-buildpackage >/dev/null ||
	    skip "dpkg-buildpackage is missing (make deps installs it)"
	command -v lintian >/dev/null ||
	    skip "lintian is missing (make deps installs it)"
	SRC=$BATS_FILE_TMPDIR/src
	VERSION=$(sed -n 's/^VERSION[[:space:]]*=[[:space:]]*//p' "$ROOT/Makefile")
	DEB=$SRC/cbexec_${VERSION}_$(dpkg --print-architecture).deb
}

@test "make deb builds cbexec_VERSION_ARCH.deb, and lintian finds no error or warning" {
	if [ ! -f "$DEB" ]; then
		cat "$BATS_FILE_TMPDIR/build.log" >&2
		false
	fi
	run -0 lintian --pedantic -I --show-overrides \
	    "$SRC/build/deb/cbexec_${VERSION}_$(dpkg --print-architecture).changes"
	refute_line --regexp '^[EW]: '
	run -0 dpkg-deb -f "$DEB" Package Version
	assert_output "$(printf 'Package: cbexec\nVersion: %s' "$VERSION")"
}

@test "the package holds the binary, man pages, completions and examples" {
	run -0 dpkg-deb -c "$DEB"
	local f
	for f in /usr/bin/cbexec \
	    /usr/share/man/man1/cbexec.1.gz \
	    /usr/share/man/man5/cbexec.conf.5.gz \
	    /usr/share/bash-completion/completions/cbexec \
	    /usr/share/zsh/vendor-completions/_cbexec \
	    /usr/share/fish/vendor_completions.d/cbexec.fish \
	    /usr/share/doc/cbexec/copyright \
	    /usr/share/doc/cbexec/examples/cbexec.conf \
	    /usr/share/doc/cbexec/examples/sync-orders.service \
	    /usr/share/doc/cbexec/examples/sync-orders.timer \
	    /usr/share/doc/cbexec/examples/cbexec-prometheus.service \
	    /usr/share/doc/cbexec/examples/cbexec-prometheus.timer; do
		assert_line --regexp "^-[rwx-]{9} root/root +[0-9]+ [0-9-]+ [0-9:]+ \.$f\$"
	done
	assert_line --regexp '^-rwxr-xr-x root/root .* \./usr/bin/cbexec$'
}

@test "the examples: a config that parses, a service skipped while open, a textfile timer" {
	dpkg-deb -x "$DEB" "$T/x"
	local ex=$T/x/usr/share/doc/cbexec/examples
	run -0 "$T/x/usr/bin/cbexec" -c "$ex/cbexec.conf" config check
	run -0 grep -x 'ExecCondition=/usr/bin/cbexec check warehouse-api' \
	    "$ex/sync-orders.service"
	run -0 grep -x 'ExecStart=/usr/bin/cbexec status --prometheus --output /var/lib/prometheus/node-exporter/cbexec.prom' \
	    "$ex/cbexec-prometheus.service"
	run -0 grep -x 'SupplementaryGroups=cbexec' "$ex/cbexec-prometheus.service"
	# Every 15 seconds, off the second cron starts the jobs in.
	run -0 grep -Fx 'OnCalendar=*:*:07/15' "$ex/cbexec-prometheus.timer"
	run -0 grep -x 'WantedBy=timers.target' "$ex/sync-orders.timer"
	# The textfile the service writes is what node_exporter reads.
	CBEXEC_STATE=$T/s.mdb run -0 "$T/x/usr/bin/cbexec" run warehouse-api -- true
	CBEXEC_STATE=$T/s.mdb run -0 "$T/x/usr/bin/cbexec" status --prometheus \
	    --output "$T/cbexec.prom"
	run -0 grep -x 'cbexec_breaker_state{name="warehouse-api",state="closed"} 1' \
	    "$T/cbexec.prom"
}

@test "Depends come from the shared libraries the binary links" {
	run -0 dpkg-deb -f "$DEB" Depends
	assert_output --regexp '(^|, )adduser(,|$)'
	assert_output --regexp '(^|, )libc6 \(>= [0-9.]+\)'
	assert_output --regexp '(^|, )liblmdb0( \(|,|$)'
	assert_output --regexp '(^|, )libconfig9( \(|,|$)'
	assert_output --regexp '(^|, )libhiredis[0-9.]+( \(|,|$)'
	dpkg-deb -x "$DEB" "$T/x"
	run -0 readelf -d "$T/x/usr/bin/cbexec"
	assert_line --partial '[liblmdb.so.0]'
	assert_line --partial '[libconfig.so.9]'
}

@test "the packaged binary, on the shared liblmdb, still bounds a wait for the writer lock" {
	[ -x "${HOLD_WRITER:-}" ] || skip "HOLD_WRITER (built by make check) is not set"
	dpkg-deb -x "$DEB" "$T/x"
	local cb=$T/x/usr/bin/cbexec
	run -0 readelf -d "$cb"
	assert_line --partial '[liblmdb.so.0]'
	export CBEXEC_STATE=$T/s.mdb CBEXEC_CONFIG=$T/c.conf
	printf '%s\n' 'lock_timeout = "1s";' 'log = "none";' >"$CBEXEC_CONFIG"
	run -0 "$cb" run x -- true
	mkfifo "$T/hold.in"
	"$HOLD_WRITER" "$CBEXEC_STATE" <"$T/hold.in" >"$T/hold.out" 3>&- &
	exec 8>"$T/hold.in"
	wait_for grep -q held "$T/hold.out"
	# cbexec's pthread_mutex_lock is the one liblmdb.so calls.
	run -1 timeout 60 "$cb" reset x 8>&-
	assert_output --partial "state '$CBEXEC_STATE' stayed locked by another process for lock_timeout (1s)"
	exec 8>&-
	wait
}

@test "the maintainer scripts pass sh -n and shellcheck" {
	dpkg-deb -e "$DEB" "$T/ctl"
	local s
	for s in postinst postrm; do
		run -0 sh -n "$T/ctl/$s"
		run -0 shellcheck -s sh "$T/ctl/$s"
		run -0 shellcheck -s sh "$ROOT/debian/$s"
	done
}

# in_root SCRIPT: run the bash SCRIPT chrooted into an overlay of / whose
# changes go to a tmpfs, in a private mount namespace; the package is at
# /cbexec.deb there.  Nothing it does reaches the machine.
in_root() {
	cp "$DEB" "$T/cbexec.deb"
	printf '%s\n' "$1" >"$T/inner.sh"
	unshare --mount --propagation private bash -euc '
		T=$1
		mkdir "$T/ovl"
		mount -t tmpfs -o mode=0755 tmpfs "$T/ovl"
		mkdir "$T/ovl/upper" "$T/ovl/work" "$T/ovl/root"
		cp "$T/cbexec.deb" "$T/inner.sh" "$T/ovl/upper/"
		mount -t overlay overlay -o "lowerdir=/,upperdir=$T/ovl/upper,workdir=$T/ovl/work" "$T/ovl/root"
		mount --rbind /dev "$T/ovl/root/dev"
		mount -t proc proc "$T/ovl/root/proc"
		mount -t tmpfs tmpfs "$T/ovl/root/tmp"
		mount -t tmpfs tmpfs "$T/ovl/root/run"
		exec chroot "$T/ovl/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		    HOME=/root LC_ALL=C.UTF-8 bash -eu /inner.sh
	' in_root "$T"
}

@test "install, shared state for root and the cbexec group, remove, purge" {
	[ "$(id -u)" = 0 ] || skip "installing in a throwaway root needs root"
	mkdir "$T/probe"
	unshare --mount --propagation private sh -c 'mount -t tmpfs tmpfs "$1" &&
	    mkdir "$1/u" "$1/w" "$1/r" &&
	    mount -t overlay overlay -o "lowerdir=/,upperdir=$1/u,workdir=$1/w" "$1/r"' \
	    probe "$T/probe" 2>/dev/null ||
	    skip "no private mounts of an overlay of / here"
	run -0 in_root '
	# A machine where cbexec was never installed, whose root used 0.1,
	# whatever this host has (the package, its group, an override).
	if dpkg-query -W cbexec >/dev/null 2>&1; then
		dpkg -P cbexec >/dev/null 2>&1
	fi
	dpkg-statoverride --remove /var/lib/cbexec >/dev/null 2>&1 || true
	rm -rf /var/lib/cbexec /etc/cbexec.conf /root/.config/cbexec
	# No syslog in here: transitions would go to stderr, among the lines.
	echo "log = \"none\";" >/etc/cbexec.conf
	if getent group cbexec >/dev/null; then groupdel -f cbexec; fi
	mkdir -p /tmp/old && dpkg-deb -x /cbexec.deb /tmp/old
	/tmp/old/usr/bin/cbexec -q trip legacy --reason before-the-package
	echo "before: $(stat -c "%a %U %G" /var/lib/cbexec/state.mdb)"

	dpkg -i /cbexec.deb >/dev/null 2>&1
	echo "dir: $(stat -c "%a %U %G" /var/lib/cbexec)"
	gid=$(getent group cbexec | cut -d: -f3)
	[ "$gid" -lt 1000 ] && echo "group: system"
	echo "legacy: $(stat -c "%a %U %G" /var/lib/cbexec/state.mdb)"
	# The example units are sound once the package is there.
	ex=/usr/share/doc/cbexec/examples
	rc=0; systemd-analyze verify $ex/sync-orders.service $ex/sync-orders.timer \
	    $ex/cbexec-prometheus.service $ex/cbexec-prometheus.timer 2>&1 || rc=$?
	echo "units: $rc"
	# Configuring again changes nothing.
	dpkg -i /cbexec.deb >/dev/null 2>&1
	[ "$(getent group cbexec | cut -d: -f3)" = "$gid" ] && same=gid
	echo "again: $(stat -c "%a %U %G" /var/lib/cbexec) ${same:-}"

	# Two service accounts in the group: one without a home, one with.
	adduser --system --quiet --no-create-home svc1
	adduser --quiet --disabled-password --gecos "" svc2
	adduser --quiet svc1 cbexec
	adduser --quiet svc2 cbexec
	as() { u=$1; shift
		setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups \
		    env HOME="$(getent passwd "$u" | cut -d: -f6)" "$@"; }
	names() { "$@" status --json | jq -r "sort_by(.name)|.[]|\"\(.name) \(.state)\"" | paste -sd " "; }
	echo "svc1 sees legacy: $(names as svc1 cbexec)"
	rm /var/lib/cbexec/state.mdb /var/lib/cbexec/state.mdb-lock

	# A member plants symlinks where root will open the state: root
	# refuses them, and their targets stay as they were.
	echo secret >/etc/victim
	cp /etc/victim /tmp/victim
	victim() { cmp -s /etc/victim /tmp/victim && echo intact || echo changed; }
	as svc1 ln -s /etc/victim /var/lib/cbexec/state.mdb
	rc=0; cbexec trip x 2>/tmp/err || rc=$?
	echo "planted data: $rc $(victim) $(grep -c /var/lib/cbexec/state.mdb /tmp/err)"
	as svc1 rm /var/lib/cbexec/state.mdb
	as svc1 ln -s /etc/victim /var/lib/cbexec/state.mdb-lock
	rc=0; cbexec trip x 2>/tmp/err || rc=$?
	echo "planted lock: $rc $(victim) $(grep -c /var/lib/cbexec/state.mdb-lock /tmp/err)"
	as svc1 rm /var/lib/cbexec/state.mdb-lock
	rm -f /var/lib/cbexec/state.mdb

	# One breaker: tripped by one member, seen and reset by the other,
	# seen by root.
	as svc1 cbexec trip shared --reason maintenance || echo "svc1 trip: $?"
	echo "file: $(stat -c "%a %U %G" /var/lib/cbexec/state.mdb)"
	echo "svc2 sees: $(names as svc2 cbexec)"
	echo "root sees: $(names cbexec)"
	as svc2 cbexec reset shared || echo "svc2 reset: $?"
	echo "svc1 sees: $(names as svc1 cbexec)"
	echo "root sees: $(names cbexec)"
	# The sticky bit: a member cannot remove or replace another'"'"'s file.
	rc=0; as svc2 rm -f /var/lib/cbexec/state.mdb 2>/dev/null || rc=$?
	echo "svc2 rm: $rc $(stat -c %U /var/lib/cbexec/state.mdb)"

	cbexec trip kept --reason "across remove"
	dpkg -r cbexec >/dev/null 2>&1
	# (the memos of the config, state.mdb-configs.UID, aside)
	echo "removed: $(getent group cbexec | cut -d: -f1) $(ls /var/lib/cbexec | grep -v -- -configs. | paste -sd " ")"
	dpkg -P cbexec >/dev/null 2>&1
	echo "purged: $(getent group cbexec | wc -l) $(ls -d /var/lib/cbexec 2>/dev/null | wc -l)"
	# The group kept its GID, so installing again finds it as it was.
	dpkg -i /cbexec.deb >/dev/null 2>&1
	[ "$(getent group cbexec | cut -d: -f3)" = "$gid" ] && kept=gid
	echo "reinstalled: $(stat -c "%a %U %G" /var/lib/cbexec) ${kept:-}"
	'
	assert_equal "${lines[0]}" "before: 600 root root"
	assert_line "dir: 3770 root cbexec"
	assert_line "group: system"
	assert_line "units: 0"
	assert_line "legacy: 660 root cbexec"
	assert_line "again: 3770 root cbexec gid"
	assert_line "planted data: 1 intact 1"
	assert_line "planted lock: 1 intact 1"
	assert_line "file: 660 svc1 cbexec"
	assert_line "svc1 sees legacy: legacy open"
	assert_line "svc2 sees: shared open"
	assert_line "root sees: shared open"
	assert_line "svc1 sees: shared closed"
	assert_line "root sees: shared closed"
	assert_line "svc2 rm: 1 svc1"
	assert_line "removed: cbexec state.mdb state.mdb-lock"
	assert_line "purged: 1 0"
	assert_line "reinstalled: 3770 root cbexec gid"
}
