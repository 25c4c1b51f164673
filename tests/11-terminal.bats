#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 11-terminal: the command and the controlling terminal.  Its process group
# is given the terminal while it runs: at once when stdin and stdout are
# the terminal and cbexec's group has the foreground, else when it first
# touches the terminal.  script(1) gives each test a terminal; the prompt
# tests run an interactive bash there, whose job control puts each job,
# pipeline and all, in a process group of its own, as at a real prompt.

load helper

# A cbexec that a failing test left stopped, and with it (PDEATHSIG) its
# command.
teardown() {
	pkill -KILL -f -- ' run term-[a-z]+ --' || :
	common_teardown
}

# prompt: an interactive bash on a terminal of its own, typing what the
# caller writes to its stdin.
prompt() {
	timeout 20 script -qec 'HISTFILE= bash --norc --noprofile -i' /dev/null
}

# stopped NAME: the cbexec running breaker NAME is stopped (ps state T).
stopped() {
	local pid
	pid=$(pgrep -f -- "run $1 --") || return 1
	[[ $(ps -o stat= -p "$pid") == T* ]]
}

# The command then needs no --foreground to answer a password prompt.
@test "a command started on a terminal can read it" {
	printf 'hello\n' >input
	run -0 timeout 20 script -qec "\"$CBEXEC\" run term-tty -- sh -c 'read l; echo got:\$l'" /dev/null <input
	assert_output --partial 'got:hello'
	run -0 cb status --json term-tty
	assert_equal "$(jq -r '.[0].successes' <<<"$output")" 1
}

# A script's shell leads the job's group, not cbexec (dash runs a last
# command as a child, bash may exec it: the `exit` keeps both from that).
@test "a command run from a script started on a terminal can read it" {
	printf '%s run term-tty -- sh -c '\''read l; echo got:$l'\''\nexit $?\n' \
	    "\"$CBEXEC\"" >job.sh
	printf 'hello\n' >input
	run -0 timeout 20 script -qec 'sh ./job.sh' /dev/null <input
	assert_output --partial 'got:hello'
}

@test "with stdout a pipe the command gets the terminal when it reads it" {
	printf 'hello\n' >input
	run -0 timeout 20 script -qec "\"$CBEXEC\" run term-tty -- sh -c 'read l; echo got:\$l' | cat" /dev/null <input
	assert_output --partial 'got:hello'
}

# Under the terminal's job control the pipeline is one group; a pager at
# its end sets the terminal (stty here), and had cbexec's command taken the
# terminal from it, the kernel would stop it (SIGTTOU).
@test "a pipe's pager keeps the terminal: cbexec run ... | less is not stopped" {
	{
		printf '%s\n' "\"$CBEXEC\" run term-pg -- sh -c ': >started; while [ ! -e set ]; do sleep 0.02; done; echo from-command' | sh -c 'while [ ! -e started ]; do sleep 0.02; done; stty echo </dev/tty && : >set; cat'"
		wait_for test -e set
		printf 'exit\n'
	} | prompt >out
	run -0 cat out
	assert_output --partial from-command
	refute_output --partial Stopped
}

@test "the terminal's ^C reaches a command that has the terminal, and counts as interrupted" {
	# The ^C byte goes in once the command runs.
	{ while [ ! -e started ]; do sleep 0.1; done; printf '\003'; } |
	    timeout 20 script -qec "\"$CBEXEC\" run term-intr -- sh -c ': >started; sleep 30'" /dev/null || :
	run -0 cb status --json term-intr
	assert_equal "$(jq -c '.[0] | [.calls, .interrupted, .failures]' <<<"$output")" '[1,1,0]'
}

@test "^Z at a prompt stops the job, and fg gives the command the terminal again" {
	{
		printf '%s\n' "\"$CBEXEC\" run term-z -- sh -c ': >started; read l; echo got:\$l'"
		wait_for test -e started
		printf '\032'
		wait_for stopped term-z
		printf 'fg\nhello\nexit\n'
	} | prompt >out
	run -0 cat out
	assert_output --partial Stopped
	assert_output --partial 'got:hello'
	run -0 cb status --json term-z
	assert_equal "$(jq -c '.[0] | [.calls, .successes]' <<<"$output")" '[1,1]'
}

# As for any background job that reads the terminal: it stops until fg.
@test "a background job whose command reads the terminal stops, and fg lets it read" {
	{
		printf '%s\n' "\"$CBEXEC\" run term-bg -- sh -c 'read l; echo got:\$l' &"
		wait_for stopped term-bg
		printf 'jobs\nfg\nhello\nexit\n'
	} | prompt >out
	run -0 cat out
	assert_output --regexp $'\\[1\\]\\+ +Stopped[^\n]* run term-bg '
	assert_output --partial 'got:hello'
	run -0 cb status --json term-bg
	assert_equal "$(jq -c '.[0] | [.calls, .successes]' <<<"$output")" '[1,1]'
}
