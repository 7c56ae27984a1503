// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-cow MIB FILE [huge]: stamp every page of MIB MiB with a pass number, pass
 * after pass, and check before each stamp that the page still holds the
 * previous pass. An image whose pages were not all taken at one moment
 * (some from after the registers were saved) breaks that invariant once
 * restored. After each pass appends "pass N pid P" to FILE (opened each
 * time: no descriptor needs to survive a restart); a broken invariant
 * appends "FAIL ..." and exits 1. Prints "ready" on stdout first. "huge":
 * the memory is 2 MiB aligned and MADV_HUGEPAGE, for transparent huge pages.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include "ckpt.h"

#define WORDS_PER_PAGE	(4096 / sizeof(uint64_t))

static void report(const char *file, const char *fmt, ...)
{
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
	va_list ap;

	if (fd >= 0) {
		va_start(ap, fmt);
		vdprintf(fd, fmt, ap);
		va_end(ap);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	size_t pages, i, huge = 2 << 20;
	uint64_t *p, pass;
	char *m;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "huge"))) {
		fprintf(stderr, "usage: ckpt-cow MIB FILE [huge]\n");
		return 255;
	}
	pages = strtoul(argv[1], NULL, 0) << 8;
	if (argc == 4) {
		m = mmap(NULL, pages * 4096 + huge, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(m != MAP_FAILED, "mmap: %s", strerror(errno));
		p = (uint64_t *)(((uintptr_t)m + huge - 1) & ~(huge - 1));
		CHECK(!madvise(p, pages * 4096, MADV_HUGEPAGE), "madvise: %s",
		      strerror(errno));
		memset(p, 0, pages * 4096);
	} else {
		p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (pass = 1;; pass++) {
		for (i = 0; i < pages; i++) {
			uint64_t *w = p + i * WORDS_PER_PAGE;

			if (*w != pass - 1) {
				report(argv[2], "FAIL page %zu holds %lu in pass %lu\n",
				       i, (unsigned long)*w, (unsigned long)pass);
				return 1;
			}
			*w = pass;
		}
		report(argv[2], "pass %lu pid %d\n", (unsigned long)pass,
		       getpid());
	}
}
