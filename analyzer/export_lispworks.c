/* export_lispworks: PLACEHOLDER, being written (see export.h). */
#include "export.h"

#include "diag.h"

int
export_lispworks_write(FILE *out, const struct profile *p,
		 const struct export_opts *opts)
{
	(void)out;
	(void)p;
	diag_error("%s: --format=lispworks is not written yet", opts->name);
	return -1;
}
