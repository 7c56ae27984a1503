// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-unix-listen [MODE] DIR GOFILE: hold bound and listening AF_UNIX
 * sockets with connections waiting in their backlogs, print "ready",
 * wait for GOFILE, check every address, connection, byte and file mode,
 * and print "listen ok".
 *   fd 3:  seqpacket client of 4, waiting in its backlog, sent "rec"
 *   fd 4:  seqpacket listener on the abstract name "ckpt-listen.PID";
 *          it accepted 14 from 13, each sent the other "sNN"
 *   fd 5:  stream listener on DIR/srv.sock (mode 0741), backlog 4,
 *          non-blocking: it accepted 12 from 11, each sent the other
 *          "cNN"; clients 6, 7 and a closed one wait in it
 *   fd 6:  client of 5, sent "hello"
 *   fd 7:  client of 5, shut down for writing, sent nothing
 *          the third client of 5 sent "bye" and was closed
 *   fd 8:  datagram socket on DIR/dgram.sock with "d1", an empty and a
 *          2000-byte datagram to read, from a closed unbound socket
 *   fd 9:  stream socket autobound to an abstract name, not listening
 *   fd 10: datagram socket, unbound
 *   fd 16: datagram socket connected one way to 17, sent it "q16"
 *   fd 17: datagram socket bound to the abstract name "ckpt-ow.PID"
 *   fd 18: datagram socket connected one way to 8
 * MODE disconnect: peers outside, in a child; after GOFILE checks they are
 * gone and prints "disconnect ok":
 *   fd 3:  stream, its peer in the child, which sent "from child", then
 *          "fdc" with the read end of a pipe of its own with "cpipe"
 *   fd 4:  stream, its peer closed after it sent "orphan"
 *   fd 5:  stream listener on DIR/d.sock, non-blocking; it accepted 6
 *          from the child, which then sent "acc"; another connection from
 *          the child, which sent "pend", then "pfd" with the read end of
 *          another pipe of its own with "epipe", waits in its backlog
 *   fd 7:  datagram, its peer in the child, which sent "dg"
 *   fd 8:  stream client waiting in the backlog of the child's listener
 * MODE (for the refusals, the process then just waits for GOFILE):
 *   outclient:   fd 3 listens, a child's socket waits in its backlog
 *   outlistener: fd 3 waits in the backlog of a child's listener
 *   boundconn:   fd 3 listens, 4 is its client, bound to an abstract name
 *   boundfrom:   fd 3 has a datagram from the bound socket 4 to read
 *   relative:    fd 3 is bound to the relative path DIR/rel.sock
 *   removed:     fd 3 is bound to DIR/gone.sock, which was removed
 *   owunbound:   fd 3 is connected one way to 4, of no address (a datagram
 *                pair of which 4 connected to 5 since)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "ckpt.h"
#include "ckpt-scm.h"

static struct sockaddr_un srv, dg, ab, ow;
static socklen_t ab_len, ow_len;
static char buf[4096], big[2000];

static void path_addr(struct sockaddr_un *sun, const char *dir, const char *name)
{
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%s", dir, name);
}

static socklen_t sun_len(const struct sockaddr_un *sun)
{
	return offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1;
}

static void listen_at(int fd, int type, const struct sockaddr_un *sun,
		      socklen_t len, int backlog)
{
	sock_at(type, fd);
	CHECK(!bind(fd, (const void *)sun, len), "bind %d: %s", fd, strerror(errno));
	CHECK(!listen(fd, backlog), "listen %d", fd);
}

static void connect_at(int fd, int type, const struct sockaddr_un *sun, socklen_t len)
{
	sock_at(type, fd);
	CHECK(!connect(fd, (const void *)sun, len), "connect %d: %s", fd, strerror(errno));
}

/* accept() on listener @l, the connection at @fd */
static void accepted_at(int fd, int l)
{
	int c = accept(l, NULL, NULL);

	CHECK(c >= 0, "accept %d: %s", l, strerror(errno));
	if (c != fd)
		CHECK(dup2(c, fd) == fd && !close(c), "dup2 %d", fd);
}

static void expect(int fd, const char *data, ssize_t len)
{
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	CHECK(n == len && !memcmp(buf, data, len), "fd %d: read %zd bytes, expected %zd (%s)",
	      fd, n, len, n < 0 ? strerror(errno) : "");
}

static void same_name(int fd, const struct sockaddr_un *sun, socklen_t len, bool peer)
{
	struct sockaddr_un got = {};
	socklen_t n = sizeof(got);

	CHECK(!(peer ? getpeername : getsockname)(fd, (void *)&got, &n) &&
	      n == len && !memcmp(&got, sun, len),
	      "fd %d: %s name of %u bytes, %s", fd, peer ? "peer" : "own", n, got.sun_path);
}

/* The seqpacket listener 4 and its client 3, read before it. */
static void check_seqpacket(void)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int c = accept(4, NULL, NULL);

	CHECK(c >= 0, "accept 4: %s", strerror(errno));
	same_name(3, &ab, ab_len, true);
	same_name(c, &ab, ab_len, false);
	expect(c, "rec", 3);
	CHECK(!getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) && cr.uid == geteuid(),
	      "peercred %d", cr.uid);
	CHECK(send(c, "back", 4, 0) == 4, "send");
	expect(3, "back", 4);
	close(c);
	/* the connection it accepted */
	same_name(14, &ab, ab_len, false);
	same_name(13, &ab, ab_len, true);
	expect(14, "s13", 3);
	expect(13, "s14", 3);
}

static void check_stream(const char *dir)
{
	struct sockaddr_un again;
	struct stat sb;
	int c[3], k, n;

	CHECK(!stat(srv.sun_path, &sb) && S_ISSOCK(sb.st_mode) &&
	      (sb.st_mode & 07777) == 0741, "%s: mode %o", srv.sun_path, sb.st_mode);
	CHECK(fcntl(5, F_GETFL) & O_NONBLOCK, "fd 5: O_NONBLOCK");
	same_name(12, &srv, sun_len(&srv), false);
	same_name(11, &srv, sun_len(&srv), true);
	expect(12, "c11", 3);
	expect(11, "c12", 3);
	for (k = 0; k < 3; k++) {
		c[k] = accept(5, NULL, NULL);
		CHECK(c[k] >= 0, "accept %d: %s", k, strerror(errno));
		same_name(c[k], &srv, sun_len(&srv), false);
	}
	CHECK(accept(5, NULL, NULL) < 0 && errno == EAGAIN, "a fourth connection");
	expect(c[0], "hello", 5);
	CHECK(write(c[0], "hi", 2) == 2, "write");
	expect(6, "hi", 2);
	CHECK(read(c[1], buf, 1) == 0, "no EOF from 7");
	CHECK(send(7, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE, "7 sends after SHUT_WR");
	CHECK(write(c[1], "y", 1) == 1, "write");
	expect(7, "y", 1);
	expect(c[2], "bye", 3);
	CHECK(read(c[2], buf, 1) == 0, "no EOF from the closed client");
	/* the path is bound again: a new client connects */
	path_addr(&again, dir, "srv.sock");
	connect_at(20, SOCK_STREAM, &again, sun_len(&again));
	n = accept(5, NULL, NULL);
	CHECK(n >= 0, "accept a new client: %s", strerror(errno));
}

static void check_dgram(void)
{
	struct sockaddr_un from;
	socklen_t len = sizeof(from);
	ssize_t n;
	int s;

	same_name(8, &dg, sun_len(&dg), false);
	n = recvfrom(8, buf, sizeof(buf), MSG_DONTWAIT, (void *)&from, &len);
	CHECK(n == 2 && !memcmp(buf, "d1", 2) && len == 0, "fd 8: %zd bytes, name %u", n, len);
	expect(8, "", 0);
	expect(8, big, sizeof(big));
	CHECK(recv(8, buf, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN, "fd 8: more");
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK(sendto(s, "new", 3, 0, (void *)&dg, sun_len(&dg)) == 3, "sendto: %s", strerror(errno));
	expect(8, "new", 3);
	close(s);
}

/* 16 and 18 send to their peers, which are connected to none */
static void check_oneway(void)
{
	struct sockaddr_un got;
	socklen_t n = sizeof(got);

	same_name(16, &ow, ow_len, true);
	same_name(17, &ow, ow_len, false);
	same_name(18, &dg, sun_len(&dg), true);
	CHECK(getpeername(17, (void *)&got, &n) < 0 && errno == ENOTCONN, "fd 17: a peer");
	expect(17, "q16", 3);
	CHECK(send(16, "n16", 3, 0) == 3 && send(18, "n18", 3, 0) == 3, "send: %s",
	      strerror(errno));
	expect(17, "n16", 3);
	expect(8, "n18", 3);
	CHECK(recv(16, buf, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN, "fd 16: a message");
}

static void check_alone(const struct sockaddr_un *auto9, socklen_t len9)
{
	struct sockaddr_un got;
	socklen_t n = sizeof(got);

	same_name(9, auto9, len9, false);
	CHECK(!getsockname(10, (void *)&got, &n) && n == sizeof(sa_family_t),
	      "fd 10: name of %u bytes", n);
}

static void setup(const char *dir)
{
	struct sockaddr_un a9;
	socklen_t len = sizeof(sa_family_t);
	int s;

	ab.sun_family = AF_UNIX;
	ab_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		 sprintf(ab.sun_path + 1, "ckpt-listen.%d", getpid());
	path_addr(&srv, dir, "srv.sock");
	path_addr(&dg, dir, "dgram.sock");
	listen_at(3, SOCK_SEQPACKET, &ab, ab_len, 2);
	connect_at(13, SOCK_SEQPACKET, &ab, ab_len);
	accepted_at(14, 3);
	CHECK(send(13, "s13", 3, 0) == 3 && send(14, "s14", 3, 0) == 3, "send 13, 14");
	connect_at(4, SOCK_SEQPACKET, &ab, ab_len);
	CHECK(send(4, "rec", 3, 0) == 3, "send rec");
	/* the client before its listener */
	CHECK(dup2(3, 11) == 11 && dup2(4, 3) == 3 && dup2(11, 4) == 4 && !close(11), "swap");
	listen_at(5, SOCK_STREAM, &srv, sun_len(&srv), 4);
	CHECK(!chmod(srv.sun_path, 0741), "chmod");
	CHECK(!fcntl(5, F_SETFL, O_NONBLOCK), "nonblock");
	connect_at(11, SOCK_STREAM, &srv, sun_len(&srv));
	accepted_at(12, 5);
	CHECK(write(11, "c11", 3) == 3 && write(12, "c12", 3) == 3, "write 11, 12");
	connect_at(6, SOCK_STREAM, &srv, sun_len(&srv));
	CHECK(write(6, "hello", 5) == 5, "write 6");
	connect_at(7, SOCK_STREAM, &srv, sun_len(&srv));
	CHECK(!shutdown(7, SHUT_WR), "shutdown 7");
	connect_at(15, SOCK_STREAM, &srv, sun_len(&srv));
	CHECK(write(15, "bye", 3) == 3 && !close(15), "the closed client");
	sock_at(SOCK_DGRAM, 8);
	CHECK(!bind(8, (void *)&dg, sun_len(&dg)), "bind 8: %s", strerror(errno));
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK(sendto(s, "d1", 2, 0, (void *)&dg, sun_len(&dg)) == 2 &&
	      sendto(s, "", 0, 0, (void *)&dg, sun_len(&dg)) == 0 &&
	      sendto(s, big, sizeof(big), 0, (void *)&dg, sun_len(&dg)) == sizeof(big) &&
	      !close(s), "send to 8: %s", strerror(errno));
	sock_at(SOCK_STREAM, 9);
	a9.sun_family = AF_UNIX;
	CHECK(!bind(9, (void *)&a9, len), "autobind 9: %s", strerror(errno));
	sock_at(SOCK_DGRAM, 10);
	/* connected one way: to a socket of the image, not to them */
	ow.sun_family = AF_UNIX;
	ow_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		 sprintf(ow.sun_path + 1, "ckpt-ow.%d", getpid());
	sock_at(SOCK_DGRAM, 17);
	CHECK(!bind(17, (void *)&ow, ow_len), "bind 17: %s", strerror(errno));
	connect_at(16, SOCK_DGRAM, &ow, ow_len);
	CHECK(send(16, "q16", 3, 0) == 3, "send 16: %s", strerror(errno));
	connect_at(18, SOCK_DGRAM, &dg, sun_len(&dg));
}

/* A child connects to listener 3, or listens for 3: the peer is outside. */
static void outside(const char *mode, const struct sockaddr_un *sun)
{
	bool client = !strcmp(mode, "outclient");
	int p[2];

	CHECK(!pipe(p), "pipe");
	if (!fork()) {
		/* held only while its parent lives: the test leaves nothing */
		CHECK(!prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
		if (client)
			connect_at(20, SOCK_STREAM, sun, sun_len(sun));
		else
			listen_at(20, SOCK_STREAM, sun, sun_len(sun), 4);
		CHECK(write(p[1], "", 1) == 1, "sync");
		pause();
		_exit(0);
	}
	CHECK(read(p[0], buf, 1) == 1, "sync");
	close(p[0]);
	close(p[1]);
	if (!client)
		connect_at(3, SOCK_STREAM, sun, sun_len(sun));
}

/* A socket pair at fds @a and @b, through fds no one uses */
static void pair_at(int type, int a, int b)
{
	int sv[2];

	CHECK(!socketpair(AF_UNIX, type, 0, sv) && dup2(sv[0], 40) == 40 &&
	      dup2(sv[1], 41) == 41 && !close(sv[0]) && !close(sv[1]) &&
	      dup2(40, a) == a && dup2(41, b) == b && !close(40) && !close(41),
	      "pair at %d, %d", a, b);
}

static void setup_disconnect(const char *dir)
{
	struct sockaddr_un d, d2;
	int p[2];

	path_addr(&d, dir, "d.sock");
	path_addr(&d2, dir, "d2.sock");
	CHECK(!pipe(p) && dup2(p[0], 30) == 30 && dup2(p[1], 31) == 31 &&
	      !close(p[0]) && !close(p[1]), "pipe");
	CHECK(!pipe(p) && dup2(p[0], 32) == 32 && dup2(p[1], 33) == 33 &&
	      !close(p[0]) && !close(p[1]), "pipe");
	pair_at(SOCK_STREAM, 3, 20);
	pair_at(SOCK_STREAM, 4, 21);
	CHECK(write(21, "orphan", 6) == 6 && !close(21), "orphan");
	listen_at(5, SOCK_STREAM, &d, sun_len(&d), 4);
	CHECK(!fcntl(5, F_SETFL, O_NONBLOCK), "nonblock");
	pair_at(SOCK_DGRAM, 7, 22);
	if (!fork()) {
		/* held only while its parent lives: the test leaves nothing */
		CHECK(!prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
		close_range(3, 7, 0);
		listen_at(25, SOCK_STREAM, &d2, sun_len(&d2), 4);
		connect_at(23, SOCK_STREAM, &d, sun_len(&d));
		connect_at(24, SOCK_STREAM, &d, sun_len(&d));
		CHECK(write(24, "pend", 4) == 4 && send(22, "dg", 2, 0) == 2 &&
		      write(20, "from child", 10) == 10 && !pipe(p) &&
		      write(p[1], "cpipe", 5) == 5, "child: %s", strerror(errno));
		send_fds(20, "fdc", p, 1);
		close(p[0]);
		close(p[1]);
		CHECK(!pipe(p) && write(p[1], "epipe", 5) == 5, "child: %s", strerror(errno));
		send_fds(24, "pfd", p, 1);
		close(p[0]);
		close(p[1]);
		CHECK(write(31, "", 1) == 1, "child: %s", strerror(errno));
		/* once accepted: what an embryo is sent carries credentials */
		CHECK(read(32, buf, 1) == 1 && write(23, "acc", 3) == 3 &&
		      write(31, "", 1) == 1, "child: %s", strerror(errno));
		pause();
		_exit(0);
	}
	CHECK(read(30, buf, 1) == 1, "sync");
	close_range(20, 29, 0);
	accepted_at(6, 5);
	CHECK(write(33, "", 1) == 1 && read(30, buf, 1) == 1, "sync");
	close_range(30, 33, 0);
	connect_at(8, SOCK_STREAM, &d2, sun_len(&d2));
}

/* What each had to read, then end of file or a refused send. */
static void check_disconnect(const char *dir)
{
	struct sockaddr_un d;
	int c, p;

	path_addr(&d, dir, "d.sock");
	CHECK(recv(3, buf, 10, MSG_DONTWAIT) == 10 && !memcmp(buf, "from child", 10),
	      "fd 3: not from child");
	recv_fds(3, "fdc", &c, 1);
	CHECK(read(c, buf, sizeof(buf)) == 5 && !memcmp(buf, "cpipe", 5) && !close(c),
	      "the child's pipe");
	CHECK(recv(3, buf, 1, MSG_DONTWAIT) == 0, "fd 3: no EOF");
	CHECK(send(3, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE, "fd 3: send");
	expect(4, "orphan", 6);
	CHECK(recv(4, buf, 1, MSG_DONTWAIT) == 0, "fd 4: no EOF");
	same_name(6, &d, sun_len(&d), false);
	expect(6, "acc", 3);
	CHECK(recv(6, buf, 1, MSG_DONTWAIT) == 0, "fd 6: no EOF");
	c = accept(5, NULL, NULL);
	CHECK(c >= 0, "accept: %s", strerror(errno));
	recv_fds(c, "pend", NULL, 0);	/* no more: the next message has descriptors */
	recv_fds(c, "pfd", &p, 1);
	CHECK(read(p, buf, sizeof(buf)) == 5 && !memcmp(buf, "epipe", 5) &&
	      read(p, buf, 1) == 0 && !close(p), "the child's pipe in flight to a connection");
	CHECK(recv(c, buf, 1, MSG_DONTWAIT) == 0, "waiting: no EOF");
	CHECK(accept(5, NULL, NULL) < 0 && errno == EAGAIN, "fd 5: more");
	expect(7, "dg", 2);
	CHECK(send(7, "x", 1, 0) < 0 && errno == ECONNREFUSED, "fd 7: send: %s",
	      strerror(errno));
	CHECK(recv(8, buf, 1, MSG_DONTWAIT) == 0, "fd 8: no EOF");
	CHECK(send(8, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE, "fd 8: send");
}

/* The refusals: fd 3 is what cannot come back. */
static void refusal(const char *mode, const char *dir)
{
	struct sockaddr_un sun;

	path_addr(&sun, dir, "r.sock");
	if (!strcmp(mode, "outclient") || !strcmp(mode, "outlistener") ||
	    !strcmp(mode, "boundconn")) {
		if (strcmp(mode, "outlistener"))
			listen_at(3, SOCK_STREAM, &sun, sun_len(&sun), 4);
		if (!strcmp(mode, "boundconn")) {
			struct sockaddr_un me = { .sun_family = AF_UNIX };

			strcpy(me.sun_path + 1, "ckpt-boundconn");
			sock_at(SOCK_STREAM, 4);
			CHECK(!bind(4, (void *)&me, sizeof(me)), "bind 4: %s", strerror(errno));
			CHECK(!connect(4, (void *)&sun, sun_len(&sun)), "connect 4");
			return;
		}
		outside(mode, &sun);
		return;
	}
	if (!strcmp(mode, "owunbound")) {
		pair_at(SOCK_DGRAM, 3, 4);
		sock_at(SOCK_DGRAM, 5);
		CHECK(!bind(5, (void *)&sun, sun_len(&sun)), "bind 5: %s", strerror(errno));
		CHECK(!connect(4, (void *)&sun, sun_len(&sun)), "connect 4: %s", strerror(errno));
		return;
	}
	sock_at(SOCK_DGRAM, 3);
	if (!strcmp(mode, "relative")) {
		CHECK(!chdir(dir), "chdir");
		path_addr(&sun, ".", "rel.sock");
	} else if (!strcmp(mode, "removed")) {
		path_addr(&sun, dir, "gone.sock");
	}
	CHECK(!bind(3, (void *)&sun, sun_len(&sun)), "bind: %s", strerror(errno));
	if (!strcmp(mode, "removed"))
		CHECK(!unlink(sun.sun_path), "unlink");
	if (!strcmp(mode, "boundfrom")) {
		sock_at(SOCK_DGRAM, 4);
		path_addr(&sun, dir, "from.sock");
		CHECK(!bind(4, (void *)&sun, sun_len(&sun)), "bind 4");
		path_addr(&sun, dir, "r.sock");
		CHECK(sendto(4, "m", 1, 0, (void *)&sun, sun_len(&sun)) == 1, "sendto");
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un a9 = {};
	socklen_t len9 = sizeof(a9);
	int i;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ckpt-unix-listen [MODE] DIR GOFILE\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	if (argc == 4 && !strcmp(argv[1], "disconnect")) {
		setup_disconnect(argv[2]);
		ready_then_wait(argv[3]);
		check_disconnect(argv[2]);
		printf("disconnect ok\n");
		return 0;
	}
	if (argc == 4) {
		refusal(argv[1], argv[2]);
		ready_then_wait(argv[3]);
		return 0;
	}
	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = i * 13 + 1;
	umask(022);
	setup(argv[1]);
	CHECK(!getsockname(9, (void *)&a9, &len9), "getsockname 9");
	ready_then_wait(argv[2]);
	check_seqpacket();
	check_stream(argv[1]);
	check_dgram();
	check_alone(&a9, len9);
	check_oneway();
	printf("listen ok\n");
	return 0;
}
