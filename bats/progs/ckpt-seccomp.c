// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-seccomp [threads|own] GOFILE: set no_new_privs and install two seccomp
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
 *
 * With "own", the threads differ: thread 2 is started before anything
 * (no filter, no no_new_privs), threads 0 and 1 after the first filter,
 * which they share with the main thread; thread 0 then adds a filter of
 * its own (getuid() fails with EACCES), and the main thread adds the
 * second after they started. After GOFILE each checks its own filters
 * and mode; threads 0 and 2 exit, and a filter the main thread adds with
 * TSYNC must reach thread 1: its filter is still the very one that the
 * main thread's was installed over.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
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

static atomic_int own_ready, own_checked, own_synced;

static void errno_is(long ret, int err, const char *what)
{
	CHECK(err ? ret == -1 && errno == err : ret >= 0, "%s: %ld (%s) in %d",
	      what, ret, strerror(errno), gettid());
}

static void *own_thread(void *arg)
{
	long idx = (long)arg;
	struct utsname u;

	if (idx == 0)
		deny(SYS_getuid, EACCES, 0);
	own_ready++;
	while (access(go, F_OK))
		usleep(10000);
	status_has(idx == 2 ? "NoNewPrivs:\t0\n" : "NoNewPrivs:\t1\n");
	status_has(idx == 2 ? "Seccomp:\t0\n" : "Seccomp:\t2\n");
	status_has(idx == 0 ? "Seccomp_filters:\t2\n" :
		   idx == 1 ? "Seccomp_filters:\t1\n" : "Seccomp_filters:\t0\n");
	errno_is(syscall(SYS_getppid), idx == 2 ? 0 : EPERM, "getppid");
	errno_is(syscall(SYS_getuid), idx == 0 ? EACCES : 0, "getuid");
	errno_is(uname(&u), 0, "uname");
	if (idx == 1) {
		own_checked = 1;
		while (!own_synced)
			usleep(1000);
		status_has("Seccomp_filters:\t3\n");
		errno_is(syscall(SYS_getuid), EACCES, "getuid after TSYNC");
		errno_is(uname(&u), ENOSYS, "uname after TSYNC");
	}
	return NULL;
}

static void own(void)
{
	pthread_t th[NTHREADS];
	struct sock_filter first[] = {
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		RET(SECCOMP_RET_ERRNO | EPERM),
		RET(SECCOMP_RET_ALLOW),
	};
	long i;

	CHECK(!pthread_create(&th[2], NULL, own_thread, (void *)2), "pthread_create");
	CHECK(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
	install(first, 4, 0);
	for (i = 0; i < 2; i++)
		CHECK(!pthread_create(&th[i], NULL, own_thread, (void *)i), "pthread_create");
	deny(SYS_uname, ENOSYS, SECCOMP_FILTER_FLAG_LOG);
	while (own_ready < NTHREADS)
		usleep(1000);
	ready_then_wait(go);
	check_two();
	CHECK(!pthread_join(th[0], NULL) && !pthread_join(th[2], NULL), "pthread_join");
	while (!own_checked)
		usleep(1000);
	deny(SYS_getuid, EACCES, SECCOMP_FILTER_FLAG_TSYNC);
	own_synced = 1;
	CHECK(!pthread_join(th[1], NULL), "pthread_join");
	printf("seccomp ok\n");
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

	if (argc == 3 && !strcmp(argv[1], "own")) {
		go = argv[2];
		own();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		tsync = SECCOMP_FILTER_FLAG_TSYNC;
		n = NTHREADS;
	} else if (argc != 2) {
		fprintf(stderr, "usage: ckpt-seccomp [threads|own] GOFILE\n");
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
