// SPDX-License-Identifier: GPL-2.0
/*
 * bench-time: high-resolution timing for make bench, in ns.
 *   bench-time [-o OUT] [-e ERR] CMD [ARGS...]
 *       run CMD (stdout to OUT, stderr to ERR when given), then print
 *       "T0 T1 R0": CLOCK_MONOTONIC before the fork and after the wait, and
 *       CLOCK_REALTIME at T0; exit with CMD's status
 *   bench-time -w FILE TEXT
 *       open FILE, write TEXT in one write() and close it (as the shell's
 *       `echo TEXT > FILE` does, without the newline); print "T0 T1 R0"
 *   bench-time -n
 *       print the current CLOCK_MONOTONIC and CLOCK_REALTIME
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include "ckpt.h"

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-time [-o OUT] [-e ERR] CMD [ARGS...] | -w FILE TEXT | -n\n");
	exit(2);
}

static void redirect(const char *path, int to)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || dup2(fd, to) < 0) {
		fprintf(stderr, "bench-time: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *err = NULL;
	long long t0, t1, r0;
	int i = 1, fd, st;
	ssize_t n;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "-n")) {
		t0 = now_ns(CLOCK_MONOTONIC);
		printf("%lld %lld\n", t0, now_ns(CLOCK_REALTIME));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "-w")) {
		size_t len = strlen(argv[3]);

		r0 = now_ns(CLOCK_REALTIME);
		t0 = now_ns(CLOCK_MONOTONIC);
		fd = open(argv[2], O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "bench-time: open %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		n = write(fd, argv[3], len);
		if (n != (ssize_t)len) {
			fprintf(stderr, "bench-time: write %s to %s: %s\n", argv[3], argv[2],
				n < 0 ? strerror(errno) : "short write");
			return 1;
		}
		close(fd);
		t1 = now_ns(CLOCK_MONOTONIC);
		printf("%lld %lld %lld\n", t0, t1, r0);
		return 0;
	}
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-o"))
			out = argv[i + 1];
		else if (!strcmp(argv[i], "-e"))
			err = argv[i + 1];
		else
			usage();
	}
	if (i >= argc)
		usage();
	fflush(stdout);
	r0 = now_ns(CLOCK_REALTIME);
	t0 = now_ns(CLOCK_MONOTONIC);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (out)
			redirect(out, 1);
		if (err)
			redirect(err, 2);
		execvp(argv[i], argv + i);
		fprintf(stderr, "bench-time: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	t1 = now_ns(CLOCK_MONOTONIC);
	printf("%lld %lld %lld\n", t0, t1, r0);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "bench-time: %s killed by signal %d\n", argv[i], WTERMSIG(st));
	return 128 + WTERMSIG(st);
}
