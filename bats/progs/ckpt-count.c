// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-count FILE [MS]: count forever, appending "count N pid P" to FILE
 * every MS milliseconds (default 300). FILE is opened for each line, so
 * the counter needs no file descriptor to survive a restart. Prints
 * "ready" on stdout first.
 */
#include <fcntl.h>
#include <time.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	long ms = argc > 2 ? atol(argv[2]) : 300;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	unsigned long n;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: ckpt-count FILE [MS]\n");
		return 255;
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (n = 1;; n++) {
		fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
		if (fd >= 0) {
			dprintf(fd, "count %lu pid %d\n", n, getpid());
			close(fd);
		}
		nanosleep(&ts, NULL);
	}
}
