// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-sigmask: block SIGUSR2 and SIGTERM, print "ready", then wait in
 * sigsuspend() with only SIGUSR2 blocked until SIGUSR1 comes. Then check
 * that the mask is SIGUSR2 and SIGTERM again, as sigsuspend() restores
 * it, and print "sigmask ok".
 */
#include <signal.h>
#include "ckpt.h"

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t real, tmp, now;

	sigemptyset(&real);
	sigaddset(&real, SIGUSR2);
	sigaddset(&real, SIGTERM);
	sigemptyset(&tmp);
	sigaddset(&tmp, SIGUSR2);
	CHECK(!sigaction(SIGUSR1, &sa, NULL), "sigaction: %m");
	CHECK(!sigprocmask(SIG_SETMASK, &real, NULL), "sigprocmask: %m");
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (!got)
		CHECK(sigsuspend(&tmp) == -1 && errno == EINTR, "sigsuspend: %m");
	CHECK(!sigprocmask(SIG_SETMASK, NULL, &now), "sigprocmask: %m");
	CHECK(sigismember(&now, SIGUSR2) && sigismember(&now, SIGTERM) &&
	      !sigismember(&now, SIGUSR1),
	      "mask after sigsuspend(): USR2 %d TERM %d USR1 %d",
	      sigismember(&now, SIGUSR2), sigismember(&now, SIGTERM),
	      sigismember(&now, SIGUSR1));
	printf("sigmask ok\n");
	return 0;
}
