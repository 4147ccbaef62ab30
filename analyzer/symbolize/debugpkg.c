/*
 * debugpkg: dpkg -S for the owner of a file (see debugpkg.h).
 *
 * dpkg is run without a shell (posix_spawn, the path an argument of its
 * own: paths come from the spool), its output read through a pipe and
 * its stderr discarded.
 */
#include "debugpkg.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xmalloc.h"

#define DPKG "/usr/bin/dpkg"

extern char **environ;

#define CANDIDATES 4

/* dpkg -S's output for the n paths into buf (the lines of those it
 * knows; it exits 1 when it knows some and not others); false when it
 * could not be run. */
static bool
dpkg_search(char *const *paths, size_t n, char *buf, size_t len)
{
	int fd[2];
	posix_spawn_file_actions_t fa;
	char *argv[CANDIDATES + 4] = { (char *)"dpkg", (char *)"-S",
				       (char *)"--" };
	pid_t pid;
	size_t got = 0;
	ssize_t r;
	int status;

	for (size_t i = 0; i < n; i++)
		argv[3 + i] = paths[i];
	argv[3 + n] = NULL;
	if (access(DPKG, X_OK) != 0 || pipe2(fd, O_CLOEXEC) != 0)
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	int err = posix_spawn(&pid, DPKG, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	while (!err && got + 1 < len &&
	       ((r = read(fd[0], buf + got, len - 1 - got)) > 0 ||
		(r < 0 && errno == EINTR)))
		got += r > 0 ? (size_t)r : 0;
	close(fd[0]);
	buf[got] = '\0';
	if (err)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) <= 1;
}

/* Adds p to the n candidates unless it is there (or there is no room);
 * takes p. */
static void
add_candidate(char **c, size_t *n, char *p)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(c[i], p) == 0) {
			free(p);
			return;
		}
	if (*n < CANDIDATES)
		c[(*n)++] = p;
	else
		free(p);
}

/* The other name of p on a merged /usr: /usr/lib/x for /lib/x and back
 * (also bin, sbin and the lib variants); NULL when it has none. */
static char *
usr_twin(const char *p)
{
	static const char *const dirs[] = { "/bin/", "/sbin/", "/lib/",
					    "/lib32/", "/lib64/", "/libx32/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t k = strlen(dirs[i]);
		if (strncmp(p, dirs[i], k) == 0)
			return xasprintf("/usr%s", p);
		if (strncmp(p, "/usr", 4) == 0 && strncmp(p + 4, dirs[i], k) == 0)
			return xstrdup(p + 4);
	}
	return NULL;
}

char *
debugpkg_for(const char *path)
{
	char buf[4096], *c[CANDIDATES];
	size_t n = 0, k;
	char *real, *pkg = NULL;

	if (path[0] != '/')
		return NULL;
	/* dpkg knows a file by the path its package installed, which may
	 * be none of the loader's: /lib/x is /usr/lib/x on a merged /usr,
	 * and a library's soname is a link to its versioned file. */
	add_candidate(c, &n, xstrdup(path));
	if ((real = realpath(path, NULL)))
		add_candidate(c, &n, real);
	for (size_t i = 0, m = n; i < m; i++) {
		char *twin = usr_twin(c[i]);
		if (twin)
			add_candidate(c, &n, twin);
	}
	/* Lines "coreutils: /usr/bin/sha256sum", "pkg:amd64: path", or
	 * "pkg1, pkg2: path" (the first is taken); a diversion's,
	 * "diversion by ...", are passed over. */
	if (dpkg_search(c, n, buf, sizeof(buf))) {
		for (char *line = buf; *line && !pkg;) {
			char *end = strchrnul(line, '\n');
			if (strncmp(line, "diversion ", 10) != 0) {
				k = strcspn(line, ":, \n");
				if (k && (line[k] == ':' || line[k] == ','))
					pkg = xasprintf("%.*s-dbgsym", (int)k,
							line);
			}
			line = *end ? end + 1 : end;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	return pkg;
}
