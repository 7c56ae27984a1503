// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-epollfd GOFILE: an epoll at fd 3 whose items are keyed by files
 * that moved: pipe A's read end added as fd 4, then moved to fd 10 (fd 4
 * closed); pipe B's read end added as fd 6, then moved to fd 11, and pipe
 * C's read end put at fd 6 and added there too. Each pipe has a byte in
 * it. Prints "ready", waits for GOFILE, then checks the items (the epoll's
 * fdinfo: descriptor, data and the watched pipe's inode), that all three
 * are ready, that fd 4 is closed, that each item goes quiet once its byte
 * is read and that closing A's last descriptor removes its item; prints
 * "epollfd ok".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include "ckpt.h"

struct item {
	int tfd;
	unsigned long long data;
	unsigned long ino;
};

static unsigned long ino_of(int fd)
{
	struct stat st;

	CHECK(!fstat(fd, &st), "fstat %d: %m", fd);
	return st.st_ino;
}

static int read_items(struct item *it, int max)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/self/fdinfo/3", "r");

	CHECK(f, "fdinfo: %m");
	while (fgets(line, sizeof(line), f)) {
		const char *ino = strstr(line, "ino:");

		if (strncmp(line, "tfd:", 4) || !ino)
			continue;
		CHECK(n < max, "too many items");
		CHECK(sscanf(line, "tfd: %d events: %*x data: %llx", &it[n].tfd,
			     &it[n].data) == 2 && sscanf(ino, "ino:%lx", &it[n].ino) == 1,
		      "fdinfo line: %s", line);
		n++;
	}
	fclose(f);
	return n;
}

static void has_item(const struct item *it, int n, int tfd,
		     unsigned long long data, unsigned long ino)
{
	int i;

	for (i = 0; i < n; i++)
		if (it[i].tfd == tfd && it[i].data == data && it[i].ino == ino)
			return;
	FAIL("no epoll item for fd %d, data %#llx, inode %lu", tfd, data, ino);
}

static void check(int nr)
{
	struct epoll_event ev[8];
	struct item it[8];
	unsigned long long seen = 0;
	int n, i;

	n = read_items(it, 8);
	CHECK(n == nr, "%d epoll items, expected %d", n, nr);
	if (nr == 3)
		has_item(it, n, 4, 0x44, ino_of(10));
	has_item(it, n, 6, 0x66, ino_of(11));
	has_item(it, n, 6, 0x99, ino_of(6));
	CHECK(fcntl(4, F_GETFD) < 0 && errno == EBADF, "fd 4 is open");
	n = epoll_wait(3, ev, 8, 0);
	CHECK(n == nr, "%d ready, expected %d", n, nr);
	for (i = 0; i < n; i++) {
		CHECK(ev[i].events == EPOLLIN, "events %#x", ev[i].events);
		seen |= 1ULL << (ev[i].data.u64 & 63);
	}
	CHECK(seen == ((nr == 3 ? 1ULL << (0x44 & 63) : 0) | 1ULL << (0x66 & 63) |
		       1ULL << (0x99 & 63)), "ready items %#llx", seen);
}

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int a[2], b[2], c[2];
	char x;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-epollfd GOFILE\n");
		return 2;
	}
	CHECK(epoll_create1(0) == 3 && !pipe(a) && a[0] == 4 && !pipe(b) &&
	      b[0] == 6 && !pipe(c) && c[0] == 8, "setup: %m");
	ev.data.u64 = 0x44;
	CHECK(!epoll_ctl(3, EPOLL_CTL_ADD, 4, &ev), "add 4: %m");
	ev.data.u64 = 0x66;
	CHECK(!epoll_ctl(3, EPOLL_CTL_ADD, 6, &ev), "add 6: %m");
	CHECK(dup2(4, 10) == 10 && !close(4), "move A: %m");
	CHECK(dup2(6, 11) == 11 && dup2(8, 6) == 6 && !close(8), "move B, C: %m");
	ev.data.u64 = 0x99;
	CHECK(!epoll_ctl(3, EPOLL_CTL_ADD, 6, &ev), "add C at 6: %m");
	CHECK(write(a[1], "a", 1) == 1 && write(b[1], "b", 1) == 1 &&
	      write(c[1], "c", 1) == 1, "write: %m");
	check(3);
	ready_then_wait(argv[1]);
	check(3);
	CHECK(read(10, &x, 1) == 1 && x == 'a' && read(11, &x, 1) == 1 &&
	      x == 'b' && read(6, &x, 1) == 1 && x == 'c', "read: %m");
	CHECK(epoll_wait(3, &ev, 1, 0) == 0, "still ready");
	CHECK(write(a[1], "a", 1) == 1 && write(b[1], "b", 1) == 1 &&
	      write(c[1], "c", 1) == 1, "write: %m");
	close(10);	/* A's last descriptor: its item goes */
	check(2);
	printf("epollfd ok\n");
	return 0;
}
