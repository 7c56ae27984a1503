// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-mutate IN OUT MUTATION: copy the image IN to OUT with one field
 * changed, and the checksum of the TAIL record computed again, so that
 * the change reaches the checks behind the checksum. MUTATION is one of:
 *   clockid     the nanosleep a CPU record restarts is on CLOCK_REALTIME_COARSE
 *   dr7         DR7 enables an I/O breakpoint
 *   tls         a TLS descriptor is set
 *   xfeatures   the XSAVE header has AMX tile data (feature 18)
 *   bpf         the first seccomp filter starts with an invalid instruction
 *   epolldup    an epoll watches its first descriptor twice
 *   alarm       the first POSIX timer is on CLOCK_REALTIME_ALARM
 *   clock10     the first POSIX timer is on clock 10 (there is none)
 *   none        nothing: only the checksum is computed again
 * Exits 1 if IN has no record to change.
 */
#include <fcntl.h>
#include <linux/ckpt.h>
#include <linux/filter.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include "ckpt.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t round1(uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; }
static uint64_t merge(uint64_t acc, uint64_t v) { return (acc ^ round1(0, v)) * P1 + P4; }

/* xxh64 with seed 0, as lib/xxhash.c computes it */
static uint64_t xxh64(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t h;

	if (len >= 32) {
		uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1;

		do {
			v1 = round1(v1, rd64(p));
			v2 = round1(v2, rd64(p + 8));
			v3 = round1(v3, rd64(p + 16));
			v4 = round1(v4, rd64(p + 24));
			p += 32;
		} while (p <= end - 32);
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge(merge(merge(merge(h, v1), v2), v3), v4);
	} else {
		h = P5;
	}
	h += len;
	for (; p + 8 <= end; p += 8)
		h = rotl(h ^ round1(0, rd64(p)), 27) * P1 + P4;
	if (p + 4 <= end) {
		h = rotl(h ^ (uint64_t)rd32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

static uint8_t *img;
static size_t size;

static struct ckpt_hdr *find(uint32_t type)
{
	struct ckpt_hdr *h;
	size_t off;

	for (off = 0; off + sizeof(*h) <= size; off += h->len) {
		h = (struct ckpt_hdr *)(img + off);
		CHECK(h->len >= sizeof(*h) && off + h->len <= size, "bad record at %zu", off);
		if (h->type == type)
			return h;
	}
	return NULL;
}

static int mutate(const char *m)
{
	struct ckpt_hdr *h;

	if (!strcmp(m, "clockid") || !strcmp(m, "dr7") || !strcmp(m, "tls")) {
		struct ckpt_cpu *c = (struct ckpt_cpu *)find(CKPT_CPU);

		if (!c || (!strcmp(m, "clockid") && c->restart != CKPT_RESTART_NANOSLEEP))
			return 1;
		if (!strcmp(m, "clockid"))
			c->restart_clockid = CLOCK_REALTIME_COARSE;
		else if (!strcmp(m, "dr7"))
			c->debugreg[7] = 0x20001;
		else
			memset(&c->tls[0], 0x11, 8);
	} else if (!strcmp(m, "xfeatures")) {
		h = find(CKPT_XSTATE);
		if (!h)
			return 1;
		/* the XSAVE header follows the 512-byte legacy area */
		*(uint64_t *)((uint8_t *)h + sizeof(struct ckpt_xstate) + 512) |= 1ULL << 18;
	} else if (!strcmp(m, "bpf")) {
		h = find(CKPT_SECCOMP_FILTER);
		if (!h)
			return 1;
		((struct sock_filter *)((struct ckpt_seccomp_filter *)h + 1))->code = 0xffff;
	} else if (!strcmp(m, "epolldup")) {
		struct ckpt_epoll *e = (struct ckpt_epoll *)find(CKPT_EPOLL);
		struct ckpt_epoll_item *it = (struct ckpt_epoll_item *)(e + 1);

		if (!e || e->nr < 2)
			return 1;
		it[1].fd = it[0].fd;
	} else if (!strcmp(m, "alarm") || !strcmp(m, "clock10")) {
		struct ckpt_posix_timers *t = (struct ckpt_posix_timers *)find(CKPT_POSIX_TIMERS);

		if (!t || !t->nr)
			return 1;
		((struct ckpt_posix_timer *)(t + 1))->clock =
			!strcmp(m, "alarm") ? CLOCK_REALTIME_ALARM : 10;
	} else if (strcmp(m, "none")) {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ckpt_tail *t;
	struct stat st;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: ckpt-mutate IN OUT MUTATION\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &st), "%s: %m", argv[1]);
	size = st.st_size;
	img = malloc(size);
	CHECK(img && read(fd, img, size) == (ssize_t)size, "read: %m");
	close(fd);
	if (mutate(argv[3])) {
		fprintf(stderr, "%s: nothing to mutate for %s\n", argv[1], argv[3]);
		return 1;
	}
	t = (struct ckpt_tail *)find(CKPT_TAIL);
	CHECK(t, "no tail");
	t->checksum = xxh64(img, (uint8_t *)t - img + sizeof(t->h));
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, img, size) == (ssize_t)size, "%s: %m", argv[2]);
	close(fd);
	return 0;
}
