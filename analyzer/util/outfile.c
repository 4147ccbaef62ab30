/*
 * outfile: whole-or-nothing output files (see outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "xmalloc.h"

/* A device or FIFO: opened without O_CREAT or O_TRUNC and written as it
 * is. The open of a FIFO blocks until a reader opens it, as a shell
 * redirection does: failing without one (O_NONBLOCK) would make
 * "profanalyze -o fifo & reader <fifo" fail whenever the reader starts
 * second. */
static int
open_direct(struct outfile *o)
{
	int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		diag_error("%s: %s", o->path, strerror(errno));
		return -1;
	}
	if (!(o->fp = fdopen(fd, "w"))) {
		diag_error("%s: %s", o->path, strerror(errno));
		close(fd);
		return -1;
	}
	o->direct = true;
	return 0;
}

/* The regular file to replace for path: path itself, or the file a
 * symbolic link names (renaming onto the link would replace the link).
 * Returns a new string, or NULL after an error line. */
static char *
rename_target(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return xstrdup(path);
	char *real = realpath(path, NULL);
	if (!real)
		diag_error("%s: symbolic link to nothing (%s)", path,
			   strerror(errno));
	return real;
}

/* Opens the temporary file beside o->dest. */
static int
open_tmp(struct outfile *o)
{
	size_t len = strlen(o->dest);
	o->tmp = xmalloc(len + sizeof(".tmp.XXXXXX"));
	memcpy(o->tmp, o->dest, len);
	memcpy(o->tmp + len, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		diag_error("%s: %s", o->path, strerror(errno));
		return -1;
	}
	/* mkstemp makes 0600; an output file gets what open(2) would. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->fp = fdopen(fd, "w"))) {
		diag_error("%s: %s", o->path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

static void
forget_names(struct outfile *o)
{
	free(o->tmp);
	free(o->dest);
	o->tmp = NULL;
	o->dest = NULL;
}

int
outfile_open(struct outfile *o, const char *path)
{
	struct stat st;

	o->path = path;
	o->dest = NULL;
	o->tmp = NULL;
	o->direct = false;
	o->fp = stdout;
	if (!path)
		return 0;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return open_direct(o);
		diag_error("%s: %s", path, S_ISDIR(st.st_mode) ?
			   "is a directory" :
			   "not a regular file, character device or FIFO");
		return -1;
	}
	if (!(o->dest = rename_target(path)))
		return -1;
	if (open_tmp(o) < 0) {
		forget_names(o);
		return -1;
	}
	return 0;
}

/* Renames the finished temporary file onto o->dest, unless something
 * other than a regular file took that name in the meantime. Returns 0
 * or an errno value. */
static int
rename_into_place(struct outfile *o)
{
	struct stat st;
	if (lstat(o->dest, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
	return rename(o->tmp, o->dest) != 0 ? errno : 0;
}

int
outfile_commit(struct outfile *o)
{
	const char *name = o->path ? o->path : "standard output";
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	int saved = errno;

	if (o->tmp || o->direct) {
		if (fclose(o->fp) != 0 && !bad) {
			bad = 1;
			saved = errno;
		}
		o->fp = NULL;
	}
	if (o->tmp) {
		if (!bad && (saved = rename_into_place(o)) != 0)
			bad = 1;
		if (bad)
			unlink(o->tmp);
		forget_names(o);
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
	if (!o->tmp && !o->direct)
		return;
	fclose(o->fp);
	o->fp = NULL;
	if (o->tmp)
		unlink(o->tmp);
	forget_names(o);
}
