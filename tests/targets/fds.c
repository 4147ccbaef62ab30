/*
 * fds: reports the descriptors it finds open below 64 at the start of
 * main, and what write(1) and read(0) do, on stderr: a program's view of
 * its descriptor table, which a profiler must leave as it was.
 *
 * usage: fds; exit 0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	char line[512];
	size_t len = 0;
	len += (size_t)snprintf(line + len, sizeof(line) - len, "open:");
	for (int fd = 0; fd < 64; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						" %d", fd);
	errno = 0;
	ssize_t w = write(1, "", 0);
	len += (size_t)snprintf(line + len, sizeof(line) - len,
				"; write(1) %zd %s", w, w < 0 ? strerror(errno) : "ok");
	char c;
	errno = 0;
	ssize_t r = read(0, &c, 0);
	len += (size_t)snprintf(line + len, sizeof(line) - len,
				"; read(0) %zd %s\n", r, r < 0 ? strerror(errno) : "ok");
	fputs(line, stderr);
	return 0;
}
