#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# chaos-child.sh DIR ID CODE SLEEP: write our pid, sleep, and only if not
# killed first leave DIR/done.ID (CODE 0: DIR/ok.ID too) and exit CODE.
echo $$ >"$1/.pid.$2" && mv "$1/.pid.$2" "$1/pid.$2"
sleep "$4"
: >"$1/done.$2"
[ "$3" -eq 0 ] && : >"$1/ok.$2"
exit "$3"
