#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 60-status: the table, the detail view of one breaker, --json (every field,
# RFC 3339 times, null where not applicable), --names, GLOB filters, and no
# colour off a tty or with NO_COLOR.  --json and --prometheus of breakers
# with every field set are compared with golden files in fixtures/.

load helper

@test "the table has the documented columns and one row per breaker" {
	ok_n api 1
	fail_n db 2
	run -0 cb status
	assert_line --index 0 --regexp '^NAME +STATE +FAILURES +CALLS +REJECTED +CHANGED +RETRY-IN *$'
	assert_line --regexp '^api +closed +0/5 +1 +0 '
	assert_line --regexp '^db +closed +2/5 +2 +0 '
	assert_equal "${#lines[@]}" 3
}

@test "the table shows an open breaker with its retry-in and rejections" {
	fail_n db 5
	run -75 cb run db -- true
	run -0 cb status
	assert_line --regexp '^db +open +[^ ]+ +5 +1 +.*[0-9]+[smh] *$'
}

@test "the table says now once the cool-down has passed" {
	fail_n db 5
	run -0 cb_at +61s status
	assert_line --regexp '^db +.* now *$'
}

@test "--json has every field of a breaker with the right values" {
	run -0 cb run j -- true
	fail_n j 2
	run -127 cb run j -- no-such-command-cbexec-test
	run -124 cb run j -t 100ms -k 100ms -- sleep 5
	status_json
	run -0 jq -c '.[0] | {name, state, consecutive_failures, calls, successes, failures, timeouts, ignored, interrupted, stale, rejected, last_exit, opened_at, open_until}' status.json
	assert_output '{"name":"j","state":"closed","consecutive_failures":3,"calls":5,"successes":1,"failures":3,"timeouts":1,"ignored":1,"interrupted":0,"stale":0,"rejected":0,"last_exit":124,"opened_at":null,"open_until":null}'
	run -0 jq -e '.[0].epoch | type == "number"' status.json
	run -0 jq -r '.[0].last_run_at' status.json
	assert_output --regexp "$RFC3339"
}

@test "--json times are RFC 3339 and right, whatever the local time zone" {
	export TZ=IST-5:30
	local before after
	before=$(now_ms)
	fail_n x 5
	after=$(now_ms)
	local f v
	for f in opened_at open_until changed_at last_run_at; do
		v=$(json_field x "$f")
		[[ $v =~ $RFC3339 ]] || fail "$f is not RFC 3339: $v"
	done
	v=$(time_ms x opened_at)
	assert [ "$v" -ge "$((before - 1000))" ]
	assert [ "$v" -le "$((after + 1000))" ]
	v=$(time_ms x last_run_at)
	assert [ "$v" -ge "$((before - 1000))" ]
	assert [ "$v" -le "$((after + 1000))" ]
}

@test "--json of an open breaker: state, epoch moved, open_until one cool-down after opened_at" {
	run -0 cb run x -- true
	local epoch
	epoch=$(json_field x epoch)
	fail_n x 5
	assert_equal "$(json_field x state)" open
	assert [ "$(json_field x epoch)" -gt "$epoch" ]
	assert_equal "$(open_period x)" 60000
	# opened_at: where the cool-down counts from, the whole second the
	# opening call started in (SPEC 2); changed_at: when it opened.
	local o c
	o=$(time_ms x opened_at)
	c=$(time_ms x changed_at)
	assert [ $((o % 1000)) -eq 0 ]
	assert [ "$o" -le "$c" ]
	assert_equal "$(json_field x last_exit)" 1
}

@test "--json of a breaker that never ran: last_run_at and last_exit are null" {
	run -0 cb trip x
	assert_equal "$(json_field x last_run_at)" null
	assert_equal "$(json_field x last_exit)" null
	assert_equal "$(json_field x calls)" 0
}

@test "--json stays valid with quotes and backslashes in a reason" {
	run -0 cb trip x --reason 'say "hi" \ back'
	status_json
	run -0 jq -r '.[0].name' status.json
	assert_output x
	run -0 cb status x
	assert_output --partial 'say "hi"'
}

@test "--json counts a death by signal with its 128+N exit" {
	run -137 cb run x -- sh -c 'kill -9 $$'
	assert_equal "$(json_field x last_exit)" 137
}

@test "--json lists every breaker, each with all the fields" {
	ok_n a 1
	run -0 cb trip b
	status_json
	run -0 jq -e 'length == 2 and all(.[]; has("name") and has("state") and has("epoch")
	    and has("consecutive_failures") and has("calls") and has("successes")
	    and has("failures") and has("timeouts") and has("ignored")
	    and has("interrupted") and has("stale") and has("rejected")
	    and has("opened_at") and has("open_until") and has("changed_at")
	    and has("last_run_at") and has("last_exit"))' status.json
}

@test "--json with no state file is an empty array" {
	run -0 cb status --json
	run -0 jq -e '. == []' <<<"$output"
}

@test "status on a state with no breakers says where it looked, on stderr, and exits 0" {
	run --separate-stderr -0 cb status
	assert_equal "$output" ''
	assert_equal "$stderr" "cbexec: no breakers in $CBEXEC_STATE; 'cbexec run NAME -- COMMAND' makes one"
	# Made and emptied: the same.
	ok_n x 1
	run -0 cb forget x
	run --separate-stderr -0 cb status
	assert_equal "$stderr" "cbexec: no breakers in $CBEXEC_STATE; 'cbexec run NAME -- COMMAND' makes one"
	run --separate-stderr -0 cb -q status
	assert_equal "$stderr" ''
	# The formats for programs say it their own way, and nothing more.
	run --separate-stderr -0 cb status --json
	assert_equal "$output" '[]'
	assert_equal "$stderr" ''
	run --separate-stderr -0 cb status --names
	assert_equal "$output" ''
	assert_equal "$stderr" ''
	run --separate-stderr -0 cb status --prometheus
	assert_equal "$stderr" ''
	# A GLOB matching nothing is not an empty state.
	run --separate-stderr -0 cb status 'nothing*'
	assert_equal "$stderr" ''
}

@test "the table marks a breaker opened by hand: open (manual)" {
	fail_n auto 5
	run -0 cb trip maint --for 1h
	run -0 cb trip gone --for 1h
	run -0 cb reset gone
	run -0 cb status
	assert_line --index 0 --regexp '^NAME +STATE +FAILURES +CALLS +REJECTED +CHANGED +RETRY-IN$'
	assert_line --regexp '^auto +open           +5/5 '
	assert_line --regexp '^gone +closed         +0/5 '
	assert_line --regexp '^maint +open \(manual\)  +0/5 +0 +0 +0s ago +1h$'
}

@test "the table marks the runs in flight that hold a slot: closed, 2 running" {
	for i in 1 2; do
		cb run job -o max_concurrent=3 -- sh -c 'touch "started.$0"; while [ ! -e release ]; do sleep 0.02; done' "$i" 3>&- &
	done
	wait_for test -e started.1 -a -e started.2
	run -0 cb status
	assert_line --regexp '^job +closed, 2 running +0/5 +0 +0 +- +-$'
	touch release
	wait
	run -0 cb status
	assert_line --regexp '^job +closed +0/5 +2 +0 +- +-$'
	# A half-open probe in flight, too.
	fail_n p 5
	cb_at +61s run p -- sh -c 'touch probing; while [ ! -e release2 ]; do sleep 0.02; done' 3>&- &
	wait_for test -e probing
	run -0 cb status
	assert_line --regexp '^p +half-open, 1 running '
	touch release2
	wait
}

@test "--names prints the names in order, one a line" {
	ok_n charlie 1
	ok_n alpha 1
	ok_n bravo 1
	run -0 cb status --names
	assert_output "$(printf 'alpha\nbravo\ncharlie')"
}

@test "a GLOB filters the breakers" {
	ok_n api-1 1
	ok_n api-2 1
	ok_n db 1
	run -0 cb status --names 'api-*'
	assert_output "$(printf 'api-1\napi-2')"
	run -0 cb status 'api-*'
	assert_output --partial api-1
	refute_output --partial db
	run -0 cb status --json 'api-*'
	run -0 jq -r '.[].name' <<<"$output"
	assert_output "$(printf 'api-1\napi-2')"
}

@test "several GLOBs and names together select their union" {
	ok_n api-1 1
	ok_n db 1
	ok_n web 1
	run -0 cb status --names 'api-*' db
	assert_output "$(printf 'api-1\ndb')"
}

@test "a GLOB matching nothing prints nothing and exits 0" {
	ok_n api 1
	run -0 cb status 'zzz*'
	assert_output ''
	run -0 cb status --names 'zzz*'
	assert_output ''
}

@test "status of a NAME that does not exist exits 1 naming it" {
	ok_n api 1
	run -1 cb status nosuch
	assert_output --partial nosuch
}

@test "status --json NAME is an array of that one breaker" {
	ok_n a 1
	ok_n b 1
	run -0 cb status --json a
	run -0 jq -r 'map(.name) | join(",")' <<<"$output"
	assert_output a
}

@test "status --names NAME prints that name" {
	ok_n a 1
	ok_n b 1
	run -0 cb status --names b
	assert_output b
}

@test "status of one NAME is a detail view with state, reason and last exit" {
	fail_n x 5
	run -0 cb status x
	assert_output --partial x
	assert_output --partial open
	assert_output --partial '5 consecutive failures'
	assert [ "${#lines[@]}" -gt 5 ]
}

@test "no colour when stdout is not a tty" {
	fail_n x 5
	ok_n y 1
	run -0 cb status
	refute_output --partial $'\e'
	run -0 cb status x
	refute_output --partial $'\e'
}

@test "no colour with NO_COLOR even on a tty" {
	fail_n x 5
	ok_n y 1
	export NO_COLOR=1
	run -0 script -qec "\"$CBEXEC\" status" /dev/null
	assert_output --partial NAME
	refute_output --partial $'\e'
	run -0 script -qec "\"$CBEXEC\" status x" /dev/null
	refute_output --partial $'\e'
}

@test "the table is coloured on a terminal, by state" {
	fail_n x 5
	ok_n y 1
	run -0 script -qec "TERM=xterm \"$CBEXEC\" status" /dev/null
	assert_output --partial $'\e[31mopen'
	assert_output --partial $'\e[32mclosed'
}

@test "the table's columns stay aligned, whatever the lengths" {
	ok_n a 1
	fail_n a-much-longer-name 12 -o trip.failures=100
	run -0 cb status
	local i col
	col=$(awk 'NR == 1 { print index($0, "CALLS") + 4 }' <<<"$output")
	for ((i = 0; i < ${#lines[@]}; i++)); do
		# CALLS is right-aligned: its last digit sits under the S.
		assert_equal "$(awk -v c="$col" '{ print substr($0, c, 1) }' <<<"${lines[i]}" | tr -d '0-9S')" ''
	done
}

@test "--json escapes names with every allowed special byte and reasons with quotes and backslashes" {
	local name='a.b_c-d:e@f/g+h' text='say "hi" \ and \\ "\"'
	run -0 cb trip "$name" --reason "$text"
	status_json
	run -0 jq -r --arg n "$name" --arg t "$text" --arg u "$(id -un)" '
	    .[0] | (.name == $n) and (.reason | endswith(": " + $t))
	    and (.history[-1].reason == .reason) and (.history[-1].user == $u)' status.json
	assert_output true
}

@test "--json has the runs strip of runs that ran, oldest first, with outcome names" {
	ok_n x 1
	fail_n x 1
	run -124 cb run x -t 100ms -k 100ms -- sleep 5
	run -127 cb run x -- no-such-command-cbexec-test
	fail_n x 3
	run -75 cb run x -- true
	assert_equal "$(json x '.runs | join(",")')" \
	    success,failure,timeout,ignored,failure,failure,failure
	assert_equal "$(json x .rejected)" 1
}

@test "--json has the transition history with RFC 3339 times, newest last" {
	fail_n x 5
	AT=+61s ok_n x 1
	run -0 cb trip x
	run -0 cb reset x --reason 'all "clear"'
	status_json
	run -0 jq -r '.[0].history[] | [.from, .to, .reason, (.user // "-")] | join("|")' status.json
	assert_output "$(printf '%s\n' 'closed|open|5 consecutive failures|-' \
	    'open|half-open|cool-down elapsed|-' \
	    'half-open|closed|1 probe succeeded|-' \
	    "closed|open|manual trip by $(id -un)|$(id -un)" \
	    "open|closed|manual reset by $(id -un): all \"clear\"|$(id -un)")"
	run -0 jq -r '.[0].history[].at' status.json
	local t
	for t in "${lines[@]}"; do
		[[ $t =~ $RFC3339 ]] || fail "not RFC 3339: $t"
	done
}

@test "--json keeps the last 32 runs and the last 16 transitions" {
	local i
	ok_n x 40
	for ((i = 0; i < 10; i++)); do
		cb trip x >/dev/null
		cb reset x >/dev/null
	done
	assert_equal "$(json x '[(.runs | length), (.history | length), .history[-1].to] | join(",")')" 32,16,closed
}

@test "--json lists probes, the rate window and failure times" {
	fail_n x 2
	status_json
	run -0 jq -c '.[0] | [.window, .window_failures, (.failure_times | length), .probes]' status.json
	assert_output '[[1,1],2,2,[]]'
	run -0 jq -r '.[0].failure_times[]' status.json
	assert_line --index 0 --regexp "$RFC3339"
}

@test "CHANGED is - for a breaker that never changed state" {
	ok_n a 1
	fail_n b 5
	run -0 cb status
	assert_line --regexp '^a +closed +0/5 +1 +0 +- +- *$'
	assert_line --regexp '^b +open .* [0-9]+s ago +'
}

# golden_state: two breakers at fixed (frozen) times that between them set
# every field --json has.  "every": a success, five failures (one of them a
# timeout), tripped by them, a refusal, then tripped by hand with a
# --reason that needs escaping.  "probing": tripped, then half-open with
# its probe slot held by an acquired token.
golden_state() {
	local t='2026-01-01 00:00'
	cb_at "$t:00" run every -- true
	cb_at "$t:01" run every -- false || true
	cb_at "$t:02" run every -t 1s -k 1s -- sleep 5 || true
	cb_at "$t:03" run every -- false || true
	cb_at "$t:04" run every -- false || true
	cb_at "$t:05" run every -- false || true
	cb_at "$t:06" run every -- true || true
	cb_at "$t:07" trip every --for 1h --reason 'planned "maintenance" é'
	cb_at "$t:00" run probing -- false || true
	cb_at "$t:00" trip probing --for 1m
	cb_at '2026-01-01 00:02:00' acquire probing --lease 1h >/dev/null
	# max_rate (SPEC 2d): one admitted, one rate limited.
	cb_at "$t:00" run rated -o max_rate=2/1h -o rate_burst=1 -- true
	cb_at "$t:10" run rated -o max_rate=2/1h -- true || true
}

# What varies between runs is made fixed: durations, the token, the boot
# id, the identity, the host and the user who tripped or ran.
golden_filter() {
	sed -E -e 's/"(last_)?duration_ms": [0-9]+/"\1duration_ms": D/g' \
	    -e 's/"(token|boot_id|identity)": "[0-9a-f]+"/"\1": "X"/g' \
	    -e 's/"pidns": [0-9]+/"pidns": N/g' \
	    -e "s/\"host\": \"$(hostname)\"/\"host\": \"HOST\"/g" \
	    -e "s/\\b$(id -un)\\b/USER/g"
}

@test "status --json of breakers with every field set is the golden file" {
	golden_state >/dev/null 2>&1
	run -0 cb status --json
	golden_filter <<<"$output" >got.json
	run -0 diff -u "$BATS_TEST_DIRNAME/fixtures/status-golden.json" got.json
}

@test "status --prometheus of the same breakers is the golden file" {
	golden_state >/dev/null 2>&1
	run -0 cb status --prometheus
	printf '%s\n' "$output" |
	    sed -E 's/^(cbexec_last_duration_seconds\{[^}]*\}) [0-9.]+$/\1 D/' \
	    >got.prom
	run -0 diff -u "$BATS_TEST_DIRNAME/fixtures/status-golden.prom" got.prom
}

@test "--json writes each byte of a reason that is not UTF-8 as \\ufffd" {
	run -0 cb trip x --reason $'caf\xc3\xa9 \xff\xfe end'
	status_json
	run -0 jq -r '.[0].reason' status.json
	assert_output --partial $'caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end'
	# the bytes themselves: valid UTF-8 as it is, each other byte escaped
	run -0 grep -cF "$(printf 'caf\xc3\xa9 \\ufffd\\ufffd end')" status.json
}
