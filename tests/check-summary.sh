#!/bin/bash
# SPDX-License-Identifier: ISC
# check-summary.sh: the bookkeeping of `make check`, so that a green check
# means that the tests ran.  Each pass appends one line "PASSED FAILED
# SKIPPED NAME" to a counts file; `total` sums them and fails unless
# something passed and nothing failed.
#
#   check-summary.sh bats NAME COUNTS CMD...   run CMD (bats --tap ...),
#	echoing its TAP; the pass fails when CMD exits non-zero, when the
#	results are fewer than the 1..N plan (or there is no plan), when
#	the plan is 0 or below what `bats --count` finds in the same
#	arguments, or when bats says "Executed N instead of expected M".
#   check-summary.sh unit NAME COUNTS CMD...   run the unit binary; its
#	"unit: N passed, M failed" line gives the counts, and its exit
#	status must agree.
#   check-summary.sh reports NAME COUNTS DIR   every file in DIR is a
#	sanitizer report (ASan/UBSan log_path) and one failure, named by
#	its first error line; the reports are echoed.
#   check-summary.sh total COUNTS              the closing line.
#
# Every failure of a pass's own bookkeeping is counted as one failed test
# and named on stderr, so that it shows in the closing line.  A pass also
# writes a line "# NAME: WHAT" to the counts file for each failure, and
# `total` prints them above the closing line, so that the end of a long
# log names what failed.  Each skipped test is written as a line "~ NAME:
# TEST: REASON", and `total` lists them too.
#
# Under CI=true a skipped test fails its pass, named "skipped under CI",
# unless its reason is one of the known reasons of tests/README.md
# ("Known skips", a line "- `REASON`" each, compared whole): in CI, as
# root after `make deps`, every test can run, and a test that skips has
# lost what it needs.
set -u

KNOWN_SKIPS=${KNOWN_SKIPS:-${BASH_SOURCE[0]%/*}/README.md}

die() {
	echo "check-summary: $*" >&2
	exit 2
}

# known_skips: the known reasons for a skip, one a line.
known_skips() {
	[ -r "$KNOWN_SKIPS" ] || die "cannot read the known skips in '$KNOWN_SKIPS'"
	# shellcheck disable=SC2016 # the backquotes are README's
	sed -n '/^## Known skips/,/^## /s/^- `\([^`]*\)`.*/\1/p' "$KNOWN_SKIPS"
}

# bats NAME COUNTS CMD...
pass_bats() {
	local name=$1 counts=$2 tap rc given=-1 ci=0 known=
	shift 2
	if [ "${CI:-}" = true ]; then
		ci=1
		known=$(known_skips) || exit 2
	fi
	tap=$(mktemp) || die "mktemp failed"
	# How many tests bats was given, counted apart from the run, so that
	# a run that plans fewer (or none) cannot pass.
	if [ "${1##*/}" = bats ]; then
		given=$("$1" --count "${@:2}" 2>/dev/null)
		case $given in
		'' | *[!0-9]*) given=-2 ;;
		esac
	fi
	"$@" | tee "$tap"
	rc=${PIPESTATUS[0]}
	awk -v name="$name" -v rc="$rc" -v given="$given" -v ci="$ci" \
	    -v known="$known" '
		BEGIN {
			n = split(known, k, "\n")
			for (i = 1; i <= n; i++)
				if (k[i] != "")
					ok_skip[k[i]] = 1
		}
		/^1\.\.[0-9]+/ && !planned { plan = substr($1, 4) + 0; planned = 1 }
		/^ok .* # skip/ {
			test = $0
			sub(/^ok [0-9]+ /, "", test)
			i = index(test, " # skip")
			why = substr(test, i + 7)
			test = substr(test, 1, i - 1)
			sub(/^ /, "", why)
			if (ci && !(why in ok_skip)) {
				failed[++f] = sprintf("skipped under CI: %s (%s)", test,
				    why == "" ? "no reason given" : why)
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
				next
			}
			s++
			skipped[s] = test ": " (why == "" ? "no reason given" : why)
			next
		}
		/^ok / { p++; next }
		/^not ok / { f++; failed[f] = $0; next }
		/Executed [0-9]+ instead of expected [0-9]+/ {
			short = $0; sub(/^# */, "", short)
		}
		END {
			ran = p + f + s
			if (!planned) {
				failed[++f] = "no 1..N plan line"
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			} else if (plan == 0) {
				failed[++f] = "planned no tests (1..0)"
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			} else if (ran < plan) {
				failed[++f] = sprintf("%d of %d planned tests ran", ran, plan)
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			}
			if (given == -2) {
				failed[++f] = "bats --count gave no number"
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			} else if (planned && given > 0 && plan < given) {
				failed[++f] = sprintf("planned %d of the %d tests given (bats --count)", plan, given)
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			}
			if (short != "") {
				failed[++f] = short
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			}
			if (rc != 0 && f == 0) {
				failed[++f] = sprintf("exited %d with no failed test", rc)
				printf "check: %s: %s\n", name, failed[f] > "/dev/stderr"
			}
			for (i = 1; i <= s; i++)
				printf "~ %s: %s\n", name, skipped[i]
			for (i = 1; i <= f; i++)
				printf "# %s: %s\n", name, failed[i]
			printf "%d %d %d %s\n", p, f, s, name
		}' "$tap" >>"$counts"
	rm -f "$tap"
	return 0
}

# unit NAME COUNTS CMD...
pass_unit() {
	local name=$1 counts=$2 out rc line p f why=
	shift 2
	out=$(mktemp) || die "mktemp failed"
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed$' "$out" | tail -1)
	rm -f "$out"
	if [ -z "$line" ]; then
		why="no 'unit: N passed, M failed' line"
		p=0 f=1
	else
		read -r _ p _ f _ <<<"$line"
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			why="exited $rc with no failed test"
			f=1
		fi
	fi
	[ -z "$why" ] || echo "check: $name: $why" >&2
	# The binary named its own failures, FILE:LINE each, on stderr.
	[ "$f" -eq 0 ] || echo "# $name: ${why:-$f failed}" >>"$counts"
	echo "$p $f 0 $name" >>"$counts"
}

# reports NAME COUNTS DIR
pass_reports() {
	local name=$1 counts=$2 dir=$3 f what n=0
	[ -d "$dir" ] || die "no directory '$dir'"
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		cat "$f"
		what=$(grep -m 1 -E 'ERROR: |runtime error|SUMMARY: ' "$f") ||
		    what=$(head -n 1 "$f")
		what="${f##*/}: ${what:-empty report}"
		echo "check: $name: $what" >&2
		echo "# $name: $what" >>"$counts"
		n=$((n + 1))
	done
	echo "0 $n 0 $name" >>"$counts"
}

# total COUNTS
total() {
	[ -r "$1" ] || die "cannot read '$1'"
	awk '
		/^# / { sub(/^# /, ""); failed[++nf] = $0; next }
		/^~ / { sub(/^~ /, ""); skipped[++ns] = $0; next }
		NF < 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ {
			printf "check: bad counts line %d: %s\n", NR, $0 > "/dev/stderr"
			f++; next
		}
		{ p += $1; f += $2; s += $3 }
		END {
			for (i = 1; i <= ns; i++)
				printf "check: skipped: %s\n", skipped[i]
			for (i = 1; i <= nf; i++)
				printf "check: failed: %s\n", failed[i]
			printf "check: %d passed, %d failed, %d skipped\n", p, f, s
			exit !(p > 0 && f == 0)
		}' "$1"
}

[ $# -ge 1 ] || die "usage: check-summary.sh bats|unit NAME COUNTS CMD... | reports NAME COUNTS DIR | total COUNTS"
cmd=$1
shift
case $cmd in
bats | unit)
	[ $# -ge 3 ] || die "usage: check-summary.sh $cmd NAME COUNTS CMD..."
	"pass_$cmd" "$@"
	;;
reports)
	[ $# -eq 3 ] || die "usage: check-summary.sh reports NAME COUNTS DIR"
	pass_reports "$@"
	;;
total)
	[ $# -eq 1 ] || die "usage: check-summary.sh total COUNTS"
	total "$1"
	;;
*)
	die "unknown command '$cmd'"
	;;
esac
