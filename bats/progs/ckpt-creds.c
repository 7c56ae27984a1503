// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-creds GOFILE (as root): become uids 1000/1001/1002 (fsuid 1000),
 * gids 2000/2001/2002 (fsgid 2000), groups 10 and 20, keep CAP_CHOWN and
 * CAP_KILL permitted, CAP_KILL effective, CAP_CHOWN inheritable and
 * ambient, drop CAP_SYS_BOOT from the bounding set, set SECBIT_KEEP_CAPS
 * and no_new_privs; print "ready", wait for GOFILE, check all of it and
 * print "creds ok".
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include "ckpt.h"

struct state {
	uid_t r, e, s, fs;
	gid_t rg, eg, sg, fsg;
	gid_t groups[8];
	int ngroups;
	struct __user_cap_data_struct caps[2];
	int securebits, nnp;
	unsigned long long bset, ambient;
};

static struct state before;

static void get(struct state *st)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	int c;

	memset(st, 0, sizeof(*st));
	getresuid(&st->r, &st->e, &st->s);
	getresgid(&st->rg, &st->eg, &st->sg);
	st->fs = setfsuid(-1);
	st->fsg = setfsgid(-1);
	st->ngroups = getgroups(8, st->groups);
	CHECK(!syscall(SYS_capget, &hdr, st->caps), "capget");
	st->securebits = prctl(PR_GET_SECUREBITS);
	st->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	for (c = 0; c <= CAP_LAST_CAP; c++) {
		if (prctl(PR_CAPBSET_READ, c) == 1)
			st->bset |= 1ULL << c;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1)
			st->ambient |= 1ULL << c;
	}
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct caps[2] = {};
	gid_t groups[2] = { 10, 20 };
	struct state now;

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-creds GOFILE\n");
		return 255;
	}
	CHECK(!prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS) &&
	      !prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT), "securebits: %s", strerror(errno));
	CHECK(!setgroups(2, groups) && !setresgid(2000, 2001, 2002) &&
	      !setresuid(1000, 1001, 1002), "ids: %s", strerror(errno));
	setfsuid(1000);
	setfsgid(2000);
	caps[0].permitted = 1 << CAP_CHOWN | 1 << CAP_KILL;
	caps[0].effective = 1 << CAP_KILL;
	caps[0].inheritable = 1 << CAP_CHOWN;
	CHECK(!syscall(SYS_capset, &hdr, caps), "capset: %s", strerror(errno));
	CHECK(!prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0) &&
	      !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl: %s", strerror(errno));
	get(&before);
	CHECK(before.fs == 1000 && before.ngroups == 2 && before.nnp == 1 &&
	      before.ambient == 1 << CAP_CHOWN, "setup");
	ready_then_wait(argv[1]);
	get(&now);
	CHECK(now.r == 1000 && now.e == 1001 && now.s == 1002 && now.fs == 1000,
	      "uids %d %d %d %d", now.r, now.e, now.s, now.fs);
	CHECK(now.rg == 2000 && now.eg == 2001 && now.sg == 2002 && now.fsg == 2000,
	      "gids %d %d %d %d", now.rg, now.eg, now.sg, now.fsg);
	CHECK(now.ngroups == 2 && now.groups[0] == 10 && now.groups[1] == 20, "groups");
	CHECK(!memcmp(now.caps, before.caps, sizeof(now.caps)),
	      "caps: permitted %x effective %x inheritable %x", now.caps[0].permitted,
	      now.caps[0].effective, now.caps[0].inheritable);
	CHECK(now.bset == before.bset && now.ambient == before.ambient,
	      "bounding set %llx ambient %llx", now.bset, now.ambient);
	CHECK(now.securebits == SECBIT_KEEP_CAPS && now.nnp == 1,
	      "securebits %#x no_new_privs %d", now.securebits, now.nnp);
	printf("creds ok\n");
	return 0;
}
