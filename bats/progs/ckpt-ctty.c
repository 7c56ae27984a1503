// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-ctty IMAGE LINK: in a new session without a controlling terminal,
 * open a pty pair, make LINK a symbolic link to its terminal and restart()
 * from IMAGE (whose executable was at LINK's path). Prints "errno E tty T":
 * the restart's errno and the controlling terminal after it (tty_nr of
 * /proc/self/stat, 0 for none).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "ckpt.h"

static int tty_nr(void)
{
	char buf[1024], *p;
	int n;
	FILE *f = fopen("/proc/self/stat", "r");

	CHECK(f && fgets(buf, sizeof(buf), f), "/proc/self/stat: %m");
	fclose(f);
	p = strrchr(buf, ')');	/* after the name: state ppid pgrp session tty_nr */
	CHECK(p && sscanf(p + 2, "%*c %*d %*d %*d %d", &n) == 1, "stat: %s", buf);
	return n;
}

int main(int argc, char **argv)
{
	int status, pty, fd, err;
	pid_t p;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-ctty IMAGE LINK\n");
		return 2;
	}
	p = fork();
	CHECK(p >= 0, "fork: %m");
	if (p) {
		CHECK(waitpid(p, &status, 0) == p, "waitpid: %m");
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	CHECK(setsid() > 0, "setsid: %m");
	CHECK(tty_nr() == 0, "a controlling terminal before the restart");
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(pty >= 0 && !grantpt(pty) && !unlockpt(pty), "pty: %m");
	unlink(argv[2]);
	CHECK(!symlink(ptsname(pty), argv[2]), "symlink: %m");
	fd = open(argv[1], O_RDONLY);
	CHECK(fd >= 0, "%s: %m", argv[1]);
	CHECK(sys_restart(0, fd, 0) < 0, "restart() succeeded");
	err = errno;
	printf("errno %d tty %d\n", err, tty_nr());
	return 0;
}
