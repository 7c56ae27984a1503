// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-prctl GOFILE: set per-task modes that prctl() sets: a timer slack
 * of 123457 ns, rdtsc trapping (PR_SET_TSC, PR_TSC_SIGSEGV) and syscall
 * user dispatch (PR_SET_SYSCALL_USER_DISPATCH, an empty region, so that
 * the selector alone decides). Checks each acts, prints "ready", waits
 * for GOFILE, checks again (a system call made while the selector blocks
 * goes to the SIGSYS handler, which returns 4242 for it; rdtsc raises
 * SIGSEGV) and prints "prctl ok".
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <x86intrin.h>
#include "ckpt.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH	59
#define PR_SYS_DISPATCH_ON		1
#endif
#define SELECTOR_ALLOW	0
#define SELECTOR_BLOCK	1

static volatile char selector = SELECTOR_ALLOW;
static volatile int sigsys, sigsys_nr;
static sigjmp_buf env;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *ctx = uc;

	selector = SELECTOR_ALLOW;	/* before the handler's sigreturn */
	sigsys++;
	sigsys_nr = si->si_syscall;
	ctx->uc_mcontext.gregs[REG_RAX] = 4242;
}

static void on_sigsegv(int sig)
{
	siglongjmp(env, 1);
}

static void check(void)
{
	volatile int trapped = 0;
	long r;

	CHECK(prctl(PR_GET_TIMERSLACK) == 123457, "timer slack %d",
	      prctl(PR_GET_TIMERSLACK));
	sigsys = 0;
	selector = SELECTOR_BLOCK;
	r = syscall(SYS_getppid);
	CHECK(sigsys == 1 && sigsys_nr == SYS_getppid && r == 4242,
	      "syscall user dispatch: %d SIGSYS (nr %d), getppid() %ld",
	      sigsys, sigsys_nr, r);
	if (!sigsetjmp(env, 1))
		__rdtsc();
	else
		trapped = 1;
	CHECK(trapped, "rdtsc did not trap");
}

int main(int argc, char **argv)
{
	struct sigaction sys = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	struct sigaction segv = { .sa_handler = on_sigsegv };
	int mode = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-prctl GOFILE\n");
		return 2;
	}
	CHECK(!sigaction(SIGSYS, &sys, NULL) && !sigaction(SIGSEGV, &segv, NULL),
	      "sigaction: %m");
	CHECK(!prctl(PR_SET_TIMERSLACK, 123457) &&
	      !prctl(PR_SET_TSC, PR_TSC_SIGSEGV) &&
	      !prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		     &selector), "prctl: %m");
	check();
	ready_then_wait(argv[1]);
	check();
	CHECK(!prctl(PR_GET_TSC, &mode) && mode == PR_TSC_SIGSEGV, "TSC mode %d", mode);
	printf("prctl ok\n");
	return 0;
}
