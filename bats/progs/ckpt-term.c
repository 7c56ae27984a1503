// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-term DIR: run by ckpt-pty, as the leader L of the session whose
 * controlling terminal its pty is (stdin, stdout and stderr). L sets the
 * terminal's modes (no ICANON, no ECHO, VMIN 1, VINTR ^G) and window
 * (33 rows, 77 columns), forks J into a process group of its own, makes
 * it the foreground group and prints "ready L J". Both wait until DIR/go
 * exists. Then J checks that the terminal is its controlling terminal,
 * with its group in the foreground, and the modes and window, and prints
 * "J ok"; L reaps J, takes the foreground back, checks it and prints
 * "term ok". Exits 0, or 1 with a FAIL line on stderr (the terminal).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include "ckpt.h"

static void wait_go(const char *dir)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char go[300];

	snprintf(go, sizeof(go), "%s/go", dir);
	while (access(go, F_OK))
		nanosleep(&ts, NULL);
}

/* tty_nr of /proc/self/stat: the controlling terminal, 0 for none */
static unsigned int tty_nr(void)
{
	char buf[1024], *p;
	unsigned int n;
	FILE *f = fopen("/proc/self/stat", "r");

	CHECK(f && fgets(buf, sizeof(buf), f), "/proc/self/stat: %m");
	fclose(f);
	p = strrchr(buf, ')');
	CHECK(p && sscanf(p + 2, "%*c %*d %*d %*d %u", &n) == 1, "stat: %s", buf);
	return n;
}

/* The terminal at fd 0 is the controlling one, @fg in the foreground. */
static void check_ctty(pid_t leader, pid_t fg, const char *who)
{
	struct stat st;
	int fd;

	CHECK(!fstat(0, &st) && S_ISCHR(st.st_mode), "%s: fstat: %m", who);
	CHECK(tty_nr() == (unsigned int)st.st_rdev, "%s: controlling terminal %#x, fd 0 is %#x",
	      who, tty_nr(), (unsigned int)st.st_rdev);
	CHECK(getsid(0) == leader && tcgetsid(0) == leader, "%s: session %d, terminal's %d, want %d",
	      who, getsid(0), tcgetsid(0), leader);
	CHECK(tcgetpgrp(0) == fg, "%s: foreground group %d, want %d", who, tcgetpgrp(0), fg);
	fd = open("/dev/tty", O_RDWR);
	CHECK(fd >= 0, "%s: /dev/tty: %m", who);
	close(fd);
}

static void check_modes(const char *who)
{
	struct winsize ws;
	struct termios t;

	CHECK(!tcgetattr(0, &t) && !ioctl(0, TIOCGWINSZ, &ws), "%s: tcgetattr: %m", who);
	CHECK(!(t.c_lflag & (ICANON | ECHO)) && t.c_cc[VMIN] == 1 && t.c_cc[VINTR] == 7,
	      "%s: lflag %#x, VMIN %d, VINTR %d", who, t.c_lflag, t.c_cc[VMIN], t.c_cc[VINTR]);
	CHECK(ws.ws_row == 33 && ws.ws_col == 77, "%s: window %dx%d", who, ws.ws_row,
	      ws.ws_col);
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 33, .ws_col = 77 };
	pid_t leader = getpid(), j;
	struct termios t;
	int st;

	CHECK(argc == 2, "usage: ckpt-term DIR");
	CHECK(getsid(0) == leader, "not a session leader");
	signal(SIGTTOU, SIG_IGN);	/* L sets the foreground from the background */
	CHECK(!tcgetattr(0, &t), "tcgetattr: %m");
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	t.c_cc[VINTR] = 7;
	CHECK(!tcsetattr(0, TCSANOW, &t) && !ioctl(0, TIOCSWINSZ, &ws), "tcsetattr: %m");
	j = fork();
	CHECK(j >= 0, "fork: %m");
	if (!j) {
		CHECK(!setpgid(0, 0), "setpgid: %m");
		wait_go(argv[1]);
		check_ctty(leader, getpid(), "J");
		check_modes("J");
		printf("J ok\n");
		return 0;
	}
	setpgid(j, j);
	CHECK(!tcsetpgrp(0, j), "tcsetpgrp: %m");
	printf("ready %d %d\n", leader, j);
	fflush(stdout);
	wait_go(argv[1]);
	CHECK(waitpid(j, &st, 0) == j && WIFEXITED(st) && !WEXITSTATUS(st), "J: status %#x",
	      st);
	CHECK(!tcsetpgrp(0, leader), "tcsetpgrp: %m");
	check_ctty(leader, leader, "L");
	check_modes("L");
	printf("term ok\n");
	return 0;
}
