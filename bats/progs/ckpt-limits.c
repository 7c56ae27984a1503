// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-limits [rt] GOFILE: set rlimits (NOFILE 100/200, STACK 4 MiB soft,
 * CORE 0/0), nice 7, SCHED_BATCH with reset-on-fork (with "rt":
 * SCHED_FIFO priority 10, which keeps the nice value), affinity to the last CPU,
 * oom_score_adj 123, not dumpable, child subreaper, THP disabled, the
 * name "lim-name" and ADDR_NO_RANDOMIZE; print "ready", wait for GOFILE,
 * check each and print "limits ok".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "ckpt.h"

static struct rlimit want[RLIM_NLIMITS];
static cpu_set_t cpus;

static int oom_adj(int set)
{
	FILE *f = fopen("/proc/self/oom_score_adj", set ? "w" : "r");
	int v = -9999;

	CHECK(f, "oom_score_adj: %s", strerror(errno));
	if (set)
		fprintf(f, "%d\n", set);
	else
		CHECK(fscanf(f, "%d", &v) == 1, "oom_score_adj");
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	struct rlimit nofile = { 100, 200 }, core = { 0, 0 }, rl;
	struct sched_param sp = { 0 }, got;
	char name[16];
	int i, last = sysconf(_SC_NPROCESSORS_ONLN) - 1, v;
	cpu_set_t now;
	int policy = SCHED_BATCH | SCHED_RESET_ON_FORK;

	if (argc != 2 && !(argc == 3 && !strcmp(argv[1], "rt"))) {
		fprintf(stderr, "usage: ckpt-limits [rt] GOFILE\n");
		return 255;
	}
	if (argc == 3) {
		policy = SCHED_FIFO;
		sp.sched_priority = 10;
	}
	CHECK(!getrlimit(RLIMIT_STACK, &rl), "getrlimit");
	rl.rlim_cur = 4 << 20;
	CHECK(!setrlimit(RLIMIT_NOFILE, &nofile) && !setrlimit(RLIMIT_CORE, &core) &&
	      !setrlimit(RLIMIT_STACK, &rl), "setrlimit: %s", strerror(errno));
	for (i = 0; i < RLIM_NLIMITS; i++)
		getrlimit(i, &want[i]);
	CHECK(!setpriority(PRIO_PROCESS, 0, 7), "nice");
	CHECK(!sched_setscheduler(0, policy, &sp), "sched: %s", strerror(errno));
	CPU_ZERO(&cpus);
	CPU_SET(last, &cpus);
	CHECK(!sched_setaffinity(0, sizeof(cpus), &cpus), "affinity");
	oom_adj(123);
	CHECK(!prctl(PR_SET_DUMPABLE, 0) && !prctl(PR_SET_CHILD_SUBREAPER, 1) &&
	      !prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) &&
	      !prctl(PR_SET_NAME, "lim-name"), "prctl: %s", strerror(errno));
	CHECK(personality(PER_LINUX | ADDR_NO_RANDOMIZE) != -1, "personality");
	ready_then_wait(argv[argc - 1]);
	for (i = 0; i < RLIM_NLIMITS; i++)
		CHECK(!getrlimit(i, &rl) && rl.rlim_cur == want[i].rlim_cur &&
		      rl.rlim_max == want[i].rlim_max, "rlimit %d: %lu/%lu", i,
		      (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
	errno = 0;
	v = getpriority(PRIO_PROCESS, 0);
	CHECK(v == 7 && !errno, "nice %d", v);
	CHECK(sched_getscheduler(0) == policy, "policy %#x", sched_getscheduler(0));
	CHECK(!sched_getparam(0, &got) && got.sched_priority == sp.sched_priority,
	      "priority %d", got.sched_priority);
	CHECK(!sched_getaffinity(0, sizeof(now), &now) && CPU_EQUAL(&now, &cpus),
	      "affinity: %d CPUs", CPU_COUNT(&now));
	CHECK(oom_adj(0) == 123, "oom_score_adj %d", oom_adj(0));
	CHECK(prctl(PR_GET_DUMPABLE) == 0, "dumpable");
	CHECK(!prctl(PR_GET_CHILD_SUBREAPER, &v) && v == 1, "subreaper");
	CHECK(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1, "THP disable");
	CHECK(!prctl(PR_GET_NAME, name) && !strcmp(name, "lim-name"), "name %s", name);
	CHECK(personality(0xffffffff) == (PER_LINUX | ADDR_NO_RANDOMIZE), "personality");
	printf("limits ok\n");
	return 0;
}
