#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# 63-completions: the bash completion, driven through COMP_WORDS and
# COMP_CWORD (with and without bash-completion loaded); the fish
# completion through `complete -C`; the zsh one parsed by `zsh -n`.

load helper

COMPDIR=$BATS_TEST_DIRNAME/../completions

# comp WORD...: what the bash completion offers for the last WORD, one a
# line, sorted.  BC=1 loads bash-completion first; LINE is COMP_LINE
# when the words do not show it.  The words are given as
# bash would split them (its default COMP_WORDBREAKS holds ':' and '=').
comp() {
	bash -c '
		[ "$BC" = 1 ] && . /usr/share/bash-completion/bash_completion
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE=${LINE:-$*}
		COMP_POINT=${#COMP_LINE}
		_cbexec "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort
	' _ "$COMPDIR/cbexec.bash" "$@"
}

# fishcomp LINE: what fish offers for LINE, candidates only, sorted.
fishcomp() {
	fish -c 'source $argv[1]; complete -C $argv[2] | string replace -r "\t.*" ""' \
	    "$COMPDIR/cbexec.fish" "$1" | sort
}

# zshcomp LINE: what zsh lists for LINE after two TABs, driven through a
# pty (zsh/zpty) with compinit loading completions/_cbexec; escape
# sequences removed.  $2: a word the listing must show (waited for).
# compinit keeps its dump for this file's run: the first call makes it,
# the others load it (with -D each call took 10 s or more under load).
zshcomp() {
	local script=$T/zshcomp.zsh
	cat >"$script" <<'ZSH'
zmodload zsh/zpty
zpty -b z zsh -f -i
zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d $4; setopt nobeep; zstyle ':completion:*' list-rows-first true; echo READY-MARK"
zpty -r z out '*READY-MARK*'
zpty -r z out '*READY-MARK*'
# zle skips the listing while input is pending: wait for the listing
# ($3, a word it must show) before typing anything more.
got=
zpty -w -n z "$2"$'\t\t'
[[ -n $3 ]] && zpty -r z got "*$3*"
zpty -w -n z $'\C-u'
zpty -w z 'echo DONE-MARK'
zpty -r z out '*DONE-MARK*'
print -r -- "$got$out"
zpty -d z
ZSH
	timeout 60 zsh -f "$script" "$COMPDIR" "$1" "${2-}" \
	    "$BATS_FILE_TMPDIR/zcompdump" | tr -d '\r' |
	    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}

setup() {
	common_setup
	mkdir bin
	ln -s "$CBEXEC" bin/cbexec
	PATH=$T/bin:$PATH
	ok_n db:primary 1
	ok_n db:replica 1
	ok_n web 1
}

@test "bash: the commands, all of SPEC section 1" {
	run -0 comp cbexec ''
	assert_output "$(printf '%s\n' acquire check config forget gc help release reset run status trip)"
	run -0 comp cbexec re
	assert_output "$(printf '%s\n' release reset)"
}

@test "bash: the global options" {
	run -0 comp cbexec --
	assert_output "$(printf '%s\n' --config --help --quiet --state --verbose --version)"
}

@test "bash: the options of each command" {
	run -0 comp cbexec status --
	assert_output "$(printf '%s\n' --help --json --names --output --prometheus)"
	run -0 comp cbexec trip --
	assert_output "$(printf '%s\n' --for --help --on-open --reason)"
	run -0 comp cbexec trip db --on-open ''
	assert_output "$(printf '%s\n' fail skip)"
	run -0 comp cbexec reset --
	assert_output "$(printf '%s\n' --help --reason)"
	run -0 comp cbexec gc --
	assert_output "$(printf '%s\n' --dry-run --help --idle)"
	run -0 comp cbexec acquire --
	assert_output "$(printf '%s\n' --help --lease --pid --wait)"
	run -0 comp cbexec run db --
	assert_output "$(printf '%s\n' -- --failure-codes --foreground --help \
	    --ignore-codes --kill-after --on-open --preset --retries \
	    --retry-delay --success-codes --timeout --wait)"
}

@test "bash: -o offers every policy key, retries, retry_delay and this release's included" {
	run -0 comp cbexec run db -o ''
	for k in retries retry_delay max_concurrent on_busy max_rate rate_burst \
	    probe probe_timeout \
	    trip.policy open_timeout open_exit_code; do
		assert_line "$k="
	done
	run -0 comp cbexec run db -o retr
	assert_output "$(printf '%s\n' retries= retry_delay=)"
	run -0 comp cbexec run db -o on_busy =
	assert_output "$(printf '%s\n' fail skip)"
	# An option's value is not taken for NAME or COMMAND.
	run -0 comp cbexec run db --retries 2 --
	assert_line --timeout
	run -0 comp cbexec acquire --lease 5s ''
	assert_output "$(printf '%s\n' db:primary db:replica web)"
}

@test "bash: option values: --on-open, --preset, -o KEY=VALUE" {
	run -0 comp cbexec run db --on-open ''
	assert_output "$(printf '%s\n' fail skip)"
	run -0 comp cbexec run db --preset ''
	assert_output "$(printf '%s\n' curl pg_isready psql rsync ssh wget)"
	run -0 comp cbexec run db -o trip.p
	assert_output "$(printf '%s\n' trip.period= trip.policy=)"
	run -0 comp cbexec run db -o trip.policy = r
	assert_output rate
	run -0 comp cbexec run db -o on_open =
	assert_output "$(printf '%s\n' fail skip)"
	run -0 comp cbexec release TOKEN ''
	assert_output "$(printf '%s\n' failure ignore success)"
	run -0 comp cbexec config ''
	assert_output "$(printf '%s\n' check show)"
}

@test "bash: breaker names from status --names, ':' split as bash does" {
	run -0 comp cbexec status ''
	assert_output "$(printf '%s\n' db:primary db:replica web)"
	run -0 comp cbexec check w
	assert_output web
	run -0 comp cbexec reset db : r
	assert_output replica
	ok_n deploy@host-1 1
	run -0 comp cbexec status deploy @ h
	assert_output host-1
	run -0 comp cbexec run ''
	assert_output "$(printf '%s\n' db:primary db:replica deploy@host-1 web)"
	run -0 comp cbexec config show ''
	assert_output "$(printf '%s\n' db:primary db:replica deploy@host-1 web)"
}

@test "bash: breaker names honour -s and -c given earlier on the line" {
	cb -s "$T/other.mdb" run elsewhere -- true
	run -0 comp cbexec -s "$T/other.mdb" status ''
	assert_output elsewhere
	run -0 comp cbexec --state = "$T/other.mdb" trip ''
	assert_output elsewhere
	unset CBEXEC_STATE
	config "state = \"$T/third.mdb\";"
	cb run third -- true
	mv "$CBEXEC_CONFIG" "$T/third.conf"
	config "state = \"$T/state.mdb\";"
	run -0 comp cbexec -c "$T/third.conf" status ''
	assert_output third
}

@test "bash: after NAME of run, the wrapped command is completed" {
	run -0 comp cbexec run db -- tru
	assert_line true
	assert_line truncate
	run -0 comp cbexec run db -t 5s tru
	assert_line true
}

@test "bash: the same with bash-completion loaded" {
	[ -r /usr/share/bash-completion/bash_completion ] ||
	    skip "bash-completion is not installed"
	export BC=1
	run -0 comp cbexec st
	assert_output status
	run -0 comp cbexec status ''
	assert_output "$(printf '%s\n' db:primary db:replica web)"
	run -0 comp cbexec run db --on-open s
	assert_output skip
	run -0 comp cbexec run db -o trip.policy=c
	assert_output consecutive
	LINE='cbexec status db:r' run -0 comp cbexec status db : r
	assert_output replica
}

@test "bash: the file passes shellcheck" {
	run -0 shellcheck -s bash "$COMPDIR/cbexec.bash"
}

@test "zsh: the completion parses" {
	run -0 zsh -n "$COMPDIR/_cbexec"
	run -0 head -1 "$COMPDIR/_cbexec"
	assert_output '#compdef cbexec'
}

@test "zsh: commands, values and breaker names, ':' included" {
	run -0 zshcomp 'cbexec ' forget
	assert_output --partial 'acquire'
	assert_output --partial 'forget'
	run -0 zshcomp 'cbexec status ' db:replica
	assert_output --partial 'db:primary'
	assert_output --partial 'db:replica'
	run -0 zshcomp 'cbexec run db --on-open ' skip
	assert_output --regexp 'fail +skip'
	run -0 zshcomp 'cbexec trip db --on-open ' skip
	assert_output --regexp 'fail +skip'
	run -0 zshcomp 'cbexec release TOKEN ' success
	assert_output --regexp 'failure +ignore +success'
	run -0 zshcomp 'cbexec run db -o retr' retry_delay
	assert_output --regexp 'retries +retry_delay'
	run -0 zshcomp 'cbexec acquire db --' --lease
	assert_output --partial -- '--pid'
	assert_output --partial -- '--lease'
	run -0 zshcomp 'cbexec gc --' --dry-run
	assert_output --partial -- '--dry-run'
}

@test "fish: the completion parses" {
	run -0 fish -n "$COMPDIR/cbexec.fish"
}

@test "fish: commands, options, values and breaker names" {
	run -0 fishcomp 'cbexec '
	assert_output "$(printf '%s\n' acquire check config forget gc help release reset run status trip)"
	run -0 fishcomp 'cbexec status --'
	assert_output "$(printf '%s\n' --help --json --names --output --prometheus)"
	run -0 fishcomp 'cbexec status '
	assert_output "$(printf '%s\n' db:primary db:replica web)"
	run -0 fishcomp 'cbexec run db --on-open '
	assert_output "$(printf '%s\n' fail skip)"
	run -0 fishcomp 'cbexec trip db --on-open '
	assert_output "$(printf '%s\n' fail skip)"
	run -0 fishcomp 'cbexec run db --preset p'
	assert_output "$(printf '%s\n' pg_isready psql)"
	run -0 fishcomp 'cbexec release TOKEN '
	assert_output "$(printf '%s\n' failure ignore success)"
	run -0 fishcomp 'cbexec check db:r'
	assert_output db:replica
	run -0 fishcomp 'cbexec run db -o retr'
	assert_output "$(printf '%s\n' retries= retry_delay=)"
	run -0 fishcomp 'cbexec run db -o on_b'
	assert_output "$(printf '%s\n' on_busy=fail on_busy=skip)"
	run -0 fishcomp 'cbexec run db --f'
	assert_output "$(printf '%s\n' --failure-codes --foreground)"
	run -0 fishcomp 'cbexec acquire db --'
	assert_output "$(printf '%s\n' --help --lease --pid --wait)"
	run -0 fishcomp 'cbexec gc --'
	assert_output "$(printf '%s\n' --dry-run --help --idle)"
}

@test "fish: names honour -s; the wrapped command of run is completed" {
	cb -s "$T/other.mdb" run elsewhere -- true
	run -0 fishcomp "cbexec -s $T/other.mdb status "
	assert_output elsewhere
	run -0 fishcomp 'cbexec run db -- tru'
	assert_line true
}

# table CMD: the long options the command table gives CMD, sorted;
# subs CMD: its subcommands.  Both from `cbexec help --options`.
table() {
	"$CBEXEC" help --options "$1" | grep -- '^--' | sort
}
subs() {
	"$CBEXEC" help --options "$1" | grep -v -- '^-' | sort
}

# zshopts CMD: the long options _cbexec names in CMD's branch, those of
# the runopts array (run's, check's) included where the branch uses it.
zshopts() {
	local branch
	branch=$(sed -n "/^\t\t$1)\$/,/^\t\t\t;;\$/p" "$COMPDIR/_cbexec")
	{
		printf '%s\n' "$branch"
		case $branch in
		*'$runopts'*)
			sed -n '/^\trunopts=(/,/^\t)/p' "$COMPDIR/_cbexec" ;;
		esac
	} | grep -o -- '--[a-z][a-z-]*' | sort -u
}

@test "the completions name exactly the commands, options and subcommands of the command table" {
	local c cmds
	cmds=$("$CBEXEC" help | sed -n 's/^  \([a-z]*\) .*/\1/p' | sort)
	run -0 comp cbexec ''
	assert_output "$cmds"
	run -0 fishcomp 'cbexec '
	assert_output "$cmds"
	for c in $cmds; do
		if [ "$c" = run ]; then
			run -0 comp cbexec run db --
			assert_output "$(printf '%s\n' -- $(table run))"
			run -0 fishcomp 'cbexec run db --'
		else
			run -0 comp cbexec "$c" --
			assert_output "$(table "$c")"
			run -0 fishcomp "cbexec $c --"
		fi
		assert_output "$(table "$c")"
		run -0 zshopts "$c"
		assert_output "$(table "$c")"
	done
	run -0 comp cbexec config ''
	assert_output "$(subs config)"
	run -0 fishcomp 'cbexec config '
	assert_output "$(subs config)"
	run -0 grep -c "'1:action:($(subs config | paste -sd ' '))'" \
	    "$COMPDIR/_cbexec"
}

@test "help --options lists a command's options from its grammar" {
	run -0 "$CBEXEC" help --options acquire
	assert_output "$(printf '%s\n' -l --lease -p --pid --wait -h --help)"
	run -0 "$CBEXEC" help --options config
	assert_output "$(printf '%s\n' -h --help check show)"
	run -2 "$CBEXEC" help --options
	assert_output --partial 'usage: cbexec help'
	run -2 "$CBEXEC" help --options nosuch
	assert_output "cbexec: help: unknown command 'nosuch'"
}
