// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-shm GOFILE: hold a MAP_SHARED anonymous page with a pattern, print
 * "ready", wait for GOFILE, check the page and print "shm ok".
 */
#include <sys/mman.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	unsigned char *p;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-shm GOFILE\n");
		return 255;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	for (i = 0; i < 4096; i++)
		p[i] = i * 7;
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(10000);
	for (i = 0; i < 4096; i++)
		CHECK(p[i] == (unsigned char)(i * 7), "byte %d", i);
	printf("shm ok\n");
	return 0;
}
