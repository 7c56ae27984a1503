// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-madvise GOFILE: map five anonymous regions of two pages, filled
 * with a pattern, and madvise() them MADV_DONTFORK, MADV_WIPEONFORK,
 * MADV_DONTDUMP, MADV_SEQUENTIAL and MADV_RANDOM; print "ready", wait for
 * GOFILE, then check the contents, the VmFlags of each in
 * /proc/self/smaps (dc, wf, dd, sr, rr), and in a forked child that the
 * DONTFORK region is gone and the WIPEONFORK one reads zeros; print
 * "madvise ok".
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include "ckpt.h"

#define LEN	(2 * 4096)

static const struct {
	int advice;
	const char *flag;
} regions[] = {
	{ MADV_DONTFORK, "dc" },
	{ MADV_WIPEONFORK, "wf" },
	{ MADV_DONTDUMP, "dd" },
	{ MADV_SEQUENTIAL, "sr" },
	{ MADV_RANDOM, "rr" },
};

#define NR	(sizeof(regions) / sizeof(regions[0]))

static char *addr[NR];

/* Whether the smaps entry of the mapping at @a lists VmFlags @flag. */
static int has_flag(const char *a, const char *flag)
{
	char line[512], want[32], f[8];
	int in = 0, found = 0;
	FILE *s = fopen("/proc/self/smaps", "r");

	CHECK(s, "smaps: %m");
	snprintf(want, sizeof(want), "%lx-", (unsigned long)a);
	snprintf(f, sizeof(f), " %s", flag);
	while (fgets(line, sizeof(line), s)) {
		if (!strncmp(line, want, strlen(want)))
			in = 1;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			found = strstr(line, f) != NULL;
			break;
		}
	}
	fclose(s);
	CHECK(in, "no mapping at %p", a);
	return found;
}

static int mapped(const char *a)
{
	char line[512], want[32];
	int found = 0;
	FILE *m = fopen("/proc/self/maps", "r");

	CHECK(m, "maps: %m");
	snprintf(want, sizeof(want), "%lx-", (unsigned long)a);
	while (!found && fgets(line, sizeof(line), m))
		found = !strncmp(line, want, strlen(want));
	fclose(m);
	return found;
}

static void check(void)
{
	unsigned int i, j;
	int status;
	pid_t p;

	for (i = 0; i < NR; i++) {
		for (j = 0; j < LEN; j++)
			CHECK(addr[i][j] == (char)(i * 7 + j), "region %u byte %u", i, j);
		CHECK(has_flag(addr[i], regions[i].flag), "region %u lacks VmFlags %s",
		      i, regions[i].flag);
	}
	p = fork();
	CHECK(p >= 0, "fork: %m");
	if (!p) {
		if (mapped(addr[0]))
			_exit(1);
		for (j = 0; j < LEN; j++)
			if (addr[1][j])
				_exit(2);
		_exit(addr[2][1] == 7 * 2 + 1 ? 0 : 3);
	}
	CHECK(waitpid(p, &status, 0) == p && WIFEXITED(status), "child");
	CHECK(!WEXITSTATUS(status), "child saw the fork flags fail (%d)",
	      WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	unsigned int i, j;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-madvise GOFILE\n");
		return 2;
	}
	for (i = 0; i < NR; i++) {
		/* a guard page between regions: they stay separate mappings */
		addr[i] = mmap(NULL, LEN + 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(addr[i] != MAP_FAILED, "mmap: %m");
		CHECK(!munmap(addr[i] + LEN, 4096), "munmap: %m");
		for (j = 0; j < LEN; j++)
			addr[i][j] = i * 7 + j;
		CHECK(!madvise(addr[i], LEN, regions[i].advice), "madvise %d: %m",
		      regions[i].advice);
	}
	check();
	ready_then_wait(argv[1]);
	check();
	printf("madvise ok\n");
	return 0;
}
