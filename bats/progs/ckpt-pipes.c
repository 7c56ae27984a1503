// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-pipes DIR GOFILE: hold pipes with data in them: both ends of one
 * (fds 3, 4), only the read end of another whose writer is gone (fd 5),
 * a 128 KiB pipe holding 100 KiB with a non-blocking write end (fds 6, 7)
 * opened again through /proc/self/fd/7, blocking, at fd 9, and a FIFO
 * DIR/fifo open read-write (fd 8). Prints "ready", waits for
 * GOFILE, checks every byte, size and flag, that the process owns the
 * pipes, and prints "pipes ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include "ckpt.h"

#define BIG	(100 << 10)

static char big[BIG], buf[BIG + 1];

static void expect(int fd, const char *data, size_t len)
{
	ssize_t n = read(fd, buf, sizeof(buf));

	CHECK(n == (ssize_t)len && !memcmp(buf, data, len),
	      "fd %d: read %zd bytes, expected %zu", fd, n, len);
}

static void check(void)
{
	struct stat st;

	CHECK(!fstat(3, &st) && st.st_uid == geteuid() && (st.st_mode & 0777) == 0600,
	      "pipe owner %d mode %o", st.st_uid, st.st_mode & 0777);
	CHECK(fcntl(4, F_SETFL, O_NONBLOCK) == 0, "setfl");
	expect(3, "hello pipe", 10);
	CHECK(write(4, "more", 4) == 4, "write 4");
	expect(3, "more", 4);
	expect(5, "only", 4);
	expect(5, "", 0);			/* the writer is gone: EOF */
	CHECK(fcntl(6, F_GETPIPE_SZ) == 128 << 10, "pipe size %d",
	      fcntl(6, F_GETPIPE_SZ));
	CHECK((fcntl(7, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) ==
	      (O_WRONLY | O_NONBLOCK), "fd 7 flags %#x", fcntl(7, F_GETFL));
	CHECK((fcntl(6, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) == O_RDONLY,
	      "fd 6 flags %#x", fcntl(6, F_GETFL));
	expect(6, big, BIG);
	/* fd 9 is another description of the write end, with its own flags */
	CHECK((fcntl(9, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) == O_WRONLY,
	      "fd 9 flags %#x", fcntl(9, F_GETFL));
	CHECK(write(9, "nine", 4) == 4, "write 9");
	expect(6, "nine", 4);
	CHECK(fcntl(8, F_SETFL, O_NONBLOCK) == 0, "setfl 8");
	expect(8, "fifo data", 9);
}

int main(int argc, char **argv)
{
	char fifo[4096];
	int p[2], i;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-pipes DIR GOFILE\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	CHECK(!pipe(p) && p[0] == 3 && p[1] == 4, "pipe 3 4");
	CHECK(write(4, "hello pipe", 10) == 10, "write");
	CHECK(!pipe(p) && p[0] == 5, "pipe 5");
	CHECK(write(p[1], "only", 4) == 4, "write");
	close(p[1]);
	CHECK(!pipe2(p, 0) && p[0] == 6 && p[1] == 7, "pipe 6 7");
	CHECK(fcntl(7, F_SETPIPE_SZ, 128 << 10) == 128 << 10, "setpipe_sz");
	CHECK(fcntl(7, F_SETFL, O_NONBLOCK) == 0, "setfl");
	for (i = 0; i < BIG; i++)
		big[i] = i * 7 + i / 4096;
	CHECK(write(7, big, BIG) == BIG, "write big");
	snprintf(fifo, sizeof(fifo), "%s/fifo", argv[1]);
	CHECK(!mkfifo(fifo, 0600) && open(fifo, O_RDWR) == 8, "fifo");
	CHECK(write(8, "fifo data", 9) == 9, "write fifo");
	CHECK(open("/proc/self/fd/7", O_WRONLY) == 9, "reopen 7: %s", strerror(errno));
	ready_then_wait(argv[2]);
	check();
	printf("pipes ok\n");
	return 0;
}
