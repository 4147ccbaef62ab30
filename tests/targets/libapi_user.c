/*
 * libapi_user: a plugin that uses the profrun API (profrun.h), so links
 * libprofrun.so, and is loaded with dlopen by a program that does not
 * (api_dlopen.c). libprofrun.so then comes in with dlopen, and its
 * initial-exec TLS must fit in the static TLS room the C library keeps
 * for such late loads.
 */
#include "profrun.h"

int api_user_flush(void);

int
api_user_flush(void)
{
	return profrun_flush();
}
