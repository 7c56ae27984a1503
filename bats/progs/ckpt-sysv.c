// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-sysv GOFILE: attach SysV shared memory segments - "keyed" (key
 * 0x0c4b7001, 3 pages + 10 bytes, mode 0640) twice, read-write and
 * read-only; "gone" (IPC_PRIVATE, 2 pages, mode 0600) removed with
 * IPC_RMID while attached - fill them, print "ready PID KEYED GONE",
 * wait for GOFILE, check ids, keys, sizes, modes, attach counts, every
 * byte, that both attaches of "keyed" are one segment, and that "gone"
 * is still marked for removal; remove "keyed", print "sysv ok".
 * With "timer" after GOFILE, also create a POSIX timer (CLOCK_MONOTONIC,
 * SIGEV_NONE, 100 s), which restart cannot re-create when its caller's
 * RLIMIT_SIGPENDING is 0: a failure after the point of no return.
 * ckpt-sysv rm ID: remove segment ID (IPC_RMID).
 * ckpt-sysv own ID UID MODE: give segment ID to UID with MODE (octal), IPC_SET.
 */
#include <signal.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <time.h>
#include "ckpt.h"

#define PG 4096
#define KEY 0x0c4b7001
#define KEYED_SIZE (3 * PG + 10)

static int keyed, gone;
static unsigned char *rw, *ro, *gp;

static unsigned char pattern(size_t i, int seed)
{
	return i * seed + i / PG;
}

static void *attach(int id, int flags)
{
	void *p = shmat(id, NULL, flags);

	CHECK(p != (void *)-1, "shmat %d: %s", id, strerror(errno));
	return p;
}

static void stat_is(int id, key_t key, size_t size, int mode, int nattch)
{
	struct shmid_ds ds;

	CHECK(!shmctl(id, IPC_STAT, &ds), "IPC_STAT %d: %s", id, strerror(errno));
	CHECK(ds.shm_perm.__key == key && ds.shm_segsz == size &&
	      (ds.shm_perm.mode & 01777) == mode && ds.shm_nattch == nattch,
	      "segment %d: key %#x size %zu mode %#o nattch %lu, expected %#x %zu %#o %d",
	      id, ds.shm_perm.__key, ds.shm_segsz, ds.shm_perm.mode,
	      (unsigned long)ds.shm_nattch, key, size, mode, nattch);
}

static void check_bytes(const unsigned char *p, size_t len, int seed,
			const char *what)
{
	for (size_t i = 0; i < len; i++)
		CHECK(p[i] == pattern(i, seed), "%s: byte %zu is %d", what, i, p[i]);
}

static void setup(void)
{
	size_t i;

	keyed = shmget(KEY, KEYED_SIZE, IPC_CREAT | IPC_EXCL | 0640);
	CHECK(keyed >= 0, "shmget keyed: %s", strerror(errno));
	rw = attach(keyed, 0);
	ro = attach(keyed, SHM_RDONLY);
	for (i = 0; i < KEYED_SIZE; i++)
		rw[i] = pattern(i, 7);
	gone = shmget(IPC_PRIVATE, 2 * PG, 0600);
	CHECK(gone >= 0, "shmget gone: %s", strerror(errno));
	gp = attach(gone, 0);
	for (i = 0; i < 2 * PG; i++)
		gp[i] = pattern(i, 3);
	CHECK(!shmctl(gone, IPC_RMID, NULL), "IPC_RMID: %s", strerror(errno));
}

static void check(void)
{
	stat_is(keyed, KEY, KEYED_SIZE, 0640, 2);
	check_bytes(rw, KEYED_SIZE, 7, "keyed");
	check_bytes(ro, KEYED_SIZE, 7, "keyed, read-only");
	rw[5] = 0xa5;
	CHECK(ro[5] == 0xa5, "the two attaches are not one segment");
	stat_is(gone, IPC_PRIVATE, 2 * PG, 0600 | SHM_DEST, 1);
	check_bytes(gp, 2 * PG, 3, "gone");
	CHECK(!shmdt(ro) && !shmdt(rw), "shmdt: %s", strerror(errno));
	CHECK(!shmctl(keyed, IPC_RMID, NULL), "IPC_RMID keyed: %s",
	      strerror(errno));
}

static void add_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec v = { .it_value = { 100, 0 } };
	timer_t t;

	CHECK(!timer_create(CLOCK_MONOTONIC, &ev, &t) && !timer_settime(t, 0, &v, NULL),
	      "timer: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "rm")) {
		CHECK(!shmctl(atoi(argv[2]), IPC_RMID, NULL), "IPC_RMID %s: %s",
		      argv[2], strerror(errno));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "own")) {
		struct shmid_ds ds;

		CHECK(!shmctl(atoi(argv[2]), IPC_STAT, &ds), "IPC_STAT: %s", strerror(errno));
		ds.shm_perm.uid = atoi(argv[3]);
		ds.shm_perm.mode = strtol(argv[4], NULL, 8);
		CHECK(!shmctl(atoi(argv[2]), IPC_SET, &ds), "IPC_SET: %s", strerror(errno));
		return 0;
	}
	if (argc != 2 && (argc != 3 || strcmp(argv[2], "timer"))) {
		fprintf(stderr, "usage: ckpt-sysv GOFILE [timer] | rm ID | own ID UID MODE\n");
		return 255;
	}
	setup();
	if (argc == 3)
		add_timer();
	printf("ready %d %d %d\n", getpid(), keyed, gone);
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(10000);
	check();
	printf("sysv ok\n");
	return 0;
}
