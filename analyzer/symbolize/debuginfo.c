/*
 * debuginfo: separate debug files (see debuginfo.h).
 *
 * The CRC is computed over the whole candidate, which can be large, so it
 * is computed only when build-ids cannot decide, and only for the
 * candidates a .gnu_debuglink names.
 */
#include "debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <zlib.h>

#include "xmalloc.h"

uint32_t
debuginfo_crc32(uint32_t crc, const void *buf, size_t len)
{
	const Bytef *p = buf;

	/* zlib's crc32 takes at most UINT_MAX bytes at a time. */
	while (len > UINT_MAX) {
		crc = (uint32_t)crc32(crc, p, UINT_MAX);
		p += UINT_MAX;
		len -= UINT_MAX;
	}
	return (uint32_t)crc32(crc, p, (uInt)len);
}

/* CRC-32 of the whole file at fd; false when it cannot be read. */
static bool
file_crc(int fd, uint32_t *crc)
{
	uint8_t buf[65536];
	ssize_t n;
	off_t off = 0;

	*crc = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		*crc = debuginfo_crc32(*crc, buf, (size_t)n);
		off += n;
	}
	return true;
}

static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void
set_note(char **note, char *msg)
{
	if (*note)
		free(msg);
	else
		*note = msg;
}

/* Opens candidate and keeps it when it matches f. by_link: found through
 * .gnu_debuglink, so the CRC decides when build-ids cannot. */
static bool
try_candidate(const struct elffile *f, const char *cand, bool by_link,
	      struct elffile *out, char **note)
{
	struct elffile_why why;
	uint32_t crc;

	if (access(cand, F_OK) != 0 || elffile_open(out, cand, &why) != 0)
		return false;
	if (f->build_id_len && out->build_id_len) {
		if (f->build_id_len == out->build_id_len &&
		    memcmp(f->build_id, out->build_id, f->build_id_len) == 0)
			return true;
		set_note(note, xasprintf("separate debug file %s has another "
					 "build-id, ignored", cand));
	} else if (by_link && file_crc(out->fd, &crc) &&
		   crc == f->debuglink_crc) {
		return true;
	} else if (by_link) {
		set_note(note, xasprintf("separate debug file %s does not "
					 "match (CRC mismatch), ignored", cand));
	}
	elffile_close(out);
	return false;
}

static char *
by_build_id(const struct elffile *f, const char *root, struct elffile *out,
	    char **note)
{
	char hex[2 * ELFFILE_BUILD_ID_MAX + 1];
	if (!root || f->build_id_len < 2)
		return NULL;
	for (size_t i = 0; i < f->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
	char *cand = xasprintf("%s/.build-id/%.2s/%s.debug", root, hex,
			       hex + 2);
	if (try_candidate(f, cand, false, out, note))
		return cand;
	free(cand);
	return NULL;
}

static char *
by_debuglink(const struct elffile *f, const char *path, const char *root,
	     struct elffile *out, char **note)
{
	if (!f->debuglink || !path || strchr(f->debuglink, '/'))
		return NULL;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	char *cands[3] = {
		xasprintf("%s/%s", dir, f->debuglink),
		xasprintf("%s/.debug/%s", dir, f->debuglink),
		root && dir[0] == '/' ? xasprintf("%s%s/%s", root, dir,
						  f->debuglink) : NULL,
	};
	char *found = NULL;
	for (size_t i = 0; i < 3; i++) {
		if (!found && cands[i] && !same_file(cands[i], path) &&
		    try_candidate(f, cands[i], true, out, note))
			found = cands[i];
		else
			free(cands[i]);
	}
	free(dir);
	return found;
}

int
debuginfo_open(const struct elffile *f, const char *path, const char *root,
	       struct elffile *out, char **found, char **note)
{
	*note = NULL;
	*found = by_build_id(f, root, out, note);
	if (!*found)
		*found = by_debuglink(f, path, root, out, note);
	return *found ? 0 : -1;
}
