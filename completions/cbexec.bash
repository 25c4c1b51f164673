# SPDX-License-Identifier: ISC
# bash completion for cbexec(1)
#
# Installed as share/bash-completion/completions/cbexec, where the
# bash-completion package loads it on demand.  Completes the commands,
# their options and option values, and breaker names from
# `cbexec status --names` (with the -c/-s given earlier on the line).
# Works without bash-completion too (names with ':' then split into
# words, as bash's COMP_WORDBREAKS says).

_cbexec_commands='run check status reset trip forget gc acquire release config help'
_cbexec_presets='curl wget ssh rsync psql pg_isready'
_cbexec_keys='trip.policy= trip.failures= trip.period= trip.window=
	trip.min_calls= trip.failure_rate= open_timeout= max_open_timeout=
	backoff= jitter= half_open_max_calls= probe_lease= timeout= kill_after=
	failure_codes= success_codes= ignore_codes= preset= timeout_is=
	signal_is= slow_call= on_open= open_exit_code= retries= retry_delay=
	max_concurrent= on_busy= max_rate= rate_burst= probe= probe_timeout=
	expect_every= output='

# _cbexec_reply WORDS: COMPREPLY from WORDS matching $cur.
_cbexec_reply() {
	local IFS=$' \t\n'
	# shellcheck disable=SC2207 # compgen output is one word a line
	COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

# _cbexec_names: breaker names starting with $cur, from the same state
# file the command line would use.
_cbexec_names() {
	local name
	[[ $cur == *[*?[]* ]] && return
	while IFS= read -r name; do
		COMPREPLY+=("$name")
	done < <("$_cbexec_bin" "${_cbexec_global[@]}" status --names \
	    "$cur*" 2>/dev/null)
}

# _cbexec_files: file names starting with $cur.
_cbexec_files() {
	local f
	compopt -o filenames 2>/dev/null
	while IFS= read -r f; do
		COMPREPLY+=("$f")
	done < <(compgen -f -- "$cur")
}

# _cbexec_command INDEX: complete words[INDEX...] as a command line of
# its own (the command run wraps), with bash-completion's help if loaded.
_cbexec_command() {
	if declare -F _command_offset >/dev/null; then
		_command_offset "$1"
	elif (($1 == cword)); then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	else
		_cbexec_files
	fi
}

# _cbexec_rejoin: words, cword, cur and prev from COMP_WORDS without
# bash-completion, with the words bash split at ':', '=' or '@' joined
# ("db" ":" "primary" is one breaker name).
_cbexec_rejoin() {
	local i w glue=0
	words=()
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((${#words[@]} > 1)) && [[ $w =~ ^[:=@]+$ ]]; then
			words[-1]+=$w
			glue=1
		elif ((glue)); then
			words[-1]+=$w
			glue=0
		else
			words+=("$w")
		fi
	done
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	prev=${words[cword - 1]}
}

# _cbexec_value KEY: the values of policy key KEY (for -o KEY=VALUE).
_cbexec_value() {
	case $1 in
	trip.policy) echo 'consecutive rate time' ;;
	timeout_is | signal_is) echo 'failure success ignore' ;;
	on_open | on_busy) echo 'fail skip' ;;
	output) echo 'pass on-failure on-change' ;;
	preset) echo "$_cbexec_presets" ;;
	esac
}

_cbexec() {
	local cur prev words cword
	if declare -F _get_comp_words_by_ref >/dev/null; then
		_get_comp_words_by_ref -n =:@ cur prev words cword
	else
		_cbexec_rejoin
	fi
	COMPREPLY=()

	local _cbexec_bin=${words[0]}
	local -a _cbexec_global=()
	local i=1 cmd='' w
	# The global options before the command.
	while ((i < cword)); do
		w=${words[i]}
		case $w in
		-c | --config | -s | --state)
			((i + 1 < cword)) &&
			    _cbexec_global+=("$w" "${words[i + 1]}")
			((i += 2))
			continue
			;;
		--config=* | --state=*) _cbexec_global+=("$w") ;;
		-*) ;;
		*)
			cmd=$w
			break
			;;
		esac
		((i++))
	done
	# Undo the shell's quoting of a file name, as far as it is simple.
	_cbexec_global=("${_cbexec_global[@]/#\~/$HOME}")

	if [[ -z $cmd ]]; then
		case $prev in
		-c | --config | -s | --state)
			_cbexec_files
			return
			;;
		esac
		case $cur in
		-*) _cbexec_reply '-c --config -s --state -q --quiet -v --verbose
		    -h --help -V --version' ;;
		*) _cbexec_reply "$_cbexec_commands" ;;
		esac
		return
	fi

	# The words of the command so far: options, their values and operands.
	local ci=$i nops=0 name_done=0 j
	local -a ops=()
	case $cmd in
	run | check)
		# run NAME [OPTIONS] [--] COMMAND...: from COMMAND on, the
		# wrapped command's own completion; check NAME [OPTIONS]
		# takes run's options and no command.
		for ((j = ci + 1; j < cword; j++)); do
			w=${words[j]}
			case $w in
			--)
				((name_done)) && [[ $cmd == run ]] &&
				    _cbexec_command $((j + 1))
				return
				;;
			-t | --timeout | -k | --kill-after | --on-open | \
			    --wait | --retries | --retry-delay | --preset | \
			    --failure-codes | --success-codes | \
			    --ignore-codes | -o)
				((j++))
				# -o KEY = VALUE as bash splits it.
				[[ $w == -o && ${words[j + 1]} == = ]] &&
				    ((j += 2))
				;;
			-*) ;;
			*)
				if ((name_done)); then
					[[ $cmd == run ]] && _cbexec_command "$j"
					return
				fi
				name_done=1
				;;
			esac
		done
		# -o KEY=VALUE, split at '=' by bash without bash-completion.
		if [[ $cur == = && ${words[cword - 2]} == -o ]]; then
			prev=$cur
			cur=''
			_cbexec_reply "$(_cbexec_value "${words[cword - 1]}")"
			return
		fi
		if [[ $prev == = && ${words[cword - 3]} == -o ]]; then
			_cbexec_reply "$(_cbexec_value "${words[cword - 2]}")"
			return
		fi
		case $prev in
		--on-open)
			_cbexec_reply 'fail skip'
			return
			;;
		--preset)
			_cbexec_reply "$_cbexec_presets"
			return
			;;
		-t | --timeout | -k | --kill-after | --wait | --retries | \
		    --retry-delay | --failure-codes | --success-codes | \
		    --ignore-codes)
			return
			;;
		-o)
			if [[ $cur == *=* ]]; then
				local key=${cur%%=*} v
				for v in $(_cbexec_value "$key"); do
					[[ $key=$v == "$cur"* ]] &&
					    COMPREPLY+=("$key=$v")
				done
			else
				_cbexec_reply "$_cbexec_keys"
				compopt -o nospace 2>/dev/null
			fi
			;;
		*)
			if [[ $cur == -* ]]; then
				_cbexec_reply "-t --timeout -k --kill-after
				    --foreground --on-open --wait --retries
				    --retry-delay --preset --failure-codes
				    --success-codes --ignore-codes -o --help
				    $([[ $cmd == run ]] && echo --)"
			elif ((!name_done)); then
				_cbexec_names
			elif [[ $cmd == run ]]; then
				_cbexec_command "$cword"
				return
			fi
			;;
		esac
		;;
	status)
		if [[ $prev == --output ]]; then
			_cbexec_files
			return
		fi
		if [[ $cur == -* ]]; then
			_cbexec_reply '--json --prometheus --names --output --help'
		else
			_cbexec_names
		fi
		;;
	reset | trip | forget)
		case $prev in
		--for | --reason) return ;;
		--on-open)
			_cbexec_reply 'fail skip'
			return
			;;
		esac
		if [[ $cur == -* ]]; then
			case $cmd in
			reset) _cbexec_reply '--reason --help' ;;
			trip) _cbexec_reply '--for --reason --on-open --help' ;;
			forget) _cbexec_reply '--help' ;;
			esac
		else
			_cbexec_names
		fi
		;;
	acquire)
		case $prev in
		--lease | --pid | --wait) return ;;
		esac
		for ((j = ci + 1; j < cword; j++)); do
			case ${words[j]} in
			--lease | --pid | --wait) ((j++)) ;;
			-*) ;;
			*) ((nops++)) ;;
			esac
		done
		if [[ $cur == -* ]]; then
			_cbexec_reply '--lease --pid --wait --help'
		elif ((nops == 0)); then
			_cbexec_names
		fi
		;;
	release)
		for ((j = ci + 1; j < cword; j++)); do
			[[ ${words[j]} == -* ]] || ops+=("${words[j]}")
		done
		if [[ $cur == -* ]]; then
			_cbexec_reply '--help'
		elif ((${#ops[@]} == 1)); then
			_cbexec_reply 'success failure ignore'
		fi
		;;
	gc)
		[[ $prev == --idle ]] && return
		[[ $cur == -* ]] && _cbexec_reply '--idle --dry-run --help'
		;;
	config)
		for ((j = ci + 1; j < cword; j++)); do
			[[ ${words[j]} == -* ]] || ops+=("${words[j]}")
		done
		if [[ $cur == -* ]]; then
			_cbexec_reply '--help'
		elif ((${#ops[@]} == 0)); then
			_cbexec_reply 'check show'
		elif [[ ${ops[0]} == show && ${#ops[@]} == 1 ]]; then
			_cbexec_names
		fi
		;;
	help)
		for ((j = ci + 1; j < cword; j++)); do
			[[ ${words[j]} == -* ]] || ops+=("${words[j]}")
		done
		if [[ $cur == -* ]]; then
			_cbexec_reply '--options --help'
		elif ((${#ops[@]} == 0)); then
			_cbexec_reply "$_cbexec_commands"
		fi
		;;
	esac

	# cur is a whole word, but bash splits it at ':', '=' and '@' (when
	# COMP_WORDBREAKS says so) and replaces only the part after the last
	# break: offer only that part.
	local k c pre=''
	for ((k = ${#cur} - 1; k >= 0; k--)); do
		c=${cur:k:1}
		if [[ $c == [:=@] && $COMP_WORDBREAKS == *"$c"* ]]; then
			pre=${cur:0:k+1}
			break
		fi
	done
	[[ -n $pre ]] && COMPREPLY=("${COMPREPLY[@]#"$pre"}")
	return 0
}

complete -F _cbexec cbexec
