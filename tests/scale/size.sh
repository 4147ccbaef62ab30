#!/bin/sh
# The spool's size per time sample, through the encoder the library uses
# (common/spool.c, written by genspool): issue 19's two targets.
# - 1,000,000 samples over 3,000 distinct stacks 30 deep on 4 threads,
#   with perf-like weights: at most 16 bytes of sample records a sample
#   (8.8 when this was written);
# - 20,000 samples of stacks that almost never repeat: no more than the
#   format before stacks were interned (SAMPLE records, -f sample).
# usage: size.sh GENSPOOL
set -u
gen=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# "... per sample: F bytes of file, S of sample records" -> S
per_sample() {
	"$gen" --stat "$1" | sed -n 's/.* bytes of file, \([0-9.]*\) of sample records$/\1/p'
}
"$gen" -n 1000000 -k 3000 -d 30 -t 4 -j "$tmp/few.spool" || exit 1
few=$(per_sample "$tmp/few.spool")
echo "3000 stacks: $few bytes a sample"
if ! awk -v b="$few" 'BEGIN { exit !(b != "" && b <= 16) }'; then
	echo "3000 stacks 30 deep: $few bytes a sample, over 16"
	fail=1
fi
"$gen" -n 20000 -k 1000000 -d 30 "$tmp/new.spool" || exit 1
"$gen" -n 20000 -k 1000000 -d 30 -f sample "$tmp/old.spool" || exit 1
new=$(per_sample "$tmp/new.spool")
old=$(per_sample "$tmp/old.spool")
echo "distinct stacks: $new bytes a sample, $old before interning"
if ! awk -v n="$new" -v o="$old" 'BEGIN { exit !(n != "" && o != "" && n <= o) }'; then
	echo "distinct stacks: $new bytes a sample, more than $old"
	fail=1
fi
exit $fail
