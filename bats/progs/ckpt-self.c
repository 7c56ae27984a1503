// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-self: checkpoint yourself to stdout, say hello. Restarted from
 * that image, the same call returns 0.
 */
#include "ckpt.h"

int main(void)
{
	char comm[32] = "";
	long ret;
	FILE *f;

	ret = sys_checkpoint(getpid(), STDOUT_FILENO, 0);
	if (ret < 0)
		perror("checkpoint");
	fprintf(stderr, "hello, world!  (ret=%ld)\n", ret);
	f = fopen("/proc/self/comm", "r");
	if (f && fgets(comm, sizeof(comm), f))
		fprintf(stderr, "comm=%s", comm);
	return ret < 0;
}
