// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-kscan IMAGE...: look for kernel addresses in the records of each
 * image that the kernel fills (everything but the process's own bytes:
 * PAGES, PIPE, XSTATE and SECCOMP_FILTER payloads). Any aligned 8-byte
 * word (records and their fields are aligned) that is an x86_64 kernel
 * address (direct map, vmalloc, vmemmap, kernel text and modules) is
 * reported. Prints "clean N" for N records scanned.
 */
#include <fcntl.h>
#include <linux/ckpt.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ckpt.h"

static int kernel_address(uint64_t w)
{
	return (w >= 0xffff888000000000ULL && w < 0xffffc88000000000ULL) ||
	       (w >= 0xffffc90000000000ULL && w < 0xffffe90000000000ULL) ||
	       (w >= 0xffffea0000000000ULL && w < 0xffffeb0000000000ULL) ||
	       (w >= 0xffffffff80000000ULL && w < 0xffffffffff000000ULL);
}

static int user_data(uint32_t type)
{
	return type == CKPT_PAGES || type == CKPT_PIPE || type == CKPT_XSTATE ||
	       type == CKPT_SECCOMP_FILTER;
}

static int scan(const char *name)
{
	int fd = open(name, O_RDONLY), n = 0;
	struct ckpt_hdr *h;
	struct stat st;
	uint64_t w;
	size_t off, i;
	char *img;

	CHECK(fd >= 0 && !fstat(fd, &st), "%s: %m", name);
	img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(img != MAP_FAILED, "mmap: %m");
	for (off = 0; off + sizeof(*h) <= (size_t)st.st_size; off += h->len, n++) {
		h = (struct ckpt_hdr *)(img + off);
		CHECK(h->len >= sizeof(*h) && off + h->len <= (size_t)st.st_size,
		      "%s: bad record at %zu", name, off);
		if (user_data(h->type))
			continue;
		for (i = 0; i + 8 <= h->len; i += 8) {
			memcpy(&w, img + off + i, 8);
			CHECK(!kernel_address(w),
			      "%s: record type %u at %zu: %#llx at byte %zu",
			      name, h->type, off, (unsigned long long)w, i);
		}
	}
	munmap(img, st.st_size);
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	int i, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ckpt-kscan IMAGE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		n += scan(argv[i]);
	printf("clean %d\n", n);
	return 0;
}
