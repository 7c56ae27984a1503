// SPDX-License-Identifier: GPL-2.0
/*
 * capsrun UID GID CAPS COMMAND [ARGS...]: become UID/GID with no
 * supplementary groups, keeping only the capabilities in CAPS (comma
 * separated numbers, "-" for none, e.g. 40 for CAP_CHECKPOINT_RESTORE)
 * across the exec of COMMAND (as ambient capabilities).
 */
#include <linux/capability.h>
#include <grp.h>
#include <sys/prctl.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	unsigned long long caps = 0;
	char *s, *tok;
	int c;

	if (argc < 5) {
		fprintf(stderr, "usage: capsrun UID GID CAPS COMMAND [ARGS...]\n");
		return 2;
	}
	for (s = argv[3]; strcmp(argv[3], "-") && (tok = strtok(s, ",")); s = NULL)
		caps |= 1ULL << atoi(tok);
	CHECK(!prctl(PR_SET_KEEPCAPS, 1), "keepcaps: %s", strerror(errno));
	CHECK(!setgroups(0, NULL) && !setgid(atoi(argv[2])) &&
	      !setuid(atoi(argv[1])), "ids: %s", strerror(errno));
	data[0].permitted = data[0].effective = data[0].inheritable = caps;
	data[1].permitted = data[1].effective = data[1].inheritable = caps >> 32;
	CHECK(!syscall(SYS_capset, &hdr, data), "capset: %s", strerror(errno));
	for (c = 0; c < 64; c++)
		if (caps & (1ULL << c))
			CHECK(!prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0),
			      "ambient %d: %s", c, strerror(errno));
	execvp(argv[4], argv + 4);
	fprintf(stderr, "capsrun: %s: %s\n", argv[4], strerror(errno));
	return 127;
}
