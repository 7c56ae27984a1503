// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-sendfile IN OUT: copy IN into OUT (created) with sendfile() only,
 * as cat does; print the bytes and calls. Exits with the errno of a failed
 * sendfile(), so a file that cannot be sent is not silently read instead.
 */
#include "ckpt.h"
#include <fcntl.h>
#include <sys/sendfile.h>

int main(int argc, char **argv)
{
	long total = 0, calls = 0;
	ssize_t n;
	int in, out;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-sendfile IN OUT\n");
		return 255;
	}
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0) {
		perror("open");
		return 255;
	}
	while ((n = sendfile(out, in, NULL, 1 << 24)) > 0) {
		total += n;
		calls++;
	}
	if (n < 0) {
		perror("sendfile");
		return errno;
	}
	printf("%ld bytes in %ld calls\n", total, calls);
	return 0;
}
