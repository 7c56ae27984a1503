// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-memfd GOFILE: hold memfds the ways programs do - "sealed" (sealing
 * allowed, F_SEAL_SHRINK|F_SEAL_GROW, 3 pages + 100 bytes) at fd 3 with
 * its offset at 12345, dup()ed at fd 4, reopened read-only at fd 5 with
 * an offset of its own, and mapped shared twice (all of it, and its second
 * page alone); "plain" (no sealing, mode 0642) at fd 6, unmapped; "private" mapped
 * MAP_PRIVATE with one page written (copied on write) and its fd closed;
 * "future" (fd 7) sealed F_SEAL_FUTURE_WRITE after a writable shared
 * mapping;
 * plus a MAP_SHARED|MAP_ANONYMOUS page mapped a second time by mremap().
 * Prints "ready", waits for GOFILE, checks names, seals, sizes, offsets,
 * modes and owners, every byte, and that each shared thing is still one,
 * prints "memfd ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ckpt.h"

#define PG 4096
#define SEALED_SIZE (3 * PG + 100)

static unsigned char *whole, *second, *priv, *fut, *anon1, *anon2;

static unsigned char pattern(size_t i, int seed)
{
	return i * seed + i / PG;
}

static void fill(int fd, size_t len, int seed)
{
	unsigned char buf[PG];
	size_t i, n;

	for (i = 0; i < len; i += n) {
		n = len - i < PG ? len - i : PG;
		for (size_t j = 0; j < n; j++)
			buf[j] = pattern(i + j, seed);
		CHECK(pwrite(fd, buf, n, i) == (ssize_t)n, "pwrite: %s",
		      strerror(errno));
	}
}

static void check_bytes(const unsigned char *p, size_t len, int seed,
			const char *what)
{
	for (size_t i = 0; i < len; i++)
		CHECK(p[i] == pattern(i, seed), "%s: byte %zu is %d, not %d", what,
		      i, p[i], pattern(i, seed));
}

static void check_link(int fd, const char *want)
{
	char path[64], buf[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	CHECK(n > 0, "readlink %s: %s", path, strerror(errno));
	buf[n] = '\0';
	CHECK(!strcmp(buf, want), "fd %d is %s, not %s", fd, buf, want);
}

static void *map(size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

static void setup(void)
{
	int fd;

	close_range(3, ~0U, 0);
	fd = memfd_create("sealed", MFD_ALLOW_SEALING);
	CHECK(fd == 3, "memfd sealed: %s", strerror(errno));
	fill(3, SEALED_SIZE, 7);
	CHECK(fcntl(3, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0, "seal: %s",
	      strerror(errno));
	whole = map(4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
	second = map(PG, PROT_READ, MAP_SHARED, 3, PG);
	CHECK(lseek(3, 12345, SEEK_SET) == 12345, "lseek");
	CHECK(dup(3) == 4, "dup");
	CHECK(open("/proc/self/fd/3", O_RDONLY) == 5, "reopen: %s", strerror(errno));
	CHECK(lseek(5, 777, SEEK_SET) == 777, "lseek 5");
	CHECK(memfd_create("plain", 0) == 6, "memfd plain");
	CHECK(!fchmod(6, 0642), "fchmod: %s", strerror(errno));
	fill(6, 2 * PG, 3);
	fd = memfd_create("private", 0);
	CHECK(fd == 7, "memfd private");
	fill(fd, 2 * PG, 5);
	priv = map(2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	priv[10] = 0xee;	/* page 0 is now a private copy */
	close(fd);
	fd = memfd_create("future", MFD_ALLOW_SEALING);
	CHECK(fd == 7, "memfd future");
	fill(fd, PG, 9);
	fut = map(PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(!fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), "future seal: %s",
	      strerror(errno));
	anon1 = map(PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	anon1[0] = 0x11;
	anon2 = mremap(anon1, 0, PG, MREMAP_MAYMOVE);
	CHECK(anon2 != MAP_FAILED && anon2[0] == 0x11, "mremap: %s", strerror(errno));
}

static void check_sealed(void)
{
	unsigned char buf[SEALED_SIZE];
	struct stat st;

	check_link(3, "/memfd:sealed (deleted)");
	check_link(5, "/memfd:sealed (deleted)");
	CHECK(fcntl(3, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW),
	      "seals of sealed: %#x", fcntl(3, F_GET_SEALS));
	CHECK(!fstat(3, &st) && st.st_size == SEALED_SIZE, "size %lld",
	      (long long)st.st_size);
	CHECK(lseek(4, 0, SEEK_CUR) == 12345 && lseek(5, 0, SEEK_CUR) == 777,
	      "offsets %lld %lld", (long long)lseek(4, 0, SEEK_CUR),
	      (long long)lseek(5, 0, SEEK_CUR));
	CHECK(lseek(3, 100, SEEK_SET) == 100 && lseek(4, 0, SEEK_CUR) == 100 &&
	      lseek(5, 0, SEEK_CUR) == 777, "fds 3 and 4 share no offset");
	CHECK(pread(5, buf, sizeof(buf), 0) == SEALED_SIZE, "pread");
	check_bytes(buf, SEALED_SIZE, 7, "sealed (read)");
	check_bytes(whole, SEALED_SIZE, 7, "sealed (mapped)");
	for (int i = 0; i < PG; i++)
		CHECK(second[i] == pattern(PG + i, 7), "second mapping: byte %d", i);
}

static void check_shared(void)
{
	unsigned char c = 0;

	/* the second mapping, the first one and the fds are one memfd */
	whole[PG + 5] = 0x5a;
	CHECK(second[5] == 0x5a, "second mapping not shared");
	CHECK(pwrite(3, "\xa5", 1, PG + 6) == 1 && second[6] == 0xa5,
	      "fd and mapping not shared");
	CHECK(pread(5, &c, 1, PG + 5) == 1 && c == 0x5a, "read-only fd not shared");
	CHECK(write(5, "x", 1) == -1 && errno == EBADF, "fd 5 writable");
	CHECK(ftruncate(3, PG) == -1 && errno == EPERM, "F_SEAL_SHRINK lost");
	CHECK(mprotect(second, PG, PROT_READ | PROT_WRITE) == 0,
	      "second mapping cannot become writable: %s", strerror(errno));
	anon2[1] = 0x22;
	CHECK(anon1[0] == 0x11 && anon1[1] == 0x22, "anonymous mappings not one");
}

static void check_others(void)
{
	unsigned char buf[2 * PG];
	struct stat st;

	check_link(6, "/memfd:plain (deleted)");
	CHECK(!fstat(6, &st) && (st.st_mode & 07777) == 0642 &&
	      st.st_uid == geteuid() && st.st_gid == getegid(),
	      "plain: mode %o owner %d:%d", st.st_mode & 07777, st.st_uid, st.st_gid);
	CHECK(fcntl(6, F_GET_SEALS) == F_SEAL_SEAL, "seals of plain: %#x",
	      fcntl(6, F_GET_SEALS));
	CHECK(pread(6, buf, sizeof(buf), 0) == 2 * PG, "pread plain");
	check_bytes(buf, 2 * PG, 3, "plain");
	CHECK(priv[10] == 0xee, "private copy lost");
	priv[10] = pattern(10, 5);
	check_bytes(priv, 2 * PG, 5, "private");
	CHECK(fut[0] == pattern(0, 9), "future: contents");
	fut[1] = 0x42;
	CHECK(fut[1] == 0x42, "future: mapping not writable");
	CHECK(fcntl(7, F_GET_SEALS) == F_SEAL_FUTURE_WRITE, "seals of future: %#x",
	      fcntl(7, F_GET_SEALS));
	CHECK(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, 7, 0) == MAP_FAILED &&
	      errno == EPERM, "future: a new writable mapping was allowed");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-memfd GOFILE\n");
		return 255;
	}
	setup();
	ready_then_wait(argv[1]);
	check_sealed();
	check_shared();
	check_others();
	printf("memfd ok\n");
	return 0;
}
