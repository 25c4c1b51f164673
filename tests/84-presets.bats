#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 84-presets: the presets against the real tools.  A closed port on
# 127.0.0.1 is "cannot connect" for every tool, and must trip the breaker;
# an HTTP 404 from a local server means the dependency answered, and must
# not; nor, with the curl preset, does a 503 from a proxy, unless 22 is
# added to the failure class.  The tables themselves are in src/policy.c and cbexec.conf(5).

load helper

# closed_port: a TCP port on 127.0.0.1 that nothing listens on (bound by
# the kernel's choice, then released).
closed_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# http_server: serve $T/www on 127.0.0.1; its port in $port.
http_server() {
	mkdir -p www
	echo hello >www/index.html
	# In a subshell: not a job of the test's shell, which would report
	# its killing at teardown.
	(python3 -u -m http.server 0 --bind 127.0.0.1 --directory www \
	    >http.log 2>&1 3>&- &
	echo "$!" >http.pid)
	WAIT_S=20 wait_for grep -q ' port [0-9]' http.log
	port=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' http.log | head -n 1)
	[ -n "$port" ]
}

# silent_server: accept TCP connections on 127.0.0.1 and never answer;
# its port in $port.
silent_server() {
	(python3 -u -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1])
time.sleep(120)' >silent.log 2>&1 3>&- &
	echo "$!" >silent.pid)
	WAIT_S=20 wait_for grep -q '^[0-9]' silent.log
	port=$(head -n 1 silent.log)
}

# busy_server: an HTTP server on 127.0.0.1 that answers every request
# with 503, as a reverse proxy does when the API behind it is down; its
# port in $port.
busy_server() {
	(python3 -u -c 'import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1])
s.serve_forever()' >busy.log 2>&1 3>&- &
	echo "$!" >busy.pid)
	WAIT_S=20 wait_for grep -q '^[0-9]' busy.log
	port=$(head -n 1 busy.log)
}

# The curl preset's failure class with 22 added (cbexec.conf(5), Preset
# curl): an explicit class replaces the preset's, so it lists them all.
CURL_AND_22=5-7,22,28,35,52,55-56,96-97

@test "curl -f: a 503 from a proxy is exit 22, which the preset does not count as a failure" {
	busy_server
	for i in 1 2 3 4 5 6; do
		run -22 cb run api --preset curl -- curl -fsS --max-time 10 "http://127.0.0.1:$port/"
	done
	assert_equal "$(json_field api state)" closed
	assert_equal "$(json_field api failures)" 0
}

@test "curl -f: the preset's classes plus 22 trip on a 503, and still on a closed port" {
	busy_server
	for i in 1 2 3 4 5; do
		run -22 cb run api --preset curl --failure-codes "$CURL_AND_22" -- curl -fsS --max-time 10 "http://127.0.0.1:$port/"
	done
	assert_equal "$(json_field api state)" open
	assert_equal "$(json_field api failures)" 5
	run -75 cb run api --preset curl --failure-codes "$CURL_AND_22" -- curl -fsS "http://127.0.0.1:$port/"
	# The preset's own failures are still failures; 0 still a success.
	run -0 cb config show x --preset curl --failure-codes "$CURL_AND_22"
	assert_line --regexp "^failure_codes +\"$CURL_AND_22\" +command line\$"
	local p
	p=$(closed_port)
	run -7 cb run b --preset curl --failure-codes "$CURL_AND_22" -- curl -fsS "http://127.0.0.1:$p/"
	assert_equal "$(json_field b failures)" 1
}

@test "curl: a closed port is exit 7, a failure: five of them open the breaker" {
	local p
	p=$(closed_port)
	for i in 1 2 3 4 5; do
		run -7 cb run api --preset curl -- curl -fsS --max-time 10 "http://127.0.0.1:$p/"
	done
	assert_equal "$(json_field api state)" open
	assert_equal "$(json_field api failures)" 5
	assert_equal "$(json_field api last_exit)" 7
	run -75 cb run api --preset curl -- curl -fsS "http://127.0.0.1:$p/"
}

@test "curl -f: a real HTTP 404 is exit 22, the server answered: not a failure" {
	http_server
	for i in 1 2 3 4 5 6; do
		run -22 cb run api --preset curl -- curl -fsS --max-time 10 "http://127.0.0.1:$port/missing"
	done
	assert_equal "$(json_field api state)" closed
	assert_equal "$(json_field api successes)" 6
	assert_equal "$(json_field api failures)" 0
	assert_equal "$(json_field api last_exit)" 22
}

@test "curl: a 404 between connection failures resets the streak" {
	http_server
	local p
	p=$(closed_port)
	for i in 1 2 3 4; do
		run -7 cb run api --preset curl -- curl -fsS "http://127.0.0.1:$p/"
	done
	run -22 cb run api --preset curl -- curl -fsS "http://127.0.0.1:$port/missing"
	run -7 cb run api --preset curl -- curl -fsS "http://127.0.0.1:$p/"
	assert_equal "$(json_field api state)" closed
	assert_equal "$(json_field api consecutive_failures)" 1
}

@test "curl: a page that is there is exit 0, a success" {
	http_server
	run -0 cb run api --preset curl -- curl -fsS "http://127.0.0.1:$port/"
	assert_output hello
	assert_equal "$(json_field api successes)" 1
}

@test "curl: a server that never answers is exit 28 (timeout), a failure" {
	silent_server
	run -28 cb run api --preset curl -- curl -fsS --max-time 1 "http://127.0.0.1:$port/"
	assert_equal "$(json_field api failures)" 1
}

@test "curl preset from a breakers entry; without it a 404 would be a failure" {
	http_server
	config 'breakers = ( { match = "api-*"; preset = "curl"; } );'
	run -22 cb run api-1 -- curl -fsS "http://127.0.0.1:$port/missing"
	assert_equal "$(json_field api-1 failures)" 0
	run -22 cb run other -- curl -fsS "http://127.0.0.1:$port/missing"
	assert_equal "$(json_field other failures)" 1
}

@test "wget: a closed port is exit 4, a failure; a 404 is exit 8, not one" {
	http_server
	local p
	p=$(closed_port)
	run -4 cb run w --preset wget -- wget -q -T 10 -t 1 -O /dev/null "http://127.0.0.1:$p/"
	assert_equal "$(json_field w failures)" 1
	run -8 cb run w --preset wget -- wget -q -T 10 -t 1 -O /dev/null "http://127.0.0.1:$port/missing"
	assert_equal "$(json_field w failures)" 1
	assert_equal "$(json_field w successes)" 1
}

@test "ssh: a closed port is exit 255, a failure; the remote command's code is not" {
	command -v ssh >/dev/null || skip "ssh is not installed"
	local p
	p=$(closed_port)
	run -255 cb run s --preset ssh -- ssh -o BatchMode=yes -o ConnectTimeout=10 -p "$p" 127.0.0.1 true
	assert_equal "$(json_field s failures)" 1
	# What the remote command exits with (here a local stand-in) is the job's.
	run -1 cb run s --preset ssh -- false
	assert_equal "$(json_field s failures)" 1
}

@test "rsync: a closed daemon port is exit 10 (socket I/O), a failure" {
	command -v rsync >/dev/null || skip "rsync is not installed"
	local p
	p=$(closed_port)
	run -10 cb run r --preset rsync -- rsync --contimeout=10 "rsync://127.0.0.1:$p/x" "$T/dst"
	assert_equal "$(json_field r failures)" 1
	run -23 cb run r --preset rsync -- sh -c 'exit 23'
	assert_equal "$(json_field r failures)" 1
}

@test "psql and pg_isready: a closed port is exit 2, a failure" {
	command -v psql >/dev/null || skip "psql is not installed"
	command -v pg_isready >/dev/null || skip "pg_isready is not installed"
	local p
	p=$(closed_port)
	run -2 cb run db --preset psql -- psql -w -h 127.0.0.1 -p "$p" -c 'select 1'
	assert_equal "$(json_field db failures)" 1
	run -2 cb run ready --preset pg_isready -- pg_isready -h 127.0.0.1 -p "$p"
	assert_equal "$(json_field ready failures)" 1
	# psql's own error (1) and a script error (3) are the job's.
	run -3 cb run db --preset psql -- sh -c 'exit 3'
	assert_equal "$(json_field db failures)" 1
}

@test "config show lists each preset's classes" {
	run -0 cb config show x --preset curl
	assert_line --regexp '^failure_codes +"5-7,28,35,52,55-56,96-97" +command line$'
	run -0 cb config show x --preset wget
	assert_line --regexp '^failure_codes +"4" '
	run -0 cb config show x --preset ssh
	assert_line --regexp '^failure_codes +"255" '
	run -0 cb config show x --preset rsync
	assert_line --regexp '^failure_codes +"5,10,12,30,35" '
	run -0 cb config show x --preset psql
	assert_line --regexp '^failure_codes +"2" '
	run -0 cb config show x --preset pg_isready
	assert_line --regexp '^failure_codes +"1-2" '
}

@test "every preset's table is in cbexec.conf(5)" {
	local man=$BATS_TEST_DIRNAME/../man/cbexec.conf.5 p
	for p in curl wget ssh rsync psql pg_isready; do
		grep -q "^\.Ss Preset $p\$" "$man" || {
			echo "no table for $p in cbexec.conf(5)"
			return 1
		}
	done
}
