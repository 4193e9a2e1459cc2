#!/bin/bash
# The README's test command on a fresh clone while the machine is busy (issue 39): clones this
# checkout into /tmp/fresh-LABEL, keeps both cores busy with two shell loops (their PIDs are
# printed and killed at the end, nothing else is touched), runs `CI=true ./dev test`, and
# prints the commit, the load average before and after, the exit code and the seconds.
#
#     bench/busy_suite.sh 1 > /tmp/busy-1.log 2>&1
set -u
label=${1:?a label for the clone and its log}
here=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/fresh-$label
rm -rf "$dir"
git clone -q "$here" "$dir"
cd "$dir" || exit 1
( while :; do :; done ) & hog1=$!
( while :; do :; done ) & hog2=$!
echo "hog pids $hog1 $hog2; commit $(git rev-parse --short HEAD); start $(date -u +%T) load $(cat /proc/loadavg)"
start=$(date +%s)
CI=true ./dev test
rc=$?
kill "$hog1" "$hog2"
echo "rc=$rc seconds=$(($(date +%s) - start)) end $(date -u +%T) load $(cat /proc/loadavg)"
exit "$rc"
