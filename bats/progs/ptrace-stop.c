// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace-stop TID GOFILE: seize thread TID (PTRACE_SEIZE), stop it with
 * PTRACE_INTERRUPT, print "ready" once it is in its trace stop, keep it
 * there until GOFILE exists, then detach (it runs on) and print "detached".
 */
#define _GNU_SOURCE
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	pid_t tid;
	int status;

	if (argc != 3) {
		fprintf(stderr, "usage: ptrace-stop TID GOFILE\n");
		return 2;
	}
	tid = atoi(argv[1]);
	CHECK(!ptrace(PTRACE_SEIZE, tid, 0, 0), "PTRACE_SEIZE %d: %m", tid);
	CHECK(!ptrace(PTRACE_INTERRUPT, tid, 0, 0), "PTRACE_INTERRUPT: %m");
	CHECK(waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status),
	      "waitpid: %m (status %#x)", status);
	printf("ready\n");
	fflush(stdout);
	while (access(argv[2], F_OK))
		usleep(10000);
	CHECK(!ptrace(PTRACE_DETACH, tid, 0, 0), "PTRACE_DETACH: %m");
	printf("detached\n");
	return 0;
}
