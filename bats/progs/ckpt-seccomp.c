// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-seccomp GOFILE: set no_new_privs and install two seccomp filters:
 * the first kills the process for a foreign architecture and makes
 * getppid() fail with EPERM, the second (SECCOMP_FILTER_FLAG_LOG) makes
 * uname() fail with ENOSYS. Prints "ready", waits for GOFILE, checks
 * /proc/self/status (Seccomp 2, 2 filters, NoNewPrivs 1), that both
 * filters still act and others' system calls work, that one more filter
 * can be added, prints "seccomp ok".
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include "ckpt.h"

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
			     offsetof(struct seccomp_data, field))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))

static void install(struct sock_filter *insns, unsigned short len,
		    unsigned int flags)
{
	struct sock_fprog prog = { .len = len, .filter = insns };

	CHECK(!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog),
	      "seccomp: %s", strerror(errno));
}

static void deny(int nr, int err, unsigned int flags)
{
	struct sock_filter insns[] = {
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		RET(SECCOMP_RET_ERRNO | err),
		RET(SECCOMP_RET_ALLOW),
	};

	install(insns, 4, flags);
}

static void setup(void)
{
	struct sock_filter first[] = {
		LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		RET(SECCOMP_RET_ERRNO | EPERM),
		RET(SECCOMP_RET_ALLOW),
	};

	CHECK(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
	install(first, 7, 0);
	deny(SYS_uname, ENOSYS, SECCOMP_FILTER_FLAG_LOG);
}

static void status_has(const char *line)
{
	char buf[256];
	FILE *f = fopen("/proc/self/status", "r");
	int found = 0;

	CHECK(f, "/proc/self/status: %s", strerror(errno));
	while (!found && fgets(buf, sizeof(buf), f))
		found = !strcmp(buf, line);
	fclose(f);
	CHECK(found, "/proc/self/status lacks %s", line);
}

static void check(void)
{
	struct utsname u;

	status_has("NoNewPrivs:\t1\n");
	status_has("Seccomp:\t2\n");
	status_has("Seccomp_filters:\t2\n");
	errno = 0;
	CHECK(syscall(SYS_getppid) == -1 && errno == EPERM,
	      "getppid: the first filter is gone (%s)", strerror(errno));
	errno = 0;
	CHECK(uname(&u) == -1 && errno == ENOSYS,
	      "uname: the second filter is gone (%s)", strerror(errno));
	CHECK(getpid() > 0 && !access("/", F_OK), "an allowed call failed");
	deny(SYS_getuid, EACCES, 0);
	status_has("Seccomp_filters:\t3\n");
	errno = 0;
	CHECK(syscall(SYS_getuid) == -1 && errno == EACCES, "third filter");
	CHECK(syscall(SYS_getppid) == -1 && errno == EPERM, "first filter");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-seccomp GOFILE\n");
		return 255;
	}
	setup();
	ready_then_wait(argv[1]);
	check();
	printf("seccomp ok\n");
	return 0;
}
