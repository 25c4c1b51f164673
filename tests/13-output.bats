#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 13-output: output = pass | on-failure | on-change (SPEC 6.5), what of the
# command's own output reaches cron.  pass, the default, as timeout(1);
# on-failure as chronic; on-change writes out only the output of a run
# that opens or closes the breaker, or is killed at its timeout.  Held
# output sits in unlinked temporary files, stdout's and stderr's apart;
# a run that cannot be held passes it through and says so.

load helper

# at HH:MM:SS ARGS...: the binary at that time of 2026-01-01, UTC.
at() {
	local when=$1
	shift
	TZ=UTC cb_at "@2026-01-01 $when" "$@"
}


@test "pass, the default: everything, as it comes" {
	run --separate-stderr -0 cb run x -- sh -c 'echo out; echo err >&2'
	assert_equal "$output" out
	assert_equal "$stderr" err
}

@test "on-failure: a success's output is dropped, a failure's written out, each stream to its own" {
	run --separate-stderr -0 cb run x -o output=on-failure -- sh -c 'echo out; echo err >&2'
	assert_equal "$output" ''
	assert_equal "$stderr" ''
	run --separate-stderr -3 cb run x -o output=on-failure -- sh -c 'echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 3'
	assert_equal "$output" "$(printf 'out1\nout2')"
	assert_equal "$stderr" "$(printf 'err1\nerr2')"
	# A code the breaker ignores is not a success either.
	run --separate-stderr -4 cb run x -o output=on-failure --ignore-codes 4 -- sh -c 'echo out; exit 4'
	assert_equal "$output" out
	# The config file's key, as the command line's.
	config 'defaults = { output = "on-failure"; };'
	run --separate-stderr -0 cb run y -- echo out
	assert_equal "$output" ''
	run -0 cb config show y
	assert_line --regexp '^output +"on-failure" +.*cbexec\.conf:1$'
}

@test "on-change: the run that opens and the run that closes are written out, nothing between" {
	config 'defaults = { trip = { failures = 2; }; open_timeout = "4m"; output = "on-change"; on_open = "skip"; };'
	run --separate-stderr -7 at 10:30:00 run x -- sh -c 'echo down 1; echo "curl: (7) Failed" >&2; exit 7'
	assert_equal "$output" ''
	assert_equal "$stderr" ''
	run --separate-stderr -7 at 10:31:00 run x -- sh -c 'echo down 2; echo "curl: (7) Failed" >&2; exit 7'
	assert_equal "$output" 'down 2'
	assert_equal "$stderr" "$(printf '%s\n' 'curl: (7) Failed' 'cbexec: x: circuit opened after 2 consecutive failures; refusing runs until 10:35:00')"
	run --separate-stderr -0 at 10:33:00 run x -- echo refused
	assert_equal "$output$stderr" ''
	# A failed probe goes on with the outage: neither its words nor a
	# re-opening line; -v says the transition.
	run --separate-stderr -7 at 10:35:00 run x -- sh -c 'echo down 3; echo "curl: (7) Failed" >&2; exit 7'
	assert_equal "$output$stderr" ''
	assert_equal "$(json_field x state)" open
	run --separate-stderr -0 at 10:43:00 run x -- sh -c 'echo synced 12'
	assert_equal "$output" 'synced 12'
	[[ $stderr == 'cbexec: x: circuit closed after a successful probe'* ]]
	# Closed again: a success and a failure that trips nothing are quiet.
	run --separate-stderr -0 at 10:44:00 run x -- echo fine
	assert_equal "$output$stderr" ''
	run --separate-stderr -7 at 10:45:00 run x -- sh -c 'echo down; exit 7'
	assert_equal "$output$stderr" ''
}

@test "on-change: a run killed at its timeout is written out" {
	run --separate-stderr -124 cb run x -o output=on-change -t 300ms -- sh -c 'echo started; echo working >&2; exec sleep 5'
	assert_equal "$output" started
	assert_equal "$stderr" "$(printf '%s\n' 'cbexec: x: timed out after 300ms; sent SIGTERM' working)"
}

@test "with pass, a failed probe's re-opening is still said" {
	config 'defaults = { trip = { failures = 1; }; open_timeout = "4m"; };'
	run -1 at 10:30:00 run x -- false
	run --separate-stderr -1 at 10:34:00 run x -- false
	assert_equal "$stderr" 'cbexec: x: circuit re-opened (probe failed: exit 1); refusing runs until 10:42:00'
}

@test "held output is an unlinked file, not a pipe, and large output comes back whole" {
	run --separate-stderr -1 cb run x -o output=on-failure -- sh -c 'readlink /proc/self/fd/1; readlink /proc/self/fd/2 >&2; exit 1'
	[[ $output == *' (deleted)' && $output != pipe:* ]]
	[[ $stderr == *' (deleted)' && $stderr != pipe:* ]]
	# 20 MB through a 64 KB buffer, each byte in place.
	cb run y -o output=on-failure -- sh -c 'head -c 20000000 /dev/urandom | tee "$0"; exit 1' "$T/want" >"$T/got" || true
	cmp "$T/want" "$T/got"
}

@test "--retries: each attempt's output is decided by that attempt" {
	run --separate-stderr -0 cb run x -o output=on-failure --retries 2 --retry-delay 0 -- \
	    sh -c 'if [ -e "$0" ]; then echo second; exit 0; fi; : >"$0"; echo first; exit 1' "$T/flag"
	assert_equal "$output" first
}

@test "output that cannot be held passes through, and says so" {
	TMPDIR=$T/no-such-dir run --separate-stderr -0 cb run x -o output=on-change -- sh -c 'echo out; echo err >&2'
	assert_equal "$output" out
	assert_equal "$stderr" "$(printf '%s\n' "cbexec: x: cannot hold the output of 'sh' (No such file or directory): passing it through" err)"
}

@test "the snapshot keeps output: a broken config leaves the breaker its own" {
	config 'defaults = { output = "on-failure"; };'
	run -0 cb run x -- true
	config 'defaults = { output = '
	run --separate-stderr -0 cb run x -- echo out
	assert_equal "$output" ''
}

@test "cron: an outage under output = on-change mails twice, the README's two mails word for word" {
	# The README's crontab line, */5 from 07:00 to 07:55; the API is
	# down from 07:10 to 07:45.  A mail is a run's non-empty output.
	local line
	line=$(grep -m1 'cbexec run warehouse-api .*-o output=on-change' "$BATS_TEST_DIRNAME/../README.md")
	[ -n "$line" ] || fail "no crontab line in README.md"
	read -r -a args <<<"${line#*cbexec }"
	args[${#args[@]} - 1]=./sync-orders
	config 'log = "none";'
	cat >sync-orders <<'SH'
#!/bin/sh
if [ "$API" = down ]; then
	echo "curl: (7) Failed to connect to api.example.com port 443 after 3 ms: Couldn't connect to server" >&2
	exit 7
fi
SH
	chmod +x sync-orders
	local m api mails=0
	for m in 00 05 10 15 20 25 30 35 40 45 50 55; do
		api=up
		[ "$m" -ge 10 ] && [ "$m" -lt 45 ] && api=down
		API=$api TZ=UTC cb_at "@2026-12-03 07:$m:01" "${args[@]}" >"mail.$m" 2>&1 || true
		[ -s "mail.$m" ] && mails=$((mails + 1))
	done
	assert_equal "$mails" 2
	# The README's, word for word; the last failure's duration is the
	# run's own.
	readme_mail() {
		awk -v m="<!-- cron mail $1 -->" '$0 == m { on = 1; next }
		    on && /^    / { sub(/^    /, ""); print; seen = 1; next }
		    on && seen && !/^    / { exit }' "$BATS_TEST_DIRNAME/../README.md"
	}
	ms() { sed -E 's/after [0-9]+ms$/after Nms/'; }
	assert_equal "$(ms <mail.20)" "$(readme_mail 1 | ms)"
	assert_equal "$(ms <mail.50)" "$(readme_mail 2 | ms)"
}
