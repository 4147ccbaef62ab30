/*
 * debuginfo: separate debug files (see debuginfo.h), in the symbolize
 * stage.
 *
 * With libdw the file is found by libdwfl's standard search
 * (dwfl_standard_find_debuginfo, as perf's util/debuginfo.c uses it):
 * one Dwfl for the process, each file reported to it for the time of
 * its lookup. libdw opens its candidates with a plain open(2), which
 * waits forever on a FIFO, so a place that holds anything but a regular
 * file is left out of its search path first (see search_path).
 *
 * Our own walk below is the fallback: the whole search in a build
 * without libdw. With libdw it is there for the note: libdw passes over
 * a candidate that does not match without a word, so the walk looks at
 * the candidates before the one libdw found (none when it was the
 * first), or at all of them when libdw found nothing, and then takes a
 * match of its own: what libdw was kept from (a place left out, an image
 * in memory). libdw is not asked for a file with a .symtab of its own,
 * for which it would not look (see dwfl_lookup), nor when no place it
 * would look in holds anything and debuginfod is off.
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

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

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

/* Our walk over the candidates, in order. With upto, it stops before
 * that one: libdw found it, and the walk is for the notes on the
 * candidates that came before. */
struct walk {
	const struct elffile *f;
	const char *path, *root;
	const char *upto;
	bool stopped;
	struct elffile *out;
	char **note;
};

/* Opens candidate and keeps it when it matches. by_link: found through
 * .gnu_debuglink, so the CRC decides when the file has no build-id. */
static bool
try_candidate(struct walk *w, const char *cand, bool by_link)
{
	const struct elffile *f = w->f;
	struct elffile_why why;
	uint32_t crc;

	if (w->upto && strcmp(cand, w->upto) == 0)
		w->stopped = true;
	if (w->stopped || access(cand, F_OK) != 0 ||
	    elffile_open(w->out, cand, &why) != 0)
		return false;
	/* As libdw: a file with a build-id takes only a debug file with
	 * the same one. */
	if (f->build_id_len) {
		if (f->build_id_len == w->out->build_id_len &&
		    memcmp(f->build_id, w->out->build_id, f->build_id_len) == 0)
			return true;
		set_note(w->note, xasprintf("separate debug file %s has %s "
					    "build-id, ignored", cand,
					    w->out->build_id_len ? "another" :
					    "no"));
	} else if (by_link && file_crc(w->out->fd, &crc) &&
		   crc == f->debuglink_crc) {
		return true;
	} else if (by_link) {
		set_note(w->note, xasprintf("separate debug file %s does not "
					    "match (CRC mismatch), ignored",
					    cand));
	}
	elffile_close(w->out);
	return false;
}

/* ROOT/.build-id/xx/yyyy.debug for f, or NULL. */
static char *
build_id_name(const struct elffile *f, const char *root)
{
	char hex[2 * ELFFILE_BUILD_ID_MAX + 1];
	if (!root || f->build_id_len < 2)
		return NULL;
	for (size_t i = 0; i < f->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
	return xasprintf("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
}

static char *
by_build_id(struct walk *w)
{
	char *cand = build_id_name(w->f, w->root);
	if (cand && try_candidate(w, cand, false))
		return cand;
	free(cand);
	return NULL;
}

static char *
by_debuglink(struct walk *w)
{
	const char *link = w->f->debuglink, *path = w->path;
	if (!link || !path || strchr(link, '/'))
		return NULL;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	char *cands[3] = {
		xasprintf("%s/%s", dir, link),
		xasprintf("%s/.debug/%s", dir, link),
		w->root && dir[0] == '/' ? xasprintf("%s%s/%s", w->root, dir,
						     link) : NULL,
	};
	char *found = NULL;
	for (size_t i = 0; i < 3; i++) {
		if (!found && cands[i] && !same_file(cands[i], path) &&
		    try_candidate(w, cands[i], true))
			found = cands[i];
		else
			free(cands[i]);
	}
	free(dir);
	return found;
}

static char *
walk(struct walk *w)
{
	char *found = by_build_id(w);
	return found ? found : by_debuglink(w);
}

#ifdef HAVE_LIBDW

/* false when opening p could block or never end: a FIFO waits for a
 * writer, a device may be read forever. Nothing there is harmless, and
 * sets no *seen. */
static bool
harmless(const char *p, bool *seen)
{
	struct stat st;
	if (stat(p, &st) != 0)
		return true;
	*seen = true;
	return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

static bool
harmless2(const char *a, const char *b, const char *c, bool *seen)
{
	char *p = c ? xasprintf("%s/%s/%s", a, b, c) : xasprintf("%s/%s", a, b);
	bool ok = harmless(p, seen);
	free(p);
	return ok;
}

/* Under an absolute entry ROOT, libdw tries ROOT/a/b/NAME for a file in
 * /a/b, then ROOT/b/NAME, then ROOT/NAME. */
static bool
root_harmless(const char *root, const char *dir, const char *name,
	      bool *seen)
{
	bool ok = true;
	for (const char *s = dir; ok && (s = strchr(s, '/')) && s[1]; )
		ok = harmless2(root, ++s, name, seen);
	return ok && harmless2(root, name, NULL, seen);
}

struct lookup {
	const char *path;   /* the file, NULL for no .gnu_debuglink search */
	const char *link;   /* its .gnu_debuglink, or NULL */
	char *root;         /* absolute debug root, owned, or NULL */
	char *found;        /* what libdw found, owned */
	bool asked;
	bool seen;          /* some place libdw looks in holds something */
};

/* libdw's search path for one lookup, or NULL for none: "" (the file's
 * directory), ".debug" (under it) and the root (its .build-id/ and the
 * file's directory under it). libdw searches the directories of the path
 * and, when they differ, of its real path. An entry that would open
 * something not harmless is left out; an empty path would mean "" to
 * libdw, hence NULL. l->seen tells whether any of these places holds
 * anything. */
static char *
search_path(struct lookup *l, const struct elffile *f)
{
	char *real = l->path ? realpath(l->path, NULL) : NULL;
	const char *files[2] = {
		l->path, real && strcmp(real, l->path) != 0 ? real : NULL,
	};
	bool here = l->link != NULL, sub = here, root = l->root != NULL;

	for (size_t i = 0; i < 2 && files[i]; i++) {
		const char *slash = strrchr(files[i], '/');
		size_t len = slash ? (size_t)(slash - files[i]) : 0;
		char *dir = slash ? xstrndup(files[i], len) : xstrdup(".");
		here = here && harmless2(dir, l->link, NULL, &l->seen);
		sub = sub && harmless2(dir, ".debug", l->link, &l->seen);
		if (root && l->link && dir[0] == '/')
			root = root_harmless(l->root, dir, l->link, &l->seen);
		free(dir);
	}
	free(real);
	char *id = root ? build_id_name(f, l->root) : NULL;
	if (id)
		root = harmless(id, &l->seen);
	free(id);
	const char *e[3];
	size_t n = 0;
	if (here)
		e[n++] = "";
	if (sub)
		e[n++] = ".debug";
	if (root)
		e[n++] = l->root;
	if (n == 0)
		return NULL;
	return xasprintf("%s%s%s%s%s", e[0], n > 1 ? ":" : "",
			 n > 1 ? e[1] : "", n > 2 ? ":" : "",
			 n > 2 ? e[2] : "");
}

/* The path of an open descriptor: debuginfod gives no name. */
static char *
fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* libdw's find_debuginfo callback: its standard search, with our
 * arguments. It is called again for a dwz file (.gnu_debugaltlink) of
 * the debug file, which we do not need. */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
	       GElf_Addr base, const char *file_name, const char *debuglink,
	       GElf_Word crc, char **name)
{
	struct lookup *l = *userdata;
	(void)file_name;
	(void)debuglink;
	if (l->asked)
		return -1;
	l->asked = true;
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					      l->link ? l->path : NULL,
					      l->link, crc, name);
	if (fd >= 0)
		l->found = *name ? xstrdup(*name) : fd_path(fd);
	return fd;
}

/* One Dwfl for the process (module-level state: making one per file
 * costs for nothing). Its search path is set for each lookup, which is
 * why the callbacks point to a variable. */
static char *dwfl_path;
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &dwfl_path,
};
static Dwfl *dwfl;

/* Reports f (which has no .symtab) to the Dwfl and asks libdw for its
 * symbol table, which has libdw look for the debug file (for a file with
 * a .symtab of its own it would not look). Not its DWARF:
 * dwfl_module_getdwarf also reads the debug file's DWARF, decompressing
 * Debian's compressed sections: 70 to 100 ms a run that touches libc,
 * against 23 ms for the whole run without it. Every module is dropped
 * again, closing what libdw opened. */
static void
dwfl_lookup(struct lookup *l, const struct elffile *f)
{
	void **userdata;
	int fd = dup(f->fd);

	if (fd < 0)
		return;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "debuginfo", l->path, fd, 0,
					   false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		return;
	}
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = l;
	dwfl_module_getsymtab(mod);
	dwfl_report_begin(dwfl);
	dwfl_report_end(dwfl, NULL, NULL);
}

/* The debug file libdw finds for f, or NULL. A file found by build-id
 * keeps the name under the root, which libdw resolves to the real one. */
static char *
dwfl_find(const struct elffile *f, const char *path, const char *root)
{
	struct lookup l = {
		.path = path,
		.link = f->debuglink && !strchr(f->debuglink, '/') ?
			f->debuglink : NULL,
	};
	if (!dwfl && !(dwfl = dwfl_begin(&dwfl_callbacks)))
		return NULL;
	if (root && !strchr(root, ':')) {
		char cwd[PATH_MAX];
		if (root[0] == '/')
			l.root = xstrdup(root);
		else if (getcwd(cwd, sizeof(cwd)))
			l.root = xasprintf("%s/%s", cwd, root);
	}
	/* With nothing in any place, only debuginfod could answer: when it
	 * is off (cli/options.c), libdw is not asked, which also spares loading
	 * libdebuginfod and libcurl (about 12 ms) on the first miss. */
	const char *urls = getenv("DEBUGINFOD_URLS");
	dwfl_path = search_path(&l, f);
	if (dwfl_path && (l.seen || (urls && *urls)))
		dwfl_lookup(&l, f);
	free(dwfl_path);
	dwfl_path = NULL;
	free(l.root);
	char *id = l.found ? build_id_name(f, root) : NULL;
	char *real = id ? realpath(id, NULL) : NULL;
	if (real && strcmp(real, l.found) == 0) {
		free(l.found);
		l.found = id;
		id = NULL;
	}
	free(real);
	free(id);
	return l.found;
}

#endif

bool
debuginfo_uses_libdw(void)
{
#ifdef HAVE_LIBDW
	return true;
#else
	return false;
#endif
}

int
debuginfo_open(const struct elffile *f, const char *path, const char *root,
	       struct elffile *out, char **found, char **note)
{
	struct walk w = {
		.f = f, .path = path, .root = root, .out = out, .note = note,
	};
	*note = NULL;
	*found = NULL;
#ifdef HAVE_LIBDW
	struct elffile_why why;
	*found = path && f->fd >= 0 && !f->symtab ? dwfl_find(f, path, root)
						   : NULL;
	if (*found && elffile_open(out, *found, &why) != 0) {
		free(*found);
		*found = NULL;
	}
#endif
	if (*found) {
		struct elffile skip;
		w.upto = *found;
		w.out = &skip;
		char *again = walk(&w);
		if (again)
			elffile_close(&skip);
		free(again);
		return 0;
	}
	*found = walk(&w);
	return *found ? 0 : -1;
}
