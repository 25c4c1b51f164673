#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 64-install: `make install` lays down exactly the binary, the two man
# pages and the three completions, under DESTDIR and PREFIX, where each
# shell looks on Debian; `make uninstall` removes exactly those.  As root,
# a real install to /usr/local (in a private mount namespace) is completed
# by fresh login shells of bash, zsh and fish.

load helper

ROOT=$BATS_TEST_DIRNAME/..

# mk TARGET VAR=VALUE...: make in the source tree, isolated from a make
# that may be running this suite.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" "$@"
}

# files DIR: every file and symlink under DIR, relative, sorted.
files() {
	(cd "$1" && find . ! -type d | sort)
}

@test "make install DESTDIR=... PREFIX=/usr lays down exactly the expected files" {
	run -0 mk install DESTDIR="$T/dest" PREFIX=/usr
	run -0 files "$T/dest"
	assert_output "$(printf '%s\n' \
	    ./usr/bin/cbexec \
	    ./usr/share/bash-completion/completions/cbexec \
	    ./usr/share/fish/vendor_completions.d/cbexec.fish \
	    ./usr/share/man/man1/cbexec.1 \
	    ./usr/share/man/man5/cbexec.conf.5 \
	    ./usr/share/zsh/vendor-completions/_cbexec)"
	assert_equal "$(stat -c %a "$T/dest/usr/bin/cbexec")" 755
	assert_equal "$(stat -c %a "$T/dest/usr/share/zsh/vendor-completions/_cbexec")" 644
	cmp "$ROOT/completions/cbexec.bash" "$T/dest/usr/share/bash-completion/completions/cbexec"
	cmp "$ROOT/completions/_cbexec" "$T/dest/usr/share/zsh/vendor-completions/_cbexec"
	cmp "$ROOT/completions/cbexec.fish" "$T/dest/usr/share/fish/vendor_completions.d/cbexec.fish"
}

@test "the default PREFIX is /usr/local: zsh site-functions, fish /etc/fish/completions" {
	run -0 mk install DESTDIR="$T/dest"
	run -0 files "$T/dest"
	assert_output "$(printf '%s\n' \
	    ./etc/fish/completions/cbexec.fish \
	    ./usr/local/bin/cbexec \
	    ./usr/local/share/bash-completion/completions/cbexec \
	    ./usr/local/share/man/man1/cbexec.1 \
	    ./usr/local/share/man/man5/cbexec.conf.5 \
	    ./usr/local/share/zsh/site-functions/_cbexec)"
	run -0 mk uninstall DESTDIR="$T/dest"
	run -0 files "$T/dest"
	assert_output ''
}

@test "another PREFIX keeps every file under it" {
	run -0 mk install DESTDIR="$T/dest" PREFIX=/opt/cbexec
	run -0 files "$T/dest"
	assert_output "$(printf '%s\n' \
	    ./opt/cbexec/bin/cbexec \
	    ./opt/cbexec/share/bash-completion/completions/cbexec \
	    ./opt/cbexec/share/fish/vendor_completions.d/cbexec.fish \
	    ./opt/cbexec/share/man/man1/cbexec.1 \
	    ./opt/cbexec/share/man/man5/cbexec.conf.5 \
	    ./opt/cbexec/share/zsh/site-functions/_cbexec)"
}

@test "the default install puts each completion where a fresh login shell looks" {
	command -v zsh >/dev/null && command -v fish >/dev/null ||
	    skip "zsh or fish is not installed"
	run -0 mk install DESTDIR="$T/dest"
	local z f
	z=$(cd "$T/dest" && find . -name _cbexec | sed 's@^\.@@; s@/_cbexec$@@')
	f=$(cd "$T/dest" && find . -name cbexec.fish | sed 's@^\.@@; s@/cbexec.fish$@@')
	# zsh's fpath and fish's completion path, XDG_DATA_DIRS unset.
	run -0 zsh -l -c 'print -l $fpath'
	assert_line "$z"
	run -0 env -u XDG_DATA_DIRS fish -l -c 'printf "%s\n" $fish_complete_path'
	assert_line "$f"
}

@test "after make install to /usr/local, fresh login shells complete cbexec" {
	[ "$(id -u)" = 0 ] || skip "needs root (a private mount namespace)"
	[ -d /etc/fish/completions ] || skip "no /etc/fish/completions"
	command -v zsh >/dev/null && command -v fish >/dev/null &&
	    [ -r /usr/share/bash-completion/bash_completion ] ||
	    skip "bash-completion, zsh or fish is not installed"
	unshare -m true 2>/dev/null || skip "cannot make a mount namespace"
	# Empty /usr/local and /etc/fish/completions for this test alone, a
	# real install there, then one fresh login shell of each kind, with
	# XDG_DATA_DIRS unset as in a cron or ssh session.
	cat >try.sh <<'SH'
set -e
mount -t tmpfs tmpfs /usr/local
mount -t tmpfs tmpfs /etc/fish/completions
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$1" install >/dev/null
unset XDG_DATA_DIRS
echo "bash: $(bash -l -i -c '__load_completion cbexec; complete -p cbexec' 2>/dev/null)"
echo "zsh: $(zsh -l -c 'autoload -Uz compinit; compinit -u -D; print -r -- ${_comps[cbexec]}')"
echo "fish: $(fish -l -c 'complete -C "cbexec sta"' | tr '\t' ' ')"
SH
	run -0 unshare -m bash try.sh "$ROOT"
	assert_line 'bash: complete -F _cbexec cbexec'
	assert_line 'zsh: _cbexec'
	assert_line 'fish: status show breakers'
}

@test "make uninstall removes exactly what install put, and nothing else" {
	mkdir -p "$T/dest/usr/share/bash-completion/completions"
	: >"$T/dest/usr/share/bash-completion/completions/other-tool"
	run -0 mk install DESTDIR="$T/dest" PREFIX=/usr
	run -0 mk uninstall DESTDIR="$T/dest" PREFIX=/usr
	run -0 files "$T/dest"
	assert_output ./usr/share/bash-completion/completions/other-tool
}

@test "the installed binary runs" {
	run -0 mk install DESTDIR="$T/dest" PREFIX=/usr
	run -0 "$T/dest/usr/bin/cbexec" --version
	assert_output --regexp '^cbexec [0-9]'
}
