#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 65-shape: tests/check-shape.py, the `make lint` step that keeps src/ in
# one direction (HACKING.md): it passes on the tree as it is, and fails,
# naming the cycle and its arrows, on a copy of src/ with one planted.

load helper

ROOT=$BATS_TEST_DIRNAME/..
CHECK=$ROOT/tests/check-shape.py

setup() {
	common_setup
	command -v ctags >/dev/null || skip "no universal-ctags"
	command -v nm >/dev/null || skip "no nm"
	cp -R "$ROOT/src" "$T/src"
}

# The objects of the build under test: the arrows nm finds need them.
objs() {
	[ -e "$ROOT/build/spawn.o" ] || skip "no build/ (run make first)"
}

@test "check-shape passes on src/ as it is: no cycle, no size over the limits" {
	objs
	run -0 python3 "$CHECK" "$ROOT/src" "$ROOT/build"
	assert_output --regexp '^check-shape: [0-9]+ modules, [0-9]+ arrows, no cycle$'
}

@test "check-shape fails on two files that include each other, naming both arrows" {
	printf '#include "plant-b.h"\n' >"$T/src/plant-a.c"
	printf '#include "plant-a.h"\n' >"$T/src/plant-b.c"
	printf '/* a */\n' >"$T/src/plant-a.h"
	printf '/* b */\n' >"$T/src/plant-b.h"
	run -1 python3 "$CHECK" "$T/src" "$T/build-none"
	assert_output --partial 'check-shape: cycle between plant-a, plant-b: plant-a -> plant-b -> plant-a'
	assert_output --partial 'plant-a -> plant-b: plant-a.c:1 includes "plant-b.h"'
	assert_output --partial 'plant-b -> plant-a: plant-b.c:1 includes "plant-a.h"'
}

@test "check-shape fails when spawn-child.c includes spawn.h again (a call one way, an include back)" {
	objs
	sed -i 's/^#include "spawn-opts.h"$/#include "spawn.h"/' \
	    "$T/src/spawn-child.c"
	grep -q '^#include "spawn.h"$' "$T/src/spawn-child.c"
	run -1 python3 "$CHECK" "$T/src" "$ROOT/build"
	assert_output --partial 'check-shape: cycle between spawn, spawn-child'
	assert_output --partial 'spawn.c uses spawn_fwd from spawn-child.c'
	assert_output --regexp 'spawn-child\.c:[0-9]+ includes "spawn\.h"'
}

@test "check-shape fails on a function over 100 lines, counted first line to last" {
	{
		printf 'int\nplant_long(void)\n{\n'
		for i in $(seq 1 98); do printf '\t;\n'; done
		printf '\treturn 0;\n}\n'
	} >"$T/src/plant-long.c"
	run -1 python3 "$CHECK" "$T/src" "$T/build-none"
	assert_output --partial 'plant-long.c:2: plant_long is 102 lines, over 100'
}
