// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-memfd-wo IMAGE (as root): create a memfd holding "root secret",
 * mode 0600, keep only a write-only descriptor of it (reopened through
 * /proc/self/fd), become nobody, and checkpoint itself into IMAGE.
 * Prints "checkpoint RET errno E".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	char path[64];
	int fd, wfd, img;
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-memfd-wo IMAGE\n");
		return 2;
	}
	fd = memfd_create("secret", 0);
	CHECK(fd >= 0 && write(fd, "root secret", 11) == 11, "memfd: %m");
	CHECK(!fchmod(fd, 0600), "fchmod: %m");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	wfd = open(path, O_WRONLY);
	CHECK(wfd >= 0, "reopen: %m");
	close(fd);
	CHECK(!setgroups(0, NULL) && !setgid(65534) && !setuid(65534), "drop: %m");
	img = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(img >= 0, "%s: %m", argv[1]);
	ret = sys_checkpoint(0, img, 0);
	printf("checkpoint %ld errno %d\n", ret < 0 ? -1 : 1L, ret < 0 ? errno : 0);
	return 0;
}
