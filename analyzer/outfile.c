/*
 * outfile: whole-or-nothing output files (see outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "xmalloc.h"

int
outfile_open(struct outfile *o, const char *path)
{
	o->path = path;
	o->tmp = NULL;
	o->fp = stdout;
	if (!path)
		return 0;
	size_t len = strlen(path);
	o->tmp = xmalloc(len + sizeof(".tmp.XXXXXX"));
	memcpy(o->tmp, path, len);
	memcpy(o->tmp + len, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		diag_error("%s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* mkstemp makes 0600; an output file gets what open(2) would. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->fp = fdopen(fd, "w"))) {
		diag_error("%s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *o)
{
	const char *name = o->path ? o->path : "standard output";
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	int saved = errno;

	if (o->tmp) {
		if (fclose(o->fp) != 0 && !bad) {
			bad = 1;
			saved = errno;
		}
		o->fp = NULL;
		if (!bad && rename(o->tmp, o->path) != 0) {
			bad = 1;
			saved = errno;
		}
		if (bad)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (bad) {
		diag_error("%s: write error: %s", name,
			   saved ? strerror(saved) : "output error");
		return -1;
	}
	return 0;
}

void
outfile_abort(struct outfile *o)
{
	if (!o->tmp)
		return;
	fclose(o->fp);
	o->fp = NULL;
	unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}
