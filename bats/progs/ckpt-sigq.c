// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-sigq N LIMIT GOFILE: set RLIMIT_SIGPENDING's soft limit to LIMIT,
 * block SIGRTMIN+2 and queue it N times to itself with the values 1000,
 * 1001, ...; print "ready", wait for GOFILE, then take each signal back
 * with its value, in order, and print "sigq ok N".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include "ckpt.h"

int main(int argc, char **argv)
{
	struct timespec zero = { 0, 0 };
	struct rlimit rl;
	siginfo_t si;
	sigset_t set;
	union sigval v;
	int n, i;

	CHECK(argc == 4, "usage: ckpt-sigq N LIMIT GOFILE");
	n = atoi(argv[1]);
	CHECK(!getrlimit(RLIMIT_SIGPENDING, &rl), "getrlimit: %m");
	rl.rlim_cur = strtoul(argv[2], NULL, 10);
	CHECK(!setrlimit(RLIMIT_SIGPENDING, &rl), "setrlimit: %m");
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 2);
	CHECK(!sigprocmask(SIG_BLOCK, &set, NULL), "sigprocmask: %m");
	for (i = 0; i < n; i++) {
		v.sival_int = 1000 + i;
		CHECK(!sigqueue(getpid(), SIGRTMIN + 2, v), "sigqueue %d: %m", i);
	}
	ready_then_wait(argv[3]);
	for (i = 0; i < n; i++) {
		CHECK(sigtimedwait(&set, &si, &zero) == SIGRTMIN + 2,
		      "signal %d of %d not pending: %m", i, n);
		CHECK(si.si_code == SI_QUEUE && si.si_value.sival_int == 1000 + i &&
		      si.si_pid > 0, "signal %d: code %d value %d", i, si.si_code,
		      si.si_value.sival_int);
	}
	CHECK(sigtimedwait(&set, &si, &zero) < 0 && errno == EAGAIN,
	      "more than %d signals pending", n);
	printf("sigq ok %d\n", n);
	return 0;
}
