#!/bin/bash
# One task of a schedbrain test job, run by the NodeManager inside a YARN container.
#   task.sh sleep <seconds>  sleeps for <seconds> of wall time.
#   task.sh cpu <seconds>    busy-loops on one core until this process has consumed <seconds>
#                            of its own CPU time (user+system, from /proc/self/stat). A container
#                            that is stopped (SIGSTOP) or throttled consumes no CPU time, so it
#                            runs longer in wall time but does the same amount of work.
set -u
kind="$1"
seconds="$2"
echo "task $kind $seconds start pid=$$ $(date +%s)"
case "$kind" in
  sleep)
    sleep "$seconds"
    ;;
  cpu)
    tck=$(getconf CLK_TCK)
    target=$((seconds * tck))
    while :; do
      # ~tens of ms of pure shell arithmetic between checks; no subprocesses.
      i=0
      while ((i < 20000)); do i=$((i + 1)); done
      # Fields 14 and 15 of /proc/<pid>/stat (utime, stime) in clock ticks; comm is "(bash)".
      read -r -a st < "/proc/$BASHPID/stat"
      if (( st[13] + st[14] >= target )); then break; fi
    done
    ;;
  *)
    echo "unknown task kind: $kind" >&2
    exit 2
    ;;
esac
echo "task $kind $seconds done $(date +%s)"
