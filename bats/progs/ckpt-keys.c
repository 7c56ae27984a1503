// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-keys GOFILE IDFILE (as an unprivileged user): print "ready", wait
 * for GOFILE; then read "KEY SESSION" from IDFILE and check that the
 * process neither has the keyring SESSION as its session keyring nor may
 * read the key KEY (EACCES); print "keys ok".
 *
 * ckpt-keys restore IDFILE IMAGE syscall|sysfs PID (as root): join a new
 * session keyring, add a user key to it that only its possessors may
 * read, check that this process can read it, write "KEY SESSION" to
 * IDFILE and restart IMAGE: as restart() (exits with its errno) or
 * through /sys/kernel/ckpt/restart, then wait until the restored PID has
 * exited (the keyring lives as long as this process) and exit 0.
 */
#include <fcntl.h>
#include <linux/keyctl.h>
#include <signal.h>
#include "ckpt.h"

static long keyctl(int cmd, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, cmd, a, b, c, 0);
}

static void check_after(const char *idfile)
{
	long key, sess, mine;
	char buf[64];
	FILE *f = fopen(idfile, "r");

	CHECK(f && fscanf(f, "%ld %ld", &key, &sess) == 2, "%s: %m", idfile);
	fclose(f);
	CHECK(getuid() && geteuid(), "run this as an unprivileged user");
	mine = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0);
	CHECK(mine != sess, "the restorer's session keyring %ld is ours", sess);
	CHECK(keyctl(KEYCTL_READ, key, (unsigned long)buf, sizeof(buf)) < 0 &&
	      errno == EACCES, "the restorer's key %ld: %m", key);
	printf("keys ok\n");
}

static int restore(const char *idfile, const char *img, const char *how,
		   pid_t pid)
{
	long sess, key;
	char buf[64];
	FILE *f;
	int fd;

	sess = keyctl(KEYCTL_JOIN_SESSION_KEYRING, (unsigned long)"ckpt-restorer", 0, 0);
	CHECK(sess > 0, "join: %m");
	key = syscall(SYS_add_key, "user", "ckpt-secret", "root only", 9,
		      KEY_SPEC_SESSION_KEYRING);
	CHECK(key > 0, "add_key: %m");
	/* possessor: everything; owner, group, others: nothing */
	CHECK(!keyctl(KEYCTL_SETPERM, key, 0x3f000000, 0), "setperm: %m");
	CHECK(keyctl(KEYCTL_READ, key, (unsigned long)buf, sizeof(buf)) == 9,
	      "the restorer cannot read its key: %m");
	f = fopen(idfile, "w");
	CHECK(f && fprintf(f, "%ld %ld\n", key, sess) > 0 && !fclose(f), "%s: %m", idfile);
	if (!strcmp(how, "sysfs")) {
		fd = open("/sys/kernel/ckpt/restart", O_WRONLY);
		CHECK(fd >= 0 && write(fd, img, strlen(img)) == (ssize_t)strlen(img),
		      "/sys/kernel/ckpt/restart: %m");
		for (int i = 0; i < 2000 && !kill(pid, 0); i++)
			usleep(10000);
		return 0;
	}
	fd = open(img, O_RDONLY);
	CHECK(fd >= 0, "%s: %m", img);
	sys_restart(0, fd, 0);
	fprintf(stderr, "restart: %m\n");
	return errno;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "restore"))
		return restore(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (argc != 3) {
		fprintf(stderr, "usage: ckpt-keys GOFILE IDFILE | restore IDFILE IMAGE syscall|sysfs PID\n");
		return 2;
	}
	ready_then_wait(argv[1]);
	check_after(argv[2]);
	return 0;
}
