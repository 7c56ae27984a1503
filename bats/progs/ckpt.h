/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers for the checkpoint/restart test programs. */
#ifndef CKPT_TEST_H
#define CKPT_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_checkpoint
#define __NR_checkpoint 451
#endif
#ifndef __NR_restart
#define __NR_restart 452
#endif

static inline long sys_checkpoint(pid_t pid, int fd, unsigned long flags)
{
	return syscall(__NR_checkpoint, pid, fd, flags);
}

static inline long sys_restart(int crid, int fd, unsigned long flags)
{
	return syscall(__NR_restart, crid, fd, flags);
}

#define FAIL(...) do {						\
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
	fprintf(stderr, __VA_ARGS__);				\
	fputc('\n', stderr);					\
	exit(1);						\
} while (0)

#define CHECK(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)

/* Print "ready PID" for the test, then wait until the file GO exists. */
static inline void ready_then_wait(const char *go)
{
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (access(go, F_OK))
		usleep(10000);
}

#endif
