#!/bin/sh
# --from/--to: one thread sampled every millisecond for 10 s (sample k
# at k ms after the start, k = 1..10000): the window [2 s, 5 s) holds
# samples 2000 to 4999, 3000 of them, in the report and in an export,
# while the header's samples taken and delivered rate stay the run's
# (and no thread is called unsampled); --processes and the JSON (which
# records the window) too; the exact call counts refuse a window;
# --from alone runs to the end; --to before --from is a usage error.
# usage: window.sh GENSPOOL PROFANALYZE
set -u
gen=$1
ana=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
"$gen" -n 10000 -k 50 -d 5 "$tmp/w.spool" || exit 1
check() { # what, expected, actual
	if [ "$2" != "$3" ]; then
		echo "$1: expected '$2', got '$3'"
		fail=1
	fi
}
"$ana" --from=2 --to=5 "$tmp/w.spool" >"$tmp/flat" 2>&1
check "flat samples" "Sampling stopped after 10000 samples taken for the time profiler." \
	"$(head -1 "$tmp/flat")"
check "window line" "Window: 3000 of the 10000 samples, those taken from 2.000 s to 5.000 s after the program's start (--from, --to)." \
	"$(grep '^Window:' "$tmp/flat")"
# The rate is the run's: all its samples over all its CPU time.
check "delivered rate" "Time source: perf task-clock, 1000 Hz requested, 1000 Hz delivered in user mode, 1 thread." \
	"$(grep '^Time source:' "$tmp/flat")"
check "sampled time" "Sample represents 3.0 seconds of user CPU time (out of a total of 10.0 user+system)." \
	"$(grep '^Sample represents' "$tmp/flat")"
"$ana" --from=2 --to=5 --format=folded "$tmp/w.spool" >"$tmp/folded" 2>&1
check "folded samples" 3000 "$(awk '{s += $NF} END {print s}' "$tmp/folded")"
"$ana" --from=9.5 "$tmp/w.spool" >"$tmp/from" 2>&1
check "--from alone" "Window: 501 of the 10000 samples, those taken from 9.500 s after the program's start to its end (--from, --to)." \
	"$(grep '^Window:' "$tmp/from")"
"$ana" --from=5 --to=2 "$tmp/w.spool" >/dev/null 2>&1
check "--to before --from" 2 "$?"
# The thread's CPU time is the run's: no window is 'unsampled' for it.
check "no unsampled line" 0 "$(grep -c '^Unsampled' "$tmp/flat")"
"$ana" --processes --from=2 --to=5 "$tmp/w.spool" >"$tmp/procs" 2>&1
check "--processes samples" 3000 "$(awk 'NR == 2 {print $3}' "$tmp/procs")"
# --threads: the window's samples, the run's CPU time, no share of it.
"$ana" --threads --from=2 --to=5 "$tmp/w.spool" >"$tmp/threads" 2>&1
check "--threads" "3000 3.000 - -" \
	"$(awk 'NR == 2 {print $3, $4, $5, $6}' "$tmp/threads")"
"$ana" --json --from=2 --to=5 "$tmp/w.spool" >"$tmp/json" 2>&1
check "JSON window" "2 5 3000 10000" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = d["window"]
print("%g %g %d %d" % (w["from_seconds"], w["to_seconds"], d["samples"],
                       d["samples_taken"]))' "$tmp/json")"
# Exact call counts have no times.
"$ana" --call-counts --from=2 "$tmp/w.spool" >/dev/null 2>&1
check "--call-counts with --from" 2 "$?"
"$ana" --format=mlmon-count --to=5 "$tmp/w.spool" >/dev/null 2>&1
check "mlmon-count with --to" 2 "$?"
exit $fail
