#!/bin/sh
# Runs one golden case of the analyzer: run-golden.sh NAME
#
#   NAME.desc      spool description for tests/mkspool (optional); the
#                  cases NAME.VARIANT use NAME.desc too
#   NAME.setup     shell commands run before profanalyze (optional, also
#                  shared by NAME.VARIANT), with $SRC, $BUILD and $TMP set
#   NAME.args      profanalyze arguments; @SPOOL@ is the generated spool,
#                  @SRC@ / @BUILD@ / @TMP@ the source root, build root and
#                  scratch directory (default: @SPOOL@)
#   NAME.expected  stdout, "--- stderr", stderr, "--- exit N", with the
#                  same directories written as @SRC@, @BUILD@ and @TMP@,
#                  and unnamed frames mkspool placed by function name
#                  written as BASENAME+NAME+OFF (see tests/tools/mkspool.c)
#
# JSON output is also checked to parse, with python3 -m json.tool, and
# to follow man/profanalyze.schema.json (tests/tools/check-json-schema.py);
# --diff --format=json output, man/profanalyze-diff.schema.json.
# profanalyze runs under timeout(1): a case that would block forever (on
# a FIFO, say) fails with exit 124 instead of hanging the suite.
set -u
name=$1
src=$PROFRUN_SOURCE_ROOT
golden=$src/tests/golden
bld=$PROFRUN_BUILD_ROOT
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# NAME.VARIANT cases share the spool of NAME.desc.
desc=$golden/${name%%.*}.desc
spool=$tmp/$name.spool
: >"$tmp/frames.sed"
if [ -f "$desc" ]; then
	PROFRUN_GOLDEN_TMP=$tmp "$bld/tests/mkspool" "$desc" "$spool" \
		"$tmp/frames.sed" || exit 1
fi
setup=$golden/${name%%.*}.setup
if [ -f "$setup" ]; then
	SRC=$src BUILD=$bld TMP=$tmp sh -e "$setup" || exit 1
fi
args='@SPOOL@'
if [ -f "$golden/$name.args" ]; then
	args=$(cat "$golden/$name.args")
fi
args=$(printf '%s\n' "$args" | sed -e "s|@SPOOL@|$spool|g" \
	-e "s|@SRC@|$src|g" -e "s|@BUILD@|$bld|g" -e "s|@TMP@|$tmp|g")

(cd "$tmp" && eval "exec timeout -k 5 20 \"\$bld/analyzer/profanalyze\" \
	$args") >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "golden $name: profanalyze did not finish in 20 s (blocked?)"
fi

# A case that writes with -o FILE shows FILE's content after the streams.
{
	cat "$tmp/stdout"
	echo "--- stderr"
	cat "$tmp/stderr"
	echo "--- exit $rc"
	if [ -f "$tmp/report.out" ]; then
		echo "--- report.out"
		cat "$tmp/report.out"
	fi
} | sed -f "$tmp/frames.sed" | sed -e "s|$tmp|@TMP@|g" \
	-e "s|$bld|@BUILD@|g" -e "s|$src|@SRC@|g" >"$tmp/actual"

case " $args " in
*" --diff "*" --format=json "*)
	# --diff's JSON follows man/profanalyze-diff.schema.json.
	if ! python3 "$src/tests/tools/check-json-schema.py" \
		"$src/man/profanalyze-diff.schema.json" "$tmp/stdout"
	then
		echo "golden $name: --diff JSON does not follow the schema"
		exit 1
	fi
	;;
*" --json "*)
	if [ $rc -eq 0 ] && ! python3 -m json.tool "$tmp/stdout" >/dev/null
	then
		echo "golden $name: --json output is not valid JSON"
		exit 1
	fi
	# and follows its documented schema (man/profanalyze.schema.json).
	if [ $rc -eq 0 ] && ! python3 "$src/tests/tools/check-json-schema.py" \
		"$src/man/profanalyze.schema.json" "$tmp/stdout"
	then
		echo "golden $name: --json output does not follow the schema"
		exit 1
	fi
	;;
esac

if [ "${PROFRUN_GOLDEN_UPDATE:-}" = 1 ]; then
	cp "$tmp/actual" "$golden/$name.expected"
fi
diff -u "$golden/$name.expected" "$tmp/actual"
