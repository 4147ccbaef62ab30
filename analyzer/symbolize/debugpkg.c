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

/* dpkg -S PATH's first line into buf; false when it failed. */
static bool
dpkg_owner(const char *path, char *buf, size_t len)
{
	int fd[2];
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)"dpkg", (char *)"-S", (char *)"--",
			 (char *)path, NULL };
	pid_t pid;
	size_t n = 0;
	ssize_t r;
	int status;

	if (access(DPKG, X_OK) != 0 || pipe2(fd, O_CLOEXEC) != 0)
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	int err = posix_spawn(&pid, DPKG, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	while (!err && n + 1 < len &&
	       ((r = read(fd[0], buf + n, len - 1 - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd[0]);
	buf[n] = '\0';
	if (err)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

char *
debugpkg_for(const char *path)
{
	char buf[4096];

	if (path[0] != '/' || !dpkg_owner(path, buf, sizeof(buf)))
		return NULL;
	/* "coreutils: /usr/bin/sha256sum", or "pkg:amd64: path"; a
	 * diversion's line names two packages: take the first. */
	size_t k = strcspn(buf, ":, \n");
	if (!k || buf[k] != ':')
		return NULL;
	return xasprintf("%.*s-dbgsym", (int)k, buf);
}
