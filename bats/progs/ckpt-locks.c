// SPDX-License-Identifier: GPL-2.0
/*
 * File locks a process holds.
 *
 * ckpt-locks hold FILE GOFILE: open FILE three times and hold a flock()
 *	shared lock (fd 3), POSIX locks, write on bytes 0-9 and read on
 *	100-199 (fd 4, fd 6 a dup of it), and an OFD write lock on bytes
 *	20-29 (fd 5); print "ready", wait for GOFILE, then check from a
 *	child, which has a descriptor table of its own, that each lock is
 *	held as it was and by this process; unlock them all through the
 *	same descriptors (which only their owner can do), check that they
 *	are free, and print "locks ok".
 * ckpt-locks take flock|posix|ofd FILE: hold a lock that conflicts with
 *	one of those, print "ready" and sleep.
 * ckpt-locks restart FILE IMAGE [own]: restart() IMAGE, first taking a
 *	POSIX lock of bytes 1000-1000 of FILE if "own"; when it fails, check
 *	that the restorer holds no lock of the image (and still its own),
 *	and exit with the errno.
 * ckpt-locks lease FILE GOFILE: hold a read lease of FILE at fd 3.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include "ckpt.h"

static void lock(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = start, .l_len = len };

	CHECK(!fcntl(fd, cmd, &fl), "fcntl(%d, %d, %d, %lld+%lld): %s", fd,
	      cmd, type, (long long)start, (long long)len, strerror(errno));
}

/* What F_GETLK or F_OFD_GETLK finds in the way of @type on the range. */
static void in_way(int fd, int cmd, short type, off_t start, off_t len,
		   short want, pid_t pid, off_t wstart, off_t wlen)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = start, .l_len = len };

	CHECK(!fcntl(fd, cmd, &fl), "getlk: %s", strerror(errno));
	CHECK(fl.l_type == want, "bytes %lld+%lld: lock type %d, expected %d",
	      (long long)start, (long long)len, fl.l_type, want);
	if (want == F_UNLCK)
		return;
	CHECK(fl.l_pid == pid && fl.l_start == wstart && fl.l_len == wlen,
	      "bytes %lld+%lld: held by %d at %lld+%lld, expected %d at %lld+%lld",
	      (long long)start, (long long)len, fl.l_pid, (long long)fl.l_start,
	      (long long)fl.l_len, pid, (long long)wstart, (long long)wlen);
}

/* No POSIX lock on the range is the parent's (another process's may be). */
static void not_mine(int fd, off_t start, off_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = start, .l_len = len };

	CHECK(!fcntl(fd, F_GETLK, &fl), "getlk: %s", strerror(errno));
	CHECK(fl.l_type == F_UNLCK || fl.l_pid != getppid(),
	      "bytes %lld+%lld: the restorer kept a lock of the image",
	      (long long)start, (long long)len);
}

/* In a child: whether @holder holds the locks of "hold" (or none). */
static void probe(const char *file, pid_t holder, int held)
{
	pid_t c = fork();
	int st;

	/* opened in the child: closing it here would drop our POSIX locks */
	CHECK(c >= 0, "fork: %s", strerror(errno));
	if (c == 0) {
		int fd = open(file, O_RDWR);

		CHECK(fd >= 0, "open %s: %s", file, strerror(errno));
		CHECK(!flock(fd, LOCK_EX | LOCK_NB) == !held,
		      "flock(LOCK_EX) %s", held ? "got through" : "failed");
		CHECK(!flock(fd, LOCK_SH | LOCK_NB), "flock(LOCK_SH): %s",
		      strerror(errno));
		flock(fd, LOCK_UN);
		if (!held) {
			in_way(fd, F_GETLK, F_WRLCK, 0, 0, F_UNLCK, 0, 0, 0);
			_exit(0);
		}
		in_way(fd, F_GETLK, F_WRLCK, 0, 10, F_WRLCK, holder, 0, 10);
		in_way(fd, F_GETLK, F_WRLCK, 150, 1, F_RDLCK, holder, 100, 100);
		in_way(fd, F_GETLK, F_RDLCK, 100, 100, F_UNLCK, 0, 0, 0);
		in_way(fd, F_OFD_GETLK, F_RDLCK, 25, 1, F_WRLCK, -1, 20, 10);
		in_way(fd, F_GETLK, F_WRLCK, 10, 10, F_UNLCK, 0, 0, 0);
		in_way(fd, F_GETLK, F_WRLCK, 200, 0, F_UNLCK, 0, 0, 0);
		_exit(0);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && !WEXITSTATUS(st),
	      "probe of %s failed", held ? "held locks" : "free locks");
}

static int open_at(const char *file, int want)
{
	int fd = open(file, O_RDWR | O_CREAT, 0644);

	CHECK(fd == want, "open %s at %d: %d", file, want, fd);
	return fd;
}

static int hold(const char *file, const char *go)
{
	int a = open_at(file, 3), b = open_at(file, 4), c = open_at(file, 5);

	CHECK(dup(b) == 6, "dup");
	CHECK(!flock(a, LOCK_SH), "flock: %s", strerror(errno));
	lock(b, F_SETLK, F_WRLCK, 0, 10);
	lock(6, F_SETLK, F_RDLCK, 100, 100);
	lock(c, F_OFD_SETLK, F_WRLCK, 20, 10);
	probe(file, getpid(), 1);
	ready_then_wait(go);
	probe(file, getpid(), 1);
	CHECK(!flock(a, LOCK_UN), "flock(LOCK_UN): %s", strerror(errno));
	lock(6, F_SETLK, F_UNLCK, 0, 0);
	lock(c, F_OFD_SETLK, F_UNLCK, 0, 0);
	probe(file, getpid(), 0);
	printf("locks ok\n");
	return 0;
}

static int take(const char *kind, const char *file)
{
	int fd = open(file, O_RDWR);

	CHECK(fd >= 0, "open %s: %s", file, strerror(errno));
	if (!strcmp(kind, "flock"))
		CHECK(!flock(fd, LOCK_EX), "flock: %s", strerror(errno));
	else if (!strcmp(kind, "posix"))
		lock(fd, F_SETLK, F_WRLCK, 5, 1);
	else
		lock(fd, F_OFD_SETLK, F_WRLCK, 25, 1);
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;)
		pause();
}

static int restart(const char *file, const char *image, int own)
{
	int fd = open(file, O_RDWR), img = open(image, O_RDONLY), err, st;
	pid_t c;

	CHECK(fd >= 0 && img >= 0, "open: %s", strerror(errno));
	if (own)
		lock(fd, F_SETLK, F_WRLCK, 1000, 1);
	CHECK(sys_restart(0, img, 0) < 0, "restart() returned");
	err = errno;
	printf("restart: %s\n", strerror(err));
	fflush(stdout);
	c = fork();
	CHECK(c >= 0, "fork: %s", strerror(errno));
	if (c == 0) {
		int f = open(file, O_RDWR);

		not_mine(f, 0, 10);
		not_mine(f, 100, 100);
		if (own)
			in_way(f, F_GETLK, F_WRLCK, 1000, 1, F_WRLCK, getppid(),
			       1000, 1);
		_exit(0);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && !WEXITSTATUS(st),
	      "the restorer's locks are not as before restart()");
	printf("no lock left\n");
	return err;
}

static int lease(const char *file, const char *go)
{
	int fd = open(file, O_RDONLY);

	CHECK(fd == 3, "open %s: %d", file, fd);
	CHECK(!fcntl(fd, F_SETLEASE, F_RDLCK), "F_SETLEASE: %s", strerror(errno));
	ready_then_wait(go);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "take"))
		return take(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "restart"))
		return restart(argv[2], argv[3], argc == 5);
	if (argc == 4 && !strcmp(argv[1], "lease"))
		return lease(argv[2], argv[3]);
	fprintf(stderr, "usage: ckpt-locks hold FILE GOFILE | take flock|posix|ofd FILE |\n"
		"       restart FILE IMAGE [own] | lease FILE GOFILE\n");
	return 2;
}
