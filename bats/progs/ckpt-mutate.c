// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-mutate IN OUT MUTATION: copy the image IN to OUT with one field
 * changed, and the checksum of the TAIL record computed again, so that
 * the change reaches the checks behind the checksum. MUTATION is one of:
 *   clockid     the nanosleep a CPU record restarts is on CLOCK_REALTIME_COARSE
 *   dr7         DR7 enables an I/O breakpoint
 *   tls         a TLS descriptor is set
 *   xfeatures   the XSAVE header has AMX tile data (feature 18)
 *   bpf         the first seccomp filter starts with an invalid instruction
 *   epolldup    an epoll watches its first descriptor twice
 *   alarm       the first POSIX timer is on CLOCK_REALTIME_ALARM
 *   clock10     the first POSIX timer is on clock 10 (there is none)
 *   pipebig     the first pipe had 16 MiB (more than pipe-max-size)
 *   pipehuge    the first pipe claims 4 GiB - 4 KiB of data, which the
 *               image does not have
 *   lockfile    the first file lock is on file 100000, which is not there
 *   lockkind    the first file lock is of kind 9
 *   lockrange   the first file lock ends before it starts
 *   dispatch    the syscall user dispatch region of the TASK record wraps
 *   membarrier  the MM record has a membarrier() registration bit no
 *               command has (MEMBARRIER_CMD_GLOBAL, 1)
 *   threadtid   the first THREAD's TASK record has the main thread's id
 *   threaddup   the second THREAD's TASK record has the first one's id
 *   threadpending  the first THREAD record claims 2^20 pending signals
 *   threadsched the first THREAD record has scheduling policy 77
 *   threadaltstack  the first THREAD record's sigaltstack flags are 0x10
 *   threadseccomp  the first THREAD record names seccomp filter 1 in mode 0
 *   threadnnp   the first THREAD record's no_new_privs is 2
 *   seccompprev the second seccomp filter names itself as the one it is over
 *   seccompleaf the SECCOMP record names a filter past the last
 *   futexclock  a CPU record restarting a futex wait has it on clock 5
 *   futexaddr   a CPU record restarting a futex wait has an odd futex address
 *   waitpollmask    a CPU record restarting a poll() has a signal mask
 *   waitepollmax    a CPU record restarting an epoll wait has maxevents 0
 *   waitclock   a timed rt_sigtimedwait() restart is on CLOCK_REALTIME
 *   waitflags   an rt_sigtimedwait() restart has epoll's SIGMASK flag
 *   version     the HEAD record has the next image version
 *   mmflags     the MM record's coredump_filter has bit 9 (there is none)
 *   saflags     SIGUSR1's action has sa_flags bit 40 (there is none)
 *   specdisable the TASK record has speculative store bypass disabled
 *               (PR_SPEC_DISABLE)
 *   spec77      the TASK record has indirect branch control 0x77
 *   nocpuid     the main CPU record has CPUID faulting on
 *   unixtype    the first UNIX record has socket type 4 (SOCK_RDM)
 *   unixpeer    the first UNIX record's peer is file 100000
 *   unixshut    the first UNIX record's shutdown has bit 2 (there is none)
 *   unixlen     the first message length of the first UNIX record with
 *               data is one more than it has
 *   unixswap    the second UNIX record (a pair's second end) is of another
 *               type than the pair the first one made
 *   unixmade    the FILE record of the second UNIX record is an eventfd's
 *   unixaddr    the first UNIX record bound to a path has a byte after it
 *   unixbacklog the first listener has more connections waiting than its
 *               backlog allows
 *   unixclient  the second connection waiting in a backlog names the first
 *               one's client
 *   unixwait    the second client waiting in a backlog names the first
 *               client's listener
 *   unixembryo  the first connection waiting in a backlog has SO_PASSCRED
 *   unixorphan  the first connection waiting in a backlog has no client
 *   unixaccepted the first accepted socket has no address
 *   unixgone    the first socket whose peer is gone names file 0 as its peer
 *   unixoneway  the first socket connected one way is a stream socket
 *   unixowpeer  the first socket connected one way names a client in a
 *               backlog as its peer
 *   unixcred    the first message with credentials has credential flag 4
 *               (there is none)
 *   unixcredpid the first message with the process's own credentials
 *               names pid 1 instead
 *   unixrights  the first descriptor in the first UNIX_QUEUE record is of
 *               file 100000
 *   unixqueue   the first UNIX_QUEUE record names the next file
 *   unixqemb    the first UNIX_QUEUE record of a connection in a backlog
 *               names the next connection
 *   unixflight  the FILES record has one file in flight fewer
 *   inetstate   the first INET record has state 7 (there is none)
 *   inetaddr    the first IPv4 INET record has a byte after its address
 *   inetdgram   the first datagram of the first IPv4 INET record came over
 *               IPv6
 *   inetlen     the first datagram of the first INET record with any has
 *               one byte more than the record
 *   inetnotavail the first INET record is bound to 10.9.9.9
 *   inetport80  the first INET record is bound to port 80
 *   inetmark    the first INET record has SO_MARK 5
 *   inetwaiting the first TCP listener with connections not accepted has
 *               backlog + 2 of them
 *   inetwaitport the first connection a listener had not accepted is on
 *               another port
 *   tcpunsent   the first TCP record has more bytes not sent than queued
 *   tcpwscale   the first TCP record has a window scale of 15
 *   tcpurgboth  the first TCP record has two urgent states
 *   tcpurgmark  the first TCP record has an urgent mark 2^31 bytes on
 *   tcpurgbyte  the first TCP record has an urgent byte it read
 *   tcpurgup    the first TCP record has an urgent pointer past its queue
 *   treenr      the TREE record has no process
 *   treeparent  the second process of the TREE record is its own parent
 *   treepid     the second process of the TREE record has the root's pid
 *   treepgid    the second process of the TREE record is in the group of
 *               the fourth's pid, which the fourth does not lead
 *   treezombie  the root of the TREE record is a zombie
 *   treeshare   the second process of the TREE record shares its own table
 *   treeshared  the second process of the TREE record shares the root's
 *               table, but its FILES record has files
 *   treefile    the first file an earlier process of the tree saved is
 *               file 100000 of it (the checksum of its process's image
 *               computed again)
 *   treehead    the head of the second process's image lacks
 *               CKPT_CHECKPOINT_TREE (likewise)
 *   ptysession  the first PTY record controls the root's session (the
 *               checksum of the tree head computed again)
 *   ptyfile     the first FILE record of a pty slave names pty 9 (its
 *               process's checksum computed again)
 *   runproc     the first run of the first PAGE_RUNS record copies from
 *               process 1000 (its process's checksum computed again)
 *   runfrom     that run copies from 0x1000, where nothing was (likewise)
 *   runpages    that run has no page (likewise)
 *   none        nothing: only the checksum is computed again
 * Exits 1 if IN has no record to change.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <linux/ckpt.h>
#include <linux/filter.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include "ckpt.h"
#include "ckpt-image.h"

static uint8_t *img;
static size_t size;

static struct ckpt_hdr *find(uint32_t type)
{
	struct ckpt_hdr *h;
	size_t off;

	h = ckpt_find_rec(img, size, type, &off);
	CHECK(h || off + sizeof(*h) > size, "bad record at %zu", off);
	return h;
}

/* The record after the @n-th (from 0) record of @type. */
static struct ckpt_hdr *after_nth(uint32_t type, int n)
{
	struct ckpt_hdr *h;
	size_t off = 0;

	while ((h = ckpt_next_rec(img, size, &off)))
		if (h->type == type && !n--)
			return ckpt_next_rec(img, size, &off);
	return NULL;
}

static int mutate_thread(const char *m)
{
	struct ckpt_thread *r = (struct ckpt_thread *)find(CKPT_THREAD);
	struct ckpt_task *main_task = (struct ckpt_task *)find(CKPT_TASK);
	struct ckpt_task *t0 = (struct ckpt_task *)after_nth(CKPT_THREAD, 0);
	struct ckpt_task *t1 = (struct ckpt_task *)after_nth(CKPT_THREAD, 1);

	if (!r || !t0 || t0->h.type != CKPT_TASK)
		return 1;
	if (!strcmp(m, "threadtid")) {
		t0->pid = main_task->pid;
	} else if (!strcmp(m, "threaddup")) {
		if (!t1 || t1->h.type != CKPT_TASK)
			return 1;
		t1->pid = t0->pid;
	} else if (!strcmp(m, "threadpending")) {
		r->nr_pending = 1 << 20;
	} else if (!strcmp(m, "threadsched")) {
		r->sched.policy = 77;
	} else if (!strcmp(m, "threadaltstack")) {
		r->altstack_flags = 0x10;
	} else if (!strcmp(m, "threadseccomp")) {
		r->seccomp_mode = 0;
		r->seccomp_filter = 1;
	} else if (!strcmp(m, "threadnnp")) {
		r->no_new_privs = 2;
	} else {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

/* The @n-th (from 0) record of @type, and the one before it. */
static struct ckpt_hdr *nth(uint32_t type, int n, struct ckpt_hdr **prev)
{
	struct ckpt_hdr *h, *p = NULL;
	size_t off = 0;

	while ((h = ckpt_next_rec(img, size, &off))) {
		if (h->type == type && !n--) {
			*prev = p;
			return h;
		}
		p = h;
	}
	return NULL;
}

/* The @n-th (from 0) UNIX record with all of @flags. */
static struct ckpt_unix *nth_unix(uint32_t flags, int n)
{
	struct ckpt_hdr *prev, *h;
	int k = 0;

	while ((h = nth(CKPT_UNIX, k++, &prev)))
		if ((((struct ckpt_unix *)h)->flags & flags) == flags && !n--)
			return (struct ckpt_unix *)h;
	return NULL;
}

/* The first message with @flag in its credentials: pid 1, or a bad flag. */
static int mutate_cred(uint32_t flag, int pid1)
{
	struct ckpt_unix_cred *c;
	struct ckpt_unix *r;
	int k = 0;
	uint32_t i;

	while ((r = nth_unix(CKPT_UNIX_CREDS, k++))) {
		c = (struct ckpt_unix_cred *)((uint32_t *)(r + 1) + r->nr_msgs);
		for (i = 0; i < r->nr_msgs; i++, c++) {
			if (!(c->flags & flag))
				continue;
			if (pid1) {
				c->flags = CKPT_UNIX_CRED_SET;
				c->pid = 1;
			} else {
				c->flags |= 4;
			}
			return 0;
		}
	}
	return 1;
}

/* The mutations of descriptors in flight. */
static int mutate_rights(const char *m)
{
	struct ckpt_unix_queue *q;
	struct ckpt_files *f;
	struct ckpt_hdr *prev;
	int k;

	if (!strcmp(m, "unixflight")) {
		f = (struct ckpt_files *)nth(CKPT_FILES, 0, &prev);
		if (!f || !f->nr_flight)
			return 1;
		f->nr_flight--;
		return 0;
	}
	q = (struct ckpt_unix_queue *)nth(CKPT_UNIX_QUEUE, 0, &prev);
	for (k = 1; q && !strcmp(m, "unixqemb") && !q->embryo; k++)
		q = (struct ckpt_unix_queue *)nth(CKPT_UNIX_QUEUE, k, &prev);
	if (!q)
		return 1;
	if (!strcmp(m, "unixqueue"))
		q->file++;
	else if (!strcmp(m, "unixqemb"))
		q->embryo++;
	else	/* past the lengths, credentials and counts */
		((uint32_t *)(q + 1))[q->nr_msgs * 6] = 100000;
	return 0;
}

/* The mutations of bound and listening sockets, and of credentials. */
static int mutate_listen(const char *m)
{
	struct ckpt_unix *r = NULL, *r0 = NULL;
	int k = 0;

	if (!strcmp(m, "unixaddr")) {
		while ((r = nth_unix(0, k++)) && (!r->addr_len || r->addr[0] != '/'))
			;
		if (!r || r->addr_len >= sizeof(r->addr))
			return 1;
		r->addr[r->addr_len] = 'x';
	} else if (!strcmp(m, "unixbacklog")) {
		r = nth_unix(CKPT_UNIX_LISTEN, 0);
		if (!r)
			return 1;
		r->nr_pending = r->backlog + 2;
	} else if (!strcmp(m, "unixclient") || !strcmp(m, "unixwait")) {
		uint32_t f = m[4] == 'c' ? CKPT_UNIX_EMBRYO : CKPT_UNIX_PENDING;

		r0 = nth_unix(f, 0);
		r = nth_unix(f, 1);
		if (!r || r0->peer == CKPT_UNIX_NOPEER || r->peer == r0->peer)
			return 1;
		r->peer = r0->peer;
	} else if (!strcmp(m, "unixaccepted") || !strcmp(m, "unixgone")) {
		r = nth_unix(m[5] == 'c' ? CKPT_UNIX_ACCEPTED : CKPT_UNIX_DISCONNECTED, 0);
		if (!r)
			return 1;
		if (m[5] == 'c') {
			memset(r->addr, 0, sizeof(r->addr));
			r->addr_len = 0;
		} else {
			r->peer = 0;
		}
	} else if (!strcmp(m, "unixcred") || !strcmp(m, "unixcredpid")) {
		return mutate_cred(m[8] == 'p' ? CKPT_UNIX_CRED_SELF : CKPT_UNIX_CRED_SET,
				   m[8] == 'p');
	} else if (!strcmp(m, "unixrights") || !strcmp(m, "unixqueue") ||
		   !strcmp(m, "unixqemb") || !strcmp(m, "unixflight")) {
		return mutate_rights(m);
	} else if (!strcmp(m, "unixoneway") || !strcmp(m, "unixowpeer")) {
		r = nth_unix(CKPT_UNIX_ONEWAY, 0);
		r0 = nth_unix(CKPT_UNIX_EMBRYO, 0);
		if (!r || !r0 || r0->peer == CKPT_UNIX_NOPEER)
			return 1;
		if (!strcmp(m, "unixoneway"))
			r->type = SOCK_STREAM;
		else
			r->peer = r0->peer;	/* a client in a backlog */
	} else if (!strcmp(m, "unixembryo") || !strcmp(m, "unixorphan")) {
		r = nth_unix(CKPT_UNIX_EMBRYO, 0);
		if (!r)
			return 1;
		if (!strcmp(m, "unixembryo"))
			r->flags |= CKPT_UNIX_PASSCRED;
		else
			r->peer = CKPT_UNIX_NOPEER;
	} else {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

/* The first INET record of @family (0: any) with at least @nr_msgs datagrams. */
static struct ckpt_inet *first_inet(int family, uint32_t nr_msgs)
{
	struct ckpt_hdr *prev, *h;
	int n = 0;

	while ((h = nth(CKPT_INET, n++, &prev))) {
		struct ckpt_inet *r = (struct ckpt_inet *)h;

		if ((!family || r->family == family) && r->nr_msgs >= nr_msgs &&
		    (!nr_msgs || r->type == SOCK_DGRAM))
			return r;
	}
	return NULL;
}

/* The first TCP listener's INET record with connections not accepted */
static struct ckpt_inet *first_waiting(void)
{
	struct ckpt_hdr *prev, *h;
	int n = 0;

	while ((h = nth(CKPT_INET, n++, &prev))) {
		struct ckpt_inet *r = (struct ckpt_inet *)h;

		if (r->state == CKPT_INET_LISTEN && r->nr_msgs)
			return r;
	}
	return NULL;
}

static int mutate_inet(const char *m)
{
	struct ckpt_inet *r = first_inet(0, 0);
	struct ckpt_inet_dgram *d;

	if (!strcmp(m, "inetaddr") || !strcmp(m, "inetdgram"))
		r = first_inet(AF_INET, !strcmp(m, "inetdgram"));
	else if (!strcmp(m, "inetlen"))
		r = first_inet(0, 1);
	else if (!strcmp(m, "inetwaiting") || !strcmp(m, "inetwaitport"))
		r = first_waiting();
	if (!r)
		return 1;
	if (!strcmp(m, "inetwaitport"))	/* the listener's first connection */
		r = (struct ckpt_inet *)((char *)r + r->h.len);
	d = (struct ckpt_inet_dgram *)(r + 1);
	if (!strcmp(m, "inetstate")) {
		r->state = 7;
	} else if (!strcmp(m, "inetaddr")) {
		r->laddr[5] = 1;
	} else if (!strcmp(m, "inetdgram")) {
		d->family = AF_INET6;
	} else if (!strcmp(m, "inetlen")) {
		d->len = r->len + 1;
	} else if (!strcmp(m, "inetnotavail")) {
		memcpy(r->laddr, (uint8_t[]){ 10, 9, 9, 9 }, 4);
	} else if (!strcmp(m, "inetport80")) {
		r->lport = 80;
	} else if (!strcmp(m, "inetmark")) {
		r->mark = 5;
	} else if (!strcmp(m, "inetwaiting")) {
		r->nr_msgs = r->backlog + 2;
	} else if (!strcmp(m, "inetwaitport")) {
		r->lport++;
	} else {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

static int mutate_unix(const char *m)
{
	struct ckpt_hdr *prev, *h = nth(CKPT_UNIX, 0, &prev);
	struct ckpt_unix *r = (struct ckpt_unix *)h;
	int n = 0;

	if (!r)
		return 1;
	if (!strcmp(m, "unixtype")) {
		r->type = 4;
	} else if (!strcmp(m, "unixpeer")) {
		r->peer = 100000;
	} else if (!strcmp(m, "unixshut")) {
		r->shutdown |= 4;
	} else if (!strcmp(m, "unixlen")) {
		while (r && !r->nr_msgs)
			r = (struct ckpt_unix *)nth(CKPT_UNIX, ++n, &prev);
		if (!r)
			return 1;
		((uint32_t *)(r + 1))[0]++;
	} else if (!strcmp(m, "unixswap") || !strcmp(m, "unixmade")) {
		r = (struct ckpt_unix *)nth(CKPT_UNIX, 1, &prev);
		if (!r || !prev || prev->type != CKPT_FILE || r->nr_msgs > 1)
			return 1;
		if (!strcmp(m, "unixmade"))
			((struct ckpt_file *)prev)->type = CKPT_FILE_EVENTFD;
		else
			r->type = r->type == SOCK_DGRAM ? SOCK_STREAM : SOCK_DGRAM;
	} else {
		return mutate_listen(m);
	}
	return 0;
}

/* The first CPU record that restarts a futex wait. */
/* the first CPU record that restarts a system call of @kind */
static struct ckpt_cpu *restart_cpu(uint32_t kind)
{
	struct ckpt_hdr *h;
	size_t off = 0;

	while ((h = ckpt_next_rec(img, size, &off)))
		if (h->type == CKPT_CPU && ((struct ckpt_cpu *)h)->restart == kind)
			return (struct ckpt_cpu *)h;
	return NULL;
}

static int mutate_wait(const char *m)
{
	struct ckpt_cpu *c;

	if (!strcmp(m, "waitpollmask")) {
		c = restart_cpu(CKPT_RESTART_POLL);
		if (!c)
			return 1;
		c->restart_sigmask = 1;
	} else if (!strcmp(m, "waitepollmax")) {
		c = restart_cpu(CKPT_RESTART_EPOLL);
		if (!c)
			return 1;
		c->restart_arg2 = 0;
	} else if (!strcmp(m, "waitclock")) {
		c = restart_cpu(CKPT_RESTART_SIGTIMEDWAIT);
		if (!c || !(c->restart_flags & CKPT_RESTART_TIMEOUT))
			return 1;
		c->restart_clockid = CLOCK_REALTIME;
	} else if (!strcmp(m, "waitflags")) {
		c = restart_cpu(CKPT_RESTART_SIGTIMEDWAIT);
		if (!c)
			return 1;
		c->restart_flags |= CKPT_RESTART_SIGMASK;
	} else {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

/* Urgent data of TCP record @t */
static int mutate_urgent(struct ckpt_tcp *t, const char *m)
{
	if (!strcmp(m, "tcpurgboth")) {
		t->flags |= CKPT_TCP_URG_NOTYET | CKPT_TCP_URG_VALID;
	} else if (!strcmp(m, "tcpurgmark")) {
		t->flags = (t->flags & ~CKPT_TCP_URG) | CKPT_TCP_URG_NOTYET;
		t->urg_mark = 1U << 31;
		t->urg_byte = 0;
	} else if (!strcmp(m, "tcpurgbyte")) {
		t->flags = (t->flags & ~CKPT_TCP_URG) | CKPT_TCP_URG_READ;
		t->urg_mark = 0;
		t->urg_byte = '!';
	} else if (!strcmp(m, "tcpurgup")) {
		t->snd_up = t->sndq_len + 1;
	} else {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

/* The checksum of the image of a tree's process that holds @rec, again. */
static void resum_part(const void *rec)
{
	struct ckpt_hdr *h;
	size_t off = 0, head = 0, at = (const uint8_t *)rec - img;

	while ((h = ckpt_next_rec(img, size, &off))) {
		if (h->type == CKPT_HEAD)
			head = (uint8_t *)h - img;
		if (h->type == CKPT_TAIL && (size_t)((uint8_t *)h - img) > at) {
			((struct ckpt_tail *)h)->checksum =
				ckpt_tail_sum(img + head, (struct ckpt_tail *)h);
			return;
		}
	}
	FAIL("no tail after byte %zu", at);
}

static int mutate_tree(const char *m)
{
	struct ckpt_tree *t = (struct ckpt_tree *)find(CKPT_TREE);
	struct ckpt_tree_proc *p = (struct ckpt_tree_proc *)(t + 1);
	struct ckpt_hdr *h;
	size_t off = 0;
	int heads = 0;

	if (!t || t->nr < 2)
		return 1;
	if (!strcmp(m, "treenr"))
		t->nr = 0;
	else if (!strcmp(m, "treeparent"))
		p[1].parent = 1;
	else if (!strcmp(m, "treepid"))
		p[1].pid = p[0].pid;
	else if (!strcmp(m, "treepgid") && t->nr > 3)
		p[1].pgid = p[3].pid;
	else if (!strcmp(m, "treezombie"))
		p[0].flags |= CKPT_PROC_ZOMBIE;
	else if (!strcmp(m, "treeshare"))
		p[1].share_files = 2;
	else if (!strcmp(m, "treeshared"))
		p[1].share_files = 1;
	else if (strcmp(m, "treefile") && strcmp(m, "treehead"))
		FAIL("unknown mutation %s", m);
	while (!strcmp(m, "treefile") && (h = ckpt_next_rec(img, size, &off))) {
		struct ckpt_file *f = (struct ckpt_file *)h;

		if (h->type == CKPT_FILE && f->type == CKPT_FILE_TREE) {
			f->data_flags = 100000;
			resum_part(h);
			return 0;
		}
	}
	while (!strcmp(m, "treehead") && (h = ckpt_next_rec(img, size, &off))) {
		if (h->type == CKPT_HEAD && ++heads == 3) {
			((struct ckpt_head *)h)->flags &= ~CKPT_CHECKPOINT_TREE;
			resum_part(h);
			return 0;
		}
	}
	return strcmp(m, "treefile") && strcmp(m, "treehead") ? 0 : 1;
}

static int mutate_pty(const char *m)
{
	struct ckpt_tree *t = (struct ckpt_tree *)find(CKPT_TREE);
	struct ckpt_pty *p = (struct ckpt_pty *)find(CKPT_PTY);
	struct ckpt_hdr *h;
	size_t off = 0;

	if (!t || !p)
		return 1;
	if (!strcmp(m, "ptysession")) {
		p->session = ((struct ckpt_tree_proc *)(t + 1))[0].pid;
		resum_part(p);
		return 0;
	}
	if (strcmp(m, "ptyfile"))
		FAIL("unknown mutation %s", m);
	while ((h = ckpt_next_rec(img, size, &off))) {
		struct ckpt_file *f = (struct ckpt_file *)h;

		if (h->type == CKPT_FILE && f->type == CKPT_FILE_PTS) {
			f->data = 9;
			resum_part(h);
			return 0;
		}
	}
	return 1;
}

/* The first run of the first PAGE_RUNS record; its process's checksum again. */
static int mutate_run(const char *m)
{
	struct ckpt_hdr *h = find(CKPT_PAGE_RUNS);
	struct ckpt_page_run *r = (struct ckpt_page_run *)((struct ckpt_page_runs *)h + 1);

	if (!h)
		return 1;
	if (!strcmp(m, "runproc"))
		r->proc = 1000;
	else if (!strcmp(m, "runfrom"))
		r->from = 0x1000;
	else if (!strcmp(m, "runpages"))
		r->pages = 0;
	else
		FAIL("unknown mutation %s", m);
	resum_part(h);
	return 0;
}

static int mutate(const char *m)
{
	struct ckpt_hdr *h;

	if (!strcmp(m, "clockid") || !strcmp(m, "dr7") || !strcmp(m, "tls")) {
		struct ckpt_cpu *c = (struct ckpt_cpu *)find(CKPT_CPU);

		if (!c || (!strcmp(m, "clockid") && c->restart != CKPT_RESTART_NANOSLEEP))
			return 1;
		if (!strcmp(m, "clockid"))
			c->restart_clockid = CLOCK_REALTIME_COARSE;
		else if (!strcmp(m, "dr7"))
			c->debugreg[7] = 0x20001;
		else
			memset(&c->tls[0], 0x11, 8);
	} else if (!strcmp(m, "xfeatures")) {
		h = find(CKPT_XSTATE);
		if (!h)
			return 1;
		/* the XSAVE header follows the 512-byte legacy area */
		*(uint64_t *)((uint8_t *)h + sizeof(struct ckpt_xstate) + 512) |= 1ULL << 18;
	} else if (!strcmp(m, "seccompprev")) {
		h = after_nth(CKPT_SECCOMP_FILTER, 0);
		if (!h || h->type != CKPT_SECCOMP_FILTER)
			return 1;
		((struct ckpt_seccomp_filter *)h)->prev = 2;
	} else if (!strcmp(m, "seccompleaf")) {
		struct ckpt_seccomp *s = (struct ckpt_seccomp *)find(CKPT_SECCOMP);

		if (!s)
			return 1;
		s->filter = s->nr_filters + 1;
	} else if (!strcmp(m, "bpf")) {
		h = find(CKPT_SECCOMP_FILTER);
		if (!h)
			return 1;
		((struct sock_filter *)((struct ckpt_seccomp_filter *)h + 1))->code = 0xffff;
	} else if (!strcmp(m, "epolldup")) {
		struct ckpt_epoll *e = (struct ckpt_epoll *)find(CKPT_EPOLL);
		struct ckpt_epoll_item *it = (struct ckpt_epoll_item *)(e + 1);

		if (!e || e->nr < 2)
			return 1;
		it[1].fd = it[0].fd;
		it[1].file = it[0].file;
	} else if (!strcmp(m, "alarm") || !strcmp(m, "clock10")) {
		struct ckpt_posix_timers *t = (struct ckpt_posix_timers *)find(CKPT_POSIX_TIMERS);

		if (!t || !t->nr)
			return 1;
		((struct ckpt_posix_timer *)(t + 1))->clock =
			!strcmp(m, "alarm") ? CLOCK_REALTIME_ALARM : 10;
	} else if (!strcmp(m, "pipebig") || !strcmp(m, "pipehuge")) {
		struct ckpt_pipe *p = (struct ckpt_pipe *)find(CKPT_PIPE);

		if (!p)
			return 1;
		p->size = !strcmp(m, "pipebig") ? 16 << 20 : 0xfffff000;
		if (!strcmp(m, "pipehuge")) {
			p->len = p->size;
			p->h.len = sizeof(*p) + p->len;
		}
	} else if (!strncmp(m, "lock", 4)) {
		struct ckpt_locks *r = (struct ckpt_locks *)find(CKPT_LOCKS);
		struct ckpt_lock *l = (struct ckpt_lock *)(r + 1);

		if (!r || !r->nr)
			return 1;
		if (!strcmp(m, "lockfile"))
			l->file = 100000;
		else if (!strcmp(m, "lockkind"))
			l->kind = 9;
		else
			l->end = l->start - 1;
	} else if (!strcmp(m, "dispatch")) {
		struct ckpt_task *t = (struct ckpt_task *)find(CKPT_TASK);

		if (!t || !(t->dispatch & CKPT_DISPATCH_ON))
			return 1;
		t->dispatch_offset = ~0ULL;
		t->dispatch_len = 2;
	} else if (!strncmp(m, "spec", 4)) {
		struct ckpt_task *t = (struct ckpt_task *)find(CKPT_TASK);

		if (!t)
			return 1;
		t->spec_ctrl = !strcmp(m, "spec77") ? 0x77 << 8 : PR_SPEC_DISABLE;
	} else if (!strcmp(m, "nocpuid")) {
		struct ckpt_cpu *c = (struct ckpt_cpu *)find(CKPT_CPU);

		if (!c)
			return 1;
		c->flags |= CKPT_CPU_NOCPUID;
	} else if (!strcmp(m, "membarrier")) {
		struct ckpt_mm *mm = (struct ckpt_mm *)find(CKPT_MM);

		if (!mm)
			return 1;
		mm->membarrier |= 1;
	} else if (!strcmp(m, "version")) {
		struct ckpt_head *hd = (struct ckpt_head *)find(CKPT_HEAD);

		if (!hd)
			return 1;
		hd->version++;
	} else if (!strcmp(m, "saflags")) {
		struct ckpt_signals *sg = (struct ckpt_signals *)find(CKPT_SIGNALS);

		if (!sg)
			return 1;
		sg->action[SIGUSR1 - 1].flags |= 1ULL << 40;
	} else if (!strcmp(m, "mmflags")) {
		struct ckpt_mm *mm = (struct ckpt_mm *)find(CKPT_MM);

		if (!mm)
			return 1;
		mm->coredump_filter |= 1 << 9;
	} else if (!strncmp(m, "futex", 5)) {
		struct ckpt_cpu *c = restart_cpu(CKPT_RESTART_FUTEX);

		if (!c)
			return 1;
		if (!strcmp(m, "futexclock"))
			c->restart_clockid = 5;
		else
			c->restart_addr |= 1;
	} else if (!strncmp(m, "thread", 6)) {
		return mutate_thread(m);
	} else if (!strncmp(m, "wait", 4)) {
		return mutate_wait(m);
	} else if (!strncmp(m, "unix", 4)) {
		return mutate_unix(m);
	} else if (!strncmp(m, "inet", 4)) {
		return mutate_inet(m);
	} else if (!strncmp(m, "tree", 4)) {
		return mutate_tree(m);
	} else if (!strncmp(m, "run", 3)) {
		return mutate_run(m);
	} else if (!strncmp(m, "pty", 3)) {
		return mutate_pty(m);
	} else if (!strncmp(m, "tcp", 3)) {
		struct ckpt_tcp *t = (struct ckpt_tcp *)find(CKPT_TCP);

		if (!t)
			return 1;
		if (!strcmp(m, "tcpunsent"))
			t->unsent = t->sndq_len + 1;
		else if (!strcmp(m, "tcpwscale"))
			t->snd_wscale = 15;
		else
			return mutate_urgent(t, m);
	} else if (strcmp(m, "none")) {
		FAIL("unknown mutation %s", m);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ckpt_tail *t;
	struct stat st;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: ckpt-mutate IN OUT MUTATION\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &st), "%s: %m", argv[1]);
	size = st.st_size;
	img = malloc(size);
	CHECK(img && read(fd, img, size) == (ssize_t)size, "read: %m");
	close(fd);
	/* before the mutation, which may leave records unwalkable */
	t = (struct ckpt_tail *)find(CKPT_TAIL);
	CHECK(t, "no tail");
	if (mutate(argv[3])) {
		fprintf(stderr, "%s: nothing to mutate for %s\n", argv[1], argv[3]);
		return 1;
	}
	t->checksum = ckpt_tail_sum(img, t);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, img, size) == (ssize_t)size, "%s: %m", argv[2]);
	close(fd);
	return 0;
}
