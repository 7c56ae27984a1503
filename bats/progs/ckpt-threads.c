// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-threads N GOFILE [stopped]: start N threads (at least 14), each
 * with its own __thread value, stack pattern, name and signal mask, parked
 * in turn in a condition variable wait, a relative clock_nanosleep() of
 * 3 s, a read() of a pipe, a pthread_kill()ed signal it blocks, a busy
 * loop, with a robust mutex held until it exits, detached, or signalled
 * every 20 ms by a SIGEV_THREAD_ID timer, or in a sem_timedwait()
 * (CLOCK_REALTIME) or sem_clockwait() (CLOCK_MONOTONIC), a poll(), an
 * epoll_pwait() with a signal mask of its own or an rt_sigtimedwait() that
 * must time out at its deadline, 3 s on, never with EINTR ("stopped": the
 * test stops the process, and the epoll and sigtimedwait ones may), or in
 * pthread_mutex_lock() of a priority-inheritance mutex (a PI futex) that
 * the ROBUST thread holds until go (not main: through restart() main has
 * another id, which glibc does not know). Print "ready" and the tids once
 * each thread is blocked in its system call, wait for GOFILE, then wake
 * them all, check every value after the round trip (tids kept, the sleep
 * not cut short, rseq areas live), join them and print "threads ok".
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <time.h>
#include "ckpt.h"

#define MAX_THREADS 256
#define SLEEP_NS 3000000000LL

enum role { COND, SLEEP, PIPE, SIGNAL, BUSY, ROBUST, DETACHED, TIMER, SEMWAIT,
	    CLOCKWAIT, POLL, EPOLL, SIGTIMED, PILOCK, NROLES };

struct worker {
	pthread_t th;
	int idx;
	pid_t tid;
	int ready;
	int timed_out;	/* its timed wait is over: it may be past it */
	int pipe[2];
	uint64_t result;
};

static struct worker w[MAX_THREADS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t robust, pi;
static int go, nready, pi_held;
static volatile int stop_busy;
static int stopped;	/* "stopped": a job-control stop interrupts some waits */
static int detached_pipe[2];
static __thread uint64_t tls_value;
static __thread volatile int timer_hits;
static volatile pid_t timer_tid, timer_stray;
static timer_t timer;
static sem_t never;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	if (gettid() != timer_tid)
		timer_stray = gettid();
	timer_hits++;
}

/* one thread holds the robust mutex, one gets the timer; the others of their turn are COND */
static enum role role_of(int idx)
{
	enum role r = idx % NROLES;

	return (r == ROBUST || r == TIMER) && idx != (int)r ? COND : r;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_ready(struct worker *me)
{
	pthread_mutex_lock(&lock);
	me->ready = 1;
	nready++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* until main says go: every thread is still there when the test looks */
static void wait_go(void)
{
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* poll(), epoll_pwait() or rt_sigtimedwait() for 3 s: 0 or EAGAIN at the deadline */
static void timed_wait(struct worker *me, enum role role)
{
	struct timespec ts = { SLEEP_NS / 1000000000LL, 0 };
	struct pollfd pfd = { me->pipe[0], POLLIN, 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	int64_t t0, waited;
	sigset_t set;
	int ep, ret;

	ep = epoll_create1(0);
	CHECK(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, me->pipe[0], &ev), "epoll");
	/* epoll_pwait()'s own mask: its thread's, and SIGTERM */
	pthread_sigmask(SIG_SETMASK, NULL, &set);
	sigaddset(&set, SIGTERM);
	t0 = now_ns();
	set_ready(me);
	if (role == POLL) {
		ret = poll(&pfd, 1, SLEEP_NS / 1000000);
	} else if (role == EPOLL) {
		ret = epoll_pwait(ep, &ev, 1, SLEEP_NS / 1000000, &set);
	} else {
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN + 20);	/* never sent */
		ret = sigtimedwait(&set, NULL, &ts);
		ret = ret < 0 && errno == EAGAIN ? 0 : -1;
	}
	waited = now_ns() - t0;
	__atomic_store_n(&me->timed_out, 1, __ATOMIC_RELEASE);
	/* as signal(7) says, a stop makes epoll waits and sigtimedwait() fail */
	if (ret < 0 && errno == EINTR && stopped && role != POLL)
		return;
	/* interrupted by the hold, restarted with its deadline: never EINTR */
	CHECK(!ret, "thread %d (%d): wait returned %d (%m)", me->idx, role, ret);
	CHECK(waited >= SLEEP_NS, "thread %d (%d) woke after %lld ns", me->idx, role,
	      (long long)waited);
	close(ep);
}

static void check_rseq(struct worker *me)
{
	struct rseq *rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);

	uint32_t cpu = (uint32_t)-1;
	int i;

	CHECK(__rseq_size > 0, "glibc registered no rseq area");
	/*
	 * The kernel writes cpu_id again on the way back from a sleep that
	 * scheduled: one whose timer fired before it could is not one, so
	 * sleep again until one has (a dead area never changes).
	 */
	rs->cpu_id = (uint32_t)-1;
	for (i = 0; i < 1000 && cpu >= 4096; i++) {
		usleep(2000);
		cpu = __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
	}
	CHECK(cpu < 4096, "thread %d: rseq area not live (cpu_id %d)", me->idx, (int)cpu);
}

static uint64_t work(struct worker *me)
{
	enum role role = role_of(me->idx);
	uint64_t v = 0;
	sigset_t set;
	char buf[8];
	int sig;

	switch (role) {
	case COND:
		set_ready(me);
		wait_go();
		v = 1;
		break;
	case SLEEP: {
		struct timespec ts = { SLEEP_NS / 1000000000LL, SLEEP_NS % 1000000000LL };
		int64_t t0 = now_ns(), slept;

		set_ready(me);
		CHECK(!clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL), "nanosleep");
		slept = now_ns() - t0;
		__atomic_store_n(&me->timed_out, 1, __ATOMIC_RELEASE);
		/* restarted with the time it had left: never woken early */
		CHECK(slept >= SLEEP_NS, "thread %d slept %lld ns", me->idx, (long long)slept);
		wait_go();
		v = 2;
		break;
	}
	case PIPE:
		set_ready(me);
		CHECK(read(me->pipe[0], buf, 4) == 4 && !memcmp(buf, "wake", 4),
		      "thread %d: pipe read", me->idx);
		v = 3;
		break;
	case SIGNAL: {
		sigset_t pend;

		set_ready(me);
		wait_go();
		/* pthread_kill()ed before the checkpoint, blocked since */
		sigpending(&pend);
		CHECK(sigismember(&pend, SIGUSR1), "thread %d: SIGUSR1 lost", me->idx);
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		CHECK(!sigwait(&set, &sig) && sig == SIGUSR1, "sigwait");
		v = 4;
		break;
	}
	case BUSY:
		set_ready(me);
		while (!stop_busy)
			v++;
		v = 5;
		break;
	case ROBUST:
		CHECK(!pthread_mutex_lock(&robust), "robust lock");
		CHECK(!pthread_mutex_lock(&pi), "PI lock");
		__atomic_store_n(&pi_held, 1, __ATOMIC_RELEASE);
		set_ready(me);
		wait_go();
		CHECK(!pthread_mutex_unlock(&pi), "PI unlock");
		v = 6;	/* exits holding the robust mutex */
		break;
	case TIMER: {
		int64_t end;
		int hits;

		set_ready(me);
		wait_go();
		/* the timer still signals this thread, and only it */
		hits = timer_hits;
		end = now_ns() + 5000000000LL;
		while (timer_hits < hits + 3 && now_ns() < end)
			usleep(1000);
		CHECK(timer_hits >= hits + 3, "thread %d: timer hits %d, then %d", me->idx,
		      hits, timer_hits);
		CHECK(!timer_stray, "the timer signalled thread %d", (int)timer_stray);
		v = 8;
		break;
	}
	case SEMWAIT:
	case CLOCKWAIT: {
		clockid_t clk = role == SEMWAIT ? CLOCK_REALTIME : CLOCK_MONOTONIC;
		struct timespec dl, now;
		int ret;

		clock_gettime(clk, &dl);
		dl.tv_sec += SLEEP_NS / 1000000000LL;
		set_ready(me);
		/* interrupted by the checkpoint, restarted with its deadline */
		ret = role == SEMWAIT ? sem_timedwait(&never, &dl) :
					sem_clockwait(&never, clk, &dl);
		CHECK(ret < 0 && errno == ETIMEDOUT, "thread %d: wait %d (%m)", me->idx, ret);
		clock_gettime(clk, &now);
		__atomic_store_n(&me->timed_out, 1, __ATOMIC_RELEASE);
		CHECK(now.tv_sec > dl.tv_sec || (now.tv_sec == dl.tv_sec && now.tv_nsec >= dl.tv_nsec),
		      "thread %d: timed out early", me->idx);
		wait_go();
		v = role + 1;
		break;
	}
	case POLL:
	case EPOLL:
	case SIGTIMED:
		timed_wait(me, role);
		wait_go();
		v = role + 1;
		break;
	case PILOCK:
		while (!__atomic_load_n(&pi_held, __ATOMIC_ACQUIRE))
			usleep(1000);
		set_ready(me);
		/* ROBUST holds it until go: blocked in FUTEX_LOCK_PI meanwhile */
		CHECK(!pthread_mutex_lock(&pi), "thread %d: PI lock", me->idx);
		CHECK(go, "thread %d: PI lock taken before go", me->idx);
		pthread_mutex_unlock(&pi);
		v = role + 1;
		break;
	case DETACHED:
	default:
		set_ready(me);
		wait_go();
		v = 7;
		break;
	}
	return v;
}

static void *thread_fn(void *arg)
{
	struct worker *me = arg;
	volatile uint32_t stack[512];
	char name[16], want[16];
	sigset_t set, cur;
	unsigned int i;

	me->tid = gettid();
	tls_value = 0x7400000000ULL + me->idx;
	for (i = 0; i < 512; i++)
		stack[i] = me->idx * 1000003u + i;
	snprintf(want, sizeof(want), "w%d", me->idx);
	prctl(PR_SET_NAME, want);
	/* a mask of its own: SIGUSR1 for the SIGNAL ones, SIGUSR2 + its index bit for all */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN + me->idx % 8);
	if (role_of(me->idx) == SIGNAL)
		sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &set, NULL);

	me->result = work(me);

	CHECK(gettid() == me->tid, "thread %d: tid %d, was %d", me->idx, gettid(), me->tid);
	CHECK(tls_value == 0x7400000000ULL + me->idx, "thread %d: tls %#llx", me->idx,
	      (unsigned long long)tls_value);
	for (i = 0; i < 512; i++)
		CHECK(stack[i] == me->idx * 1000003u + i, "thread %d: stack[%u]", me->idx, i);
	prctl(PR_GET_NAME, name);
	CHECK(!strcmp(name, want), "thread %d: name %s", me->idx, name);
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	for (i = 1; i < 64; i++)
		CHECK(sigismember(&cur, i) == sigismember(&set, i),
		      "thread %d: signal %u in mask %d", me->idx, i, sigismember(&cur, i));
	check_rseq(me);
	if (role_of(me->idx) == DETACHED) {
		uint64_t r = me->result;

		CHECK(write(detached_pipe[1], &r, sizeof(r)) == sizeof(r), "detached write");
	}
	return (void *)(uintptr_t)me->result;
}

/* every 20 ms, SIGRTMIN + 9 to the TIMER thread alone */
static void start_timer(pid_t tid)
{
	struct sigaction sa = { .sa_sigaction = on_timer, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct itimerspec its = { { 0, 20000000 }, { 0, 20000000 } };
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID,
			       .sigev_signo = SIGRTMIN + 9 };

	ev._sigev_un._tid = tid;	/* sigev_notify_thread_id */
	timer_tid = tid;
	CHECK(!sigaction(SIGRTMIN + 9, &sa, NULL), "sigaction");
	CHECK(!timer_create(CLOCK_MONOTONIC, &ev, &timer), "timer_create: %m");
	CHECK(!timer_settime(timer, 0, &its, NULL), "timer_settime: %m");
}

/* the system call a thread of @role blocks in, -1 if none in particular */
static long role_syscall(enum role role)
{
	switch (role) {
	case SLEEP:
		return SYS_clock_nanosleep;
	case PIPE:
		return SYS_read;
	case SEMWAIT:
	case CLOCKWAIT:
	case PILOCK:
		return SYS_futex;
	case POLL:
		return SYS_poll;
	case EPOLL:
		return SYS_epoll_pwait;
	case SIGTIMED:
		return SYS_rt_sigtimedwait;
	default:
		return -1;
	}
}

/* until the thread is blocked in its system call: the checkpoint catches it there */
static void wait_blocked(struct worker *me)
{
	long want = role_syscall(role_of(me->idx)), nr = -2;
	char path[64];
	int i;

	if (want < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", me->tid);
	for (i = 0; i < 2000 && nr != want; i++) {
		if (__atomic_load_n(&me->timed_out, __ATOMIC_ACQUIRE))
			return;	/* many threads took longer to start than it waits */
		FILE *f = fopen(path, "r");

		CHECK(f, "%s: %m", path);
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -2;
		fclose(f);
		if (nr != want)
			usleep(1000);
	}
	CHECK(nr == want, "thread %d: in syscall %ld, not %ld", me->idx, nr, want);
}

static void start(int n)
{
	pthread_mutexattr_t ma;
	pthread_attr_t a;
	int i;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pi, &ma);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&robust, &ma);
	CHECK(!pipe(detached_pipe) && !sem_init(&never, 0, 0), "pipe");
	for (i = 0; i < n; i++) {
		w[i].idx = i;
		CHECK(!pipe(w[i].pipe), "pipe");
		pthread_attr_init(&a);
		if (role_of(i) == DETACHED)
			pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		CHECK(!pthread_create(&w[i].th, &a, thread_fn, &w[i]), "pthread_create %d", i);
		pthread_attr_destroy(&a);
	}
	pthread_mutex_lock(&lock);
	while (nready < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++)
		if (role_of(i) == SIGNAL)
			CHECK(!pthread_kill(w[i].th, SIGUSR1), "pthread_kill");
	start_timer(w[TIMER].tid);
	for (i = 0; i < n; i++)
		wait_blocked(&w[i]);
}

static void finish(int n)
{
	int i, detached = 0, ret;
	uint64_t r;
	void *v;

	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	stop_busy = 1;
	for (i = 0; i < n; i++)
		if (role_of(i) == PIPE)
			CHECK(write(w[i].pipe[1], "wake", 4) == 4, "pipe write");
	for (i = 0; i < n; i++) {
		if (role_of(i) == DETACHED) {
			detached++;
			continue;
		}
		CHECK(!pthread_join(w[i].th, &v), "join %d", i);
		CHECK((uintptr_t)v == (uintptr_t)(role_of(i) + 1), "thread %d returned %lu",
		      i, (unsigned long)(uintptr_t)v);
	}
	for (i = 0; i < detached; i++)
		CHECK(read(detached_pipe[0], &r, sizeof(r)) == sizeof(r) && r == DETACHED + 1,
		      "detached thread result");
	/* the ROBUST thread exited holding it */
	ret = pthread_mutex_lock(&robust);
	CHECK(ret == EOWNERDEAD, "robust mutex: %d", ret);
	CHECK(!timer_delete(timer), "timer_delete");
}

int main(int argc, char **argv)
{
	int n, i;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "stopped"))) {
		fprintf(stderr, "usage: ckpt-threads N GOFILE [stopped]\n");
		return 2;
	}
	stopped = argc == 4;
	n = atoi(argv[1]);
	CHECK(n >= NROLES && n <= MAX_THREADS, "N out of range");
	start(n);
	printf("ready %d\n", getpid());
	for (i = 0; i < n; i++)
		printf("tid %d %d\n", i, w[i].tid);
	fflush(stdout);
	while (access(argv[2], F_OK))
		usleep(10000);
	finish(n);
	printf("threads ok\n");
	return 0;
}
