// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-call checkpoint PID FD FLAGS | restart CRID FD FLAGS: make the raw
 * system call with exactly these arguments. Prints the return value;
 * exits 0 on success, with the errno on failure.
 */
#include "ckpt.h"

int main(int argc, char **argv)
{
	long a, b, ret;
	unsigned long flags;

	if (argc != 5) {
		fprintf(stderr, "usage: ckpt-call checkpoint|restart ID FD FLAGS\n");
		return 255;
	}
	a = strtol(argv[2], NULL, 0);
	b = strtol(argv[3], NULL, 0);
	flags = strtoul(argv[4], NULL, 0);
	if (!strcmp(argv[1], "checkpoint"))
		ret = sys_checkpoint(a, b, flags);
	else
		ret = sys_restart(a, b, flags);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return errno;
	}
	printf("%ld\n", ret);
	return 0;
}
