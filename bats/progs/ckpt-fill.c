// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-fill MIB GOFILE: touch MIB MiB of anonymous memory with a pattern,
 * also map 64 MiB never touched, 16 MiB only read (zero page) and 16 MiB
 * written with zeroes; print "ready", wait for GOFILE, check the pattern
 * and print "fill ok".
 */
#include <stdint.h>
#include <sys/mman.h>
#include "ckpt.h"

#define MIB (1UL << 20)

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

int main(int argc, char **argv)
{
	size_t len, i;
	uint64_t *p;
	volatile unsigned char *zr;
	unsigned char *zw;
	unsigned long sum = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-fill MIB GOFILE\n");
		return 255;
	}
	len = strtoul(argv[1], NULL, 0) * MIB;
	p = map(len);
	for (i = 0; i < len / 8; i++)
		p[i] = i * 0x9e3779b97f4a7c15ULL;
	map(64 * MIB);
	zr = map(16 * MIB);
	for (i = 0; i < 16 * MIB; i += 4096)
		sum += zr[i];
	zw = map(16 * MIB);
	memset(zw, 0, 16 * MIB);
	ready_then_wait(argv[2]);
	for (i = 0; i < len / 8; i++)
		CHECK(p[i] == i * 0x9e3779b97f4a7c15ULL, "word %zu", i);
	for (i = 0; i < 16 * MIB; i++)
		CHECK(!zr[i] && !zw[i], "zero byte %zu", i);
	printf("fill ok sum=%lu\n", sum);
	return 0;
}
