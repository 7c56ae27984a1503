// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-timers GOFILE: arm ITIMER_REAL (3 s, then every 2 s), ITIMER_VIRTUAL
 * (50 s) and ITIMER_PROF (40 s, then every 1 s) with a SIGALRM handler;
 * print "ready", wait for GOFILE, check the time left and intervals
 * (within what the checkpoint and restart could take), wait for SIGALRM
 * to arrive, print "timers ok".
 */
#include <signal.h>
#include <sys/time.h>
#include "ckpt.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	alarms++;
}

static double secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static void expect(int which, double lo, double hi, double interval)
{
	struct itimerval v;

	CHECK(!getitimer(which, &v), "getitimer %d", which);
	CHECK(secs(&v.it_value) > lo && secs(&v.it_value) <= hi &&
	      secs(&v.it_interval) == interval,
	      "itimer %d: %.6f left (expected %.1f-%.1f), interval %.6f", which,
	      secs(&v.it_value), lo, hi, secs(&v.it_interval));
}

int main(int argc, char **argv)
{
	struct itimerval real = { { 2, 0 }, { 3, 0 } };
	struct itimerval virt = { { 0, 0 }, { 50, 0 } };
	struct itimerval prof = { { 1, 0 }, { 40, 0 } };
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-timers GOFILE\n");
		return 255;
	}
	signal(SIGALRM, on_alarm);
	CHECK(!setitimer(ITIMER_REAL, &real, NULL) &&
	      !setitimer(ITIMER_VIRTUAL, &virt, NULL) &&
	      !setitimer(ITIMER_PROF, &prof, NULL), "setitimer");
	ready_then_wait(argv[1]);
	CHECK(!alarms, "SIGALRM came early");
	expect(ITIMER_REAL, 0, 3, 2);
	expect(ITIMER_VIRTUAL, 45, 50.1, 0);
	expect(ITIMER_PROF, 35, 40.1, 1);
	for (i = 0; i < 400 && !alarms; i++)
		usleep(10000);
	CHECK(alarms, "no SIGALRM within 4 s");
	printf("timers ok\n");
	return 0;
}
