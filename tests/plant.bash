# SPDX-License-Identifier: ISC
# plant.bash: plant_record, for the tests of what a member of the state's
# group can write (SPEC 5); loaded after helper.

# plant_record NAME FIELD=VALUE...: rewrite NAME's record in the state file
# with those fields set, whatever their range, through tests/mkrecord.c
# (MKRECORD, built by make check), mdb_dump and mdb_load.
plant_record() {
	local name=$1 hexname line new
	shift
	[ -x "${MKRECORD:-}" ] || MKRECORD=$BATS_TEST_DIRNAME/../build/mkrecord
	[ -x "$MKRECORD" ] || skip "MKRECORD (built by make check) is not set"
	hexname=$(printf '%s' "$name" | od -An -tx1 | tr -d ' \n')
	mdb_dump -n "$CBEXEC_STATE" >dump
	line=$(awk -v k=" $hexname" 'prev == k { print; exit } { prev = $0 }' dump)
	[ -n "$line" ]
	new=$(printf '%s\n' "$line" | "$MKRECORD" "$@")
	awk -v k=" $hexname" -v n="$new" \
	    'prev == k { $0 = n } { print; prev = $0 }' dump >dump.new
	rm -f "$CBEXEC_STATE" "$CBEXEC_STATE-lock"
	mdb_load -n -f dump.new "$CBEXEC_STATE"
}

# state_dump FILE: the state's keys and values into FILE, to compare.
state_dump() {
	mdb_dump -n "$CBEXEC_STATE" >"$1"
}
