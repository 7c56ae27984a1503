// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-sparse MIB GOFILE: map MIB MiB of anonymous memory without huge
 * pages and write one word in each 2 MiB of it, so that its page tables
 * (one page of them for each 2 MiB) outweigh its memory; print "ready",
 * wait for GOFILE, check the words and print "sparse ok".
 */
#include <stdint.h>
#include <sys/mman.h>
#include "ckpt.h"

#define SLOT (2UL << 20)

int main(int argc, char **argv)
{
	size_t len, i;
	uint64_t *p;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-sparse MIB GOFILE\n");
		return 255;
	}
	len = strtoul(argv[1], NULL, 0) << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	/* a huge page for each word would make it 2 MiB per slot */
	CHECK(!madvise(p, len, MADV_NOHUGEPAGE), "madvise: %s", strerror(errno));
	for (i = 0; i < len / SLOT; i++)
		p[i * SLOT / 8] = i * 0x9e3779b97f4a7c15ULL;
	ready_then_wait(argv[2]);
	for (i = 0; i < len / SLOT; i++)
		CHECK(p[i * SLOT / 8] == i * 0x9e3779b97f4a7c15ULL, "slot %zu", i);
	printf("sparse ok\n");
	return 0;
}
