// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-race kill|reap ROUNDS: a checkpoint whose target dies under it.
 * ckpt-race exec ROUNDS SUID [proc|threads]: a checkpoint whose target execs
 * a setuid program, taken with checkpoint() or read from /proc/PID/checkpoint;
 * "threads": the target has a second thread, which the exec ends.
 * ckpt-race shared MIB: print "ready", then pause with MIB MiB of shared
 * anonymous memory written (a checkpoint holds it until they are saved).
 * ckpt-race holdproc PID GOFILE: open /proc/PID/checkpoint, print "ready",
 * wait for GOFILE, read the image and print "image BYTES" or "error ERRNO".
 * ckpt-race hold PID GOFILE: hold PID with a checkpoint that blocks on a
 * full pipe (PID must have shared memory, which is written while it is
 * held); print "ready", wait for GOFILE, drain, print "held RET".
 * ckpt-race vfork: print "ready PID", vfork() a child that pauses: the
 * parent never returns to user mode.
 * ckpt-race opens PID N: open and close /proc/PID/checkpoint N times,
 * then print how many checkpoint threads are left ("threads N").
 *
 * Each round forks a child that pauses with a written page of shared
 * anonymous memory (mapped before the fork), fills a pipe shrunk to one
 * page, and from a thread calls checkpoint(child, pipe), which parks the
 * child and then blocks on the full pipe: the contents of shared memory
 * are written while the child is held (its other records are kept in
 * memory, and would be written only once it runs again). The child is SIGKILLed (and, for "reap",
 * reaped) while the checkpoint waits; then the pipe is drained.
 * The checkpoint must fail with ESRCH: the child died before its state
 * was complete. Prints "ok ROUNDS" when every round did.
 *
 * In "exec" rounds the child execs SUID (a setuid-root copy of ckpt-wait:
 * "SUID sleep 100000") while the checkpoint is being called, a little
 * later each round. An image the checkpoint returns must be of the child
 * before its exec (euid not 0); after it, the checkpoint must fail with
 * EPERM. Prints "ok ROUNDS images N refused M". With "threads", the exec
 * may also meet the checkpoint while it holds the threads one by one:
 * EAGAIN (counted as refused), never a hang.
 */
#define EXEC_SYSCALL	0
#define EXEC_PROC	1
#define EXEC_THREADS	2
/*
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/ckpt.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "ckpt.h"

struct round {
	pid_t child;
	int wfd;
	long ret;
	int err;
};

static void *ckpt_thread(void *arg)
{
	struct round *r = arg;

	r->ret = sys_checkpoint(r->child, r->wfd, 0);
	r->err = errno;
	return NULL;
}

static void fill(int fd)
{
	char buf[4096];

	memset(buf, 'x', sizeof(buf));
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK: %m");
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	CHECK(errno == EAGAIN, "fill: %m");
	CHECK(fcntl(fd, F_SETFL, 0) == 0, "blocking: %m");
}

/* Read until the checkpoint thread has returned and the pipe is empty. */
static void drain(int fd, struct round *r, pthread_t th)
{
	char buf[65536];

	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK: %m");
	while (pthread_tryjoin_np(th, NULL)) {
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			FAIL("drain: %m");
		usleep(1000);
	}
}

static void one_round(int i, int reap)
{
	struct round r = { 0 };
	pthread_t th;
	int p[2], status;
	char *shared;

	CHECK(pipe(p) == 0, "pipe: %m");
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 4096) == 4096, "F_SETPIPE_SZ: %m");
	fill(p[1]);
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	CHECK(shared != MAP_FAILED, "mmap: %m");
	shared[0] = 1;
	r.child = fork();
	CHECK(r.child >= 0, "fork: %m");
	if (!r.child) {
		for (;;)
			pause();
	}
	r.wfd = p[1];
	CHECK(!pthread_create(&th, NULL, ckpt_thread, &r), "pthread_create");
	usleep(20000);	/* the checkpoint parks the child, then blocks */
	CHECK(kill(r.child, SIGKILL) == 0, "kill: %m");
	if (reap)
		CHECK(waitpid(r.child, &status, 0) == r.child, "waitpid: %m");
	else
		usleep(5000);
	drain(p[0], &r, th);
	if (!reap)
		CHECK(waitpid(r.child, &status, 0) == r.child, "waitpid: %m");
	CHECK(r.ret == -1 && r.err == ESRCH,
	      "round %d: checkpoint of a killed child returned %ld (%s)",
	      i, r.ret, strerror(r.err));
	munmap(shared, 4096);
	close(p[0]);
	close(p[1]);
}

/* The effective uid in the CREDS record of the image in @fd. */
static unsigned int image_euid(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END), off = 0;
	char *img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	struct ckpt_hdr *h;
	unsigned int euid;

	CHECK(img != MAP_FAILED, "mmap image: %m");
	for (; off + (off_t)sizeof(*h) <= size; off += h->len) {
		h = (struct ckpt_hdr *)(img + off);
		CHECK(h->len >= sizeof(*h) && off + h->len <= size, "bad record");
		if (h->type == CKPT_CREDS) {
			euid = ((struct ckpt_creds *)h)->euid;
			munmap(img, size);
			return euid;
		}
	}
	FAIL("no CREDS record");
}

/* Checkpoint @pid into @fd through /proc: 0 or -1 with errno set. */
static long proc_checkpoint(pid_t pid, int fd)
{
	char path[64], buf[65536];
	ssize_t n;
	int in;

	snprintf(path, sizeof(path), "/proc/%d/checkpoint", pid);
	in = open(path, O_RDONLY);
	if (in < 0)
		return errno == EACCES ? (errno = EPERM, -1) : -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(fd, buf, n) == n, "write image: %m");
	close(in);
	return n ? -1 : 1;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The child of an exec round: with a second thread, exec a little later. */
static void exec_child(int i, const char *suid, int mode)
{
	pthread_t th;

	dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
	if (mode == EXEC_THREADS) {
		CHECK(!pthread_create(&th, NULL, sleeper, NULL), "pthread_create");
		usleep((i % 7) * 100);
	}
	execl(suid, suid, "sleep", "100000", (char *)NULL);
	_exit(127);
}

static void exec_rounds(int n, const char *suid, int mode)
{
	int i, fd, status, images = 0, refused = 0;
	unsigned int euid;
	pid_t child;
	long ret;

	for (i = 0; i < n; i++) {
		child = fork();
		CHECK(child >= 0, "fork: %m");
		if (!child)
			exec_child(i, suid, mode);
		fd = memfd_create("img", MFD_CLOEXEC);
		CHECK(fd >= 0, "memfd_create: %m");
		usleep((i % 25) * (mode == EXEC_THREADS ? 40 : 200));
		ret = mode == EXEC_PROC ? proc_checkpoint(child, fd) :
					  sys_checkpoint(child, fd, 0);
		CHECK(ret > 0 || errno == EPERM || (mode == EXEC_THREADS && errno == EAGAIN),
		      "round %d: %m", i);
		if (ret > 0) {
			euid = image_euid(fd);
			CHECK(euid, "round %d: an image of the setuid program (euid 0)", i);
			images++;
		} else {
			refused++;
		}
		kill(child, SIGKILL);
		CHECK(waitpid(child, &status, 0) == child, "waitpid: %m");
		close(fd);
	}
	printf("ok %d images %d refused %d\n", n, images, refused);
}

static void shared(long mib)
{
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap: %m");
	memset(p, 's', mib << 20);
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}

static void holdproc(pid_t pid, const char *go)
{
	char path[64], buf[65536];
	long total = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/checkpoint", pid);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "%s: %m", path);
	ready_then_wait(go);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		printf("error %d\n", errno);
	else
		printf("image %ld\n", total);
}

static void hold(pid_t pid, const char *go)
{
	struct round r = { .child = pid };
	pthread_t th;
	int p[2];

	CHECK(pipe(p) == 0, "pipe: %m");
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 4096) == 4096, "F_SETPIPE_SZ: %m");
	fill(p[1]);
	r.wfd = p[1];
	CHECK(!pthread_create(&th, NULL, ckpt_thread, &r), "pthread_create");
	usleep(100000);
	ready_then_wait(go);
	drain(p[0], &r, th);
	printf("held %ld\n", r.ret < 0 ? -r.err : r.ret);
}

/* Kernel threads named ckpt/PID. */
static int ckpt_threads(pid_t pid)
{
	char path[300], comm[32], want[32];
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc");
	FILE *f;

	CHECK(dir, "/proc: %m");
	snprintf(want, sizeof(want), "ckpt/%d\n", pid);
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

static void opens(pid_t pid, int n)
{
	char path[64];
	int i, fd;

	snprintf(path, sizeof(path), "/proc/%d/checkpoint", pid);
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0, "open %d: %m", i);
		close(fd);
	}
	for (i = 0; i < 100 && ckpt_threads(pid); i++)
		usleep(10000);
	printf("threads %d\n", ckpt_threads(pid));
}

int main(int argc, char **argv)
{
	int i, n, reap;

	if (argc == 4 && !strcmp(argv[1], "exec")) {
		exec_rounds(atoi(argv[2]), argv[3], EXEC_SYSCALL);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "exec") &&
	    (!strcmp(argv[4], "proc") || !strcmp(argv[4], "threads"))) {
		exec_rounds(atoi(argv[2]), argv[3],
			    strcmp(argv[4], "proc") ? EXEC_THREADS : EXEC_PROC);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "shared"))
		shared(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "holdproc")) {
		holdproc(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "hold")) {
		hold(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "opens")) {
		opens(atoi(argv[2]), atoi(argv[3]));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "vfork")) {
		printf("ready %d\n", getpid());
		fflush(stdout);
		if (!vfork())
			for (;;)
				pause();
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "kill") && strcmp(argv[1], "reap"))) {
		fprintf(stderr, "usage: ckpt-race kill|reap ROUNDS | exec ROUNDS SUID [proc|threads] | shared MIB | hold PID GOFILE | holdproc PID GOFILE | vfork | opens PID N\n");
		return 2;
	}
	reap = !strcmp(argv[1], "reap");
	n = atoi(argv[2]);
	for (i = 0; i < n; i++)
		one_round(i, reap);
	printf("ok %d\n", n);
	return 0;
}
