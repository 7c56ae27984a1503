// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-ptimers GOFILE: create POSIX timers - one deleted again (a hole in
 * the ids); t1 CLOCK_MONOTONIC signalling SIGRTMIN+1 to a handler (30 s,
 * then every 7 s); t2 CLOCK_REALTIME SIGEV_NONE (50 s); t3 CLOCK_BOOTTIME
 * SIGEV_THREAD_ID with SIGUSR2 (40 s); t4 CLOCK_MONOTONIC with the blocked
 * SIGRTMIN+2 every 100 ms, left to expire and overrun; t5
 * CLOCK_PROCESS_CPUTIME_ID SIGEV_NONE (1000 s); t6 never armed; t7
 * SIGEV_THREAD_ID with the blocked SIGUSR1 (3 s, fires after); t8
 * CLOCK_REALTIME SIGEV_NONE set with TIMER_ABSTIME for 60 s from now,
 * then every 5 s; t9 CLOCK_REALTIME with TIMER_ABSTIME and the blocked
 * SIGRTMIN+4, 1.5 s from now; one more deleted to learn the next id -
 * print "ready", wait for GOFILE, check ids, time left and intervals
 * (within what the checkpoint and restart could take), that t8 still
 * expires at the same wall-clock time and t9 has expired (the test waits
 * 2 s between checkpoint and restart, which a relative timer would not
 * count), dequeue t4's pending signal with its siginfo and wait for the
 * next one, check that the next new timer gets the next id, print
 * "ptimers ok".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include "ckpt.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static timer_t gone, t1, t2, t3, t4, t5, t6, t7, t8, t9, probe;
static double t8_at;	/* CLOCK_REALTIME of t8's first expiry */
static volatile sig_atomic_t rt1_fired;

static void on_rt1(int sig, siginfo_t *si, void *uc)
{
	rt1_fired++;
}

static int id(timer_t t)
{
	return (int)(intptr_t)t;
}

static double secs(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

static timer_t make(const char *name, clockid_t clock, int notify, int sig,
		    union sigval value)
{
	struct sigevent ev;
	timer_t t;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = notify;
	ev.sigev_signo = sig;
	ev.sigev_value = value;
	if (notify == SIGEV_THREAD_ID)
		ev.sigev_notify_thread_id = gettid();
	CHECK(!timer_create(clock, &ev, &t), "timer_create %s: %s", name,
	      strerror(errno));
	return t;
}

static void arm(const char *name, timer_t t, time_t sec, long nsec,
		time_t isec, long insec)
{
	struct itimerspec v = { { isec, insec }, { sec, nsec } };

	CHECK(!timer_settime(t, 0, &v, NULL), "timer_settime %s: %s", name,
	      strerror(errno));
}

/* arm T to expire SEC s after CLOCK_REALTIME's now, with TIMER_ABSTIME */
static double arm_abs(const char *name, timer_t t, double sec, time_t isec)
{
	struct itimerspec v = { { isec, 0 } };
	struct timespec now;
	double at;

	clock_gettime(CLOCK_REALTIME, &now);
	at = secs(&now) + sec;
	v.it_value.tv_sec = (time_t)at;
	v.it_value.tv_nsec = (long)((at - (time_t)at) * 1e9);
	CHECK(!timer_settime(t, TIMER_ABSTIME, &v, NULL),
	      "timer_settime %s: %s", name, strerror(errno));
	return secs(&v.it_value);
}

static void get(const char *name, timer_t t, struct itimerspec *v)
{
	CHECK(!timer_gettime(t, v), "timer_gettime %s (id %d): %s", name, id(t),
	      strerror(errno));
}

static void expect(const char *name, timer_t t, double lo, double hi,
		   double interval)
{
	struct itimerspec v;

	get(name, t, &v);
	CHECK(secs(&v.it_value) > lo && secs(&v.it_value) <= hi &&
	      secs(&v.it_interval) == interval,
	      "%s: %.6f left (expected %.1f-%.1f), interval %.6f (expected %.1f)",
	      name, secs(&v.it_value), lo, hi, secs(&v.it_interval), interval);
}

static void expect_gone(const char *name, timer_t t)
{
	struct itimerspec v;

	errno = 0;
	CHECK(timer_gettime(t, &v) == -1 && errno == EINVAL,
	      "timer_gettime %s (id %d, deleted): %s", name, id(t),
	      strerror(errno));
}

static int pending(int sig)
{
	sigset_t set;

	CHECK(!sigpending(&set), "sigpending");
	return sigismember(&set, sig);
}

/* t8 expires at the same CLOCK_REALTIME as before; t9's time has passed */
static void expect_abs(void)
{
	struct timespec now, zero = { 0, 0 };
	struct itimerspec v;
	sigset_t one;
	siginfo_t si;
	double at;
	int sig;

	get("t8", t8, &v);
	clock_gettime(CLOCK_REALTIME, &now);
	at = secs(&now) + secs(&v.it_value);
	CHECK(at > t8_at - 0.05 && at < t8_at + 0.05 &&
	      secs(&v.it_interval) == 5,
	      "t8: expires at %.3f (expected %.3f), interval %.6f (expected 5)",
	      at, t8_at, secs(&v.it_interval));
	get("t9", t9, &v);
	CHECK(!v.it_value.tv_sec && !v.it_value.tv_nsec,
	      "t9: %.6f left (expected expired)", secs(&v.it_value));
	sigemptyset(&one);
	sigaddset(&one, SIGRTMIN + 4);
	memset(&si, 0, sizeof(si));
	sig = sigtimedwait(&one, &si, &zero);
	CHECK(sig == SIGRTMIN + 4 && si.si_code == SI_TIMER &&
	      si.si_timerid == id(t9) && si.si_value.sival_int == 9999,
	      "t9: signal %d, code %d, timer %d (expected %d), value %d", sig,
	      si.si_code, si.si_timerid, id(t9), si.si_value.sival_int);
}

static void dequeue_t4(const char *what, int min_overrun)
{
	struct timespec two = { 2, 0 };
	sigset_t one;
	siginfo_t si;
	int sig;

	sigemptyset(&one);
	sigaddset(&one, SIGRTMIN + 2);
	memset(&si, 0, sizeof(si));
	sig = sigtimedwait(&one, &si, &two);
	CHECK(sig == SIGRTMIN + 2, "%s SIGRTMIN+2 of t4: got %d (%s)", what, sig,
	      sig < 0 ? strerror(errno) : "");
	CHECK(si.si_code == SI_TIMER, "%s t4 signal: si_code %d", what,
	      si.si_code);
	CHECK(si.si_timerid == id(t4) && si.si_value.sival_int == 4444 &&
	      si.si_overrun >= min_overrun,
	      "%s t4 signal: timer id %d (expected %d), value %d, overrun %d",
	      what, si.si_timerid, id(t4), si.si_value.sival_int,
	      si.si_overrun);
}

/* t7 signals the thread it was created for: the restored one. */
static void expect_t7(void)
{
	struct timespec ten = { 10, 0 };
	sigset_t one;
	siginfo_t si;
	int sig;

	sigemptyset(&one);
	sigaddset(&one, SIGUSR1);
	memset(&si, 0, sizeof(si));
	sig = sigtimedwait(&one, &si, &ten);
	CHECK(sig == SIGUSR1 && si.si_code == SI_TIMER &&
	      si.si_timerid == id(t7) && si.si_value.sival_int == 7777,
	      "t7: signal %d, code %d, timer %d (expected %d), value %d", sig,
	      si.si_code, si.si_timerid, id(t7), si.si_value.sival_int);
}

static void distinct_ids(void)
{
	timer_t all[] = { gone, t1, t2, t3, t4, t5, t6, t7, t8, t9, probe };
	int i, j;

	for (i = 0; i < 11; i++)
		for (j = 0; j < i; j++)
			CHECK(id(all[i]) != id(all[j]),
			      "timers %d and %d have the same id %d", j, i,
			      id(all[i]));
}

static void check(void)
{
	struct itimerspec v;
	timer_t t;

	CHECK(!rt1_fired, "SIGRTMIN+1 of t1 came early");
	expect("t1", t1, 10, 30, 7);
	expect("t2", t2, 30, 50, 0);
	expect("t3", t3, 20, 40, 0);
	expect("t5", t5, 980, 1000, 0);
	expect_abs();
	get("t6", t6, &v);
	CHECK(!v.it_value.tv_sec && !v.it_value.tv_nsec &&
	      !v.it_interval.tv_sec && !v.it_interval.tv_nsec,
	      "t6: armed (%.6f left, interval %.6f)", secs(&v.it_value),
	      secs(&v.it_interval));
	expect_gone("gone", gone);
	expect_gone("probe", probe);
	CHECK(!pending(SIGUSR2), "SIGUSR2 of t3 pending");

	get("t4", t4, &v);
	CHECK(v.it_interval.tv_sec == 0 && v.it_interval.tv_nsec == 100000000,
	      "t4: interval %.6f (expected 0.1)", secs(&v.it_interval));
	CHECK(pending(SIGRTMIN + 2), "SIGRTMIN+2 of t4 not pending");
	dequeue_t4("pending", 2);
	dequeue_t4("next", 0);
	CHECK(timer_getoverrun(t4) >= 0, "timer_getoverrun t4: %s",
	      strerror(errno));

	expect_t7();
	t = make("new", CLOCK_MONOTONIC, SIGEV_NONE, 0, (union sigval){ 0 });
	CHECK(id(t) == id(probe) + 1, "new timer id %d, expected %d", id(t),
	      id(probe) + 1);
	CHECK(!rt1_fired, "SIGRTMIN+1 of t1 came early");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	sigset_t block;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-ptimers GOFILE\n");
		return 255;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN + 2);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGRTMIN + 4);
	CHECK(!sigprocmask(SIG_BLOCK, &block, NULL), "sigprocmask");
	sa.sa_sigaction = on_rt1;
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGRTMIN + 1, &sa, NULL), "sigaction");

	CHECK(!timer_create(CLOCK_MONOTONIC, NULL, &gone), "timer_create gone: %s",
	      strerror(errno));
	CHECK(!timer_delete(gone), "timer_delete gone: %s", strerror(errno));

	t1 = make("t1", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 1,
		  (union sigval){ .sival_int = 1111 });
	arm("t1", t1, 30, 0, 7, 0);
	t2 = make("t2", CLOCK_REALTIME, SIGEV_NONE, 0, (union sigval){ 0 });
	arm("t2", t2, 50, 0, 0, 0);
	t3 = make("t3", CLOCK_BOOTTIME, SIGEV_THREAD_ID, SIGUSR2,
		  (union sigval){ .sival_ptr = (void *)0x1234 });
	arm("t3", t3, 40, 0, 0, 0);
	t4 = make("t4", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 2,
		  (union sigval){ .sival_int = 4444 });
	arm("t4", t4, 0, 100000000, 0, 100000000);
	for (i = 0; i < 500 && !pending(SIGRTMIN + 2); i++)
		usleep(10000);
	CHECK(pending(SIGRTMIN + 2), "SIGRTMIN+2 of t4 not pending within 5 s");
	usleep(300000);
	t5 = make("t5", CLOCK_PROCESS_CPUTIME_ID, SIGEV_NONE, 0,
		  (union sigval){ 0 });
	arm("t5", t5, 1000, 0, 0, 0);
	t6 = make("t6", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 3,
		  (union sigval){ .sival_int = 6666 });
	t7 = make("t7", CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR1,
		  (union sigval){ .sival_int = 7777 });
	arm("t7", t7, 3, 0, 0, 0);
	t8 = make("t8", CLOCK_REALTIME, SIGEV_NONE, 0, (union sigval){ 0 });
	t8_at = arm_abs("t8", t8, 60, 5);
	t9 = make("t9", CLOCK_REALTIME, SIGEV_SIGNAL, SIGRTMIN + 4,
		  (union sigval){ .sival_int = 9999 });
	arm_abs("t9", t9, 1.5, 0);
	probe = make("probe", CLOCK_MONOTONIC, SIGEV_NONE, 0, (union sigval){ 0 });
	CHECK(!timer_delete(probe), "timer_delete probe: %s", strerror(errno));

	distinct_ids();
	ready_then_wait(argv[1]);
	check();
	printf("ptimers ok\n");
	return 0;
}
