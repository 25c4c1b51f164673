#!/bin/sh
# SPDX-License-Identifier: ISC
# private-etc.sh DIR CMD...: run in a new mount namespace (helper.bash's
# private_etc does `unshare -m`).  /etc becomes an overlay of the host's
# whose changes go to a tmpfs on DIR, and loses what a host with cbexec
# installed or configured has: /etc/cbexec.conf and the group cbexec.
# Then CMD runs.  Nothing reaches the host's /etc.
set -eu
dir=$1
shift
mount --make-rprivate /
mkdir -p "$dir"
mount -t tmpfs -o mode=0700 tmpfs "$dir"
mkdir "$dir/upper" "$dir/work"
mount -t overlay overlay \
    -o "lowerdir=/etc,upperdir=$dir/upper,workdir=$dir/work" /etc
rm -f /etc/cbexec.conf
for f in /etc/group /etc/gshadow; do
	if [ -e "$f" ] && grep -q '^cbexec:' "$f"; then
		sed -i '/^cbexec:/d' "$f"
	fi
done
exec "$@"
