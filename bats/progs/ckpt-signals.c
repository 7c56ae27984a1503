// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-signals GOFILE: set signal state - handlers with flags and masks,
 * an ignored signal, a blocked mask, pending signals (a queued SIGUSR1
 * with a value and SIGHUP shared; two queued SIGRTMIN+1 of the thread),
 * an alternate stack and a parent-death signal - print "ready", wait for
 * GOFILE, check all of it, dequeueing each pending signal with its
 * siginfo, run a handler on the alternate stack, print "signals ok".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include "ckpt.h"

static struct sigaction saved[65];
static sigset_t blocked;
static stack_t alt;
static char altbuf[65536];
static pid_t me;
static volatile uintptr_t handler_sp;

static void h1(int sig, siginfo_t *si, void *uc)
{
}

static void h2(int sig)
{
	int local;

	handler_sp = (uintptr_t)&local;
}

static void set(int sig, void *handler, int flags, int masked)
{
	struct sigaction sa = { .sa_flags = flags };

	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (masked)
		sigaddset(&sa.sa_mask, masked);
	CHECK(!sigaction(sig, &sa, NULL), "sigaction %d", sig);
}

static void queue(int sig, int value, int thread)
{
	siginfo_t si = { .si_signo = sig, .si_code = SI_QUEUE };

	si.si_pid = me;
	si.si_uid = getuid();
	si.si_value.sival_int = value;
	if (thread)
		CHECK(!syscall(SYS_rt_tgsigqueueinfo, me, me, sig, &si),
		      "queue %d: %s", sig, strerror(errno));
	else
		CHECK(!syscall(SYS_rt_sigqueueinfo, me, sig, &si),
		      "queue %d: %s", sig, strerror(errno));
}

static unsigned long long status_mask(const char *key)
{
	char line[256];
	unsigned long long m = ~0ULL;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			m = strtoull(line + strlen(key), NULL, 16);
	if (f)
		fclose(f);
	return m;
}

static void dequeue(int sig, int code, int value)
{
	struct timespec zero = { 0, 0 };
	sigset_t one;
	siginfo_t si;

	sigemptyset(&one);
	sigaddset(&one, sig);
	CHECK(sigtimedwait(&one, &si, &zero) == sig, "signal %d not pending", sig);
	CHECK(si.si_code == code && si.si_pid == me && si.si_uid == getuid(),
	      "signal %d: code %d pid %d uid %d", sig, si.si_code, si.si_pid,
	      si.si_uid);
	if (code == SI_QUEUE)
		CHECK(si.si_value.sival_int == value, "signal %d value %d, expected %d",
		      sig, si.si_value.sival_int, value);
}

static void check(void)
{
	struct sigaction sa;
	sigset_t now;
	stack_t st;
	int sig;

	for (sig = 1; sig < 65; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa))
			continue;
		CHECK(sa.sa_handler == saved[sig].sa_handler &&
		      sa.sa_flags == saved[sig].sa_flags &&
		      sa.sa_restorer == saved[sig].sa_restorer &&
		      !memcmp(&sa.sa_mask, &saved[sig].sa_mask, 8),
		      "signal %d: action differs", sig);
	}
	CHECK(!sigprocmask(SIG_BLOCK, NULL, &now) && !memcmp(&now, &blocked, 8),
	      "blocked mask differs");
	CHECK(status_mask("SigPnd:") == 1ULL << (SIGRTMIN + 1 - 1),
	      "thread pending %llx", status_mask("SigPnd:"));
	CHECK(status_mask("ShdPnd:") == (1ULL << (SIGUSR1 - 1) | 1ULL << (SIGHUP - 1)),
	      "process pending %llx", status_mask("ShdPnd:"));
	dequeue(SIGUSR1, SI_QUEUE, 42);
	dequeue(SIGRTMIN + 1, SI_QUEUE, 7);
	dequeue(SIGRTMIN + 1, SI_QUEUE, 8);
	dequeue(SIGHUP, SI_USER, 0);
	CHECK(status_mask("SigPnd:") == 0 && status_mask("ShdPnd:") == 0,
	      "signals left pending");
	CHECK(!sigaltstack(NULL, &st) && st.ss_sp == alt.ss_sp &&
	      st.ss_size == alt.ss_size && st.ss_flags == 0, "sigaltstack");
	CHECK(!prctl(PR_GET_PDEATHSIG, &sig) && sig == SIGUSR2, "pdeathsig %d", sig);
	raise(SIGTERM);
	CHECK(handler_sp >= (uintptr_t)altbuf &&
	      handler_sp < (uintptr_t)altbuf + sizeof(altbuf),
	      "SIGTERM handler ran off the alternate stack");
	CHECK(!sigaction(SIGTERM, NULL, &sa) && sa.sa_handler == SIG_DFL,
	      "SA_RESETHAND");
}

int main(int argc, char **argv)
{
	int sig;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-signals GOFILE\n");
		return 255;
	}
	me = getpid();
	set(SIGUSR1, h1, SA_SIGINFO | SA_RESTART, SIGUSR2);
	set(SIGUSR2, SIG_IGN, 0, 0);
	set(SIGTERM, h2, SA_ONSTACK | SA_RESETHAND | SA_NODEFER, SIGINT);
	set(SIGRTMIN + 1, h1, SA_SIGINFO, 0);
	for (sig = 1; sig < 65; sig++)
		sigaction(sig, NULL, &saved[sig]);
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGUSR1);
	sigaddset(&blocked, SIGHUP);
	sigaddset(&blocked, SIGRTMIN + 1);
	CHECK(!sigprocmask(SIG_SETMASK, &blocked, NULL), "sigprocmask");
	sigprocmask(SIG_BLOCK, NULL, &blocked);
	queue(SIGUSR1, 42, 0);
	queue(SIGRTMIN + 1, 7, 1);
	queue(SIGRTMIN + 1, 8, 1);
	kill(me, SIGHUP);
	alt.ss_sp = altbuf;
	alt.ss_size = sizeof(altbuf);
	CHECK(!sigaltstack(&alt, NULL), "sigaltstack");
	CHECK(!prctl(PR_SET_PDEATHSIG, SIGUSR2), "pdeathsig");
	ready_then_wait(argv[1]);
	check();
	printf("signals ok\n");
	return 0;
}
