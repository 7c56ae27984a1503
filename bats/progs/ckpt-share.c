// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-share vm|sighand|fs: clone() a child sharing the address space
 * (CLONE_VM), or the address space and the signal handlers
 * (CLONE_VM | CLONE_SIGHAND), or the cwd, root and umask (CLONE_FS),
 * print "ready CHILD" and sleep; the child sleeps too. Both are killed by
 * the test.
 *
 * ckpt-share semundo: hold a SysV semaphore with SEM_UNDO (an adjustment
 * its exit would undo), print "ready PID" and sleep.
 *
 * ckpt-share restart IMAGE OUT: clone a child sharing the address space
 * and the signal handlers, which sets a SIGUSR2 handler; restart() from
 * IMAGE. The child checks 300 ms later that its handler is still set and
 * writes "sibling ok" (or "sibling lost its handler") to OUT.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <time.h>
#include "ckpt.h"

static const char *out;

static void handler(int sig)
{
}

static int sleeper(void *arg)
{
	for (;;)
		pause();
	return 0;
}

static int sibling(void *arg)
{
	struct sigaction sa = { .sa_handler = handler };
	struct timespec ts = { 0, 300000000 };
	int fd;

	sigaction(SIGUSR2, &sa, NULL);
	nanosleep(&ts, NULL);
	sigaction(SIGUSR2, NULL, &sa);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (sa.sa_handler == handler)
			write(fd, "sibling ok\n", 11);
		else
			write(fd, "sibling lost its handler\n", 25);
		close(fd);
	}
	syscall(SYS_exit, 0);
	return 0;
}

static int hold_semundo(void)
{
	struct sembuf op = { .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO };
	int id = semget(IPC_PRIVATE, 1, 0600);

	CHECK(id >= 0 && !semop(id, &op, 1), "sem: %m");
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	size_t sz = 1 << 16;
	char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int flags = CLONE_VM | SIGCHLD, fd;
	pid_t p;

	CHECK(stack != MAP_FAILED, "mmap: %m");
	if (argc == 4 && !strcmp(argv[1], "restart")) {
		out = argv[3];
		fd = open(argv[2], O_RDONLY);
		CHECK(fd >= 0, "%s: %m", argv[2]);
		p = clone(sibling, stack + sz, flags | CLONE_SIGHAND, NULL);
		CHECK(p > 0, "clone: %m");
		usleep(50000);
		sys_restart(0, fd, 0);
		FAIL("restart: %m");
	}
	if (argc == 2 && !strcmp(argv[1], "semundo"))
		return hold_semundo();
	if (argc != 2 || (strcmp(argv[1], "vm") && strcmp(argv[1], "sighand") &&
			  strcmp(argv[1], "fs"))) {
		fprintf(stderr, "usage: ckpt-share vm|sighand|fs|semundo | restart IMAGE OUT\n");
		return 2;
	}
	if (!strcmp(argv[1], "sighand"))
		flags |= CLONE_SIGHAND;
	if (!strcmp(argv[1], "fs"))
		flags = CLONE_FS | SIGCHLD;
	p = clone(sleeper, stack + sz, flags, NULL);
	CHECK(p > 0, "clone: %m");
	printf("ready %d\n", p);
	fflush(stdout);
	for (;;)
		pause();
}
