// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-hold KIND [PATH]: hold one object of KIND at fd 3 and sleep:
 * pidfd (of itself), socket (a netlink socket), deleted
 * (PATH created, opened, removed); or hold a mapping: sysvshm (a SysV
 * shared memory segment attached, made read-only by mprotect()), stale (an epoll at fd 3 watching
 * the read end of a pipe added as fd 4, which only a child holds now), nested (an epoll at fd 3 watching
 * one at fd 4 watching one at fd 5 watching a pipe), devtty (a new session
 * with a pty whose slave is fd 4 and its controlling terminal, /dev/tty
 * open at fd 5, the master at fd 6 and /dev/null at fd 3), ptmx (a pty
 * master at fd 3); or a POSIX timer on its parent's
 * CPU clock: cputimer; or seccomp: strict (strict mode, then reads a
 * pipe, fds 3 and 4, forever), listener (a filter whose user-space
 * listener is fd 3). Prints "ready PID" first.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <signal.h>
#include <time.h>
#include "ckpt.h"

/* removed at once: it goes when the process does */
static int hold_sysvshm(void)
{
	int id = shmget(IPC_PRIVATE, 4096, 0600);
	void *p = id < 0 ? (void *)-1 : shmat(id, NULL, 0);

	if (p == (void *)-1 || shmctl(id, IPC_RMID, NULL) ||
	    mprotect(p, 4096, PROT_READ))
		return -1;
	return 3;
}

static int hold_listener(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int hold_cputimer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	clockid_t clock;
	timer_t t;

	errno = clock_getcpuclockid(getppid(), &clock);
	if (errno || timer_create(clock, &ev, &t))
		return -1;
	return 3;
}

static int hold_devtty(void)
{
	int m;

	CHECK(setsid() > 0, "setsid: %s", strerror(errno));
	m = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(m == 3 && !grantpt(m) && !unlockpt(m), "pty: %s", strerror(errno));
	CHECK(open(ptsname(m), O_RDWR) == 4, "slave: %s", strerror(errno));
	CHECK(open("/dev/tty", O_RDWR) == 5, "/dev/tty: %s", strerror(errno));
	CHECK(dup2(m, 6) == 6 && !close(m) && open("/dev/null", O_RDWR) == 3,
	      "move the master: %s", strerror(errno));
	return 3;
}

int main(int argc, char **argv)
{
	int fd = -1, sv[2];

	if (argc < 2) {
		fprintf(stderr, "usage: ckpt-hold pidfd|socket|deleted PATH|sysvshm|stale|nested|devtty|ptmx|cputimer|strict|listener\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	if (!strcmp(argv[1], "pidfd"))
		fd = syscall(SYS_pidfd_open, getpid(), 0);
	else if (!strcmp(argv[1], "socket"))
		fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	else if (!strcmp(argv[1], "deleted") && argc > 2)
		fd = open(argv[2], O_RDWR | O_CREAT, 0600);
	else if (!strcmp(argv[1], "sysvshm"))
		fd = hold_sysvshm();
	else if (!strcmp(argv[1], "stale") || !strcmp(argv[1], "nested"))
		fd = epoll_create1(0);
	else if (!strcmp(argv[1], "devtty"))
		fd = hold_devtty();
	else if (!strcmp(argv[1], "ptmx"))
		fd = posix_openpt(O_RDWR | O_NOCTTY);
	else if (!strcmp(argv[1], "cputimer"))
		fd = hold_cputimer();
	else if (!strcmp(argv[1], "listener"))
		fd = hold_listener();
	else if (!strcmp(argv[1], "strict"))
		fd = pipe(sv) ? -1 : sv[0];
	CHECK(fd == 3, "%s: %s", argv[1], strerror(errno));
	if (argc > 2)
		CHECK(!unlink(argv[2]), "unlink: %s", strerror(errno));
	if (!strcmp(argv[1], "stale")) {
		struct epoll_event ev = { .events = EPOLLIN };

		pid_t c;

		CHECK(!pipe(sv) && sv[0] == 4 && !epoll_ctl(3, EPOLL_CTL_ADD, 4, &ev),
		      "stale: %s", strerror(errno));
		c = fork();
		CHECK(c >= 0, "fork: %s", strerror(errno));
		if (c == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		CHECK(!close(4), "close: %s", strerror(errno));
	}
	if (!strcmp(argv[1], "nested")) {
		struct epoll_event ev = { .events = EPOLLIN };

		CHECK(epoll_create1(0) == 4 && epoll_create1(0) == 5 && !pipe(sv) &&
		      !epoll_ctl(5, EPOLL_CTL_ADD, sv[0], &ev) &&
		      !epoll_ctl(4, EPOLL_CTL_ADD, 5, &ev) &&
		      !epoll_ctl(3, EPOLL_CTL_ADD, 4, &ev), "nested: %s", strerror(errno));
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "strict")) {
		char c;

		prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
		for (;;)
			read(3, &c, 1);
	}
	for (;;)
		pause();
}
