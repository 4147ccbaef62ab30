/*
 * idle_thread: the reference configuration of scripts/bench-shape, what
 * merely having a second thread costs a single-threaded program. Preloaded
 * (LD_PRELOAD), its constructor starts one thread that blocks forever, with
 * every signal blocked, and does nothing else: from then on the process is
 * not single-threaded (__libc_single_threaded is 0) and glibc and libstdc++
 * take their locks and atomic operations. Not built by meson;
 * bench_shape.py compiles it with the system's cc:
 *
 *   cc -O2 -fPIC -shared -o idle_thread.so scripts/bench-shape.d/idle_thread.c
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void *
idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void
start_idle_thread(void)
{
	sigset_t all, old;
	pthread_t t;
	/* The thread inherits the mask: no signal of the process is ever
	 * delivered to it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, idle, NULL) != 0)
		fputs("idle_thread: pthread_create failed\n", stderr);
	else
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
