// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-share vm|sighand|fs|files: clone() a child sharing the address
 * space (CLONE_VM), or the address space and the signal handlers
 * (CLONE_VM | CLONE_SIGHAND), or the cwd, root and umask (CLONE_FS), or the
 * descriptor table (CLONE_FILES), print "ready CHILD" and sleep; the child
 * sleeps too. Both are killed by the test.
 *
 * ckpt-share shm|memfd: map a page of MAP_SHARED|MAP_ANONYMOUS memory, or
 * of a memfd, and fork() a child that maps it too: for a memfd, through a
 * file of its own (opened again through /proc/self/fd), and has its own
 * standard descriptors. Then as above.
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
#include <stdbool.h>
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

/* A child sharing a page of memory with this process, which it maps. */
static pid_t fork_shm(bool memfd)
{
	char path[64], *m;
	int fd = -1, own;
	pid_t p;

	if (memfd) {
		fd = memfd_create("leak", 0);
		CHECK(fd >= 0 && !ftruncate(fd, 4096), "memfd: %m");
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | (memfd ? 0 : MAP_ANONYMOUS), fd, 0);
	CHECK(m != MAP_FAILED, "mmap: %m");
	m[0] = 1;
	p = fork();
	CHECK(p >= 0, "fork: %m");
	if (p)
		return p;
	/* descriptors of its own: the memory is all it shares */
	own = open("/dev/null", O_RDWR);
	CHECK(own >= 0, "/dev/null: %m");
	dup2(own, 0);
	dup2(own, 1);
	dup2(own, 2);
	close(own);
	if (memfd) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		own = open(path, O_RDWR);
		CHECK(own >= 0, "%s: %m", path);
		close(fd);
		munmap(m, 4096);
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
		CHECK(m != MAP_FAILED, "mmap: %m");
		close(own);
	}
	sleeper(NULL);
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
			  strcmp(argv[1], "fs") && strcmp(argv[1], "files") &&
			  strcmp(argv[1], "shm") && strcmp(argv[1], "memfd"))) {
		fprintf(stderr, "usage: ckpt-share vm|sighand|fs|files|shm|memfd|semundo | restart IMAGE OUT\n");
		return 2;
	}
	if (!strcmp(argv[1], "sighand"))
		flags |= CLONE_SIGHAND;
	if (!strcmp(argv[1], "fs"))
		flags = CLONE_FS | SIGCHLD;
	if (!strcmp(argv[1], "files"))
		flags = CLONE_FILES | SIGCHLD;
	if (!strcmp(argv[1], "shm") || !strcmp(argv[1], "memfd"))
		p = fork_shm(!strcmp(argv[1], "memfd"));
	else
		p = clone(sleeper, stack + sz, flags, NULL);
	CHECK(p > 0, "clone: %m");
	printf("ready %d\n", p);
	fflush(stdout);
	for (;;)
		pause();
}
