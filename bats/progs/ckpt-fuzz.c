// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-fuzz [-lv] [-s SEED] [-n CASES] [-f FIRST] [-t MS] [-p N] [-w DIR] IMAGE...:
 * structure-aware fuzzing of restart() with images changed in one place.
 *
 * Case i (FIRST, default 0, up to FIRST+CASES-1, default 100 cases) draws
 * everything from an RNG seeded by SEED (default 1) and i alone: the same
 * seed gives the same cases, whatever ran before. It picks an IMAGE and
 * makes ONE change to it that knows its records (a record is picked by
 * its type first, so that rare records count as much as frequent ones):
 *   field  an aligned 4- or 8-byte slot in the body of a record other
 *          than the tail: 0, all ones, +1, -1, a bit flipped, a boundary
 *          value, a page multiple, an address, a small or a random value
 *   len    a record's length: +8, -8, unaligned, too small or huge
 *   type   a record's type: another known one, or an unknown one
 *   drop, dup, swap, trunc
 *          a record dropped, duplicated, swapped with the next one, or
 *          the image cut inside a record
 *   str    in a record holding a path or a name: a byte made '/', NUL or
 *          '.', or the string made very long
 * and closes the image with a TAIL record of the right size and checksum,
 * so that the change reaches the checks behind the checksum.
 *
 * Each case is written to a memfd and restarted by a child in a session of
 * its own, with the write end of a pipe open: restart() returning sends
 * its errno; EOF without one means the child's descriptors were closed,
 * past the point of no return: the process was restored. It runs for
 * 50 ms, then its process group is killed; one that died by itself first
 * counts as restored-died (a SIGKILL there, unless in strict seccomp mode,
 * is a restart that failed past the point of no return: noted). No answer
 * within MS ms (default 5000) is a hang: the child is killed, and
 * reported stuck if it cannot be reaped.
 *
 * -l lists the cases (image, change, size and checksum of the result)
 * without running them; -v prints each case and its outcome as it runs
 * (an errno with the pid of the child that got it: its kernel log line);
 * -p N prints a progress line every N cases; -w DIR writes the image of
 * each case to DIR/case-I.img.
 * Prints "cases N", "errno NAME N" for each errno (most frequent first),
 * "restored N", "restored-died N" (with the signals), "hangs N"; notes on
 * hangs and SIGKILLed restarts as they happen. Exits 1 after a hang, 2 on
 * a usage error or an IMAGE that is not a whole, well-formed image.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/ckpt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "ckpt.h"
#include "ckpt-image.h"

#define NTYPES		(CKPT_THREAD + 1)
#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RUN_MS		50	/* a restored process runs this long */
#define REAP_MS		5000	/* a killed child must be reaped within */
#define MAX_ERRNO	4096

static const char *const type_names[NTYPES] = {
	[CKPT_HEAD] = "head", [CKPT_TASK] = "task", [CKPT_CPU] = "cpu",
	[CKPT_XSTATE] = "xstate", [CKPT_MM] = "mm", [CKPT_VMA] = "vma",
	[CKPT_PAGES] = "pages", [CKPT_TAIL] = "tail", [CKPT_PATH] = "path",
	[CKPT_FS] = "fs", [CKPT_FILES] = "files", [CKPT_FILE] = "file",
	[CKPT_FDS] = "fds", [CKPT_PIPE] = "pipe", [CKPT_SIGNALS] = "signals",
	[CKPT_CREDS] = "creds", [CKPT_LIMITS] = "limits",
	[CKPT_TIMERS] = "timers", [CKPT_EPOLL] = "epoll",
	[CKPT_TIMERFD] = "timerfd", [CKPT_POSIX_TIMERS] = "posix_timers",
	[CKPT_SHMS] = "shms", [CKPT_SHM] = "shm", [CKPT_SECCOMP] = "seccomp",
	[CKPT_SECCOMP_FILTER] = "seccomp_filter", [CKPT_LOCKS] = "locks",
	[CKPT_THREAD] = "thread",
};

struct rec {
	size_t off;
	uint32_t type;
	uint32_t len;
};

struct image {
	const char *name;
	uint8_t *buf;
	size_t size;
	struct rec *recs;	/* the records, the tail last */
	unsigned int nr;	/* records before the tail */
};

static struct image *images;
static unsigned int nr_images;

/* the image of the case being made, and what was changed */
static uint8_t *out;
static size_t out_len, out_cap;
static char desc[512];

/* splitmix64 */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void rng_case(uint64_t seed, uint64_t i)
{
	rng_state = seed;
	rng_state = rnd() ^ (i * 0xd1b54a32d192ed03ULL);
	rnd();
}

static const char *type_name(uint32_t type)
{
	static char buf[16];

	if (type < NTYPES && type_names[type])
		return type_names[type];
	snprintf(buf, sizeof(buf), "type%u", type);
	return buf;
}

static void load(struct image *im, const char *name)
{
	struct ckpt_tail *t;
	struct ckpt_hdr *h;
	size_t off = 0, cap = 0;
	struct stat st;
	int fd;

	im->name = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	fd = open(name, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ckpt-fuzz: %s: %m\n", name);
		exit(2);
	}
	im->size = st.st_size;
	im->buf = malloc(im->size + 1);
	CHECK(im->buf, "out of memory");
	CHECK(read(fd, im->buf, im->size) == (ssize_t)im->size, "%s: read: %m", name);
	close(fd);
	while ((h = ckpt_next_rec(im->buf, im->size, &off))) {
		if (h->len % 8 || !h->type || h->type >= NTYPES ||
		    (!im->nr && h->type != CKPT_HEAD))
			break;
		if (im->nr == cap) {
			cap = cap ? 2 * cap : 256;
			im->recs = realloc(im->recs, cap * sizeof(*im->recs));
			CHECK(im->recs, "out of memory");
		}
		im->recs[im->nr].off = off - h->len;
		im->recs[im->nr].type = h->type;
		im->recs[im->nr].len = h->len;
		im->nr++;
		if (h->type == CKPT_TAIL)
			break;
	}
	t = (struct ckpt_tail *)h;
	if (!h || off != im->size || h->type != CKPT_TAIL ||
	    h->len != sizeof(*t) || im->nr < 2 || t->size != off - h->len ||
	    t->checksum != ckpt_tail_sum(im->buf, t)) {
		fprintf(stderr, "ckpt-fuzz: %s: not a well-formed image (at byte %zu)\n",
			name, off);
		exit(2);
	}
	im->nr--;
}

static void put(const void *p, size_t len)
{
	if (out_len + len > out_cap) {
		out_cap = 2 * (out_len + len);
		out = realloc(out, out_cap);
		CHECK(out, "out of memory");
	}
	memcpy(out + out_len, p, len);
	out_len += len;
}

static void put_range(const struct image *im, size_t from, size_t to)
{
	put(im->buf + from, to - from);
}

static size_t rec_end(const struct rec *r)
{
	return r->off + r->len;
}

/* Close the image with a TAIL record of its size and checksum. */
static void put_tail(void)
{
	struct ckpt_tail t = {
		.h = { .type = CKPT_TAIL, .len = sizeof(t) },
		.size = out_len,
	};
	size_t at = out_len;

	put(&t, sizeof(t));
	t.checksum = ckpt_tail_sum(out, (struct ckpt_tail *)(out + at));
	memcpy(out + at + offsetof(struct ckpt_tail, checksum), &t.checksum,
	       sizeof(t.checksum));
}

/*
 * Where the string of a record that holds one is: the offset of its length
 * field and the size of the fixed part it follows. 0 if none.
 */
static size_t str_field(uint32_t type, size_t *fixed)
{
	switch (type) {
	case CKPT_PATH:
		*fixed = sizeof(struct ckpt_path);
		return offsetof(struct ckpt_path, len);
	case CKPT_MM:
		*fixed = sizeof(struct ckpt_mm);
		return offsetof(struct ckpt_mm, exe_len);
	case CKPT_VMA:
		*fixed = sizeof(struct ckpt_vma);
		return offsetof(struct ckpt_vma, path_len);
	case CKPT_SHM:
		*fixed = sizeof(struct ckpt_shm);
		return offsetof(struct ckpt_shm, name_len);
	}
	*fixed = 0;
	return 0;
}

/* The length of the string of record @r, 0 if it has none. */
static uint32_t str_len(const struct image *im, const struct rec *r)
{
	size_t fixed, lo = str_field(r->type, &fixed);
	uint32_t len;

	if (!lo || r->len < fixed)
		return 0;
	memcpy(&len, im->buf + r->off + lo, sizeof(len));
	return len && fixed + ALIGN8((size_t)len) == r->len ? len : 0;
}

static int any_rec(const struct image *im, unsigned int i)
{
	return 1;
}

static int has_body(const struct image *im, unsigned int i)
{
	return im->recs[i].len >= sizeof(struct ckpt_hdr) + 8;
}

static int has_next(const struct image *im, unsigned int i)
{
	return i + 1 < im->nr;
}

static int has_str(const struct image *im, unsigned int i)
{
	return str_len(im, &im->recs[i]) > 0;
}

/*
 * A record (not the tail) that @ok accepts: a type first, among those
 * of such records, then one of that type. -1 if there is none.
 */
static int pick_rec(const struct image *im,
		    int (*ok)(const struct image *, unsigned int))
{
	unsigned int count[NTYPES + 1] = { 0 }, types = 0, i, k, t;

	for (i = 0; i < im->nr; i++) {
		if (!ok(im, i))
			continue;
		t = im->recs[i].type < NTYPES ? im->recs[i].type : NTYPES;
		if (!count[t]++)
			types++;
	}
	if (!types)
		return -1;
	k = below(types);
	for (t = 0; t <= NTYPES; t++)
		if (count[t] && !k--)
			break;
	k = below(count[t]);
	for (i = 0; i < im->nr; i++) {
		if (!ok(im, i) ||
		    (im->recs[i].type < NTYPES ? im->recs[i].type : NTYPES) != t)
			continue;
		if (!k--)
			return i;
	}
	return -1;
}

/* How many bytes of a record are worth changing fields in: not the data. */
static size_t fields_len(const struct image *im, const struct rec *r)
{
	const uint8_t *p = im->buf + r->off;
	size_t n = r->len;

	switch (r->type) {
	case CKPT_PAGES:
		n = sizeof(struct ckpt_pages) +
			(size_t)((const struct ckpt_pages *)p)->nr * 8;
		break;
	case CKPT_XSTATE:
		/* the legacy area and the XSAVE header */
		n = sizeof(struct ckpt_xstate) + 512 + 64;
		break;
	case CKPT_PIPE:
		n = sizeof(struct ckpt_pipe);
		break;
	}
	return n < r->len ? n : r->len;
}

static uint64_t value(uint64_t v, int w)
{
	static const uint64_t bounds[] = {
		0x7fffffff, 0x80000000, 0xfffff000, 0xffffffff, 0x7ffffffe,
		0xffff, 0x10000, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0xfffffffffffff000ULL, 0xffffffff00000000ULL,
	};
	static const uint64_t addrs[] = {
		0x1000, 0x10000, 0x400000, 0x7ffffffff000ULL, 0x7ffffffff000ULL - 0x1000,
		0x800000000000ULL, 0xffff800000000000ULL, 0xffffffffff600000ULL,
		0xffffffff81000000ULL, 0x00ff000000000000ULL,
	};
	uint64_t mask = w == 4 ? 0xffffffffULL : ~0ULL, nv;
	unsigned int b;

	switch (below(10)) {
	case 0:
		nv = 0;
		break;
	case 1:
		nv = ~0ULL;
		break;
	case 2:
		nv = v + 1;
		break;
	case 3:
		nv = v - 1;
		break;
	case 4:
		nv = v ^ (1ULL << below(w * 8));
		break;
	case 5:
		nv = bounds[below(w == 4 ? 7 : ARRAY_SIZE(bounds))];
		break;
	case 6:
		/* a page multiple: a power of two or a small count of pages */
		b = below(w == 4 ? 20 : 36);
		nv = below(2) ? 4096ULL << b : 4096ULL * below(1025);
		break;
	case 7:
		nv = below(2) ? addrs[below(ARRAY_SIZE(addrs))] :
				(below(2) ? v + 4096 : v - 4096);
		break;
	case 8:
		nv = below(66);	/* counts, fds, signal numbers */
		break;
	default:
		nv = rnd();
		break;
	}
	return nv & mask;
}

static void mutate_field(const struct image *im, int k)
{
	const struct rec *r = &im->recs[k];
	size_t lim = below(8) ? fields_len(im, r) : r->len, at;
	uint64_t v = 0, nv;
	int w = below(2) ? 8 : 4;

	if (lim < 8 + w)
		w = 4;
	if (lim < 8 + w)
		lim = r->len;
	at = r->off + 8 + w * below((lim - 8) / w);
	put_range(im, 0, im->recs[im->nr].off);
	memcpy(&v, out + at, w);
	nv = value(v, w);
	memcpy(out + at, &nv, w);
	snprintf(desc, sizeof(desc), "field %s#%d+%zu/%d %#llx -> %#llx",
		 type_name(r->type), k, at - r->off, w,
		 (unsigned long long)v, (unsigned long long)nv);
}

static void mutate_hdr(const struct image *im, int k, int len)
{
	static const uint32_t huge[] = {
		0xfffffff8, 0x80000000, 0x7ffffff8, 0x10000000, 0x01000000,
	};
	static const uint32_t unknown[] = {
		0, NTYPES, NTYPES + 1, 64, 0xffff, 0x80000000, 0xffffffff,
	};
	const struct rec *r = &im->recs[k];
	struct ckpt_hdr h = { .type = r->type, .len = r->len };

	if (len) {
		switch (below(6)) {
		case 0:
			h.len += 8;
			break;
		case 1:
			h.len -= 8;
			break;
		case 2:
			h.len += below(2) ? 4 : -4;
			break;
		case 3:
			h.len = below(9);
			break;
		default:
			h.len = huge[below(ARRAY_SIZE(huge))];
			break;
		}
	} else if (below(3)) {
		do
			h.type = 1 + below(NTYPES - 1);
		while (h.type == r->type);
	} else {
		h.type = unknown[below(ARRAY_SIZE(unknown))];
	}
	put_range(im, 0, im->recs[im->nr].off);
	memcpy(out + r->off, &h, sizeof(h));
	if (len)
		snprintf(desc, sizeof(desc), "len %s#%d %u -> %u",
			 type_name(r->type), k, r->len, h.len);
	else
		snprintf(desc, sizeof(desc), "type %s#%d -> %u (%s)",
			 type_name(r->type), k, h.type, type_name(h.type));
}

static void mutate_str(const struct image *im, int k)
{
	static const unsigned int lens[] = { 255, 256, 4095, 4096, 4097, 8192, 65536 };
	static const char *const fills[] = { "/", "/.", "/..", "/a", "a" };
	static const char bytes[] = { '/', 0, '.' };
	const struct rec *r = &im->recs[k];
	uint32_t len = str_len(im, r), nlen, i;
	size_t fixed, lo = str_field(r->type, &fixed), at = r->off + fixed;
	struct ckpt_hdr h;
	const char *fill;
	char *s;

	if (below(3)) {
		char c = bytes[below(sizeof(bytes))];

		i = below(len);
		put_range(im, 0, im->recs[im->nr].off);
		snprintf(desc, sizeof(desc), "str %s#%d byte %u/%u %#x -> %#x",
			 type_name(r->type), k, i, len, out[at + i], c);
		out[at + i] = c;
		return;
	}
	/* very long: the string, then the filler, to @nlen bytes with the NUL */
	nlen = lens[below(ARRAY_SIZE(lens))];
	fill = fills[below(ARRAY_SIZE(fills))];
	s = calloc(1, ALIGN8((size_t)nlen));
	CHECK(s, "out of memory");
	i = strnlen((char *)im->buf + at, len);
	if (i > nlen - 1)
		i = nlen - 1;
	memcpy(s, im->buf + at, i);
	for (; i < nlen - 1; i++)
		s[i] = fill[i % strlen(fill)];
	put_range(im, 0, r->off);
	h.type = r->type;
	h.len = fixed + ALIGN8((size_t)nlen);
	put(&h, sizeof(h));
	put_range(im, r->off + sizeof(h), r->off + lo);
	put(&nlen, sizeof(nlen));
	put_range(im, r->off + lo + sizeof(nlen), at);
	put(s, ALIGN8((size_t)nlen));
	put_range(im, rec_end(r), im->recs[im->nr].off);
	free(s);
	snprintf(desc, sizeof(desc), "str %s#%d long %u -> %u filled with \"%s\"",
		 type_name(r->type), k, len, nlen, fill);
}

/* Make case @i in out[]: one change to one of the images. */
static const struct image *make_case(uint64_t seed, uint64_t i)
{
	const struct image *im;
	const struct rec *r;
	size_t end;
	int k, m;

	rng_case(seed, i);
	im = &images[below(nr_images)];
	end = im->recs[im->nr].off;
	out_len = 0;
	/* weights: field 40, len 8, type 8, drop 8, dup 8, swap 8, trunc 8, str 12 */
	m = below(100);
	if (m >= 88 && pick_rec(im, has_str) < 0)
		m = 0;
	if (m >= 64 && m < 72 && pick_rec(im, has_next) < 0)
		m = 0;
	if (m < 40 && pick_rec(im, has_body) < 0)
		m = 40;
	if (m < 40) {
		mutate_field(im, pick_rec(im, has_body));
	} else if (m < 56) {
		mutate_hdr(im, pick_rec(im, any_rec), m < 48);
	} else if (m < 64) {
		k = pick_rec(im, any_rec);
		r = &im->recs[k];
		put_range(im, 0, r->off);
		put_range(im, rec_end(r), end);
		snprintf(desc, sizeof(desc), "drop %s#%d", type_name(r->type), k);
	} else if (m < 72) {
		k = pick_rec(im, has_next);
		r = &im->recs[k];
		put_range(im, 0, r->off);
		put_range(im, r[1].off, rec_end(&r[1]));
		put_range(im, r->off, rec_end(r));
		put_range(im, rec_end(&r[1]), end);
		snprintf(desc, sizeof(desc), "swap %s#%d %s#%d",
			 type_name(r->type), k, type_name(r[1].type), k + 1);
	} else if (m < 80) {
		k = pick_rec(im, any_rec);
		r = &im->recs[k];
		put_range(im, 0, rec_end(r));
		put_range(im, r->off, end);
		snprintf(desc, sizeof(desc), "dup %s#%d", type_name(r->type), k);
	} else if (m < 88) {
		size_t cut;

		k = pick_rec(im, any_rec);
		r = &im->recs[k];
		cut = r->len < 16 || !below(8) ? 4 : 8 + 8 * below(r->len / 8 - 1);
		put_range(im, 0, r->off + cut);
		snprintf(desc, sizeof(desc), "trunc %s#%d at %zu/%u",
			 type_name(r->type), k, cut, r->len);
	} else {
		mutate_str(im, pick_rec(im, has_str));
	}
	put_tail();
	return im;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Has child @pid ended? Leaves it a zombie (its pid stays taken). */
static int ended(pid_t pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) &&
	       si.si_pid == pid;
}

/* Reap @pid within @ms; its status, or -1 if it is still there. */
static int reap(pid_t pid, int ms)
{
	long end = now_ms() + ms;
	int st;

	for (;;) {
		if (waitpid(pid, &st, WNOHANG | __WALL) == pid)
			return st;
		if (now_ms() > end)
			return -1;
		usleep(2000);
	}
}

/*
 * Was the ended (not yet reaped) @pid in strict seccomp mode (1), or
 * killed by seccomp (3: SECCOMP_MODE_DEAD, which /proc shows)?
 */
static int strict_seccomp(pid_t pid)
{
	char path[64], line[256];
	int mode = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode == 1 || mode == 3;
}

static void kill_all(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

enum outcome { O_ERRNO, O_RESTORED, O_DIED, O_HANG, O_STUCK };

/*
 * Restart out[] in a child; the outcome, and the errno or signal in *val;
 * *strict tells a process killed in strict seccomp mode.
 */
static pid_t case_pid;	/* the child that restarted the last case */

static enum outcome run_case(int tmo, int *val, int *strict)
{
	struct pollfd pfd;
	int fd, p[2], e, n, st, dead;
	long end;
	pid_t pid;

	fd = memfd_create("ckpt-fuzz", 0);
	CHECK(fd >= 0, "memfd_create: %m");
	CHECK(write(fd, out, out_len) == (ssize_t)out_len, "write: %m");
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %m");
	CHECK(!pipe(p), "pipe: %m");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0, "fork: %m");
	case_pid = pid;
	if (!pid) {
		close(p[0]);
		setsid();
		/* the write end stays open across restart(), until it closes it */
		e = sys_restart(0, fd, 0) < 0 ? errno : 0;
		_exit(write(p[1], &e, sizeof(e)) != sizeof(e));
	}
	close(p[1]);
	close(fd);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	end = now_ms() + tmo;
	do {
		n = poll(&pfd, 1, end - now_ms() > 0 ? end - now_ms() : 0);
	} while (n < 0 && errno == EINTR);
	CHECK(n >= 0, "poll: %m");
	if (!n) {
		close(p[0]);
		kill_all(pid);
		return reap(pid, REAP_MS) == -1 ? O_STUCK : O_HANG;
	}
	n = read(p[0], &e, sizeof(e));
	close(p[0]);
	if (n == sizeof(e)) {
		*val = e;
		if (reap(pid, REAP_MS) != -1)
			return O_ERRNO;
		kill_all(pid);
		return reap(pid, REAP_MS) == -1 ? O_STUCK : O_ERRNO;
	}
	/* EOF: past the point of no return; let the process run a little */
	end = now_ms() + RUN_MS;
	while (!(dead = ended(pid)) && now_ms() < end)
		usleep(2000);
	*strict = dead && strict_seccomp(pid);
	kill_all(pid);
	st = reap(pid, REAP_MS);
	if (st == -1)
		return O_STUCK;
	if (dead && WIFSIGNALED(st)) {
		*val = WTERMSIG(st);
		return O_DIED;
	}
	return O_RESTORED;
}

static unsigned long errs[MAX_ERRNO + 1], sigs[NSIG], restored, died, hangs, stuck;

static const char *errno_name(int e)
{
	static char buf[16];
	const char *s = e > 0 ? strerrorname_np(e) : NULL;

	if (s)
		return s;
	snprintf(buf, sizeof(buf), e ? "E%d" : "none", e);
	return buf;
}

static const char *sig_name(int sig)
{
	static char buf[16];
	const char *s = sigabbrev_np(sig);

	if (s)
		snprintf(buf, sizeof(buf), "SIG%s", s);
	else
		snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

static void summary(unsigned long cases)
{
	unsigned long max;
	int e, best, s, first = 1;

	printf("cases %lu\n", cases);
	/* errnos, most frequent first, then by number */
	for (;;) {
		max = 0;
		best = -1;
		for (e = 0; e <= MAX_ERRNO; e++)
			if (errs[e] > max) {
				max = errs[e];
				best = e;
			}
		if (best < 0)
			break;
		printf("errno %s %lu\n", errno_name(best), max);
		errs[best] = 0;
	}
	printf("restored %lu\n", restored);
	printf("restored-died %lu", died);
	for (s = 1; s < NSIG; s++)
		if (sigs[s]) {
			printf("%s%s %lu", first ? " (" : ", ", sig_name(s), sigs[s]);
			first = 0;
		}
	printf("%s\n", first ? "" : ")");
	printf("hangs %lu\n", hangs);
	if (stuck)
		printf("stuck %lu\n", stuck);
}

static void usage(void)
{
	fprintf(stderr, "usage: ckpt-fuzz [-lv] [-s SEED] [-n CASES] [-f FIRST] [-t MS] [-p N]\n"
			"                 [-w DIR] IMAGE...\n");
	exit(2);
}

static uint64_t number(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end || *s == '-')
		usage();
	return v;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, cases = 100, first = 0, progress = 0, ms, i;
	const struct image *im;
	const char *dir = NULL;
	int list = 0, verbose = 0, tmo = 5000, c, val = 0, strict = 0;
	enum outcome o;

	while ((c = getopt(argc, argv, "lvs:n:f:t:p:w:")) != -1) {
		switch (c) {
		case 'l':
			list = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 's':
			seed = number(optarg);
			break;
		case 'n':
			cases = number(optarg);
			break;
		case 'f':
			first = number(optarg);
			break;
		case 't':
			ms = number(optarg);
			if (!ms || ms > 3600000)
				usage();
			tmo = ms;
			break;
		case 'p':
			progress = number(optarg);
			break;
		case 'w':
			dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	nr_images = argc - optind;
	images = calloc(nr_images, sizeof(*images));
	CHECK(images, "out of memory");
	for (i = 0; i < nr_images; i++)
		load(&images[i], argv[optind + i]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = first; i < first + cases; i++) {
		im = make_case(seed, i);
		if (list || verbose)
			printf("case %llu %s: %s: %zu bytes, sum %016llx", (unsigned long long)i,
			       im->name, desc, out_len,
			       (unsigned long long)xxh64(out, out_len));
		if (dir) {
			char path[4096];
			int fd;

			snprintf(path, sizeof(path), "%s/case-%llu.img", dir,
				 (unsigned long long)i);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			CHECK(fd >= 0 && write(fd, out, out_len) == (ssize_t)out_len,
			      "%s: %m", path);
			close(fd);
		}
		if (list) {
			printf("\n");
			continue;
		}
		o = run_case(tmo, &val, &strict);
		switch (o) {
		case O_ERRNO:
			errs[val >= 0 && val <= MAX_ERRNO ? val : MAX_ERRNO]++;
			if (verbose)
				printf(" -> errno %s (pid %d)\n", errno_name(val), case_pid);
			break;
		case O_RESTORED:
			restored++;
			if (verbose)
				printf(" -> restored\n");
			break;
		case O_DIED:
			died++;
			sigs[val]++;
			if (verbose)
				printf(" -> restored-died %s%s\n", sig_name(val),
				       strict ? " (strict seccomp)" : "");
			else if (val == SIGKILL && !strict)
				printf("note: case %llu %s: %s: SIGKILL %s\n",
				       (unsigned long long)i, im->name, desc,
				       "(a restart that failed past the point of no return?)");
			break;
		case O_HANG:
		case O_STUCK:
			hangs++;
			stuck += o == O_STUCK;
			printf("%snote: case %llu %s: %s: no answer within %d ms%s\n",
			       verbose ? " -> hang\n" : "", (unsigned long long)i, im->name,
			       desc, tmo, o == O_STUCK ? ", and still not reaped: stuck" : "");
			break;
		}
		if (progress && (i - first + 1) % progress == 0)
			printf("progress: %llu of %llu cases, %lu restored, %lu %s, %lu hangs\n",
			       (unsigned long long)(i - first + 1), (unsigned long long)cases,
			       restored, died, "restored-died", hangs);
	}
	if (list)
		return 0;
	summary(cases);
	return hangs ? 1 : 0;
}
