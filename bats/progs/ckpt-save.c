// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-save PID FILE [FLAGS]: checkpoint process PID into FILE (- for
 * stdout) with checkpoint() FLAGS (a number, 0 if not given), print the
 * checkpoint id. Exits with the errno when checkpoint() fails.
 */
#include <fcntl.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	long ret;
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ckpt-save PID FILE [FLAGS]\n");
		return 255;
	}
	fd = strcmp(argv[2], "-") ? open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600)
				  : STDOUT_FILENO;
	if (fd < 0) {
		perror(argv[2]);
		return 255;
	}
	ret = sys_checkpoint(atoi(argv[1]), fd, argc == 4 ? strtoul(argv[3], NULL, 0) : 0);
	if (ret < 0) {
		fprintf(stderr, "checkpoint: %s\n", strerror(errno));
		return errno;
	}
	printf("%ld\n", ret);
	return 0;
}
