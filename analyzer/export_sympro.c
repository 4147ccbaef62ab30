/* export_sympro: PLACEHOLDER, being written (see export.h). */
#include "export.h"

#include "diag.h"

int
export_sympro_write(FILE *out, const struct profile *p,
		    const struct export_opts *opts, bool bare)
{
	(void)out;
	(void)p;
	(void)bare;
	diag_error("%s: --format=sympro is not written yet", opts->name);
	return -1;
}
