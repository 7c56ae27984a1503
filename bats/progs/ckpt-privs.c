// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-privs [exec] GOFILE (as an unprivileged user): set RLIMIT_NPROC to
 * 0 and the parent-death signal to SIGUSR2, check that fork() fails with
 * EAGAIN and that the process is dumpable; print "ready", wait for
 * GOFILE, check the same again and print "privs ok". With "exec", also
 * check then that execve() fails with EAGAIN: restored by root while
 * another process of the user runs, the process was moved to a user over
 * its RLIMIT_NPROC, as by setuid().
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "ckpt.h"

static void check(const char *when)
{
	int sig = 0;
	pid_t p;

	CHECK(getuid() && geteuid(), "%s: run this as an unprivileged user", when);
	CHECK(prctl(PR_GET_DUMPABLE) == 1, "%s: dumpable %d", when,
	      prctl(PR_GET_DUMPABLE));
	CHECK(!prctl(PR_GET_PDEATHSIG, &sig) && sig == SIGUSR2,
	      "%s: parent-death signal %d", when, sig);
	p = fork();
	if (!p)
		_exit(0);
	if (p > 0)
		waitpid(p, NULL, 0);
	CHECK(p < 0 && errno == EAGAIN, "%s: fork() with RLIMIT_NPROC 0: %d (%m)",
	      when, p);
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 0, 0 };

	if (argc != 2 && (argc != 3 || strcmp(argv[1], "exec"))) {
		fprintf(stderr, "usage: ckpt-privs [exec] GOFILE\n");
		return 2;
	}
	CHECK(!setrlimit(RLIMIT_NPROC, &rl), "setrlimit: %m");
	CHECK(!prctl(PR_SET_PDEATHSIG, SIGUSR2), "PR_SET_PDEATHSIG: %m");
	check("before");
	ready_then_wait(argv[argc - 1]);
	check("after");
	if (argc == 3) {
		execl("/proc/self/exe", "ckpt-privs", (char *)NULL);
		CHECK(errno == EAGAIN, "after: execve() over RLIMIT_NPROC: %m");
	}
	printf("privs ok\n");
	return 0;
}
