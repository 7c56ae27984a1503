// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-files DIR GOFILE: open a set of descriptors (a file at an offset,
 * dup() and dup2() of it, close-on-exec, O_APPEND, a directory, a second
 * open of the same file, /dev/null, /dev/zero, /dev/console), chdir to
 * DIR/sub, set umask 027, print "ready", wait for GOFILE, then check that
 * every descriptor, the working directory and the umask are as they were,
 * and print "files ok" on its (restored) stdout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "ckpt.h"

static char path[4096];

static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void same_file(int fd, const char *p)
{
	struct stat a, b;

	CHECK(!fstat(fd, &a) && !stat(p, &b), "stat fd %d / %s: %s", fd, p,
	      strerror(errno));
	CHECK(a.st_dev == b.st_dev && a.st_ino == b.st_ino,
	      "fd %d is not %s", fd, p);
}

static void pos_is(int fd, off_t want)
{
	off_t pos = lseek(fd, 0, SEEK_CUR);

	CHECK(pos == want, "fd %d at %lld, expected %lld", fd, (long long)pos,
	      (long long)want);
}

static void flags_are(int fd, int fl, int fdfl)
{
	CHECK((fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK)) == fl,
	      "fd %d status flags %#x, expected %#x", fd, fcntl(fd, F_GETFL), fl);
	CHECK(fcntl(fd, F_GETFD) == fdfl, "fd %d fd flags %d, expected %d", fd,
	      fcntl(fd, F_GETFD), fdfl);
}

static void rdev_is(int fd, unsigned int maj, unsigned int min)
{
	struct stat st;

	CHECK(!fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	      st.st_rdev == makedev(maj, min), "fd %d is not device %u:%u",
	      fd, maj, min);
}

/* exactly the descriptors 0-11 are open */
static void only_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, fd;

	CHECK(d, "opendir: %s", strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		CHECK(fd <= 11 || fd == dirfd(d), "unexpected fd %d", fd);
		n += fd != dirfd(d);
	}
	closedir(d);
	CHECK(n == 12, "%d descriptors, expected 12", n);
}

static void check(const char *dir)
{
	char buf[64], sub[4096];
	int i;

	same_file(3, at(dir, "data"));
	same_file(4, path);
	same_file(9, path);
	same_file(10, path);
	pos_is(3, 5);
	pos_is(9, 2);
	flags_are(3, O_RDWR, 0);
	flags_are(4, O_RDWR, 0);
	flags_are(10, O_RDWR, FD_CLOEXEC);
	flags_are(9, O_RDONLY | O_NONBLOCK, FD_CLOEXEC);
	CHECK(read(4, buf, 2) == 2 && !memcmp(buf, ", ", 2), "read fd 4");
	pos_is(3, 7);			/* one file behind 3, 4 and 10 */
	pos_is(10, 7);
	pos_is(9, 2);			/* another open of it */
	CHECK(read(9, buf, 3) == 3 && !memcmp(buf, "llo", 3), "read fd 9");
	same_file(5, at(dir, "log"));
	flags_are(5, O_WRONLY | O_APPEND, 0);
	CHECK(write(5, "b", 1) == 1, "write fd 5");
	pos_is(5, 2);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	same_file(6, sub);
	flags_are(6, O_RDONLY, 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, sub), "cwd %s, expected %s",
	      buf, sub);
	CHECK(umask(0) == 027, "umask");
	rdev_is(7, 1, 3);
	flags_are(7, O_WRONLY, 0);
	CHECK(write(7, "x", 1) == 1, "write /dev/null");
	rdev_is(8, 1, 5);
	CHECK(read(8, buf, 8) == 8, "read /dev/zero");
	for (i = 0; i < 8; i++)
		CHECK(!buf[i], "/dev/zero gave %d", buf[i]);
	rdev_is(11, 5, 1);
	only_fds();
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-files DIR GOFILE\n");
		return 255;
	}
	close_range(3, ~0U, 0);	/* whatever the test harness left open */
	fd = open(at(argv[1], "data"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd == 3, "data fd %d", fd);
	CHECK(write(3, "hello, world", 12) == 12 && lseek(3, 5, SEEK_SET) == 5,
	      "data");
	CHECK(dup(3) == 4, "dup");
	CHECK(open(at(argv[1], "log"), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC,
		   0644) == 5, "log");
	CHECK(write(5, "a", 1) == 1, "log write");
	CHECK(mkdir(at(argv[1], "sub"), 0755) == 0 && chdir(path) == 0, "sub");
	CHECK(open(".", O_RDONLY | O_DIRECTORY) == 6, "dir");
	CHECK(open("/dev/null", O_WRONLY) == 7, "null");
	CHECK(open("/dev/zero", O_RDONLY) == 8, "zero");
	CHECK(open(at(argv[1], "data"), O_RDONLY | O_NONBLOCK | O_CLOEXEC) == 9,
	      "data again");
	CHECK(lseek(9, 2, SEEK_SET) == 2, "seek 9");
	CHECK(dup2(3, 10) == 10 && fcntl(10, F_SETFD, FD_CLOEXEC) == 0, "dup2");
	CHECK(open("/dev/console", O_RDONLY | O_NOCTTY) == 11, "console");
	umask(027);
	ready_then_wait(argv[2]);
	check(argv[1]);
	printf("files ok\n");
	return 0;
}
