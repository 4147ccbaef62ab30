/* A program that raises a SIGBUS of its own: it maps a file, cuts the
 * file and reads through the mapping. With "handler" it has a SIGBUS
 * handler (SA_SIGINFO) that reports the signal's code and whether the
 * address is the one it read, and exits 3; without, the signal kills it.
 * The profiler, which takes the SIGBUS its own stores into a cut spool
 * raise, must leave this one to the program as it was. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile char *where;

static void
on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "sig %d code %d at the page: %d\n",
			 sig, si->si_code, (volatile char *)si->si_addr == where);
	(void)!write(1, msg, (size_t)n);
	_exit(3);
}

int
main(int argc, char **argv)
{
	char path[] = "/tmp/hostile_sigbus-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return 1;
	unlink(path);
	if (argc > 1 && strcmp(argv[1], "handler") == 0) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGBUS, &sa, NULL);
		/* It reads back what it installed. */
		sigaction(SIGBUS, NULL, &old);
		printf("handler back: %d\n", old.sa_sigaction == on_bus);
	}
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 20000000; i++)
		x += i;
	where = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (where == MAP_FAILED || ftruncate(fd, 0) < 0)
		return 1;
	printf("reading\n");
	fflush(stdout);
	return where[0];
}
