// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-wait sleep MS | read: print "ready", then nanosleep() for MS
 * milliseconds or read() a line from stdin, and report how the call ended:
 * "slept ret=R errno=E ms=ELAPSED" or "read ret=R errno=E data=DATA".
 * Elapsed time is CLOCK_MONOTONIC from just before the call.
 */
#include <time.h>
#include "ckpt.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	char buf[128] = "";
	long start, ret;

	if (argc < 2 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: ckpt-wait sleep MS | read\n");
		return 255;
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	start = now_ms();
	if (!strcmp(argv[1], "sleep")) {
		long ms = argc > 2 ? atol(argv[2]) : 1000;
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		errno = 0;
		ret = nanosleep(&ts, NULL);
		printf("slept ret=%ld errno=%d ms=%ld\n", ret, errno, now_ms() - start);
	} else {
		errno = 0;
		ret = read(STDIN_FILENO, buf, sizeof(buf) - 1);
		if (ret > 0)
			buf[ret] = '\0';
		printf("read ret=%ld errno=%d data=%s\n", ret, errno, buf);
	}
	return 0;
}
