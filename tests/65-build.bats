#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 65-build: the Makefile honours the user's and Debian's build flags (SPEC
# 8): CFLAGS, CPPFLAGS and LDFLAGS replace only the defaults, the flags the
# build needs stay, -Werror is only for make check, and pkg-config runs a
# fixed number of times however many files are compiled.

load helper

ROOT=$BATS_TEST_DIRNAME/..

# mk DIR ARGS...: make in DIR, isolated from a make that may be running
# this suite (and from its -Werror, which only check asks for).
mk() {
	local d=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u WERROR -u SANITIZE make -C "$d" "$@"
}

# scratch DEST: a copy of the source tree (the files git knows, or every
# file but the build output when this is no git checkout).
scratch() {
	mkdir -p "$1"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -z -co --exclude-standard |
		    xargs -0 cp --parents -t "$1")
	else
		tar -C "$ROOT" -c --exclude=./build --exclude=./build-san \
		    --exclude=./build-fuzz --exclude=./cbexec . | tar -C "$1" -x
	fi
}

@test "make CFLAGS='-O1 -g' builds in a scratch copy, with the flags it needs" {
	scratch "$T/src"
	run -0 mk "$T/src" -j2 CFLAGS='-O1 -g'
	assert_output --partial '-std=c11'
	assert_output --partial '-D_GNU_SOURCE'
	assert_output --partial '-O1 -g'
	refute_output --partial '-O2'
	refute_output --partial '-Werror'
	run -0 "$T/src/cbexec" --version
	assert_output --regexp '^cbexec [0-9]'
	CBEXEC_STATE=$T/s.mdb run -0 "$T/src/cbexec" run x -- true
}

@test "Debian's CFLAGS, CPPFLAGS and LDFLAGS from the environment are honoured" {
	scratch "$T/src"
	CFLAGS='-O2 -fstack-protector-strong -Wformat' \
	    CPPFLAGS='-Wdate-time -D_FORTIFY_SOURCE=2' \
	    LDFLAGS='-Wl,-z,relro -Wl,-z,now' run -0 mk "$T/src" -n -B
	assert_output --partial '-std=c11 -D_GNU_SOURCE'
	assert_output --partial '-Wdate-time -D_FORTIFY_SOURCE=2 -O2 -fstack-protector-strong'
	assert_output --partial '-Wl,-z,relro -Wl,-z,now -o build/cbexec'
}

@test "-Werror is on under make check only" {
	scratch "$T/src"
	run -0 mk "$T/src" -n -B build/cbexec
	refute_output --partial '-Werror'
	run -0 mk "$T/src" -n -B check-one
	assert_output --partial '-Werror'
}

@test "pkg-config runs a few times per make, not once per compile" {
	mkdir "$T/bin"
	printf '#!/bin/sh\necho "$*" >>"%s"\nexec %s "$@"\n' "$T/calls" \
	    "$(command -v pkg-config)" >"$T/bin/pkg-config"
	chmod +x "$T/bin/pkg-config"
	scratch "$T/src"
	PATH=$T/bin:$PATH run -0 mk "$T/src" -n -B build/cbexec build/unit
	assert_output --partial 'src/util.c'
	# Every object and link, and the same four probes whatever their count
	# (hiredis, cflags, libs, static libs).
	run -0 wc -l <"$T/calls"
	[ "$output" -le 4 ]
}

@test "changed flags rebuild what they compiled" {
	scratch "$T/src"
	run -0 mk "$T/src" -n
	assert_output --partial 'src/util.c'
	mkdir -p "$T/src/build"
	run -0 mk "$T/src" -j2 build/util.o
	run -0 mk "$T/src" -n build/util.o
	refute_output --partial 'src/util.c'
	run -0 mk "$T/src" -n build/util.o CFLAGS=-O0
	assert_output --partial 'src/util.c'
}

@test "every source file names its licence, ISC, in its first comment line" {
	cd "$ROOT"
	grep -qx 'ISC License' LICENSE
	grep -q '^License: ISC$' debian/copyright
	# The first comment line: line 1, or line 2 after #! or #compdef.
	run -0 awk 'FNR == 1 { f[FILENAME] = 0 }
	    FNR <= 2 && /SPDX-License-Identifier: ISC/ { f[FILENAME] = 1 }
	    END { for (n in f) if (!f[n]) print n }' \
	    src/*.[ch] tests/*.[ch] tests/fuzz/*.c bench/*.c bench/*.sh \
	    tests/*.bats tests/*.bash tests/*.sh tests/*.py tests/stress/*.sh \
	    man/*.py man/cbexec.1 man/cbexec.conf.5 Makefile completions/* \
	    debian/postinst debian/postrm debian/rules
	assert_output ''
}
