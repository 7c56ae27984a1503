// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-tree DIR: a process tree, to be checkpointed whole mid-stream.
 * ckpt-tree DIR zombies: a process with zombie children and a stopped one.
 * ckpt-tree DIR orphans: a subreaper with children in leaderless groups.
 * ckpt-tree DIR workers: a server whose workers count in shared memory.
 * ckpt-tree DIR clone: processes sharing a table, a working directory, a
 * SysV segment, and one with threads.
 * ckpt-tree DIR unix: a parent and a child talking over a stream and a
 * datagram socketpair made before fork(), with messages unread both ways.
 * ckpt-tree DIR cow: a parent, its children and a grandchild sharing
 * private pages copy-on-write after fork(), some written since by some.
 *
 * The root leads a session of its own and opens DIR/log, which every
 * process writes to through that one open file (one offset). It makes a
 * pipe and forks A, the producer, and B, the consumer, which leads a
 * process group of its own and forks C into that group. A writes the
 * numbers 1..N into the pipe, B sums what it reads; both stop halfway
 * ("mid" lines), A with data still in the pipe, until DIR/go exists. At
 * the end B signals C, which exits 3; B exits with the sum modulo 251,
 * A exits 7. Each process logs "X start|end pid ppid pgid sid".
 *
 * The root prints "ready PID" once both are halfway, reaps A and B, and
 * checks everything from the log: the ids at the end are those at the
 * start (the root's may differ: restart() keeps the restorer's), and no
 * write of one process overwrote another's. It prints "tree ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ckpt.h"

#define N	3000
#define MID	1500
#define READ_MID 1000

static char dir[256];
static int logfd;
static volatile sig_atomic_t usr1;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	CHECK(write(logfd, buf, n) == n, "log: %s", strerror(errno));
}

static void ids(const char *who, const char *when)
{
	say("%s %s %d %d %d %d\n", who, when, getpid(), getppid(), getpgid(0),
	    getsid(0));
}

static void wait_go(void)
{
	char go[300];
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	snprintf(go, sizeof(go), "%s/go", dir);
	while (access(go, F_OK))
		nanosleep(&ts, NULL);
}

static void producer(int wr)
{
	int i;

	ids("A", "start");
	for (i = 1; i <= N; i++) {
		if (i == MID + 1) {
			say("A mid\n");
			wait_go();
		}
		CHECK(write(wr, &i, sizeof(i)) == sizeof(i), "write: %s", strerror(errno));
	}
	ids("A", "end");
	exit(7);
}

static void on_usr1(int sig)
{
	usr1 = sig;
}

static void child_c(void)
{
	sigset_t none;

	sigemptyset(&none);
	ids("C", "start");
	while (!usr1)
		sigsuspend(&none);
	ids("C", "end");
	exit(3);
}

static void consumer(int rd)
{
	long long sum = 0;
	int v, n = 0, st;
	sigset_t usr;
	pid_t c;

	CHECK(setpgid(0, 0) == 0, "setpgid: %s", strerror(errno));
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr, NULL);
	signal(SIGUSR1, on_usr1);
	c = fork();
	CHECK(c >= 0, "fork: %s", strerror(errno));
	if (!c) {
		close(rd);
		CHECK(setpgid(0, getppid()) == 0, "setpgid: %s", strerror(errno));
		child_c();
	}
	ids("B", "start");
	while (read(rd, &v, sizeof(v)) == sizeof(v)) {
		sum += v;
		if (++n == READ_MID) {
			say("B mid\n");
			wait_go();
		}
	}
	kill(c, SIGUSR1);
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 3,
	      "C: status %#x", st);
	say("B sum %lld\n", sum);
	ids("B", "end");
	exit(sum % 251);
}

/* The ids a process logged, "start" or "end": pid ppid pgid sid. */
static void logged(const char *text, const char *who, const char *when, int id[4])
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), "%s %s ", who, when);
	p = strstr(text, key);
	CHECK(p && sscanf(p + strlen(key), "%d %d %d %d", &id[0], &id[1], &id[2],
			  &id[3]) == 4, "no '%s' line", key);
}

/* Each of A, B, C has the ids it started with, under its restored parents. */
static void check_ids(const char *text)
{
	int r0[4], r1[4], a0[4], a1[4], b0[4], b1[4], c0[4], c1[4];

	logged(text, "R", "start", r0);
	logged(text, "R", "end", r1);
	logged(text, "A", "start", a0);
	logged(text, "A", "end", a1);
	logged(text, "B", "start", b0);
	logged(text, "B", "end", b1);
	logged(text, "C", "start", c0);
	logged(text, "C", "end", c1);
	CHECK(r0[0] == r0[2] && r0[0] == r0[3], "root: not a session leader");
	CHECK(a1[0] == a0[0] && a0[1] == r0[0] && a1[1] == r1[0] &&
	      a0[2] == r0[2] && a1[2] == r1[2] && a0[3] == r0[3] && a1[3] == r1[3],
	      "A: ids %d %d %d %d, then %d %d %d %d", a0[0], a0[1], a0[2], a0[3],
	      a1[0], a1[1], a1[2], a1[3]);
	CHECK(b1[0] == b0[0] && b0[1] == r0[0] && b1[1] == r1[0] &&
	      b0[2] == b0[0] && b1[2] == b0[0] && b1[3] == r1[3],
	      "B: ids %d %d %d %d, then %d %d %d %d", b0[0], b0[1], b0[2], b0[3],
	      b1[0], b1[1], b1[2], b1[3]);
	CHECK(c1[0] == c0[0] && c1[1] == b0[0] && c1[2] == b0[0] && c1[3] == r1[3],
	      "C: ids %d %d %d %d, then %d %d %d %d", c0[0], c0[1], c0[2], c0[3],
	      c1[0], c1[1], c1[2], c1[3]);
	CHECK(c0[1] == b0[0] && c0[2] == b0[0], "C: not B's child in B's group");
}

static void check_log(int a, int b)
{
	long long want = (long long)N * (N + 1) / 2;
	char text[4096];
	ssize_t n;

	n = pread(logfd, text, sizeof(text) - 1, 0);
	CHECK(n > 0, "read log: %s", strerror(errno));
	text[n] = 0;
	/* one offset: every line whole, none written over */
	CHECK(n == lseek(logfd, 0, SEEK_CUR), "log: %zd bytes, offset %ld", n,
	      (long)lseek(logfd, 0, SEEK_CUR));
	CHECK(strstr(text, "A mid\n") && strstr(text, "B mid\n"), "log: %s", text);
	check_ids(text);
	CHECK(WIFEXITED(a) && WEXITSTATUS(a) == 7, "A: status %#x", a);
	CHECK(WIFEXITED(b) && WEXITSTATUS(b) == want % 251, "B: status %#x", b);
	CHECK(strstr(text, "B sum ") && atoll(strstr(text, "B sum ") + 6) == want,
	      "B: sum, want %lld: %s", want, text);
}

/*
 * Children it has not reaped yet: one exited 42, one killed by SIGUSR2,
 * one stopped. Once DIR/go exists it reaps them, continues the third.
 */
static void zombies(void)
{
	pid_t c[3];
	int i, st;

	for (i = 0; i < 3; i++) {
		c[i] = fork();
		CHECK(c[i] >= 0, "fork: %s", strerror(errno));
		if (c[i])
			continue;
		if (i == 0)
			exit(42);
		raise(i == 1 ? SIGUSR2 : SIGSTOP);
		exit(5);
	}
	usleep(200000);
	printf("ready %d %d %d %d\n", getpid(), c[0], c[1], c[2]);
	fflush(stdout);
	wait_go();
	CHECK(waitpid(c[0], &st, 0) == c[0] && WIFEXITED(st) && WEXITSTATUS(st) == 42,
	      "c0: status %#x", st);
	CHECK(waitpid(c[1], &st, 0) == c[1] && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGUSR2, "c1: status %#x", st);
	CHECK(waitpid(c[2], &st, WNOHANG) == 0, "c2: not stopped, status %#x", st);
	kill(c[2], SIGCONT);
	CHECK(waitpid(c[2], &st, 0) == c[2] && WIFEXITED(st) && WEXITSTATUS(st) == 5,
	      "c2: status %#x", st);
	printf("zombies ok\n");
	exit(0);
}

/* Log "X start|end" of this process, wait for DIR/go in between. */
static void orphan_member(const char *who)
{
	ids(who, "start");
	wait_go();
	ids(who, "end");
	exit(0);
}

/*
 * A subreaper whose children are in a session and groups whose leaders
 * exited: D leads a session, with E in D's group and F leading a group
 * of its own, G in it; D and F exit, E and G come to the root.
 */
static void orphans(void)
{
	int st, sub = 0, n = 0;
	char text[4096];
	pid_t d, f;

	CHECK(!prctl(PR_SET_CHILD_SUBREAPER, 1), "prctl: %s", strerror(errno));
	d = fork();
	if (!d) {
		setsid();
		if (!fork())
			orphan_member("E");
		f = fork();
		if (!f) {
			setpgid(0, 0);
			if (!fork())
				orphan_member("G");
			usleep(100000);
			exit(0);
		}
		waitpid(f, NULL, 0);
		exit(0);
	}
	waitpid(d, NULL, 0);	/* and D reaped F */
	do {
		usleep(10000);
		memset(text, 0, sizeof(text));
		CHECK(pread(logfd, text, sizeof(text) - 1, 0) >= 0, "read log");
	} while (!strstr(text, "E start") || !strstr(text, "G start"));
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (waitpid(-1, &st, 0) > 0)
		n += WIFEXITED(st) && !WEXITSTATUS(st);
	prctl(PR_GET_CHILD_SUBREAPER, &sub);
	CHECK(n == 2 && sub == 1, "%d children reaped, subreaper %d", n, sub);
	printf("orphans ok\n");
	exit(0);
}

#define WORKERS	3
#define ROUNDS	2000

/* Worker @w counts in the shared counter and in its slot of the memfd. */
static void worker(int w, int *ctr, int *mem)
{
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if (i == ROUNDS / 2) {
			__atomic_add_fetch(&ctr[1], 1, __ATOMIC_SEQ_CST);
			wait_go();
		}
		__atomic_add_fetch(&ctr[0], 1, __ATOMIC_SEQ_CST);
		mem[w]++;
	}
	exit(0);
}

/*
 * A server and its workers, which share a MAP_SHARED|MAP_ANONYMOUS
 * counter and a memfd, mapped and at a descriptor, from before fork().
 */
static void workers(void)
{
	int *ctr = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int mfd = memfd_create("tree", 0), w, st, got[WORKERS];
	pid_t pid[WORKERS];
	int *mem;

	CHECK(ctr != MAP_FAILED && mfd >= 0 && !ftruncate(mfd, 4096), "shm: %s",
	      strerror(errno));
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	CHECK(mem != MAP_FAILED, "mmap: %s", strerror(errno));
	for (w = 0; w < WORKERS; w++) {
		pid[w] = fork();
		CHECK(pid[w] >= 0, "fork: %s", strerror(errno));
		if (!pid[w])
			worker(w, ctr, mem);
	}
	while (__atomic_load_n(&ctr[1], __ATOMIC_SEQ_CST) < WORKERS)
		usleep(10000);
	printf("ready %d %d %d %d\n", getpid(), pid[0], pid[1], pid[2]);
	fflush(stdout);
	for (w = 0; w < WORKERS; w++)
		CHECK(waitpid(pid[w], &st, 0) == pid[w] && WIFEXITED(st) &&
		      !WEXITSTATUS(st), "worker %d: status %#x", w, st);
	CHECK(ctr[0] == WORKERS * ROUNDS, "counter %d, want %d", ctr[0],
	      WORKERS * ROUNDS);
	CHECK(pread(mfd, got, sizeof(got), 0) == sizeof(got), "memfd: %s",
	      strerror(errno));
	for (w = 0; w < WORKERS; w++)
		CHECK(got[w] == ROUNDS && mem[w] == ROUNDS, "worker %d: %d, %d",
		      w, got[w], mem[w]);
	printf("workers ok\n");
	exit(0);
}

#define THREADS	3

static int *seg;	/* the SysV segment: [0] ready, [1] counted after go */
static __thread int mine;

/* F: the root's table (CLONE_FILES): what it opens after the restart, the root has. */
static int files_child(void *arg)
{
	char path[300];
	int fd;

	__atomic_add_fetch(&seg[0], 1, __ATOMIC_SEQ_CST);
	wait_go();
	snprintf(path, sizeof(path), "%s/f-file", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "%s: %s", path, strerror(errno));
	say("F fd %d\n", fd);
	__atomic_add_fetch(&seg[1], 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* S: the root's working directory and umask (CLONE_FS), changed after it. */
static int fs_child(void *arg)
{
	char path[300];

	__atomic_add_fetch(&seg[0], 1, __ATOMIC_SEQ_CST);
	wait_go();
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(chdir(path) == 0, "chdir %s: %s", path, strerror(errno));
	umask(027);
	__atomic_add_fetch(&seg[1], 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void *thread_fn(void *arg)
{
	mine = (int)(long)arg;
	__atomic_add_fetch(&seg[0], 1, __ATOMIC_SEQ_CST);
	wait_go();
	mine *= 10;
	__atomic_add_fetch(&seg[1], 1, __ATOMIC_SEQ_CST);
	return (void *)(long)mine;
}

/* T: threads, each with its own __thread value, joined after the restart. */
static void threads_child(void)
{
	pthread_t t[THREADS];
	void *got;
	int i;

	for (i = 0; i < THREADS; i++)
		CHECK(!pthread_create(&t[i], NULL, thread_fn, (void *)(long)(i + 1)),
		      "pthread_create");
	for (i = 0; i < THREADS; i++)
		CHECK(!pthread_join(t[i], &got) && (long)got == 10 * (i + 1),
		      "thread %d gave %ld", i, (long)got);
	exit(0);
}

static pid_t clone_child(int (*fn)(void *), int flags)
{
	size_t sz = 1 << 16;
	char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t p;

	CHECK(stack != MAP_FAILED, "mmap: %s", strerror(errno));
	p = clone(fn, stack + sz, flags | SIGCHLD, NULL);
	CHECK(p > 0, "clone: %s", strerror(errno));
	return p;
}

/*
 * F, S and T share a SysV segment, attached before they are made, which
 * the root detaches then; each counts in it after the restart, as T's
 * threads do, and the root attaches it again to check.
 */
static void clones(void)
{
	char path[300], cwd[300], link[300];
	int id = shmget(IPC_PRIVATE, 4096, 0600), st, fd = -1, n = 0;
	pid_t f, s, t;

	CHECK(id >= 0, "shmget: %s", strerror(errno));
	seg = shmat(id, NULL, 0);
	CHECK(seg != (void *)-1, "shmat: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/log", dir);
	logfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(logfd >= 0, "%s: %s", path, strerror(errno));
	umask(022);
	f = clone_child(files_child, CLONE_FILES);
	s = clone_child(fs_child, CLONE_FS);
	t = fork();
	CHECK(t >= 0, "fork: %s", strerror(errno));
	if (!t)
		threads_child();
	while (__atomic_load_n(&seg[0], __ATOMIC_SEQ_CST) < 2 + THREADS)
		usleep(10000);
	/* the children's, not the root's: the first of them makes it again */
	CHECK(shmdt(seg) == 0, "shmdt: %s", strerror(errno));
	printf("ready %d %d %d %d %d\n", getpid(), f, s, t, id);
	fflush(stdout);
	while (waitpid(-1, &st, 0) > 0)
		n += WIFEXITED(st) && !WEXITSTATUS(st);
	CHECK(n == 3, "%d children exited 0", n);
	seg = shmat(id, NULL, 0);
	CHECK(seg != (void *)-1, "shmat: %s", strerror(errno));
	CHECK(seg[1] == 2 + THREADS, "the segment counted %d", seg[1]);
	memset(link, 0, sizeof(link));
	CHECK(pread(logfd, link, sizeof(link) - 1, 0) > 0 &&
	      sscanf(link, "F fd %d", &fd) == 1, "no fd of F in the log");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(link, 0, sizeof(link));
	CHECK(readlink(path, link, sizeof(link) - 1) > 0 && strstr(link, "/f-file"),
	      "fd %d of F is not the root's (%s)", fd, link);
	CHECK(getcwd(cwd, sizeof(cwd)) && !strcmp(strrchr(cwd, '/'), "/sub"),
	      "cwd %s, not S's", cwd);
	CHECK(umask(0) == 027, "umask not S's");
	CHECK(shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID: %s", strerror(errno));
	printf("clone ok\n");
	exit(0);
}

/* Read the @n bytes of @want from @fd: a datagram, or from a stream. */
static void expect(int fd, const char *want, size_t n, const char *who)
{
	char buf[64] = "";
	size_t got = 0;
	ssize_t r;

	do {
		r = read(fd, buf + got, n - got);
		CHECK(r > 0, "%s: read: %s", who, r ? strerror(errno) : "end of file");
		got += r;
	} while (got < n);
	CHECK(got == n && !memcmp(buf, want, n), "%s: read '%.*s', want '%s'",
	      who, (int)got, buf, want);
}

/*
 * Stream pair s and datagram pair d made before fork(): the root keeps
 * [0], the child [1]. Before the checkpoint each sends the other a
 * message it does not read; after it, each reads it and they talk on.
 */
static void unix_pairs(void)
{
	int s[2], d[2], st;
	pid_t c;

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, s) &&
	      !socketpair(AF_UNIX, SOCK_DGRAM, 0, d), "socketpair: %s", strerror(errno));
	c = fork();
	CHECK(c >= 0, "fork: %s", strerror(errno));
	if (!c) {
		close(s[0]);
		close(d[0]);
		CHECK(write(s[1], "ping", 4) == 4 && send(d[1], "d1", 2, 0) == 2,
		      "child: send: %s", strerror(errno));
		wait_go();
		expect(s[1], "hello", 5, "child stream");
		CHECK(write(s[1], "after", 5) == 5, "child: write: %s", strerror(errno));
		expect(d[1], "d2", 2, "child datagram");
		exit(0);
	}
	close(s[1]);
	close(d[1]);
	CHECK(write(s[0], "hello", 5) == 5, "root: write: %s", strerror(errno));
	usleep(100000);
	printf("ready %d %d\n", getpid(), c);
	fflush(stdout);
	wait_go();
	expect(s[0], "ping", 4, "root stream");
	expect(d[0], "d1", 2, "root datagram");
	CHECK(send(d[0], "d2", 2, 0) == 2, "root: send: %s", strerror(errno));
	expect(s[0], "after", 5, "root stream");
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && !WEXITSTATUS(st),
	      "child: status %#x", st);
	printf("unix ok\n");
	exit(0);
}

#define COW_PAGES	2048	/* 8 MiB */
#define PAGE		4096
#define WORDS		(PAGE / sizeof(uint64_t))

static uint64_t *cow;

/* Stamp pages [from, to) of cow with @tag */
static void cow_stamp(int from, int to, uint64_t tag)
{
	unsigned int p, w;

	for (p = from; p < to; p++)
		for (w = 0; w < WORDS; w++)
			cow[p * WORDS + w] = tag << 48 | (uint64_t)p << 16 | w;
}

/* Pages [from, to) of cow hold @tag, word for word */
static void cow_check(int from, int to, uint64_t tag, const char *who)
{
	unsigned int p, w;

	for (p = from; p < to; p++)
		for (w = 0; w < WORDS; w++)
			CHECK(cow[p * WORDS + w] == (tag << 48 | (uint64_t)p << 16 | w),
			      "%s: page %d word %d: %#llx, tag %llu wanted", who, p, w,
			      (unsigned long long)cow[p * WORDS + w],
			      (unsigned long long)tag);
}

/*
 * A process that had @tag in pages [from, to) (the root's 1 elsewhere)
 * after the go: checks them, writes its own @mine over all, checks that.
 */
static void cow_member(int *ctr, int from, int to, uint64_t tag, uint64_t mine,
		       const char *who)
{
	__atomic_add_fetch(ctr, 1, __ATOMIC_SEQ_CST);
	wait_go();
	cow_check(0, from, 1, who);
	cow_check(from, to, tag, who);
	cow_check(to, COW_PAGES, 1, who);
	cow_stamp(0, COW_PAGES, mine);
	cow_check(0, COW_PAGES, mine, who);
}

static void cow_reap(pid_t pid, const char *who)
{
	int st;

	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "%s: status %#x", who, st);
}

/*
 * The root stamps 8 MiB with 1 and forks: X writes nothing, Y stamps the
 * first half with 2, Z forks G, which stamps the last quarter with 3.
 * After the go each checks what it had and writes its own all over; the
 * root checks its pages kept 1 while they wrote, then stamps its own.
 */
static void cows(void)
{
	int *ctr = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t x, y, z, g = 0;
	int p[2];

	cow = mmap(NULL, COW_PAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ctr != MAP_FAILED && cow != MAP_FAILED && !pipe(p), "mmap: %s",
	      strerror(errno));
	/*
	 * The test counts the pages shared at the checkpoint: khugepaged, which
	 * may collapse a range a process wrote part of into a new huge page (a
	 * copy), would end the sharing of the others at a time of its own.
	 */
	CHECK(!madvise(cow, COW_PAGES * PAGE, MADV_NOHUGEPAGE), "madvise: %s",
	      strerror(errno));
	cow_stamp(0, COW_PAGES, 1);
	x = fork();
	if (!x) {
		cow_member(ctr, 0, 0, 1, 4, "X");
		exit(0);
	}
	y = fork();
	if (!y) {
		cow_stamp(0, COW_PAGES / 2, 2);
		cow_member(ctr, 0, COW_PAGES / 2, 2, 5, "Y");
		exit(0);
	}
	z = fork();
	if (!z) {
		g = fork();
		if (!g) {
			cow_stamp(COW_PAGES * 3 / 4, COW_PAGES, 3);
			cow_member(ctr, COW_PAGES * 3 / 4, COW_PAGES, 3, 7, "G");
			exit(0);
		}
		CHECK(g > 0 && write(p[1], &g, sizeof(g)) == sizeof(g), "fork G: %s",
		      strerror(errno));
		cow_member(ctr, 0, 0, 1, 6, "Z");
		cow_reap(g, "G");
		exit(0);
	}
	CHECK(x > 0 && y > 0 && z > 0 && read(p[0], &g, sizeof(g)) == sizeof(g),
	      "fork: %s", strerror(errno));
	close(p[0]);
	close(p[1]);
	while (__atomic_load_n(ctr, __ATOMIC_SEQ_CST) < 4)
		usleep(10000);
	printf("ready %d %d %d %d %d\n", getpid(), x, y, z, g);
	fflush(stdout);
	wait_go();
	cow_reap(x, "X");
	cow_reap(y, "Y");
	cow_reap(z, "Z");
	cow_check(0, COW_PAGES, 1, "root");
	cow_stamp(0, COW_PAGES, 8);
	cow_check(0, COW_PAGES, 8, "root");
	printf("cow ok\n");
	exit(0);
}

int main(int argc, char **argv)
{
	char path[300], text[4096];
	int p[2], sa, sb;
	pid_t a, b;

	CHECK(argc == 2 || argc == 3,
	      "usage: ckpt-tree DIR [zombies|orphans|workers|clone|unix|cow]");
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	if (argc == 3 && !strcmp(argv[2], "clone"))
		clones();
	if (argc == 3 && !strcmp(argv[2], "unix"))
		unix_pairs();
	if (argc == 3 && !strcmp(argv[2], "cow"))
		cows();
	if (argc == 3 && !strcmp(argv[2], "zombies"))
		zombies();
	if (argc == 3 && !strcmp(argv[2], "orphans")) {
		snprintf(path, sizeof(path), "%s/log", dir);
		logfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		CHECK(logfd >= 0, "%s: %s", path, strerror(errno));
		orphans();
	}
	if (argc == 3)
		workers();
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	snprintf(path, sizeof(path), "%s/log", dir);
	CHECK(setsid() > 0, "setsid: %s", strerror(errno));
	logfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(logfd >= 0 && pipe(p) == 0, "%s: %s", path, strerror(errno));
	ids("R", "start");
	a = fork();
	if (!a) {
		close(p[0]);
		producer(p[1]);
	}
	b = fork();
	if (!b) {
		close(p[1]);
		consumer(p[0]);
	}
	CHECK(a > 0 && b > 0, "fork: %s", strerror(errno));
	close(p[0]);
	close(p[1]);
	do {
		usleep(10000);
		memset(text, 0, sizeof(text));
		CHECK(pread(logfd, text, sizeof(text) - 1, 0) >= 0, "read log");
	} while (!strstr(text, "A mid\n") || !strstr(text, "B mid\n"));
	printf("ready %d %d %d\n", getpid(), a, b);
	fflush(stdout);
	CHECK(waitpid(a, &sa, 0) == a && waitpid(b, &sb, 0) == b, "wait: %s",
	      strerror(errno));
	ids("R", "end");
	check_log(sa, sb);
	printf("tree ok\n");
	return 0;
}
