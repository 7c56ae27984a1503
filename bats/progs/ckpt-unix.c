// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-unix [MODE] GOFILE: hold AF_UNIX socket pairs with data queued
 * both ways, prints "ready", waits for GOFILE, checks every byte, message
 * boundary, option and shutdown, that each pair still works, and prints
 * "unix ok".
 *   fds 3, 4:   stream; 100 KiB 3->4 then shutdown(3, SHUT_WR); 1000
 *               bytes 4->3 of which 3 read 10; 3 has SO_RCVTIMEO 1.5 s
 *   fds 5, 6:   datagram; 6 has an empty, a 5-byte and a 3000-byte
 *               datagram to read, 5 one of 7 bytes; 5 has SO_SNDBUF
 *               64 KiB, 6 SO_PEEK_OFF 2, non-blocking
 *   fds 7, 8:   seqpacket; 8 has records of 4 and 6 bytes, 7 none;
 *               7 has SO_RCVLOWAT 3
 *   fds 9, 10:  stream, nothing queued; 9 has SO_PASSCRED
 *   fds 11, 12: stream; 11 has "a" sent without credentials, "bb" sent
 *               with SCM_CREDENTIALS {pid, 1234, 5678}, then SO_PASSCRED
 *               and "ccc" with the credentials the kernel adds
 *   fds 13, 14: datagram; 13 has "one" with SCM_CREDENTIALS {1, 0, 0}
 *               (init's), "two" without, then SO_PASSCRED and "three"
 *   fds 15, 16: stream; 15 has "r1" with a pipe's read end (SCM_RIGHTS),
 *               "piped" in the pipe, its ends closed since; "plain"; "r2"
 *               with fds 18 and 15 itself
 *   fds 17, 18: datagram; 17 has "dg" with both ends of a stream pair
 *               closed since, one with "inner" to read
 *   fd 19:      stream, its peer closed: "g1" with a pipe's read end
 *               ("gone" in the pipe, its ends closed since), then "g2"
 *   fd 20:      datagram, its peer closed: "gd" with fd 19
 *   fd 21:      stream listener on the abstract name "ckpt-unix-emb.PID",
 *               non-blocking, with three connections not accepted: from
 *               fd 22, "e1" with a pipe's read end ("emb" in the pipe, its
 *               ends closed since) then "e2" with fds 22 and 15, then
 *               shutdown(22, SHUT_WR); from fd 23, "plain"; from a client
 *               closed since, "e3" with fd 21 itself
 * MODE:
 *   self:   only fds 3, 4, a stream: 3 has SO_PASSCRED and "self" to
 *           read with the credentials the kernel adds; "self ok"
 * MODE, a refusal (the process then just waits for GOFILE):
 *   creds:  fd 3 has a message from a child that exited, with SO_PASSCRED
 *   epoll:  fd 3 has a message with an epoll watching fd 4, closed since
 *   outside: fd 3 is connected to a socket held by a child process
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "ckpt.h"
#include "ckpt-scm.h"

#define BIG	(100 << 10)

static char big[BIG], buf[BIG + 1];

static void pair(int type, int a)
{
	int sv[2];


	CHECK(!socketpair(AF_UNIX, type, 0, sv) && sv[0] == a && sv[1] == a + 1,
	      "socketpair %d at %d: %s", type, a, strerror(errno));
}

static void setint(int fd, int opt, int val)
{
	CHECK(!setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val)),
	      "fd %d: setsockopt %d: %s", fd, opt, strerror(errno));
}

static int getint(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int val;

	CHECK(!getsockopt(fd, SOL_SOCKET, opt, &val, &len), "fd %d: getsockopt %d", fd, opt);
	return val;
}

static void expect(int fd, const char *data, size_t len, int flags)
{
	ssize_t n = recv(fd, buf, sizeof(buf), flags | MSG_DONTWAIT);

	CHECK(n == (ssize_t)len && !memcmp(buf, data, len),
	      "fd %d: read %zd bytes, expected %zu (%s)", fd, n, len,
	      n < 0 ? strerror(errno) : "");
}

static void check_stream(void)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);
	size_t got = 0;
	ssize_t n;

	while (got < BIG) {
		n = read(4, buf, sizeof(buf));
		CHECK(n > 0 && !memcmp(buf, big + got, n), "fd 4: %zd bytes at %zu", n, got);
		got += n;
	}
	CHECK(read(4, buf, 1) == 0, "fd 4: no EOF after shutdown(SHUT_WR) of 3");
	expect(3, big + 10, 990, 0);
	CHECK(!getsockopt(3, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) &&
	      tv.tv_sec == 1 && tv.tv_usec == 500000, "fd 3: rcvtimeo %ld.%06ld",
	      (long)tv.tv_sec, (long)tv.tv_usec);
	CHECK(send(3, "x", 1, MSG_NOSIGNAL) == -1 && errno == EPIPE,
	      "fd 3: send after SHUT_WR");
	CHECK(write(4, "back", 4) == 4, "fd 4: write");
	expect(3, "back", 4, 0);
}

static void check_dgram(void)
{
	CHECK((fcntl(6, F_GETFL) & O_NONBLOCK) && !(fcntl(5, F_GETFL) & O_NONBLOCK),
	      "fd 5, 6: O_NONBLOCK");
	CHECK(getint(5, SO_SNDBUF) == 2 * 65536, "fd 5: sndbuf %d", getint(5, SO_SNDBUF));
	CHECK(getint(6, SO_PEEK_OFF) == 2, "fd 6: peek_off %d", getint(6, SO_PEEK_OFF));
	setint(6, SO_PEEK_OFF, -1);
	expect(6, "", 0, 0);
	expect(6, "hello", 5, 0);
	expect(6, big, 3000, 0);
	CHECK(recv(6, buf, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN, "fd 6: more");
	expect(5, "seven!!", 7, 0);
	CHECK(send(5, "again", 5, 0) == 5, "fd 5: send");
	expect(6, "again", 5, 0);
}

static void check_seqpacket(void)
{
	CHECK(getint(7, SO_RCVLOWAT) == 3, "fd 7: rcvlowat %d", getint(7, SO_RCVLOWAT));
	CHECK(recv(8, buf, 2, MSG_DONTWAIT) == 2 && !memcmp(buf, "reco", 2), "fd 8: first");
	expect(8, "record", 6, 0);	/* the rest of the first was cut off */
	CHECK(recv(7, buf, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN, "fd 7: data");
}

static void check_passcred(void)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	CHECK(getint(9, SO_PASSCRED) == 1 && getint(10, SO_PASSCRED) == 0,
	      "fd 9, 10: passcred");
	CHECK(!getsockopt(9, SOL_SOCKET, SO_PEERCRED, &cr, &len) &&
	      cr.uid == geteuid() && cr.gid == getegid(),
	      "fd 9: peer cred %d %d", cr.uid, cr.gid);
	CHECK(write(10, "cred", 4) == 4, "fd 10: write");
	expect(9, "cred", 4, 0);
}

static void send_cred(int fd, const char *data, pid_t pid, uid_t uid, gid_t gid)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))] = {};
	struct ucred u = { pid, uid, gid };
	struct iovec iov = { (void *)data, strlen(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(u));
	memcpy(CMSG_DATA(c), &u, sizeof(u));
	CHECK(sendmsg(fd, &msg, 0) == (ssize_t)strlen(data), "fd %d: send %s: %s",
	      fd, data, strerror(errno));
}

/* Read @data from @fd, with the credentials {@pid, @uid, @gid}. */
static void expect_cred(int fd, const char *data, pid_t pid, uid_t uid, gid_t gid)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct ucred u;
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	CHECK(n == (ssize_t)strlen(data) && !memcmp(buf, data, n),
	      "fd %d: read %zd bytes, expected %s", fd, n, data);
	c = CMSG_FIRSTHDR(&msg);
	CHECK(c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS,
	      "fd %d: %s has no credentials", fd, data);
	memcpy(&u, CMSG_DATA(c), sizeof(u));
	CHECK(u.pid == pid && u.uid == uid && u.gid == gid,
	      "fd %d: %s from {%d, %u, %u}, expected {%d, %u, %u}", fd, data,
	      u.pid, u.uid, u.gid, pid, uid, gid);
}

/* Nothing with credentials, then with the sender's, then with the kernel's. */
static void hold_creds(void)
{
	pair(SOCK_STREAM, 11);
	CHECK(write(12, "a", 1) == 1, "fd 12: write");
	send_cred(12, "bb", getpid(), 1234, 5678);
	setint(11, SO_PASSCRED, 1);
	CHECK(write(12, "ccc", 3) == 3, "fd 12: write");
	pair(SOCK_DGRAM, 13);
	send_cred(14, "one", 1, 0, 0);
	CHECK(send(14, "two", 3, 0) == 3, "fd 14: send");
	setint(13, SO_PASSCRED, 1);
	CHECK(send(14, "three", 5, 0) == 5, "fd 14: send");
}

/* Runs of a stream apart, each with its credentials; none is 0, -1, -1. */
static void check_creds(void)
{
	expect_cred(11, "a", 0, 65534, 65534);
	expect_cred(11, "bb", getpid(), 1234, 5678);
	expect_cred(11, "ccc", getpid(), getuid(), getgid());
	expect_cred(13, "one", 1, 0, 0);
	expect_cred(13, "two", 0, 65534, 65534);
	expect_cred(13, "three", getpid(), getuid(), getgid());
	CHECK(getint(12, SO_PASSCRED) == 0 && getint(14, SO_PASSCRED) == 0,
	      "fd 12, 14: passcred");
}

/* A process's own credentials in flight, also when it is not root. */
static int self(const char *go)
{
	pair(SOCK_STREAM, 3);
	setint(3, SO_PASSCRED, 1);
	CHECK(write(4, "self", 4) == 4, "fd 4: write");
	ready_then_wait(go);
	expect_cred(3, "self", getpid(), getuid(), getgid());
	printf("self ok\n");
	return 0;
}

static void same_file(int a, int b)
{
	struct stat sa, sb;

	CHECK(!fstat(a, &sa) && !fstat(b, &sb) && sa.st_ino == sb.st_ino &&
	      sa.st_dev == sb.st_dev, "fds %d and %d: not the same file", a, b);
}

static struct sockaddr_un emb;
static socklen_t emb_len;

/* Descriptors in flight to connections a listener has not accepted. */
static void hold_embryos(void)
{
	int p[2];

	emb.sun_family = AF_UNIX;
	emb_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		  sprintf(emb.sun_path + 1, "ckpt-unix-emb.%d", getpid());
	sock_at(SOCK_STREAM, 21);
	CHECK(!bind(21, (void *)&emb, emb_len) && !listen(21, 4) &&
	      !fcntl(21, F_SETFL, O_NONBLOCK), "listener 21: %s", strerror(errno));
	sock_at(SOCK_STREAM, 22);
	CHECK(!connect(22, (void *)&emb, emb_len), "connect 22: %s", strerror(errno));
	CHECK(!pipe(p) && write(p[1], "emb", 3) == 3, "pipe");
	close(p[1]);
	send_fds(22, "e1", p, 1);
	close(p[0]);
	send_fds(22, "e2", (int []){ 22, 15 }, 2);
	CHECK(!shutdown(22, SHUT_WR), "shutdown 22");
	sock_at(SOCK_STREAM, 23);
	CHECK(!connect(23, (void *)&emb, emb_len) && write(23, "plain", 5) == 5,
	      "connect 23: %s", strerror(errno));
	sock_at(SOCK_STREAM, 24);
	CHECK(!connect(24, (void *)&emb, emb_len), "connect 24: %s", strerror(errno));
	send_fds(24, "e3", (int []){ 21 }, 1);
	close(24);
}

/* Accepted in order: each reads what was in flight to it, then end of file. */
static void check_embryos(void)
{
	int c[3], f[2], k;

	for (k = 0; k < 3; k++) {
		c[k] = accept(21, NULL, NULL);
		CHECK(c[k] >= 0, "accept %d: %s", k, strerror(errno));
	}
	CHECK(accept(21, NULL, NULL) < 0 && errno == EAGAIN, "a fourth connection");
	recv_fds(c[0], "e1", f, 1);
	CHECK(read(f[0], buf, sizeof(buf)) == 3 && !memcmp(buf, "emb", 3) &&
	      read(f[0], buf, 1) == 0, "the pipe in flight to a connection");
	close(f[0]);
	recv_fds(c[0], "e2", f, 2);
	same_file(f[0], 22);
	same_file(f[1], 15);
	close(f[0]);
	close(f[1]);
	CHECK(read(c[0], buf, 1) == 0, "no EOF after the shutdown of 22");
	CHECK(send(22, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE, "fd 22 sends: %s",
	      strerror(errno));
	CHECK(write(c[0], "r", 1) == 1, "write");
	expect(22, "r", 1, 0);
	expect(c[1], "plain", 5, 0);
	CHECK(write(c[1], "p", 1) == 1, "write");
	expect(23, "p", 1, 0);
	recv_fds(c[2], "e3", f, 1);
	same_file(f[0], 21);
	close(f[0]);
	CHECK(read(c[2], buf, 1) == 0, "no EOF from the closed client");
	for (k = 0; k < 3; k++)
		close(c[k]);
}

/* Descriptors in flight: a pipe and a socket pair held only there, ours. */
static void hold_rights(void)
{
	int p[2], in[2];

	pair(SOCK_STREAM, 15);
	pair(SOCK_DGRAM, 17);
	CHECK(!pipe(p) && write(p[1], "piped", 5) == 5, "pipe");
	close(p[1]);
	send_fds(16, "r1", p, 1);
	close(p[0]);
	CHECK(write(16, "plain", 5) == 5, "fd 16: write");
	send_fds(16, "r2", (int []){ 18, 15 }, 2);
	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, in) && write(in[1], "inner", 5) == 5,
	      "inner pair");
	send_fds(18, "dg", in, 2);
	close(in[0]);
	close(in[1]);
	/* sent, then their peer closed */
	pair(SOCK_STREAM, 19);
	CHECK(!pipe(p) && write(p[1], "gone", 4) == 4, "pipe");
	close(p[1]);
	send_fds(20, "g1", p, 1);
	close(p[0]);
	CHECK(write(20, "g2", 2) == 2, "fd 20: write");
	close(20);
	CHECK(!socketpair(AF_UNIX, SOCK_DGRAM, 0, in) && in[0] == 20, "pair 20");
	send_fds(in[1], "gd", (int []){ 19 }, 1);
	close(in[1]);
	hold_embryos();
}

static void check_rights(void)
{
	int f[2];

	recv_fds(15, "r1", f, 1);
	CHECK(read(f[0], buf, sizeof(buf)) == 5 && !memcmp(buf, "piped", 5) &&
	      read(f[0], buf, 1) == 0, "the pipe in flight");
	close(f[0]);
	recv_fds(15, "plain", f, 0);
	recv_fds(15, "r2", f, 2);
	same_file(f[0], 18);
	same_file(f[1], 15);
	close(f[0]);
	close(f[1]);
	recv_fds(17, "dg", f, 2);
	expect(f[0], "inner", 5, 0);
	CHECK(write(f[1], "back", 4) == 4, "the pair in flight: write");
	expect(f[0], "back", 4, 0);
	close(f[0]);
	close(f[1]);
	recv_fds(19, "g1", f, 1);
	CHECK(read(f[0], buf, sizeof(buf)) == 4 && !memcmp(buf, "gone", 4) &&
	      read(f[0], buf, 1) == 0, "the pipe in flight to 19");
	close(f[0]);
	recv_fds(19, "g2", f, 0);
	CHECK(read(19, buf, 1) == 0, "fd 19: not at its end");
	CHECK(send(19, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE, "fd 19: write: %s",
	      strerror(errno));
	recv_fds(20, "gd", f, 1);
	same_file(f[0], 19);
	close(f[0]);
	CHECK(send(20, "x", 1, 0) < 0 && errno == ECONNREFUSED, "fd 20: send: %s",
	      strerror(errno));
	check_embryos();
}

/* The refusals: fd 3 is what cannot come back. */
static void refusal(const char *mode)
{
	pair(SOCK_STREAM, 3);
	if (!strcmp(mode, "outside")) {
		if (!fork()) {
			/* held only while its parent lives: the test leaves nothing */
			CHECK(!prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
			close(3);
			pause();
			_exit(0);
		}
		close(4);
		return;
	}
	if (!strcmp(mode, "epoll")) {
		int ep = epoll_create1(0);
		struct epoll_event ev = { .events = EPOLLIN };

		CHECK(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, 4, &ev), "epoll");
		send_fds(4, "e", &ep, 1);
		close(ep);
		return;
	}
	if (!strcmp(mode, "creds")) {
		setint(3, SO_PASSCRED, 1);
		if (!fork()) {
			CHECK(write(4, "m", 1) == 1, "child: write");
			_exit(0);
		}
		CHECK(wait(NULL) > 0, "wait");
		return;
	}
	CHECK(write(4, "m", 1) == 1, "write: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct timeval tv = { 1, 500000 };
	int i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: ckpt-unix [self|creds|epoll|outside] GOFILE\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	if (argc == 3 && !strcmp(argv[1], "self"))
		return self(argv[2]);
	if (argc == 3) {
		refusal(argv[1]);
		ready_then_wait(argv[2]);
		return 0;
	}
	for (i = 0; i < BIG; i++)
		big[i] = i * 7 + i / 4096;
	pair(SOCK_STREAM, 3);
	CHECK(write(3, big, BIG) == BIG, "write 3");
	CHECK(!shutdown(3, SHUT_WR), "shutdown");
	CHECK(write(4, big, 1000) == 1000, "write 4");
	CHECK(read(3, buf, 10) == 10, "read 3");
	CHECK(!setsockopt(3, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "rcvtimeo");
	pair(SOCK_DGRAM, 5);
	setint(5, SO_SNDBUF, 65536);
	CHECK(send(5, "", 0, 0) == 0 && send(5, "hello", 5, 0) == 5 &&
	      send(5, big, 3000, 0) == 3000 && send(6, "seven!!", 7, 0) == 7, "send");
	setint(6, SO_PEEK_OFF, 2);
	CHECK(!fcntl(6, F_SETFL, O_NONBLOCK), "nonblock");
	pair(SOCK_SEQPACKET, 7);
	CHECK(send(7, "reco", 4, 0) == 4 && send(7, "record", 6, 0) == 6, "send 7");
	setint(7, SO_RCVLOWAT, 3);
	pair(SOCK_STREAM, 9);
	setint(9, SO_PASSCRED, 1);
	hold_creds();
	hold_rights();
	ready_then_wait(argv[1]);
	check_stream();
	check_dgram();
	check_seqpacket();
	check_passcred();
	check_creds();
	check_rights();
	printf("unix ok\n");
	return 0;
}
