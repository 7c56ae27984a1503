// SPDX-License-Identifier: GPL-2.0
/*
 * bench-work MIB DIR [THREADS [PROCS]]: the workload of make bench
 * (scripts/bench-guest).
 *
 * Fills MIB MiB of anonymous memory with a pattern derived from each word's
 * offset (so a check is exact); with THREADS (default 1) starts THREADS - 1
 * more threads that wait on a condition variable that is never signalled
 * (they take no CPU and do not disturb the gaps), and once they all wait
 * writes its pid to DIR/ready, then loops on
 * clock_gettime(CLOCK_MONOTONIC), keeping the largest gap between two
 * consecutive timestamps: how long it was held still. About every 10 ms it
 * looks for a command in DIR/cmd-PID. It needs no open file descriptor and no
 * signal handler for this, so it works on after a restart that restores
 * neither. Commands (the file is removed, the reply is written to
 * DIR/out-PID.tmp and renamed to DIR/out-PID):
 *   reset   forget the largest gap; reply "reset"
 *   report  reply "gap NS end NS": the largest gap since the reset and the
 *           CLOCK_REALTIME when it ended
 *   resumed R0
 *           reply "resumed T": the CLOCK_REALTIME T at the end of the first
 *           gap of 200 us or more that ended after R0, 0 if none did: when
 *           a process restored after R0 first ran (realtime because criu
 *           restores into a time namespace that shifts CLOCK_MONOTONIC back
 *           to the time of the dump; the gap across its restore is then its
 *           freeze only, which another stall may exceed)
 *   verify  reply "ok" if the memory holds the pattern, else "bad OFFSET"
 * The time spent on a command does not count as a gap.
 *
 * With PROCS (default 1), it first forks PROCS - 1 children, which drop
 * the memory and sleep, looking for commands every 10 ms the same way
 * (verify replies "ok"): a process tree whose root, the only one that
 * loops, measures how long the whole tree was held still.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include "ckpt.h"

#define POLL_NS 10000000LL
#define MAX_THREADS 1024
#define GAP_MIN_NS 200000LL	/* a gap whose end is kept */
#define NR_ENDS 256		/* the ends of the last gaps that long */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t waiting = PTHREAD_COND_INITIALIZER, never = PTHREAD_COND_INITIALIZER;
static int nwaiting;

/* an extra thread: counted once it waits, then waits for ever */
static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	nwaiting++;
	pthread_cond_signal(&waiting);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

/* start NTHREADS - 1 idle threads and wait until each has released the lock in its wait */
static void start_threads(int nthreads)
{
	pthread_t th;
	int i, err;

	for (i = 1; i < nthreads; i++) {
		err = pthread_create(&th, NULL, idle, NULL);
		CHECK(!err, "pthread_create (thread %d of %d): %s", i + 1, nthreads, strerror(err));
	}
	pthread_mutex_lock(&lock);
	while (nwaiting < nthreads - 1)
		pthread_cond_wait(&waiting, &lock);
	pthread_mutex_unlock(&lock);
}

static uint64_t pattern(uint64_t off)
{
	return (off * 0x9e3779b97f4a7c15ULL) ^ 0x5a5a5a5a5a5a5a5aULL;
}

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* write TEXT to PATH.tmp, then rename it to PATH (readers never see half a reply) */
static void put(const char *path, const char *text)
{
	char tmp[4096];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		unlink(tmp);
	close(fd);
	rename(tmp, path);
}

static char cmdpath[4096], outpath[4096];
static long long maxgap, gapend;
static long long ends[NR_ENDS];
static unsigned int nr_ends;

/* the end of the first gap of GAP_MIN_NS or more that ended after @r0 */
static long long resumed(long long r0)
{
	long long t = 0;
	unsigned int i;

	for (i = 0; i < NR_ENDS && i < nr_ends; i++)
		if (ends[i] > r0 && (!t || ends[i] < t))
			t = ends[i];
	return t;
}
static uint64_t *mem, words;

/* the command in cmdpath, if there is one: answered in outpath */
static void command(void)
{
	char buf[64], reply[128];
	struct stat st;
	uint64_t i;
	ssize_t n;
	int fd;

	if (stat(cmdpath, &st) != 0)
		return;
	fd = open(cmdpath, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(cmdpath);
	buf[n > 0 ? n : 0] = '\0';
	if (!strncmp(buf, "reset", 5)) {
		maxgap = gapend = 0;
		snprintf(reply, sizeof(reply), "reset\n");
	} else if (!strncmp(buf, "report", 6)) {
		snprintf(reply, sizeof(reply), "gap %lld end %lld\n", maxgap, gapend);
	} else if (!strncmp(buf, "resumed ", 8)) {
		snprintf(reply, sizeof(reply), "resumed %lld\n",
			 resumed(strtoll(buf + 8, NULL, 10)));
	} else if (!strncmp(buf, "verify", 6)) {
		for (i = 0; i < words && mem[i] == pattern(i * sizeof(*mem)); i++)
			;
		if (i == words)
			snprintf(reply, sizeof(reply), "ok\n");
		else
			snprintf(reply, sizeof(reply), "bad %llu\n",
				 (unsigned long long)(i * sizeof(*mem)));
	} else {
		snprintf(reply, sizeof(reply), "unknown command\n");
	}
	put(outpath, reply);
}

static void paths(const char *dir)
{
	snprintf(cmdpath, sizeof(cmdpath), "%s/cmd-%d", dir, getpid());
	snprintf(outpath, sizeof(outpath), "%s/out-%d", dir, getpid());
}

/* a child of the tree: no memory of its own, a command every 10 ms */
static void child(const char *dir, int ready, size_t len)
{
	struct timespec ts = { 0, POLL_NS };

	munmap(mem, len);
	mem = NULL;
	words = 0;
	paths(dir);
	CHECK(write(ready, "", 1) == 1, "ready: %s", strerror(errno));
	close(ready);
	for (;;) {
		nanosleep(&ts, NULL);
		command();
	}
}

/* PROCS - 1 children, each ready to answer once this returns */
static void start_children(const char *dir, int procs, size_t len)
{
	int p[2], i;
	char c;

	CHECK(!pipe(p), "pipe: %s", strerror(errno));
	for (i = 1; i < procs; i++) {
		pid_t pid = fork();

		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (!pid) {
			close(p[0]);
			child(dir, p[1], len);
		}
	}
	close(p[1]);
	for (i = 1; i < procs; i++)
		CHECK(read(p[0], &c, 1) == 1, "child %d is not ready", i);
	close(p[0]);
}

int main(int argc, char **argv)
{
	char buf[64], reply[128];
	long long now, prev, lastpoll;
	int nthreads = 1, procs = 1;
	uint64_t i;
	size_t len;

	if (argc >= 4)
		nthreads = atoi(argv[3]);
	if (argc == 5)
		procs = atoi(argv[4]);
	if (argc < 3 || argc > 5 || atol(argv[1]) <= 0 || nthreads < 1 ||
	    nthreads > MAX_THREADS || procs < 1 || procs > MAX_THREADS) {
		fprintf(stderr, "usage: bench-work MIB DIR [THREADS [PROCS]]\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	words = len / sizeof(*mem);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED, "mmap %zu bytes: %s", len, strerror(errno));
	for (i = 0; i < words; i++)
		mem[i] = pattern(i * sizeof(*mem));
	start_children(argv[2], procs, len);
	start_threads(nthreads);

	paths(argv[2]);
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	snprintf(reply, sizeof(reply), "%s/ready", argv[2]);
	put(reply, buf);

	prev = lastpoll = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		now = now_ns(CLOCK_MONOTONIC);
		if (now - prev >= GAP_MIN_NS)
			ends[nr_ends++ % NR_ENDS] = now_ns(CLOCK_REALTIME);
		if (now - prev > maxgap) {
			maxgap = now - prev;
			gapend = now_ns(CLOCK_REALTIME);
		}
		prev = now;
		if (now - lastpoll < POLL_NS)
			continue;
		lastpoll = now;
		command();
		prev = lastpoll = now_ns(CLOCK_MONOTONIC);
	}
}
