// SPDX-License-Identifier: GPL-2.0
/*
 * Walk every allocation of a checkpoint or a restart with fail-nth: for
 * n = 1, 2, ... make the n-th allocation of the call fail
 * (/proc/thread-self/fail-nth) until the call gets through without
 * reaching an n-th one.
 *
 * ckpt-failnth checkpoint PID MAX: checkpoint(PID) into a memfd; each
 * call whose allocation failed must fail with an errno (or get through
 * by another way) and leave PID running (state S or R, not stopped).
 *
 * ckpt-failnth restart IMAGE MAX: in a child, restart(IMAGE); a call
 * whose allocation failed before the point of no return must return an
 * errno, one after it kills the child; a restart that got through is
 * stopped before it runs the image's code, its count read, and killed.
 *
 * Prints "POINTS points: errno NAME xN ..., got through N, killed N" and
 * exits 0 when the call finally got through with no failure reached.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "ckpt.h"

static int hist[256], through, killed;

static void knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	CHECK(fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val),
	      "%s: %m", path);
	close(fd);
}

/*
 * Fail GFP_KERNEL allocations too, quietly (no stack per failure). Single
 * pages are left alone: one per page of the process, they would make the
 * walk as long as the process is large, through the same few paths.
 */
static void setup(void)
{
	knob("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/failslab/verbose", "0");
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N");
	knob("/sys/kernel/debug/fail_page_alloc/min-order", "1");
	knob("/sys/kernel/debug/fail_page_alloc/verbose", "0");
}

/*
 * The fail-nth file of a task, opened once: opening it after the call
 * would itself allocate, and take the failure the call did not reach.
 */
static int nth_file(pid_t tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/fail-nth", tid, tid);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0, "%s: %m", path);
	return fd;
}

static void set_nth(int fd, unsigned int n)
{
	char val[16];
	int len = snprintf(val, sizeof(val), "%u", n);

	CHECK(pwrite(fd, val, len, 0) == len, "fail-nth: %m");
}

/* what is left of the count: 0 once the failure was injected */
static unsigned int get_nth(int fd)
{
	char val[16] = "";

	CHECK(pread(fd, val, sizeof(val) - 1, 0) > 0, "fail-nth: %m");
	return atoi(val);
}

static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "target %d is gone", pid);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	CHECK(n > 0, "stat: %m");
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

static void report(int n)
{
	int e;

	printf("%d points:", n - 1);
	for (e = 1; e < 256; e++)
		if (hist[e])
			printf(" errno %s x%d,", strerrorname_np(e), hist[e]);
	printf(" got through %d, killed %d\n", through, killed);
}

static void walk_checkpoint(pid_t pid, int max)
{
	int nth = nth_file(gettid());
	int n, fd, left;
	long ret;

	for (n = 1; n <= max; n++) {
		fd = memfd_create("img", 0);
		CHECK(fd >= 0, "memfd: %m");
		set_nth(nth, n);
		ret = sys_checkpoint(pid, fd, 0);
		left = get_nth(nth);
		set_nth(nth, 0);
		close(fd);
		CHECK(strchr("SR", proc_state(pid)), "n=%d: target left in state %c",
		      n, proc_state(pid));
		if (left) {
			CHECK(ret > 0, "n=%d: no failure injected, yet: %m", n);
			report(n);
			return;
		}
		if (ret > 0)
			through++;
		else
			hist[errno & 255]++;
	}
	FAIL("more than %d points", max);
}

/*
 * One restart with its n-th allocation failing. Returns 1 once a restart
 * got through with nothing injected.
 */
static int restart_once(const char *img, int n)
{
	int p[2], status, err = 0, left, nth;
	pid_t child;
	ssize_t got;

	CHECK(!pipe2(p, 0), "pipe: %m");
	child = fork();
	CHECK(child >= 0, "fork: %m");
	if (!child) {
		int fd = open(img, O_RDONLY), nth = nth_file(gettid());

		close(p[0]);
		CHECK(fd >= 0, "%s: %m", img);
		set_nth(nth, n);
		sys_restart(0, fd, 0);
		err = errno;
		left = get_nth(nth);
		set_nth(nth, 0);
		err |= !left << 16;
		CHECK(write(p[1], &err, sizeof(err)) == sizeof(err), "pipe: %m");
		_exit(0);
	}
	close(p[1]);
	/* an errno, or EOF: past the point of no return the fds are the image's */
	got = read(p[0], &err, sizeof(err));
	close(p[0]);
	if (got == sizeof(err)) {
		CHECK(waitpid(child, &status, 0) == child, "waitpid: %m");
		CHECK(err >> 16, "n=%d: restart failed with %s, nothing injected",
		      n, strerror(err & 255));
		hist[err & 255]++;
		return 0;
	}
	/*
	 * Past the point of no return: stopped before it runs the image's
	 * code (which would use up the count), or killed by a failure.
	 */
	kill(child, SIGSTOP);
	CHECK(waitpid(child, &status, WUNTRACED) == child, "waitpid: %m");
	if (WIFSIGNALED(status)) {
		CHECK(WTERMSIG(status) == SIGKILL, "n=%d: restart ended with status %#x",
		      n, status);
		killed++;
		return 0;
	}
	CHECK(WIFSTOPPED(status), "n=%d: restart ended with status %#x", n, status);
	nth = nth_file(child);
	left = get_nth(nth);
	close(nth);
	kill(child, SIGKILL);
	CHECK(waitpid(child, &status, 0) == child, "waitpid: %m");
	if (left)
		return 1;
	through++;
	return 0;
}

static void walk_restart(const char *img, int max)
{
	int n;

	for (n = 1; n <= max; n++)
		if (restart_once(img, n)) {
			report(n);
			return;
		}
	FAIL("more than %d points", max);
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "checkpoint") && strcmp(argv[1], "restart"))) {
		fprintf(stderr, "usage: ckpt-failnth checkpoint PID MAX | restart IMAGE MAX\n");
		return 2;
	}
	setup();
	if (!strcmp(argv[1], "checkpoint"))
		walk_checkpoint(atoi(argv[2]), atoi(argv[3]));
	else
		walk_restart(argv[2], atoi(argv[3]));
	return 0;
}
