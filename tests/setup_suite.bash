# SPDX-License-Identifier: ISC
# setup_suite.bash: once per bats run (bats finds this file next to the
# tests).  The binaries under test are copied into a directory of their own
# under /tmp, 0755 all the way down, and CBEXEC and HOLD_WRITER name the
# copies: the tests that run cbexec as another user (nobody, a member of
# group cbexec) then reach it wherever the checkout is, a /root mode 0700
# included.  Tests that mount over /tmp reach the copy through a bind
# mount of /tmp (91-security's full_pins_sh).

setup_suite() {
	local here dir f
	here=$(cd "${BASH_SOURCE[0]%/*}" && pwd) || return 1
	: "${CBEXEC:=$here/../cbexec}"
	dir=$(mktemp -d /tmp/cbexec-bin.XXXXXX) || return 1
	chmod 0755 "$dir" || return 1
	export CBEXEC_BIN_DIR=$dir
	# A missing binary stays missing: the tests fail naming it.
	if [ -f "$CBEXEC" ]; then
		cp "$CBEXEC" "$dir/cbexec" || return 1
		export CBEXEC=$dir/cbexec
	fi
	if [ -n "${HOLD_WRITER:-}" ] && [ -f "$HOLD_WRITER" ]; then
		cp "$HOLD_WRITER" "$dir/hold-writer" || return 1
		export HOLD_WRITER=$dir/hold-writer
	fi
	for f in "$dir"/*; do
		[ -e "$f" ] && chmod 0755 "$f"
	done
	return 0
}

teardown_suite() {
	case ${CBEXEC_BIN_DIR:-} in
	/tmp/cbexec-bin.*) rm -rf "$CBEXEC_BIN_DIR" ;;
	esac
	return 0
}
