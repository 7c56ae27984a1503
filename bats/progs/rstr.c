// SPDX-License-Identifier: GPL-2.0
/*
 * rstr [CRID [IMAGE]]: restart the process whose image is on stdin, or in
 * IMAGE; a CRID other than 0 must be the image's (CKPT_RESTART_CRID).
 * Exits with the errno when restart() fails.
 */
#include <fcntl.h>
#include <linux/ckpt.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	int crid = argc > 1 ? atoi(argv[1]) : 0;
	int fd = STDIN_FILENO;
	long ret;

	if (argc > 2) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0) {
			perror(argv[2]);
			return 255;
		}
	}
	ret = sys_restart(crid, fd, crid ? CKPT_RESTART_CRID : 0);
	fprintf(stderr, "restart: %s\n", strerror(errno));
	return ret < 0 ? errno : 255;
}
