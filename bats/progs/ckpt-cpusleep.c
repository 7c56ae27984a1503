// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-cpusleep MS: a thread spins while the main thread sleeps in
 * clock_nanosleep() until the process has used MS ms more of CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, relative); prints "ready" just before the
 * sleep and "cpusleep ok" once it returns 0 having used that much.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include "ckpt.h"

static void *spin(void *arg)
{
	for (;;)
		;
	return arg;
}

static long long cpu_ns(void)
{
	struct timespec ts;

	CHECK(!clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), "clock_gettime: %m");
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct timespec req;
	long long start, ms;
	pthread_t th;
	int ret;

	CHECK(argc == 2, "usage: ckpt-cpusleep MS");
	ms = atoll(argv[1]);
	req.tv_sec = ms / 1000;
	req.tv_nsec = ms % 1000 * 1000000;
	CHECK(!pthread_create(&th, NULL, spin, NULL), "pthread_create");
	start = cpu_ns();
	printf("ready %d\n", getpid());
	fflush(stdout);
	ret = clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &req, NULL);
	CHECK(!ret, "clock_nanosleep: %s", strerror(ret));
	CHECK(cpu_ns() - start >= ms * 1000000, "woke after %lld ns of CPU",
	      cpu_ns() - start);
	printf("cpusleep ok\n");
	return 0;
}
