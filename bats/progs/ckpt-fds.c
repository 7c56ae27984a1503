// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-fds dup|open N PATH GOFILE: raise RLIMIT_NOFILE and hold N more
 * descriptors: "dup" N descriptors of one open file of PATH (shared
 * offset, moved to 1 before), "open" N files of PATH opened one by one
 * (own offsets, each moved to its descriptor's number modulo 4096); print
 * "ready", wait for GOFILE, check every descriptor's file and offset,
 * print "fds ok".
 */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "ckpt.h"

#define FIRST 10

int main(int argc, char **argv)
{
	struct rlimit rl;
	struct stat a, b;
	int i, n, fd, dup;

	if (argc != 5 || (strcmp(argv[1], "dup") && strcmp(argv[1], "open"))) {
		fprintf(stderr, "usage: ckpt-fds dup|open N PATH GOFILE\n");
		return 2;
	}
	dup = !strcmp(argv[1], "dup");
	n = atoi(argv[2]);
	rl.rlim_cur = rl.rlim_max = n + FIRST + 16;
	CHECK(!setrlimit(RLIMIT_NOFILE, &rl), "RLIMIT_NOFILE %d: %m", n);
	fd = open(argv[3], O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &a), "%s: %m", argv[3]);
	CHECK(lseek(fd, 1, SEEK_SET) == 1, "lseek: %m");
	for (i = 0; i < n; i++) {
		int d = dup ? dup2(fd, FIRST + i) : open(argv[3], O_RDONLY);

		if (!dup && d >= 0 && d != FIRST + i)
			d = dup2(d, FIRST + i) == FIRST + i ? (close(d), FIRST + i) : -1;
		CHECK(d == FIRST + i, "descriptor %d: %m", FIRST + i);
		if (!dup)
			CHECK(lseek(d, d % 4096, SEEK_SET) == d % 4096, "lseek: %m");
	}
	close(fd);
	ready_then_wait(argv[4]);
	for (i = 0; i < n; i++) {
		fd = FIRST + i;
		CHECK(!fstat(fd, &b) && b.st_ino == a.st_ino && b.st_dev == a.st_dev,
		      "descriptor %d: %m", fd);
		CHECK(lseek(fd, 0, SEEK_CUR) == (dup ? 1 : fd % 4096),
		      "descriptor %d at %ld", fd, (long)lseek(fd, 0, SEEK_CUR));
	}
	printf("fds ok\n");
	return 0;
}
