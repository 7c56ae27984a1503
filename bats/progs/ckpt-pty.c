// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-pty OUT COMMAND [ARG...]: run COMMAND in a new session on a new
 * pseudo-terminal (its stdin, stdout and stderr, and its controlling
 * terminal), copy all it writes there to the file OUT, byte for byte,
 * and exit with its exit status (128+N if killed by signal N). COMMAND is
 * reaped as soon as it exits, even while another process keeps the
 * terminal open.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include "ckpt.h"

static void child(int m, char **argv)
{
	int s;

	CHECK(setsid() > 0, "setsid: %m");
	s = open(ptsname(m), O_RDWR);	/* the session's controlling terminal */
	CHECK(s >= 0, "open %s: %m", ptsname(m));
	close(m);
	CHECK(dup2(s, 0) == 0 && dup2(s, 1) == 1 && dup2(s, 2) == 2, "dup2: %m");
	if (s > 2)
		close(s);
	execvp(argv[0], argv);
	FAIL("exec %s: %m", argv[0]);
}

int main(int argc, char **argv)
{
	struct termios t;
	char buf[4096];
	int m, out, st, reaped = 0;
	struct pollfd pfd;
	ssize_t n;
	pid_t pid;

	CHECK(argc >= 3, "usage: ckpt-pty OUT COMMAND [ARG...]");
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	CHECK(m >= 0 && !grantpt(m) && !unlockpt(m), "pty: %m");
	/* raw output: what COMMAND writes is what OUT gets */
	CHECK(!tcgetattr(m, &t), "tcgetattr: %m");
	t.c_oflag &= ~OPOST;
	t.c_lflag &= ~ECHO;
	CHECK(!tcsetattr(m, TCSANOW, &t), "tcsetattr: %m");
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(out >= 0, "%s: %m", argv[1]);
	pid = fork();
	CHECK(pid >= 0, "fork: %m");
	if (!pid)
		child(m, argv + 2);
	/* EIO once the last descriptor of the slave is closed */
	pfd = (struct pollfd){ .fd = m, .events = POLLIN };
	for (;;) {
		if (!reaped && waitpid(pid, &st, WNOHANG) == pid)
			reaped = 1;
		if (poll(&pfd, 1, 100) == 0)
			continue;
		n = read(m, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		CHECK(write(out, buf, n) == n, "write %s: %m", argv[1]);
	}
	CHECK(reaped || waitpid(pid, &st, 0) == pid, "waitpid: %m");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
