/*
 * demangle: C++ names through the C++ runtime (see demangle.h).
 */
#include "demangle.h"

#include <stdlib.h>

/* <cxxabi.h> is C++ only; the function has C linkage. The result is
 * malloc()ed; status 0 means success. */
extern char *
__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *
demangle_name(const char *name)
{
	int status = 0;

	/* Only Itanium ABI names: the runtime would also "demangle" a
	 * plain C name that happens to look like a type ("i" -> "int"). */
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	/* Any failure (-1 out of memory included: the next xmalloc will
	 * say so) leaves the name as it is. */
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}
