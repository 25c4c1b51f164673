#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 40-config: finding the config file, reporting its mistakes (file, line and
# key, every one, by every command; 41-broken-config says what then still
# holds), layering defaults, breakers entries and the command line.

load helper

# exit_code_in FILE N: a config file whose refusals exit N.
exit_code_in() {
	mkdir -p "$(dirname "$1")"
	printf 'defaults = { open_exit_code = %s; };\n' "$2" >"$1"
}

@test "-c beats CBEXEC_CONFIG" {
	exit_code_in "$CBEXEC_CONFIG" 90
	exit_code_in "$T/dash-c.conf" 91
	run -0 cb trip x
	run -91 cb -c "$T/dash-c.conf" run x -- true
	run -91 cb --config "$T/dash-c.conf" run x -- true
	run -90 cb run x -- true
}

@test "CBEXEC_CONFIG beats the XDG config file" {
	exit_code_in "$CBEXEC_CONFIG" 90
	exit_code_in "$XDG_CONFIG_HOME/cbexec/cbexec.conf" 92
	run -0 cb trip x
	run -90 cb run x -- true
}

@test "without -c or CBEXEC_CONFIG, \$XDG_CONFIG_HOME/cbexec/cbexec.conf is read" {
	unset CBEXEC_CONFIG
	exit_code_in "$XDG_CONFIG_HOME/cbexec/cbexec.conf" 92
	run -0 cb trip x
	run -92 cb run x -- true
}

@test "without XDG_CONFIG_HOME, ~/.config/cbexec/cbexec.conf is read" {
	unset CBEXEC_CONFIG XDG_CONFIG_HOME
	exit_code_in "$HOME/.config/cbexec/cbexec.conf" 93
	run -0 cb trip x
	run -93 cb run x -- true
}

@test "a missing XDG config file is no error: built-in defaults apply" {
	need_private_etc
	unset CBEXEC_CONFIG
	run -0 private_etc "$CBEXEC" trip x
	run -75 private_etc "$CBEXEC" run x -- true
}

@test "a missing -c file is a usage error naming it: 125 for run, 2 for the others" {
	run -125 cb -c "$T/nope.conf" run x -- touch marker
	assert [ ! -e marker ]
	assert_output "cbexec: cannot open config '$T/nope.conf': No such file or directory"
	run -2 cb -c "$T/nope.conf" status
	assert_output --partial "$T/nope.conf"
	run -2 cb -c "$T/nope.conf" trip x
	run -2 cb -c "$T/nope.conf" check x
	run -2 cb -c "$T/nope.conf" gc
	CBEXEC_CONFIG=$T/nope.conf run -2 cb forget x
}

@test "a config that cannot be used is reported once, in one line, by every command" {
	local c
	for c in "forget x" "trip x" "reset x" "status" "gc" "acquire x" \
	    "config show x"; do
		# shellcheck disable=SC2086 # the words of the command
		run -2 --separate-stderr cb -c "$T/nope.conf" $c
		assert_equal "$stderr" "cbexec: cannot open config '$T/nope.conf': No such file or directory"
	done
}

@test "a config that cannot be used runs the command guarded, printing every problem" {
	run -0 cb trip x
	config 'defaults = {' '  open_timout = "30s";' '  trip = { failures = 0; };' '};' 'breaker = ();'
	run --separate-stderr -0 cb run y -t 5s -- sh -c 'touch marker; exit 0'
	assert [ -e marker ]
	assert_equal "${stderr_lines[0]}" "cbexec: $CBEXEC_CONFIG:2: open_timout: unknown key (did you mean open_timeout?)"
	assert_equal "${stderr_lines[1]}" "cbexec: $CBEXEC_CONFIG:3: trip.failures: must be an integer from 1 to 1000, not 0"
	assert_equal "${stderr_lines[2]}" "cbexec: $CBEXEC_CONFIG:5: breaker: unknown key (did you mean breakers?)"
	assert_equal "${#stderr_lines[@]}" 3
	# -q drops the refusal, never the problems.
	run --separate-stderr -75 cb -q run x -- sh -c 'touch ran; exit 3'
	assert_equal "${#stderr_lines[@]}" 3
	assert [ ! -e ran ]
	# Recorded, and the open breaker refused.
	: >"$CBEXEC_CONFIG"
	assert_equal "$(json_field y calls)" 1
	assert_equal "$(json_field x rejected)" 1
}

@test "a broken config still applies the command line's timeout" {
	config 'bogus = 1;'
	run -124 cb run x -t 100ms -- sleep 10
}

@test "check still refuses with a config that cannot be used; other commands work, config check exits 1" {
	config 'defaults = { trip = { failures = 1; }; };'
	run -0 cb trip x
	run -75 cb check x
	config 'bogus = 1;' 'defaults = { trip = { failures = 1; }; };'
	run -75 --separate-stderr cb check x
	assert_equal "${stderr_lines[0]}" "cbexec: $CBEXEC_CONFIG:1: bogus: unknown key"
	run -75 --separate-stderr cb -q check x
	assert_equal "$stderr" "cbexec: $CBEXEC_CONFIG:1: bogus: unknown key"
	run -0 cb check y
	run -0 cb status
	run -0 cb trip y
	run -0 cb reset x
	run -1 cb config check
}

@test "an unknown key gets the nearest known key as a suggestion" {
	config 'defaults = { trip = { falures = 3; }; max-open-timeout = "1h"; };' 'lgo = "stderr";' 'breakers = ( { mach = "a"; } );' 'zzz = 1;'
	run -1 cb config check
	assert_output --partial 'trip.falures: unknown key (did you mean failures?)'
	assert_output --partial 'max-open-timeout: unknown key (did you mean max_open_timeout?)'
	assert_output --partial 'lgo: unknown key (did you mean log?)'
	assert_output --partial 'mach: unknown key (did you mean match?)'
	assert_output --partial 'zzz: unknown key'
	refute_output --partial 'zzz: unknown key ('
}

@test "an integer where a number is wanted is accepted (jitter = 1)" {
	config 'defaults = { jitter = 1; trip = { policy = "rate"; failure_rate = 1; }; };'
	run -0 cb config check
	run -0 cb run x -- true
}

@test "a missing CBEXEC_CONFIG file is a usage error naming it" {
	export CBEXEC_CONFIG=$T/nope.conf
	run -125 cb run x -- true
	assert_output --partial "$T/nope.conf"
	run -2 cb status
}

@test "an unknown key is an error naming file, line and key" {
	config 'defaults = {' '  open_timeout = "30s";' '  bogus = 1;' '};'
	run -0 cb run x -- touch marker
	assert [ -e marker ]
	assert_output --partial "$CBEXEC_CONFIG:3:"
	assert_output --partial bogus
	run -0 cb status
	assert_output --partial "$CBEXEC_CONFIG:3:"
}

@test "an unknown key inside trip is an error naming file, line and key" {
	config 'defaults = {' '  trip = {' '    failurez = 3;' '  };' '};'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:3:"
	assert_output --partial failurez
}

@test "an unknown top-level key is an error" {
	config 'state_mod = "0600";'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:1:"
	assert_output --partial state_mod
}

@test "an unknown key in a breakers entry is an error, whatever the name run" {
	config 'breakers = (' '  { match = "other"; open_timout = "5s"; }' ');'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:2:"
	assert_output --partial open_timout
}

@test "a string where an integer is wanted is a type error naming the key" {
	config 'defaults = {' '  trip = { failures = "5"; };' '};'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:2:"
	assert_output --partial trip.failures
}

@test "a boolean where a number is wanted is a type error" {
	config 'defaults = { jitter = true; };'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:1:"
	assert_output --partial jitter
}

@test "a value out of range is an error naming file, line, key and value" {
	config '# comment' 'defaults = { trip = { failures = 0; }; };'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:2: trip.failures:"
	assert_output --partial 'not 0'
}

@test "an open_exit_code above 255 is an error" {
	config 'defaults = { open_exit_code = 256; };'
	run -0 cb run x -- true
	assert_output --partial open_exit_code
}

@test "a jitter above 1 is an error" {
	config 'defaults = { jitter = 1.5; };'
	run -0 cb run x -- true
	assert_output --partial jitter
}

@test "the integer 3000000000 is reported as itself, not wrapped" {
	config 'defaults = { open_exit_code = 3000000000; };'
	run -0 cb run x -- true
	assert_output --partial 3000000000
	refute_output --partial -1294967296
}

@test "an integer that would wrap to a valid value (2^32 + 5) is still an error" {
	config 'defaults = { trip = { failures = 4294967301; }; };'
	run -0 cb run x -- true
	assert_output --partial trip.failures
}

@test "a syntax error is an error naming file and line" {
	config 'defaults = {' '  trip = ;' '};'
	run -0 cb run x -- touch marker
	assert [ -e marker ]
	assert_output --partial "$CBEXEC_CONFIG:2"
	run -0 cb status
	assert_output --partial "$CBEXEC_CONFIG:2"
}

@test "a bad value of a top-level key is an error" {
	config 'sync = "sometimes";'
	run -0 cb run x -- true
	assert_output --partial sync
	config 'on_store_error = "maybe";'
	run -0 cb run x -- true
	assert_output --partial on_store_error
	config 'state_mode = "0999";'
	run -0 cb run x -- true
	assert_output --partial state_mode
}

@test "every top-level key of SPEC section 4 is accepted" {
	config "state = \"$T/from-config.mdb\";" \
	    'state_mode = "0600";' 'sync = "none";' 'max_breakers = 1000;' \
	    'on_store_error = "closed";' 'log = "none";' \
	    'on_transition = [ "/bin/true" ];' \
	    'defaults = { trip = { policy = "consecutive"; failures = 5; period = "60s"; window = 20; min_calls = 10; failure_rate = 0.5; };' \
	    '  open_timeout = "30s"; max_open_timeout = "10m"; backoff = 2.0; jitter = 0.0; half_open_max_calls = 1;' \
	    '  probe_lease = "1h"; timeout = "1h"; kill_after = "10s"; failure_codes = "1-255"; success_codes = "0";' \
	    '  timeout_is = "failure"; signal_is = "failure"; slow_call = 0; on_open = "fail"; open_exit_code = 75; };' \
	    'breakers = ( { match = "warehouse-*"; preset = "curl"; } );'
	run -0 cb run x -- true
}

@test "the first matching breakers entry is laid over defaults" {
	config 'defaults = { open_exit_code = 80; };' \
	    'breakers = (' \
	    '  { match = "api-*"; open_exit_code = 81; },' \
	    '  { match = "api-payments"; open_exit_code = 82; },' \
	    '  { match = "*"; trip = { failures = 2; }; }' \
	    ');'
	run -0 cb trip api-payments other
	run -81 cb run api-payments -- true
	run -80 cb run other -- true
}

@test "only the first matching entry applies, not later ones" {
	config 'breakers = (' \
	    '  { match = "api-*"; open_exit_code = 81; },' \
	    '  { match = "*"; trip = { failures = 2; }; }' \
	    ');'
	fail_n api-x 2
	assert_equal "$(json_field api-x state)" closed
	fail_n db 2
	assert_equal "$(json_field db state)" open
}

@test "-o beats the config" {
	config 'defaults = { open_exit_code = 80; };'
	run -0 cb trip x
	run -70 cb run x -o open_exit_code=70 -- true
}

@test "-o with an unknown key, no '=' or a bad value is refused (125)" {
	run -125 cb run x -o bogus=1 -- touch marker
	assert_output --partial bogus
	run -125 cb run x -o trip.failures -- touch marker
	run -125 cb run x -o trip.failures=abc -- touch marker
	run -125 cb run x -o trip.failures=0 -- touch marker
	run -125 cb run x -o jitter=2 -- touch marker
	assert [ ! -e marker ]
}

@test "-o trip.failures=2 is parsed by the key's own type" {
	fail_n x 2 -o trip.failures=2
	run -75 cb run x -- true
}

@test "durations: 1m30s, a bare integer of seconds, 1.5s, 250ms, 2h" {
	config 'defaults = { open_timeout = "1m30s"; };'
	run -0 cb trip a
	assert_equal "$(open_period a)" 90000
	config 'defaults = { open_timeout = 90; };'
	run -0 cb trip b
	assert_equal "$(open_period b)" 90000
	config 'defaults = { open_timeout = "1.5s"; };'
	run -0 cb trip c
	assert_equal "$(open_period c)" 1500
	config 'defaults = { open_timeout = "250ms"; };'
	run -0 cb trip d
	assert_equal "$(open_period d)" 250
	config 'defaults = { open_timeout = "2h"; max_open_timeout = "1d"; };'
	run -0 cb trip e
	assert_equal "$(open_period e)" 7200000
}

@test "a bad duration in the config is an error naming the key" {
	config 'defaults = {' '  open_timeout = "5 parsecs";' '};'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:2:"
	assert_output --partial open_timeout
}

@test "a config change applies at the next run and keeps the breaker's counts" {
	fail_n x 3
	config 'defaults = { trip = { failures = 4; }; };'
	assert_equal "$(json_field x consecutive_failures)" 3
	fail_n x 1
	assert_equal "$(json_field x state)" open
}

@test "as root, a config file that others can write is refused" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	chmod 0646 "$CBEXEC_CONFIG"
	run -0 cb run x -- touch marker
	assert [ -e marker ]
	assert_output --partial "$CBEXEC_CONFIG"
	refute_output --partial unguarded
	assert_equal "$(CBEXEC_CONFIG=/dev/null json_field x calls)" 1
	run -0 cb status
	assert_output --partial "$CBEXEC_CONFIG"
	chmod 0664 "$CBEXEC_CONFIG"
	run -0 cb run x -- true
	chmod 0644 "$CBEXEC_CONFIG"
	run -0 cb run x -- true
}

@test "a breakers entry without match is an error naming file and line" {
	config 'breakers = (' '  { open_timeout = "5s"; }' ');'
	run -0 cb run x -- true
	assert_output --partial "$CBEXEC_CONFIG:2"
	assert_output --partial match
}

@test "an unknown trip.policy is an error" {
	config 'defaults = { trip = { policy = "sometimes"; }; };'
	run -0 cb run x -- true
	assert_output --partial trip.policy
}

@test "trip.window above 1000 is an error" {
	config 'defaults = { trip = { policy = "rate"; window = 1001; }; };'
	run -0 cb run x -- true
	assert_output --partial trip.window
}

@test "half_open_max_calls = 0 is an error" {
	config 'defaults = { half_open_max_calls = 0; };'
	run -0 cb run x -- true
	assert_output --partial half_open_max_calls
}

@test "--on-open with a value other than fail or skip is refused (125)" {
	run -125 cb run x --on-open maybe -- touch marker
	assert [ ! -e marker ]
}

@test "log = stderr prints transitions on stderr, log = none prints nothing" {
	config 'log = "stderr";'
	run -0 --separate-stderr cb trip x
	assert_equal "$stderr" "cbexec: x: closed -> open (manual trip by $(id -un))"
	config 'log = "none";'
	run -0 --separate-stderr cb trip y
	assert_equal "$stderr" ''
}

@test "a default config path behind a directory the user may not search is not there: no problem, said with -v" {
	[ "$(id -u)" = 0 ] || skip "needs root (setpriv)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	# HOME left at root's by setpriv, as su without - leaves it.
	d=$(mktemp -d /tmp/cbexec-home.XXXXXX)
	mkdir -p "$d/root/.config/cbexec"
	: >"$d/root/.config/cbexec/cbexec.conf"
	chmod 0700 "$d/root"
	chmod 0755 "$d"
	mkdir -m 1777 "$d/s"
	unshare -m true 2>/dev/null || skip "no mount namespace"
	# The host's /etc/cbexec.conf, if any, is none here (the null
	# device: no config file).
	as() {
		unshare -m sh -c '[ ! -e /etc/cbexec.conf ] ||
		    mount --bind /dev/null /etc/cbexec.conf || exit 99
		    exec "$@"' sh \
		    setpriv --reuid nobody --regid nogroup --clear-groups \
		    env -u CBEXEC_CONFIG -u XDG_CONFIG_HOME HOME="$d/root" \
		    CBEXEC_STATE="$d/s/state.mdb" "$CBEXEC" "$@"
	}
	run -0 --separate-stderr as run x -- true
	assert_equal "$stderr" ''
	run -0 --separate-stderr as -v run x -- true
	assert_equal "${stderr_lines[0]}" "cbexec: config '$d/root/.config/cbexec/cbexec.conf' is behind a directory this user may not search (is HOME another user's?); taken as not there"
	run -0 --separate-stderr as config check
	rm -rf "$d"
}

@test "an unknown -o key suggests the nearest, as the config file's errors do" {
	run -125 --separate-stderr cb run x -o open_timout=1s -- touch marker
	assert_equal "${stderr_lines[0]}" "cbexec: run: -o: unknown policy key 'open_timout' (did you mean open_timeout?)"
	assert [ ! -e marker ]
	run -125 --separate-stderr cb run x -o zzzzzz=1 -- true
	assert_equal "${stderr_lines[0]}" "cbexec: run: -o: unknown policy key 'zzzzzz'"
}

@test "a state_mode that lets others write is refused, naming the key" {
	config 'state_mode = "0666";'
	run -1 cb config check
	assert_output --partial "state_mode: others may not write the state, not '0666'"
	config 'state_mode = "0664";'
	run -0 cb config check
}
