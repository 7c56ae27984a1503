// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-thp on|off GOFILE: write a pattern into 8 MiB of anonymous memory
 * aligned to 2 MiB and advised MADV_HUGEPAGE, and check that transparent
 * huge pages back it (AnonHugePages); print "ready", wait for GOFILE,
 * check the pattern, then wait up to 20 s for khugepaged to collapse the
 * range into huge pages again. Prints "thp ok".
 * With "on", THP is left as the system has it; with "off", the process first turns THP off for itself
 * (PR_SET_THP_DISABLE): no huge page before or after, and the setting
 * is still there after a restart.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include "ckpt.h"

#define HPAGE	(2UL << 20)
#define LEN	(4 * HPAGE)

/* kB of AnonHugePages in the range [p, p + LEN), from /proc/self/smaps */
static long huge_kb(const void *p)
{
	char line[256];
	unsigned long lo, hi;
	long kb, in = 0, total = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	CHECK(f, "smaps: %m");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = lo < (unsigned long)p + LEN && hi > (unsigned long)p;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			total += kb;
	}
	fclose(f);
	return total;
}

static void check_pattern(const unsigned char *p)
{
	unsigned long i;

	for (i = 0; i < LEN; i += 512)
		CHECK(p[i] == (unsigned char)(i / 4096 * 7 + i % 4096 / 512),
		      "byte %lu is %u", i, p[i]);
}

int main(int argc, char **argv)
{
	int off = argc == 3 && !strcmp(argv[1], "off");
	unsigned char *raw, *p;
	unsigned long i;
	int waited;

	if (argc != 3 || (!off && strcmp(argv[1], "on"))) {
		fprintf(stderr, "usage: ckpt-thp on|off GOFILE\n");
		return 2;
	}
	CHECK(!off || !prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), "PR_SET_THP_DISABLE: %m");
	raw = mmap(NULL, LEN + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(raw != MAP_FAILED, "mmap: %m");
	p = (unsigned char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
	CHECK(!madvise(p, LEN, MADV_HUGEPAGE), "MADV_HUGEPAGE: %m");
	for (i = 0; i < LEN; i += 512)
		p[i] = i / 4096 * 7 + i % 4096 / 512;
	CHECK(off ? !huge_kb(p) : huge_kb(p) > 0, "before: %ld kB in huge pages",
	      huge_kb(p));
	ready_then_wait(argv[2]);
	check_pattern(p);
	CHECK(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == off, "after: THP disable %d",
	      prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
	for (waited = 0; !off && huge_kb(p) < 2048 && waited < 2000; waited++)
		usleep(10000);
	CHECK(off ? !huge_kb(p) : huge_kb(p) >= 2048, "after: %ld kB in huge pages",
	      huge_kb(p));
	check_pattern(p);
	printf("thp ok\n");
	return 0;
}
