// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-privs GOFILE (as an unprivileged user): set RLIMIT_NPROC to 0 and
 * the parent-death signal to SIGUSR2, check that fork() fails with EAGAIN
 * and that the process is dumpable; print "ready", wait for GOFILE, check
 * the same again and print "privs ok".
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

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-privs GOFILE\n");
		return 2;
	}
	CHECK(!setrlimit(RLIMIT_NPROC, &rl), "setrlimit: %m");
	CHECK(!prctl(PR_SET_PDEATHSIG, SIGUSR2), "PR_SET_PDEATHSIG: %m");
	check("before");
	ready_then_wait(argv[1]);
	check("after");
	printf("privs ok\n");
	return 0;
}
