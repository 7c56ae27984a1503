// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-membarrier [none] GOFILE: register with membarrier() for private
 * expedited barriers, their SYNC_CORE and RSEQ variants and global
 * expedited ones (with "none": register nothing), print "ready", wait
 * for GOFILE, then check that each private expedited barrier works (or,
 * with "none", is still EPERM: not registered) and print "membarrier ok".
 */
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include "ckpt.h"

static long membarrier(int cmd, unsigned int flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

static const int barriers[] = {
	MEMBARRIER_CMD_PRIVATE_EXPEDITED,
	MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE,
	MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
};

static void check(int registered)
{
	unsigned int i;

	for (i = 0; i < sizeof(barriers) / sizeof(barriers[0]); i++) {
		long ret = membarrier(barriers[i], 0);

		if (registered)
			CHECK(ret == 0, "membarrier(%#x): %s", barriers[i],
			      strerror(errno));
		else
			CHECK(ret < 0 && errno == EPERM,
			      "membarrier(%#x) unregistered: %ld", barriers[i], ret);
	}
	CHECK(membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0) == 0,
	      "global expedited: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	int registered = argc == 2;

	if (argc != 2 && (argc != 3 || strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: ckpt-membarrier [none] GOFILE\n");
		return 2;
	}
	if (registered) {
		CHECK(!membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) &&
		      !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0) &&
		      !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0) &&
		      !membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0),
		      "register: %s", strerror(errno));
	}
	check(registered);
	ready_then_wait(argv[argc - 1]);
	check(registered);
	printf("membarrier ok\n");
	return 0;
}
