// SPDX-License-Identifier: GPL-2.0
/*
 * Checkpoints that race each other.
 *
 * ckpt-stress twice PID ROUNDS: in each round two threads checkpoint PID
 * at once; both must succeed with whole images (the tail's checksum).
 * ckpt-stress readers PID N ROUNDS: in each round N threads read
 * /proc/PID/checkpoint at once; every image must be whole.
 * ckpt-stress busy PID ROUNDS EVERY DIR: ROUNDS checkpoints of PID in a
 * row, each whole; every EVERY-th is kept as DIR/img.N. One that fails
 * with EAGAIN (a thread exited while the process was being held) is
 * taken again.
 * ckpt-stress attach PID ROUNDS: ROUNDS checkpoints of PID, each whole,
 * while a thread attaches to PID with ptrace and detaches, in a loop.
 * ckpt-stress killreader PID ROUNDS: ROUNDS times, a child reads
 * /proc/PID/checkpoint and is SIGKILLed after 0 to 2 ms; then one more
 * checkpoint, which must be whole (the target was let go every time).
 *
 * Prints "ok ROUNDS images IMAGES" when all went well.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/ckpt.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ckpt.h"
#include "ckpt-image.h"

struct job {
	pid_t pid;
	int proc;
	int fd;
	long ret;
	int err;
};

static int images;

/* The image in @fd ends with a TAIL record whose checksum is right. */
static void check_whole(int fd, const char *what)
{
	off_t size = lseek(fd, 0, SEEK_END);
	uint8_t *img;
	struct ckpt_tail *t;
	size_t off = 0;

	CHECK(size > 0, "%s: empty image", what);
	img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(img != MAP_FAILED, "%s: mmap: %m", what);
	t = (struct ckpt_tail *)ckpt_find_rec(img, size, CKPT_TAIL, &off);
	CHECK(t && off == (size_t)size && t->checksum == ckpt_tail_sum(img, t),
	      "%s: torn image (%lld bytes)", what, (long long)size);
	munmap(img, size);
	images++;
}

static void *run(void *arg)
{
	struct job *j = arg;
	char path[64], buf[65536];
	ssize_t n;
	int in;

	if (!j->proc) {
		j->ret = sys_checkpoint(j->pid, j->fd, 0);
		j->err = errno;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/checkpoint", j->pid);
	in = open(path, O_RDONLY);
	j->ret = in;
	j->err = errno;
	if (in < 0)
		return NULL;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(j->fd, buf, n) == n, "write: %m");
	j->ret = n;
	j->err = errno;
	close(in);
	return NULL;
}

static void together(pid_t pid, int n, int proc, int rounds)
{
	struct job j[16];
	pthread_t th[16];
	int r, i;

	CHECK(n > 0 && n <= 16, "1 to 16 at once");
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			j[i] = (struct job){ .pid = pid, .proc = proc };
			j[i].fd = memfd_create("img", 0);
			CHECK(j[i].fd >= 0, "memfd: %m");
			CHECK(!pthread_create(&th[i], NULL, run, &j[i]), "pthread_create");
		}
		for (i = 0; i < n; i++) {
			pthread_join(th[i], NULL);
			CHECK(j[i].ret >= 0, "round %d, job %d: %s", r, i,
			      strerror(j[i].err));
			check_whole(j[i].fd, "image");
			close(j[i].fd);
		}
	}
}

static void busy(pid_t pid, int rounds, int every, const char *dir)
{
	char path[4096];
	int r, fd, tries;

	for (r = 0; r < rounds; r++) {
		if (!dir || r % every) {
			fd = memfd_create("img", 0);
		} else {
			snprintf(path, sizeof(path), "%s/img.%d", dir, r);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		}
		CHECK(fd >= 0, "image %d: %m", r);
		for (tries = 0; sys_checkpoint(pid, fd, 0) <= 0; tries++)
			CHECK(errno == EAGAIN && tries < 1000 && !ftruncate(fd, 0) &&
			      !lseek(fd, 0, SEEK_SET), "checkpoint %d: %m", r);
		check_whole(fd, "image");
		close(fd);
	}
}

static volatile int stop;

static void *attacher(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	long n = 0;
	int st;

	while (!stop) {
		CHECK(!ptrace(PTRACE_ATTACH, pid, 0, 0), "attach: %m");
		CHECK(waitpid(pid, &st, __WALL) == pid && WIFSTOPPED(st),
		      "wait for the tracee: %m");
		CHECK(!ptrace(PTRACE_DETACH, pid, 0, 0), "detach: %m");
		n++;
	}
	return (void *)n;
}

static void attach(pid_t pid, int rounds)
{
	pthread_t th;
	void *n;

	CHECK(!pthread_create(&th, NULL, attacher, &pid), "pthread_create");
	busy(pid, rounds, 1, NULL);
	stop = 1;
	pthread_join(th, &n);
	CHECK((long)n > 0, "no attach made");
}

static void killreader(pid_t pid, int rounds)
{
	char path[64], buf[4096];
	int r, st;
	pid_t c;

	snprintf(path, sizeof(path), "/proc/%d/checkpoint", pid);
	for (r = 0; r < rounds; r++) {
		c = fork();
		CHECK(c >= 0, "fork: %m");
		if (c == 0) {
			int in = open(path, O_RDONLY);

			while (in >= 0 && read(in, buf, sizeof(buf)) > 0)
				;
			_exit(0);
		}
		usleep(r % 2000);
		kill(c, SIGKILL);
		CHECK(waitpid(c, &st, 0) == c, "waitpid: %m");
	}
	busy(pid, 1, 1, NULL);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "twice"))
		together(atoi(argv[2]), 2, 0, atoi(argv[3]));
	else if (argc == 5 && !strcmp(argv[1], "readers"))
		together(atoi(argv[2]), atoi(argv[3]), 1, atoi(argv[4]));
	else if (argc == 6 && !strcmp(argv[1], "busy"))
		busy(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	else if (argc == 4 && !strcmp(argv[1], "attach"))
		attach(atoi(argv[2]), atoi(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "killreader"))
		killreader(atoi(argv[2]), atoi(argv[3]));
	else {
		fprintf(stderr, "usage: ckpt-stress twice PID ROUNDS | readers PID N ROUNDS | busy PID ROUNDS EVERY DIR |\n"
			"       attach PID ROUNDS | killreader PID ROUNDS\n");
		return 2;
	}
	printf("ok images %d\n", images);
	return 0;
}
