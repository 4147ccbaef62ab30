#!/bin/sh
# The same samples written as SAMPLE records (format 2.2) and as SAMPLES
# records (2.3, stacks defined once per thread) must give the same
# reports and exports, byte for byte: runs of shared stacks on one and
# four threads, and one where every sample has a stack of its own. (With
# several threads the two layouts interleave the threads' samples in
# another file order, which only the order of --json's lists shows: JSON
# is compared on one thread.)
# usage: same-reports.sh GENSPOOL PROFANALYZE
set -u
gen=$1
ana=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for shape in "-k 500 -t 1" "-k 500 -t 4" "-k 0 -t 2"; do
	# shellcheck disable=SC2086
	"$gen" -n 20000 -d 20 -j $shape -f sample "$tmp/old.spool" &&
	"$gen" -n 20000 -d 20 -j $shape -f samples "$tmp/new.spool" || exit 1
	json=
	case $shape in *"-t 1") json=--json ;; esac
	for args in "--flat --show-all" "--graph" "--outline" $json \
		    "--format=folded" "--threads --thread=5001"; do
		# shellcheck disable=SC2086
		"$ana" $args "$tmp/old.spool" >"$tmp/old.out" 2>&1
		# shellcheck disable=SC2086
		"$ana" $args "$tmp/new.spool" >"$tmp/new.out" 2>&1
		sed -i "s|$tmp/[a-z]*\.spool|SPOOL|g" "$tmp/old.out" \
			"$tmp/new.out"
		if ! diff -u "$tmp/old.out" "$tmp/new.out"; then
			echo "differ: $shape $args"
			fail=1
		fi
		if [ ! -s "$tmp/new.out" ]; then
			echo "empty: $shape $args"
			fail=1
		fi
	done
done
exit $fail
