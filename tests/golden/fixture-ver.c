/*
 * Fixture for symbol versions: a shared library (never loaded, only read)
 * whose .symtab names versioned symbols as the linker writes them when
 * the source versions them with .symver: fv_call@@VERS_2 and
 * fv_start@@VERS_2 (default versions, what a program links against
 * today), fv_call@VERS_1 (an old version kept for old binaries), as in
 * glibc's memcpy@@GLIBC_2.14 and memcpy@GLIBC_2.2.5. ", remove" drops
 * the implementation names (fv_call_v1, ...), so each address has its
 * versioned name only.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int fv_call_v1(int x);
int fv_call_v2(int x);
int fv_start_v2(int x);
int fv_plain(int x);

/* volatile keeps the bodies from being folded into one another. */
static volatile int fv_sink;

__asm__(".symver fv_call_v1, fv_call@VERS_1, remove");
__asm__(".symver fv_call_v2, fv_call@@VERS_2, remove");
__asm__(".symver fv_start_v2, fv_start@@VERS_2, remove");

FIXTURE_FN int
fv_call_v1(int x)
{
	fv_sink = x;
	return fv_sink * 3 + 1;
}

FIXTURE_FN int
fv_call_v2(int x)
{
	fv_sink = x + 1;
	return fv_sink * 5 + 2;
}

FIXTURE_FN int
fv_plain(int x)
{
	fv_sink = x + 2;
	return fv_sink * 7 + 3;
}

FIXTURE_FN int
fv_start_v2(int x)
{
	return fv_call_v1(x) + fv_call_v2(x) + fv_plain(x);
}
