/*
 * Fixture executable for the analyzer tests: never run, only read. The
 * build strips copies of it and keeps its symbols in separate debug files
 * (found by build-id or through .gnu_debuglink), and makes a non-PIE
 * variant; fe_static is local, so only .symtab (or the debug file) can
 * name it.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int fe_work(int x);

static volatile int fe_sink;

FIXTURE_FN static int
fe_static(int x)
{
	fe_sink = x * 13;
	return fe_sink + 1;
}

FIXTURE_FN int
fe_work(int x)
{
	fe_sink = x;
	return fe_static(fe_sink) * 3;
}

int
main(int argc, char **argv)
{
	(void)argv;
	return fe_work(argc) & 1;
}
