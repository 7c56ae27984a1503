// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-seccomp [threads] GOFILE: set no_new_privs and install two seccomp
 * filters: the first kills the process for a foreign architecture and
 * makes getppid() fail with EPERM, the second (SECCOMP_FILTER_FLAG_LOG)
 * makes uname() fail with ENOSYS. Prints "ready", waits for GOFILE, checks
 * /proc/thread-self/status (Seccomp 2, 2 filters, NoNewPrivs 1), that both
 * filters still act and others' system calls work, that one more filter
 * can be added, prints "seccomp ok".
 *
 * With "threads", three threads are started first and the filters are
 * installed with SECCOMP_FILTER_FLAG_TSYNC; each thread makes the same
 * checks of its own once GOFILE exists, and the third filter is added
 * with TSYNC too: the threads' filters must still be ancestors of the
 * main thread's.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include "ckpt.h"

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
			     offsetof(struct seccomp_data, field))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define NTHREADS 3

static unsigned int tsync;
static const char *go;

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
	install(first, 7, tsync);
	deny(SYS_uname, ENOSYS, SECCOMP_FILTER_FLAG_LOG | tsync);
}

static void status_has(const char *line)
{
	char buf[256];
	FILE *f = fopen("/proc/thread-self/status", "r");
	int found = 0;

	CHECK(f, "/proc/thread-self/status: %s", strerror(errno));
	while (!found && fgets(buf, sizeof(buf), f))
		found = !strcmp(buf, line);
	fclose(f);
	CHECK(found, "/proc/thread-self/status of %d lacks %s", gettid(), line);
}

/* the two filters act on the calling thread */
static void check_two(void)
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
}

static void *thread_main(void *arg)
{
	(void)arg;
	while (access(go, F_OK))
		usleep(10000);
	check_two();
	return NULL;
}

static void check(void)
{
	check_two();
	deny(SYS_getuid, EACCES, tsync);
	status_has("Seccomp_filters:\t3\n");
	errno = 0;
	CHECK(syscall(SYS_getuid) == -1 && errno == EACCES, "third filter");
	CHECK(syscall(SYS_getppid) == -1 && errno == EPERM, "first filter");
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int i, n = 0;

	if (argc == 3 && !strcmp(argv[1], "threads")) {
		tsync = SECCOMP_FILTER_FLAG_TSYNC;
		n = NTHREADS;
	} else if (argc != 2) {
		fprintf(stderr, "usage: ckpt-seccomp [threads] GOFILE\n");
		return 255;
	}
	go = argv[argc - 1];
	for (i = 0; i < n; i++)
		CHECK(!pthread_create(&th[i], NULL, thread_main, NULL), "pthread_create");
	setup();
	ready_then_wait(go);
	for (i = 0; i < n; i++)
		CHECK(!pthread_join(th[i], NULL), "pthread_join");
	check();
	printf("seccomp ok\n");
	return 0;
}
