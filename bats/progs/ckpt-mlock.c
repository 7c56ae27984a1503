// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-mlock GOFILE: lock memory the ways programs do - 16 pages mlock()ed,
 * 16 pages mlock2(MLOCK_ONFAULT)ed with 5 of them touched, 16 pages mapped
 * MAP_LOCKED, then mlockall(MCL_FUTURE) - each with a pattern; print
 * "ready", wait for GOFILE, check the patterns, that each range is locked
 * as it was (smaps "Locked:" and the "lo" VmFlag), that VmLck is what it
 * was, and that a new mapping is locked; print "mlock ok".
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "ckpt.h"

#define PG	4096UL
#define NPG	16

static unsigned char *a, *b, *c;
static long vmlck;

/* "Locked:" kB of the mapping at @p, and whether it has the "lo" flag */
static long locked_kb(const void *p, int *lo)
{
	unsigned long lo_addr, hi_addr;
	char line[512];
	long kb = -1, v;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	CHECK(f, "smaps: %m");
	*lo = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo_addr, &hi_addr) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = lo_addr == (unsigned long)p;
		else if (in && sscanf(line, "Locked: %ld kB", &v) == 1)
			kb = v;
		else if (in && !strncmp(line, "VmFlags:", 8))
			*lo = strstr(line, " lo") != NULL;
	}
	fclose(f);
	return kb;
}

static long status_kb(const char *key)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	CHECK(f, "status: %m");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			sscanf(line + strlen(key), " %ld", &kb);
	fclose(f);
	return kb;
}

static void fill(unsigned char *p, int npg, int seed)
{
	for (int i = 0; i < npg; i++)
		memset(p + i * PG, seed + i, PG);
}

static void check_range(const char *what, unsigned char *p, int npg, int seed,
			long want_kb)
{
	int lo;
	long kb = locked_kb(p, &lo);

	for (int i = 0; i < npg; i++)
		CHECK(p[i * PG] == (unsigned char)(seed + i) &&
		      p[i * PG + PG - 1] == (unsigned char)(seed + i),
		      "%s: page %d lost its pattern", what, i);
	CHECK(lo && kb == want_kb, "%s: locked %ld kB (lo %d), expected %ld",
	      what, kb, lo, want_kb);
}

static void check(const char *when)
{
	int lo;
	void *d;

	check_range("mlock", a, NPG, 1, NPG * 4);
	check_range("onfault", b, 5, 40, 5 * 4);
	check_range("MAP_LOCKED", c, NPG, 80, NPG * 4);
	CHECK(status_kb("VmLck:") == vmlck, "%s: VmLck %ld kB, was %ld", when,
	      status_kb("VmLck:"), vmlck);
	d = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(d != MAP_FAILED, "mmap: %m");
	locked_kb(d, &lo);
	CHECK(lo, "%s: a new mapping is not locked (MCL_FUTURE lost)", when);
	munmap(d, PG);
}

static unsigned char *map(int flags)
{
	void *p = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	CHECK(p != MAP_FAILED, "mmap: %m");
	return p;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-mlock GOFILE\n");
		return 2;
	}
	a = map(0);
	fill(a, NPG, 1);
	CHECK(!mlock(a, NPG * PG), "mlock: %m");
	b = map(0);
	CHECK(!mlock2(b, NPG * PG, MLOCK_ONFAULT), "mlock2: %m");
	fill(b, 5, 40);
	c = map(MAP_LOCKED);
	fill(c, NPG, 80);
	CHECK(!mlockall(MCL_FUTURE), "mlockall: %m");
	vmlck = status_kb("VmLck:");
	check("before");
	ready_then_wait(argv[1]);
	check("after");
	printf("mlock ok\n");
	return 0;
}
