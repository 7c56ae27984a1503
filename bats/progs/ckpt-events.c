// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-events GOFILE: the files of an event loop. An eventfd holding 5
 * (non-blocking, fd 3), a semaphore eventfd holding 3 (fd 4), a signalfd
 * for SIGUSR1 and SIGUSR2 with SIGUSR1 pending (fd 5), a pipe with data
 * (fds 6, 7), an epoll (fd 8) watching fds 3, 5, 6 (edge-triggered) and 7,
 * an epoll (fd 9) watching the first one, a timerfd (fd 10) on
 * CLOCK_MONOTONIC that expired twice unread and fires every 300 ms, and a
 * one-shot CLOCK_BOOTTIME timerfd (fd 11) 20 s away. Prints "ready", waits for
 * GOFILE, checks what each file reports and which events are ready,
 * prints "events ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include "ckpt.h"

static void watch(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	CHECK(!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl %d: %s", fd,
	      strerror(errno));
}

static void ready(int ep, int n, const uint64_t *want)
{
	struct epoll_event ev[8];
	uint64_t seen = 0;
	int got, i, j;

	got = epoll_wait(ep, ev, 8, 0);
	CHECK(got == n, "epoll %d: %d events ready, expected %d", ep, got, n);
	for (i = 0; i < got; i++)
		for (j = 0; j < n; j++)
			if (ev[i].data.u64 == want[j])
				seen |= 1ULL << j;
	CHECK(seen == (1ULL << n) - 1, "epoll %d: wrong events (%llx)", ep,
	      (unsigned long long)seen);
}

static double secs(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

static void check_timerfds(void)
{
	struct itimerspec it;
	uint64_t v;

	/* 0 left: it expired a moment ago and its hrtimer callback is yet to run */
	CHECK(!timerfd_gettime(10, &it) && secs(&it.it_interval) == 0.3 &&
	      secs(&it.it_value) >= 0 && secs(&it.it_value) <= 0.3,
	      "timerfd 10: %.3f left, every %.3f", secs(&it.it_value),
	      secs(&it.it_interval));
	CHECK(read(10, &v, 8) == 8 && v >= 2, "timerfd 10: %llu expirations",
	      (unsigned long long)v);
	CHECK(read(10, &v, 8) == 8 && v >= 1, "timerfd 10 stopped");
	CHECK(!timerfd_gettime(11, &it) && secs(&it.it_interval) == 0 &&
	      secs(&it.it_value) > 10 && secs(&it.it_value) <= 20,
	      "timerfd 11: %.3f left", secs(&it.it_value));
	CHECK(fcntl(11, F_GETFL) & O_NONBLOCK, "timerfd 11 lost O_NONBLOCK");
	CHECK(read(11, &v, 8) == -1 && errno == EAGAIN, "timerfd 11 fired");
}

static void check(void)
{
	const uint64_t all[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	const uint64_t outer[1] = { 0x5555 };
	struct signalfd_siginfo si;
	uint64_t v;

	ready(9, 1, outer);
	ready(8, 4, all);
	ready(8, 3, (const uint64_t []){ 0x1111, 0x3333, 0x4444 }); /* 6 is ET */
	CHECK(fcntl(3, F_GETFL) & O_NONBLOCK, "eventfd lost O_NONBLOCK");
	CHECK(read(3, &v, 8) == 8 && v == 5, "eventfd: %llu", (unsigned long long)v);
	CHECK(read(3, &v, 8) == -1 && errno == EAGAIN, "eventfd not empty");
	CHECK(read(4, &v, 8) == 8 && v == 1, "semaphore eventfd");
	CHECK(read(4, &v, 8) == 8 && v == 1 && read(4, &v, 8) == 8 && v == 1,
	      "semaphore eventfd count");
	CHECK(read(5, &si, sizeof(si)) == sizeof(si) && si.ssi_signo == SIGUSR1,
	      "signalfd");
	ready(8, 1, (const uint64_t []){ 0x4444 });
	check_timerfds();
	v = 2;
	CHECK(write(3, &v, 8) == 8, "eventfd write");
	ready(8, 2, (const uint64_t []){ 0x1111, 0x4444 });
}

int main(int argc, char **argv)
{
	sigset_t mask;
	int p[2];

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-events GOFILE\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	CHECK(eventfd(5, EFD_NONBLOCK) == 3 && eventfd(3, EFD_SEMAPHORE) == 4,
	      "eventfd");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	CHECK(signalfd(-1, &mask, 0) == 5, "signalfd");
	kill(getpid(), SIGUSR1);
	CHECK(!pipe(p) && p[0] == 6 && write(7, "x", 1) == 1, "pipe");
	CHECK(epoll_create1(0) == 8 && epoll_create1(0) == 9, "epoll");
	watch(8, 3, EPOLLIN, 0x1111);
	watch(8, 6, EPOLLIN | EPOLLET, 0x2222);
	watch(8, 5, EPOLLIN, 0x3333);
	watch(8, 7, EPOLLOUT, 0x4444);
	watch(9, 8, EPOLLIN, 0x5555);
	CHECK(timerfd_create(CLOCK_MONOTONIC, 0) == 10 &&
	      timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK) == 11, "timerfd");
	CHECK(!timerfd_settime(10, 0, &(struct itimerspec){ { 0, 300000000 },
							  { 0, 1000000 } }, NULL) &&
	      !timerfd_settime(11, 0, &(struct itimerspec){ { 0, 0 }, { 20, 0 } },
			       NULL), "timerfd_settime");
	usleep(400000);		/* two expirations, not read */
	ready_then_wait(argv[1]);
	check();
	printf("events ok\n");
	return 0;
}
