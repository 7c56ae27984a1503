// SPDX-License-Identifier: GPL-2.0
/*
 * Targets that change under their checkpoints.
 *
 * ckpt-churn fork GOFILE: fork a child that exits at once and reap it, in
 *	a loop. A child forked before a checkpoint and not reaped yet is not
 *	in the image: after a restart, waitpid() finds no child, once.
 * ckpt-churn mmap GOFILE: a 1 ms SIGALRM timer whose handler maps a page,
 *	fills it, makes it read-only, checks it and unmaps it, while the main
 *	loop checks that a fixed 64-page region keeps its pattern.
 * ckpt-churn threads GOFILE: create a thread that returns at once and
 *	join it, in a loop, while another thread checks that a fixed 64-page
 *	region keeps its pattern.
 *
 * All print "ready", loop until GOFILE exists, then check their state
 * (the pattern, no mapping left behind, fork count) and print "churn ok".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "ckpt.h"

#define NPAGES	64

static volatile uint64_t *region;
static volatile long handled;
static long page;

static void fill_check(volatile uint64_t *p, size_t n, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != seed * 0x9e3779b97f4a7c15ULL + i)
			FAIL("word %zu of %p changed", i, (void *)p);
}

static void on_alarm(int sig)
{
	uint64_t *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	(void)sig;
	if (p == MAP_FAILED)
		FAIL("mmap in the handler");
	for (i = 0; i < page / 8; i++)
		p[i] = handled * 0x9e3779b97f4a7c15ULL + i;
	if (mprotect(p, page, PROT_READ))
		FAIL("mprotect in the handler");
	fill_check(p, page / 8, handled);
	if (munmap(p, page))
		FAIL("munmap in the handler");
	handled++;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	CHECK(f, "maps: %m");
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int churn_mmap(const char *go)
{
	struct itimerval t = { { 0, 1000 }, { 0, 1000 } }, off = {};
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	size_t i, n = NPAGES * page / 8;
	int maps;

	region = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED, "mmap: %m");
	for (i = 0; i < n; i++)
		region[i] = 7 * 0x9e3779b97f4a7c15ULL + i;
	maps = count_maps();
	CHECK(!sigaction(SIGALRM, &sa, NULL) && !setitimer(ITIMER_REAL, &t, NULL),
	      "timer: %m");
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (access(go, F_OK))
		fill_check(region, n, 7);
	setitimer(ITIMER_REAL, &off, NULL);
	fill_check(region, n, 7);
	CHECK(handled > 0, "the handler never ran");
	CHECK(count_maps() == maps, "%d mappings, %d before", count_maps(), maps);
	return 0;
}

static volatile int stop;

static void *quick(void *arg)
{
	return (void *)((uintptr_t)arg * 3);
}

static void *keeper(void *arg)
{
	size_t n = NPAGES * page / 8;

	while (!stop)
		fill_check(region, n, 7);
	return arg;
}

static int churn_threads(const char *go)
{
	size_t i, n = NPAGES * page / 8;
	uintptr_t made = 0;
	pthread_t k, t;
	void *v;

	region = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED, "mmap: %m");
	for (i = 0; i < n; i++)
		region[i] = 7 * 0x9e3779b97f4a7c15ULL + i;
	CHECK(!pthread_create(&k, NULL, keeper, NULL), "pthread_create");
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (access(go, F_OK)) {
		CHECK(!pthread_create(&t, NULL, quick, (void *)made), "pthread_create");
		CHECK(!pthread_join(t, &v) && (uintptr_t)v == made * 3, "join %lu",
		      (unsigned long)made);
		made++;
	}
	stop = 1;
	CHECK(!pthread_join(k, &v) && !v, "join the keeper");
	CHECK(made > 0, "no thread made");
	return 0;
}

static int churn_fork(const char *go)
{
	long forks = 0, lost = 0;
	int st;

	printf("ready %d\n", getpid());
	fflush(stdout);
	while (access(go, F_OK)) {
		pid_t c = fork();

		CHECK(c >= 0, "fork: %m");
		if (c == 0)
			_exit(7);
		forks++;
		if (waitpid(c, &st, 0) == c)
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7,
			      "child status %#x", st);
		else if (errno == ECHILD)
			lost++;		/* forked before the checkpoint */
		else
			FAIL("waitpid: %m");
	}
	CHECK(forks > 0 && lost <= 1, "%ld forks, %ld children lost", forks, lost);
	CHECK(waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD, "a child left");
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	page = sysconf(_SC_PAGESIZE);
	if (argc == 3 && !strcmp(argv[1], "fork"))
		ret = churn_fork(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "mmap"))
		ret = churn_mmap(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "threads"))
		ret = churn_threads(argv[2]);
	else {
		fprintf(stderr, "usage: ckpt-churn fork|mmap|threads GOFILE\n");
		return 2;
	}
	printf("churn ok\n");
	return ret;
}
