/*
 * spools: which spools a run reads and the reading of them: the
 * operands (with --children their process trees), the temporary
 * SPOOL.PID.N.tmp of a profrun that has not renamed its spool yet, and
 * the one profile of all of them, with the check that each --thread
 * names a thread there.
 */
#include "spools.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "merge.h"
#include "textesc.h"
#include "xmalloc.h"

/* The spools to read: the operands, each with its descendants' under
 * --children. Returns a new array of borrowed or family-owned paths;
 * NULL after an error line. */
char **
spools_paths(const struct options *o, struct family *fams, size_t *n)
{
	char **paths = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < o->nspools; i++) {
		if (!o->children) {
			xgrow(&paths, &cap, *n + 1, sizeof(*paths));
			paths[(*n)++] = o->spools[i];
			continue;
		}
		if (family_read(&fams[i], o->spools[i], true) < 0) {
			free(paths);
			return NULL;
		}
		for (size_t k = 0; k < fams[i].n; k++) {
			xgrow(&paths, &cap, *n + 1, sizeof(*paths));
			paths[(*n)++] = fams[i].procs[k].path;
		}
	}
	return paths;
}

/* "10 main, 11 worker": the threads of the spools read, for the error
 * about a --thread that names none of them; the first 16, then how many
 * more. Returns a new string. */
static char *
thread_list(struct profile *const *ps, size_t n)
{
	char *s = xstrdup("");
	size_t listed = 0, more = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ps[i]->nthreads; k++) {
			const struct profile_thread *t = &ps[i]->threads[k];
			if (listed == 16) {
				more++;
				continue;
			}
			/* (The program names its threads: escaped.) */
			char *name = textesc_dup(t->name ? t->name : "");
			char *next = xasprintf("%s%s%u%s%s", s,
					       listed++ ? ", " : "", t->tid,
					       *name ? " " : "", name);
			free(name);
			free(s);
			s = next;
		}
	}
	if (more) {
		char *next = xasprintf("%s and %zu more", s, more);
		free(s);
		s = next;
	}
	return s;
}

static bool
thread_named(struct profile *const *ps, size_t n, const char *pattern)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ps[i]->nthreads; k++)
			if (loader_thread_matches(pattern, ps[i]->threads[k].tid,
						  ps[i]->threads[k].name))
				return true;
	return false;
}

/* A --thread that matches no thread of any spool read is a mistake (a
 * typo, the wrong spool), not a request for an empty report. The spools
 * are checked one by one, before merging, because a merged thread keeps
 * one name of the several its process images gave it. Returns 0, or -1
 * after one error line naming the threads there are. */
static int
check_threads(const struct options *o, struct profile *const *ps, size_t n)
{
	for (size_t i = 0; i < o->load.nthreads; i++) {
		const char *pat = o->load.threads[i];
		if (thread_named(ps, n, pat))
			continue;
		char *list = thread_list(ps, n);
		diag_error("%s: --thread=%s matches no thread (%s%s)", o->spool,
			   pat, *list ? "threads: " : "there are none", list);
		free(list);
		return -1;
	}
	return 0;
}

/* The profile of all the spools: one read, or several merged. All are
 * read as the first one is (time or space). NULL after an error line,
 * with *status the exit status to give. */
struct profile *
spools_load(struct options *o, int *status)
{
	struct family *fams = xcalloc(o->nspools, sizeof(*fams));
	size_t n;
	char **paths = spools_paths(o, fams, &n);
	struct profile **ps = xcalloc(n ? n : 1, sizeof(*ps));
	struct profile *p = NULL;
	size_t got = 0;

	for (; paths && got < n; got++) {
		if (!(ps[got] = loader_read(paths[got], &o->load)))
			break;
		if (got == 0 && o->load.kind == LOADER_KIND_AUTO)
			o->load.kind = ps[0]->hdr.kind == PROFILE_KIND_SPACE ?
					       LOADER_KIND_SPACE :
					       LOADER_KIND_TIME;
	}
	if (paths && got == n && check_threads(o, ps, n) < 0) {
		*status = EXIT_USAGE;
	} else if (paths && got == n) {
		if (n == 1) {
			p = ps[0];
			ps[0] = NULL;
		} else {
			p = merge_profiles(ps, n);
		}
		p->hdr.spools = (uint32_t)n;
	}
	for (size_t i = 0; i < got; i++)
		profile_free(ps[i]);
	for (size_t i = 0; i < o->nspools; i++)
		family_free(&fams[i]);
	free(ps);
	free(paths);
	free(fams);
	return p;
}

/* The spool profrun is writing for SPOOL: until the program ends it is
 * SPOOL.PID.N.tmp beside it (profrun(1) renames it into place at the
 * end), the newest if several (*count of them, when count is not NULL).
 * Returns a new path, or NULL when there is none. */
char *
spools_running(const char *spool, size_t *count)
{
	const char *slash = strrchr(spool, '/');
	char *dir = slash ? xstrndup(spool, (size_t)(slash - spool + 1))
			  : xstrdup("./");
	const char *base = slash ? slash + 1 : spool;
	size_t blen = strlen(base);
	char *best = NULL;
	struct timespec best_t = { 0, 0 };
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		const char *x = e->d_name;
		unsigned pid, n;
		int end = 0;
		if (strncmp(x, base, blen) || x[blen] != '.' ||
		    sscanf(x + blen, ".%u.%u.tmp%n", &pid, &n, &end) != 2 ||
		    x[blen + (size_t)end] != '\0')
			continue;
		char *path = xasprintf("%s%s", dir, x);
		struct stat st;
		bool reg = stat(path, &st) == 0 && S_ISREG(st.st_mode);
		if (reg && count)
			(*count)++;
		if (reg && (!best || st.st_mtim.tv_sec > best_t.tv_sec ||
		     (st.st_mtim.tv_sec == best_t.tv_sec &&
		      st.st_mtim.tv_nsec > best_t.tv_nsec))) {
			free(best);
			best = path;
			best_t = st.st_mtim;
		} else {
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}

/* A SPOOL operand that does not exist while a temporary spool of it
 * does (SPOOL.PID.N.tmp): profrun was killed, or died, before it could
 * rename the spool into place at the program's end, and the program
 * (which may have run on, and ended) wrote it all there. The operand is
 * replaced by the newest such file, with one warning; the process
 * tree's other spools are SPOOL.PID as ever (family.c finds them from
 * the temporary name). Returns the paths it allocated (NULL-ended), for
 * the caller to free. */
char **
spools_unfinished(struct options *o)
{
	char **owned = xcalloc(o->nspools + 1, sizeof(*owned));
	size_t k = 0;

	for (size_t i = 0; i < o->nspools; i++) {
		struct stat st;
		size_t n = 0;
		if (lstat(o->spools[i], &st) == 0 || errno != ENOENT)
			continue;
		char *tmp = spools_running(o->spools[i], &n);
		if (!tmp)
			continue;
		if (n > 1)
			diag_warn("%s: no such file; reading %s, the newest of "
				  "%zu spools of runs whose profrun did not "
				  "finish (killed?) and never renamed them",
				  o->spools[i], tmp, n);
		else
			diag_warn("%s: no such file; reading %s, the spool of "
				  "a run whose profrun did not finish (killed?) "
				  "and never renamed it", o->spools[i], tmp);
		o->spools[i] = owned[k++] = tmp;
	}
	o->spool = o->spools[0];
	return owned;
}

void
spools_free_owned(char **owned)
{
	for (size_t i = 0; owned && owned[i]; i++)
		free(owned[i]);
	free(owned);
}
