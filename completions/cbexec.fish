# SPDX-License-Identifier: ISC
# fish completion for cbexec(1).  Installed as
# /etc/fish/completions/cbexec.fish (make install with PREFIX=/usr/local,
# since fish looks in /usr/local/share only when XDG_DATA_DIRS says so) or
# PREFIX/share/fish/vendor_completions.d/cbexec.fish.  Completes the commands,
# their options and option values, and breaker names from
# `cbexec status --names` (with the -c/-s given earlier on the line).

set -l __cbexec_cmds run check status reset trip forget gc acquire release config help

# The command word, or nothing while the global options are being typed.
function __cbexec_cmd
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case -c --config -s --state
                set -e words[1..2]
            case '-*'
                set -e words[1]
            case '*'
                echo $words[1]
                return 0
        end
    end
    return 1
end

function __cbexec_needs_cmd
    not __cbexec_cmd >/dev/null
end

function __cbexec_using
    set -l c (__cbexec_cmd); and test "$c" = $argv[1]
end

# How many operands (words not options) the command has so far.
function __cbexec_noperands
    set -l words (commandline -opc)
    set -l seen 0
    set -l n 0
    set -e words[1]
    while set -q words[1]
        set -l w $words[1]
        set -e words[1]
        if test $seen = 0
            switch $w
                case -c --config -s --state
                    set -e words[1]
                case '-*'
                case '*'
                    set seen 1
            end
            continue
        end
        switch $w
            case --lease --pid --wait --for --reason --on-open --idle --output
                set -e words[1]
            case '-*'
            case '*'
                set n (math $n + 1)
        end
    end
    echo $n
end

# run (and check, which takes run's options): where the word being
# completed is: "name" (NAME is next), "opts" (after NAME: an option, or
# COMMAND) or "cmd" (in COMMAND and its args).
function __cbexec_run_state
    __cbexec_using run; or __cbexec_using check; or return 1
    set -l words (commandline -opc)
    set -l seen 0
    set -l named 0
    set -e words[1]
    while set -q words[1]
        set -l w $words[1]
        set -e words[1]
        if test $seen = 0
            switch $w
                case -c --config -s --state
                    set -e words[1]
                case '-*'
                case '*'
                    set seen 1
            end
            continue
        end
        switch $w
            case --
                test $named = 1; and echo cmd; and return 0
            case -t --timeout -k --kill-after --on-open --wait --retries --retry-delay --preset --failure-codes --success-codes --ignore-codes -o
                set -e words[1]
            case '-*'
            case '*'
                test $named = 1; and echo cmd; and return 0
                set named 1
        end
    end
    test $named = 1; and echo opts; or echo name
end

function __cbexec_run_name
    set -l st (__cbexec_run_state); and test "$st" = name
end

function __cbexec_run_opts
    set -l st (__cbexec_run_state); and contains -- "$st" name opts
end

# run: the word being completed is COMMAND or one of its arguments.
function __cbexec_run_cmd
    __cbexec_using run; or return 1
    set -l st (__cbexec_run_state); or return 1
    switch $st
        case cmd
            return 0
        case opts
            not string match -q -- '-*' (commandline -ct)
            return
    end
    return 1
end

# run: complete the wrapped COMMAND and its arguments as a command line.
function __cbexec_wrapped
    set -l words (commandline -opc)
    set -l i 2
    set -l n (count $words)
    # the global options, then "run"
    while test $i -le $n
        switch $words[$i]
            case -c --config -s --state
                set i (math $i + 2)
                continue
            case '-*'
                set i (math $i + 1)
                continue
        end
        break
    end
    set i (math $i + 1)
    set -l named 0
    while test $i -le $n
        switch $words[$i]
            case --
                set i (math $i + 1)
                break
            case -t --timeout -k --kill-after --on-open --retries --retry-delay --preset --failure-codes --success-codes --ignore-codes -o
                set i (math $i + 2)
                continue
            case '-*'
                set i (math $i + 1)
                continue
        end
        test $named = 1; and break
        set named 1
        set i (math $i + 1)
    end
    set -l rest
    test $i -le $n; and set rest (string escape -- $words[$i..$n])
    complete -C (string join ' ' -- $rest (commandline -ct))
end

function __cbexec_names
    set -l words (commandline -opc)
    set -l bin $words[1]
    set -l g
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case -c --config -s --state
                set -a g $words[1..2]
                set -e words[1..2]
            case '--config=*' '--state=*'
                set -a g $words[1]
                set -e words[1]
            case '-*'
                set -e words[1]
            case '*'
                break
        end
    end
    command $bin $g status --names 2>/dev/null
end

complete -c cbexec -f

# Global options and the commands.
complete -c cbexec -n __cbexec_needs_cmd -s c -l config -r -F -d 'config file'
complete -c cbexec -n __cbexec_needs_cmd -s s -l state -r -F -d 'state file'
complete -c cbexec -n __cbexec_needs_cmd -s q -l quiet -d 'no refusal lines or warnings'
complete -c cbexec -n __cbexec_needs_cmd -s v -l verbose -d 'report admissions and transitions'
complete -c cbexec -n __cbexec_needs_cmd -s h -l help -d 'show the usage'
complete -c cbexec -n __cbexec_needs_cmd -s V -l version -d 'show the version'
complete -c cbexec -n __cbexec_needs_cmd -a run -d 'run a command behind a breaker'
complete -c cbexec -n __cbexec_needs_cmd -a check -d 'exit 0 if a call would be admitted'
complete -c cbexec -n __cbexec_needs_cmd -a status -d 'show breakers'
complete -c cbexec -n __cbexec_needs_cmd -a reset -d 'close breakers'
complete -c cbexec -n __cbexec_needs_cmd -a trip -d 'open breakers by hand'
complete -c cbexec -n __cbexec_needs_cmd -a forget -d 'delete breakers'
complete -c cbexec -n __cbexec_needs_cmd -a gc -d 'remove breakers unused for a while'
complete -c cbexec -n __cbexec_needs_cmd -a acquire -d 'take a permit, print a token'
complete -c cbexec -n __cbexec_needs_cmd -a release -d 'record the outcome of a token'
complete -c cbexec -n __cbexec_needs_cmd -a config -d 'check the config or show a policy'
complete -c cbexec -n __cbexec_needs_cmd -a help -d 'show the usage of a command'

# run NAME [OPTIONS] [--] COMMAND...
complete -c cbexec -n __cbexec_run_name -a '(__cbexec_names)' -d breaker
complete -c cbexec -n __cbexec_run_opts -s t -l timeout -x -d 'time out after DURATION'
complete -c cbexec -n __cbexec_run_opts -s k -l kill-after -x -d 'SIGKILL this long after the SIGTERM'
complete -c cbexec -n __cbexec_run_opts -l foreground -d 'keep the command in the foreground'
complete -c cbexec -n __cbexec_run_opts -l on-open -x -a 'fail skip' -d 'when refused'
complete -c cbexec -n __cbexec_run_opts -l wait -x -d 'wait for a free run slot'
complete -c cbexec -n __cbexec_run_opts -l retries -x -d 're-run after a failure'
complete -c cbexec -n __cbexec_run_opts -l retry-delay -x -d 'first delay between attempts'
complete -c cbexec -n __cbexec_run_opts -l preset -x -a 'curl wget ssh rsync psql pg_isready' -d 'exit code table of a tool'
complete -c cbexec -n __cbexec_run_opts -l failure-codes -x -d 'codes meaning the dependency is down'
complete -c cbexec -n __cbexec_run_opts -l success-codes -x -d 'codes meaning it answered'
complete -c cbexec -n __cbexec_run_opts -l ignore-codes -x -d 'codes that say nothing'
complete -c cbexec -n __cbexec_run_opts -s o -x -a 'trip.policy=consecutive trip.policy=rate trip.policy=time trip.failures= trip.period= trip.window= trip.min_calls= trip.failure_rate= open_timeout= max_open_timeout= backoff= jitter= half_open_max_calls= probe_lease= timeout= kill_after= failure_codes= success_codes= ignore_codes= preset=curl preset=wget preset=ssh preset=rsync preset=psql preset=pg_isready timeout_is=failure timeout_is=success timeout_is=ignore signal_is=failure signal_is=success signal_is=ignore slow_call= on_open=fail on_open=skip open_exit_code= retries= retry_delay= max_concurrent= on_busy=fail on_busy=skip max_rate= rate_burst= probe= probe_timeout= expect_every= output=' -d 'policy key'
complete -c cbexec -n __cbexec_run_cmd -a '(__cbexec_wrapped)'

# status
complete -c cbexec -n '__cbexec_using status' -l json -d 'every field, as JSON'
complete -c cbexec -n '__cbexec_using status' -l prometheus -d 'Prometheus text format'
complete -c cbexec -n '__cbexec_using status' -l names -d 'names only'
complete -c cbexec -n '__cbexec_using status' -l output -r -F -d 'write to FILE atomically'
complete -c cbexec -n '__cbexec_using status' -a '(__cbexec_names)' -d breaker

# reset, trip, forget, check, acquire
complete -c cbexec -n '__cbexec_using reset; or __cbexec_using trip' -l reason -x -d 'why'
complete -c cbexec -n '__cbexec_using trip' -l for -x -d 'stay open for DURATION'
complete -c cbexec -n '__cbexec_using trip' -l on-open -x -a 'fail skip' -d 'how refusals in the window exit'
complete -c cbexec -n '__cbexec_using reset; or __cbexec_using trip; or __cbexec_using forget' -a '(__cbexec_names)' -d breaker
complete -c cbexec -n '__cbexec_using acquire' -l lease -x -d 'lease of the permit'
complete -c cbexec -n '__cbexec_using acquire' -l wait -x -d 'wait for a free run slot'
complete -c cbexec -n '__cbexec_using acquire' -l pid -x -a '(__fish_complete_pids)' -d 'process holding the probe slot'
complete -c cbexec -n '__cbexec_using acquire; and test (__cbexec_noperands) = 0' -a '(__cbexec_names)' -d breaker

# gc, release, config, help
complete -c cbexec -n '__cbexec_using gc' -l idle -x -d 'unused for at least DURATION'
complete -c cbexec -n '__cbexec_using gc' -l dry-run -d 'list what would be removed'
complete -c cbexec -n '__cbexec_using release; and test (__cbexec_noperands) = 1' -a 'success failure ignore' -d outcome
complete -c cbexec -n '__cbexec_using config; and test (__cbexec_noperands) = 0' -a 'check show'
complete -c cbexec -n '__cbexec_using config; and test (__cbexec_noperands) = 1; and contains show (commandline -opc)' -a '(__cbexec_names)' -d breaker
complete -c cbexec -n '__cbexec_using help' -l options -d "list a command's options"
complete -c cbexec -n '__cbexec_using help; and test (__cbexec_noperands) = 0' -a "$__cbexec_cmds"
complete -c cbexec -n 'not __cbexec_needs_cmd' -l help -d 'show the usage'
