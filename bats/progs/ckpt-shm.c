// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-shm DIR GOFILE: hold shared memory of every kind that has no name
 * and one that has: 64 KiB MAP_SHARED|MAP_ANONYMOUS (half written), a
 * MAP_SHARED mapping of /dev/zero, a read-only shared anonymous mapping,
 * a memfd mapped shared with its fd closed, and DIR/shared mapped shared.
 * Prints "ready", waits for GOFILE, checks every byte, that the mappings
 * are still shared (with a child, and with the file), prints "shm ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "ckpt.h"

#define KIB 1024

static unsigned char *anon, *zero, *ro, *mfd, *file;
static char path[4096];

static void *map(size_t len, int prot, int flags, int fd)
{
	void *p = mmap(NULL, len, prot, flags, fd, 0);

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

static void fill(unsigned char *p, size_t len, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = i * seed + i / 4096;
}

static void check_fill(const unsigned char *p, size_t len, int seed,
		       const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(p[i] == (unsigned char)(i * seed + i / 4096),
		      "%s: byte %zu is %d", what, i, p[i]);
}

static void check(void)
{
	char buf[6] = "";
	pid_t pid;
	int fd, st, i;

	check_fill(anon, 32 * KIB, 3, "anonymous");
	for (i = 32 * KIB; i < 64 * KIB; i++)
		CHECK(!anon[i], "anonymous: byte %d not zero", i);
	check_fill(zero, 16 * KIB, 5, "/dev/zero");
	check_fill(ro, 8 * KIB, 11, "read-only");
	check_fill(mfd, 32 * KIB, 13, "memfd");
	CHECK(!memcmp(file, "hello", 5), "shared file mapping");
	/* still shared: a child's writes show in the parent */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		anon[40000] = 0x5a;
		mfd[100] = 0xa5;
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child");
	CHECK(anon[40000] == 0x5a && mfd[100] == 0xa5, "no longer shared");
	/* and the file mapping is the file */
	memcpy(file, "world", 5);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, 5) == 5 && !memcmp(buf, "world", 5),
	      "file mapping not shared with the file: %s", buf);
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-shm DIR GOFILE\n");
		return 255;
	}
	anon = map(64 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	fill(anon, 32 * KIB, 3);
	fd = open("/dev/zero", O_RDWR);
	zero = map(16 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	close(fd);
	fill(zero, 16 * KIB, 5);
	ro = map(8 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	fill(ro, 8 * KIB, 11);
	CHECK(!mprotect(ro, 8 * KIB, PROT_READ), "mprotect");
	fd = memfd_create("ckpt-shm", 0);
	CHECK(fd >= 0 && !ftruncate(fd, 32 * KIB), "memfd: %s", strerror(errno));
	mfd = map(32 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	close(fd);
	fill(mfd, 32 * KIB, 13);
	snprintf(path, sizeof(path), "%s/shared", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && !ftruncate(fd, 8 * KIB), "file: %s", strerror(errno));
	file = map(8 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	close(fd);
	memcpy(file, "hello", 5);
	ready_then_wait(argv[2]);
	check();
	printf("shm ok\n");
	return 0;
}
