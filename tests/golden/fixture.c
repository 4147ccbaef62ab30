/*
 * Fixture for the analyzer tests: a shared library with known function
 * symbols. It is never loaded, only read: tests/mkspool turns function
 * names into addresses inside it, and test-elfsym checks the symbol
 * table reader against it.
 *
 * The C functions give ordinary symbols of whatever size the compiler
 * picks. The assembly block pins the cases whose layout must be exact:
 * a sized symbol followed by bytes no symbol covers, a symbol without
 * .size, and alias groups whose preferred name is known.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int fx_main(int x);
int fx_work(int x);
int fx_leaf_a(int x);
int fx_leaf_b(int x);
int fx_leaf_c(int x);
int fx_fact(int x);
int fx_mul(int a, int b);

/* volatile keeps the bodies from being folded into one another. */
static volatile int fx_sink;

FIXTURE_FN int
fx_leaf_a(int x)
{
	fx_sink = x;
	return fx_sink * 3 + 1;
}

FIXTURE_FN int
fx_leaf_b(int x)
{
	fx_sink = x + 1;
	return fx_sink * 5 + 2;
}

FIXTURE_FN int
fx_leaf_c(int x)
{
	fx_sink = x + 2;
	return fx_sink * 7 + 3;
}

/* Local: in .symtab only, so a stripped copy cannot name it. */
FIXTURE_FN static int
fx_static_helper(int x)
{
	fx_sink = x ^ 0x55;
	return fx_sink;
}

FIXTURE_FN int
fx_mul(int a, int b)
{
	fx_sink = a;
	return fx_sink * b;
}

FIXTURE_FN int
fx_fact(int x)
{
	return x <= 1 ? 1 : fx_mul(x, fx_fact(x - 1));
}

FIXTURE_FN int
fx_work(int x)
{
	return fx_leaf_a(x) + fx_leaf_b(x) + fx_leaf_c(x) + fx_static_helper(x);
}

FIXTURE_FN int
fx_main(int x)
{
	return fx_work(x) + fx_fact(x);
}

/*
 * fx_sized:  16 bytes with .size 16, then 16 bytes of no symbol.
 * fx_nosize: a function symbol without .size (size 0).
 * One address with four aliases: the global fx_alias_g must win over the
 * shorter weak fx_al_w and the even shorter local fx_al; the local one
 * declares the largest size (32), which the group gets.
 * One address with two globals of one length: fx_dup_aa wins by name.
 */
__asm__(
	".text\n"
	".p2align 6\n"
	".globl fx_sized\n"
	".type fx_sized, %function\n"
	"fx_sized:\n"
	".fill 16, 1, 0x90\n"
	".size fx_sized, 16\n"
	".fill 16, 1, 0xcc\n"
	".globl fx_nosize\n"
	".type fx_nosize, %function\n"
	"fx_nosize:\n"
	".fill 16, 1, 0x90\n"
	".globl fx_alias_g\n"
	".type fx_alias_g, %function\n"
	".weak fx_al_w\n"
	".type fx_al_w, %function\n"
	".type fx_al, %function\n"
	"fx_alias_g:\n"
	"fx_al_w:\n"
	"fx_al:\n"
	".fill 32, 1, 0x90\n"
	".size fx_alias_g, 16\n"
	".size fx_al_w, 16\n"
	".size fx_al, 32\n"
	".globl fx_dup_bb\n"
	".type fx_dup_bb, %function\n"
	".globl fx_dup_aa\n"
	".type fx_dup_aa, %function\n"
	"fx_dup_bb:\n"
	"fx_dup_aa:\n"
	".fill 16, 1, 0x90\n"
	".size fx_dup_bb, 16\n"
	".size fx_dup_aa, 16\n");
