#!/usr/bin/env bats
# 64-install: `make install` lays down exactly the binary, the two man
# pages and the three completions, under DESTDIR and PREFIX, where each
# shell looks on Debian; `make uninstall` removes exactly those.

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

@test "the default PREFIX is /usr/local" {
	run -0 mk install DESTDIR="$T/dest"
	run -0 files "$T/dest"
	assert_output "$(printf '%s\n' \
	    ./usr/local/bin/cbexec \
	    ./usr/local/share/bash-completion/completions/cbexec \
	    ./usr/local/share/fish/vendor_completions.d/cbexec.fish \
	    ./usr/local/share/man/man1/cbexec.1 \
	    ./usr/local/share/man/man5/cbexec.conf.5 \
	    ./usr/local/share/zsh/vendor-completions/_cbexec)"
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
