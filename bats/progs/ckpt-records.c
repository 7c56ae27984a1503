// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-records IMAGE: print the kinds of an image's records in order, as
 * the uapi header names them without CKPT_, each followed by a comma.
 * Exits 1 if a record does not fit or has a kind the header does not have.
 */
#include <stdio.h>
#include <stdlib.h>
#include "ckpt-image.h"

#define N(t) [CKPT_##t] = #t
static const char *const names[] = {
	N(HEAD), N(TASK), N(CPU), N(XSTATE), N(MM), N(VMA), N(PAGES),
	N(TAIL), N(PATH), N(FS), N(FILES), N(FILE), N(FDS), N(PIPE),
	N(SIGNALS), N(CREDS), N(LIMITS), N(TIMERS), N(EPOLL), N(TIMERFD),
	N(POSIX_TIMERS), N(SHMS), N(SHM), N(SECCOMP), N(SECCOMP_FILTER),
	N(LOCKS), N(THREAD), N(UNIX), N(UNIX_QUEUE), N(INET), N(TCP), N(TREE),
	N(PAGE_RUNS), N(PTY),
};

int main(int argc, char **argv)
{
	static uint8_t img[64 << 20];
	struct ckpt_hdr *h;
	size_t size, off = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-records IMAGE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	size = fread(img, 1, sizeof(img), f);
	fclose(f);
	while ((h = ckpt_next_rec(img, size, &off))) {
		if (h->type >= sizeof(names) / sizeof(names[0]) || !names[h->type]) {
			fprintf(stderr, "unknown record kind %u\n", h->type);
			return 1;
		}
		printf("%s,", names[h->type]);
	}
	printf("\n");
	return off == size ? 0 : 1;
}
