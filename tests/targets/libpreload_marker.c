/*
 * libpreload_marker.so: a library a user might have in LD_PRELOAD already.
 * Its constructor writes a marker line to stderr, so the tests can check
 * that profrun adds its own library to LD_PRELOAD rather than replacing it.
 */
#include <unistd.h>

#define MARKER "profrun-test: preload marker loaded\n"

static void __attribute__((constructor))
preload_marker_init(void)
{
	ssize_t ignored = write(STDERR_FILENO, MARKER, sizeof(MARKER) - 1);
	(void)ignored;
}
