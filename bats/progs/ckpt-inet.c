// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-inet GOFILE: hold TCP and UDP sockets over 127.0.0.1 and ::1 with
 * datagrams queued, print "ready", wait for GOFILE, check every port,
 * peer, option and datagram (bytes and sender), that the listeners accept
 * new connections, and print "inet ok".
 *   fd 3:  UDP on 127.0.0.1, from 4 "u1", from 5 "u22" and 3000 bytes
 *   fd 4:  UDP on 127.0.0.1 connected to 3, from 3 "back"
 *   fd 5:  UDP autobound by sendto()
 *   fd 6:  UDP on [::] (not v6-only), from 7 "six", from 5 "four" (IPv4)
 *   fd 7:  UDP over IPv6, autobound by sendto()
 *   fd 8:  TCP listener on 127.0.0.1, backlog 5, non-blocking, with
 *          SO_REUSEADDR, SO_KEEPALIVE, TCP_NODELAY, TCP_KEEPIDLE 77,
 *          TCP_KEEPINTVL 11, TCP_KEEPCNT 5
 *   fd 9:  TCP listener on [::1], IPV6_V6ONLY, SO_LINGER 7 s, SO_SNDBUF
 *   fd 10: TCP bound to 0.0.0.0, not listening, SO_RCVBUF
 *   fd 11: UDP unbound: SO_BROADCAST, IP_TTL 33, IP_TOS 0x10, SO_PRIORITY 3,
 *          SO_MARK 0x77, SO_RCVTIMEO 1.5 s
 *   fd 12: UDP connected to 3, shut down for reading
 *   fd 13: TCP client over 127.0.0.1 of 14, wrote what 14 would take
 *          (non-blocking) and "x", 14 not read
 *   fd 14: TCP connection accepted from 13 (its listener closed), wrote
 *          "from14", not read
 *   fd 15: TCP client over ::1 of 16, TCP_NODELAY, wrote "six-c"
 *   fd 16: TCP connection accepted from 15, wrote "six-s"
 * ckpt-inet lo: bring the loopback interface up.
 * ckpt-inet port PORT GOFILE: a TCP listener (fd 3) and a UDP socket
 *   (fd 4) on 127.0.0.1:PORT; after GOFILE checks both, prints "port ok".
 * ckpt-inet conn GOFILE: fd 3 a TCP client of fd 4 over 127.0.0.1, each
 *   wrote the other "c3" and "s4", unread; fd 5 UDP on 127.0.0.1 with
 *   "d6" to read from fd 6, connected to it; after GOFILE checks them all
 *   and that more goes both ways, prints "conn ok".
 * ckpt-inet pending GOFILE: fd 3 a TCP listener on 127.0.0.1 with two
 *   connections not accepted (fds 4, 5 their clients, which wrote), fd 6
 *   a dual-stack listener on [::] with one from fd 7 over IPv4 (30000
 *   bytes written); after GOFILE accepts them in order, checks their
 *   bytes and peers, answers them, prints "pending ok".
 * ckpt-inet urgent GOFILE: TCP connections with urgent data (MSG_OOB):
 *   fd 3 to 4 over 127.0.0.1: "before", urgent "!", "after"; 4 read none
 *   fd 5 to 6 over ::1: "ab", urgent "?", "cd"; 6 read the urgent byte
 *   fd 7 to 8 over 127.0.0.1, 8 with SO_OOBINLINE: "in", urgent "#", "line"
 *   fd 9 to 10 over 127.0.0.1, 10 with a small SO_RCVBUF: 50000 bytes and
 *          an urgent "U", in one send(); most not sent, 10's byte to come
 *   after GOFILE each reads what it would have, up to and past its mark,
 *   prints "urgent ok".
 * ckpt-inet server PORT: a TCP listener on 127.0.0.1:PORT (SO_REUSEADDR)
 *   prints "ready", reads the stream of one client to its end and prints
 *   "server BYTES SUM".
 * ckpt-inet lazy PORT GOFILE: the same, but accepts only after GOFILE.
 * ckpt-inet client PORT BYTES: connects to PORT and streams BYTES bytes,
 *   a little at a time, then prints "client BYTES SUM" (a reset or any
 *   error fails it).
 * ckpt-inet MODE GOFILE, to be refused (then it waits for GOFILE):
 *   closing: fd 3 and 4 are a TCP connection over 127.0.0.1, 3 shut down
 *            for writing
 *   pktinfo: fd 3 is UDP with IP_PKTINFO
 *   netlink: fd 3 is a netlink socket
 * ckpt-inet shared GOFILE: fds 3 and 4 a TCP connection over 127.0.0.1
 *   that a child holds too; after GOFILE checks it works, prints "shared ok".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "ckpt.h"

#define URG_BULK	50000

static uint16_t port[20];
static int sndbuf9, rcvbuf10;
static char big[3000];
static size_t stream13;

static unsigned char pat(size_t i)
{
	return i * 31 + (i >> 12);
}

static void lo_up(void)
{
	struct ifreq ifr = {};
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	strcpy(ifr.ifr_name, "lo");
	CHECK(s >= 0 && !ioctl(s, SIOCGIFFLAGS, &ifr), "SIOCGIFFLAGS: %m");
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		CHECK(!ioctl(s, SIOCSIFFLAGS, &ifr), "SIOCSIFFLAGS: %m");
	}
	close(s);
}

static int sock_at(int fd, int family, int type)
{
	int s = socket(family, type, 0);

	CHECK(s >= 0, "socket: %m");
	if (s != fd) {
		CHECK(dup2(s, fd) == fd, "dup2 %d %d", s, fd);
		close(s);
	}
	return fd;
}

static struct sockaddr_in v4(uint16_t p, in_addr_t a)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(p) };

	sin.sin_addr.s_addr = a;
	return sin;
}

static struct sockaddr_in6 v6(uint16_t p)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(p) };

	sin6.sin6_addr = in6addr_loopback;
	return sin6;
}

#define LOCAL	htonl(INADDR_LOOPBACK)

static void bind4(int fd, uint16_t p, in_addr_t a)
{
	struct sockaddr_in sin = v4(p, a);

	CHECK(!bind(fd, (void *)&sin, sizeof(sin)), "bind %d: %m", fd);
}

static void connect4(int fd, uint16_t p)
{
	struct sockaddr_in sin = v4(p, LOCAL);

	CHECK(!connect(fd, (void *)&sin, sizeof(sin)), "connect %d: %m", fd);
}

static void send4(int fd, uint16_t p, const void *buf, size_t len)
{
	struct sockaddr_in sin = v4(p, LOCAL);

	CHECK(sendto(fd, buf, len, 0, (void *)&sin, sizeof(sin)) == (ssize_t)len,
	      "sendto %d: %m", fd);
}

/* The local port of @fd (of either family). */
static uint16_t port_of(int fd)
{
	struct sockaddr_in6 sa = {};
	socklen_t len = sizeof(sa);

	CHECK(!getsockname(fd, (void *)&sa, &len), "getsockname %d: %m", fd);
	return ntohs(sa.sin6_port);	/* same offset as sin_port */
}

static void setint(int fd, int level, int opt, int val)
{
	CHECK(!setsockopt(fd, level, opt, &val, sizeof(val)), "setsockopt %d %d: %m", fd, opt);
}

static int getint(int fd, int level, int opt)
{
	socklen_t len = sizeof(int);
	int val;

	CHECK(!getsockopt(fd, level, opt, &val, &len), "getsockopt %d %d: %m", fd, opt);
	return val;
}

static void wait_in(int fd)
{
	int i;

	for (i = 0; i < 500; i++) {
		int n = 0;

		if (!ioctl(fd, FIONREAD, &n) && n)
			return;
		usleep(10000);
	}
	FAIL("nothing arrived on %d", fd);
}

static void setup_udp(void)
{
	struct sockaddr_in6 sin6;
	int i;

	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = i * 7 + 1;
	bind4(sock_at(3, AF_INET, SOCK_DGRAM), 0, LOCAL);
	port[3] = port_of(3);
	bind4(sock_at(4, AF_INET, SOCK_DGRAM), 0, LOCAL);
	port[4] = port_of(4);
	connect4(4, port[3]);
	CHECK(send(4, "u1", 2, 0) == 2, "send 4: %m");
	sock_at(5, AF_INET, SOCK_DGRAM);
	send4(5, port[3], "u22", 3);
	send4(5, port[3], big, sizeof(big));
	port[5] = port_of(5);
	send4(3, port[4], "back", 4);
	sock_at(6, AF_INET6, SOCK_DGRAM);
	setint(6, IPPROTO_IPV6, IPV6_V6ONLY, 0);
	sin6 = v6(0);
	sin6.sin6_addr = in6addr_any;
	CHECK(!bind(6, (void *)&sin6, sizeof(sin6)), "bind 6: %m");
	port[6] = port_of(6);
	sock_at(7, AF_INET6, SOCK_DGRAM);
	sin6 = v6(port[6]);
	CHECK(sendto(7, "six", 3, 0, (void *)&sin6, sizeof(sin6)) == 3, "sendto 7: %m");
	port[7] = port_of(7);
	send4(5, port[6], "four", 4);
	connect4(sock_at(12, AF_INET, SOCK_DGRAM), port[3]);
	port[12] = port_of(12);
	shutdown(12, SHUT_RD);
	CHECK(!setsockopt(12, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ 0, 300000 },
			  sizeof(struct timeval)), "rcvtimeo 12: %m");
	CHECK(recv(12, big, 1, 0) == 0, "fd 12: not shut down for reading: %m");
	wait_in(3);
	wait_in(4);
	wait_in(6);
}

static void setup_tcp(void)
{
	struct linger l = { 1, 7 };
	struct sockaddr_in6 sin6 = v6(0);
	struct timeval tv = { 1, 500000 };

	sock_at(8, AF_INET, SOCK_STREAM);
	setint(8, SOL_SOCKET, SO_REUSEADDR, 1);
	setint(8, SOL_SOCKET, SO_KEEPALIVE, 1);
	setint(8, IPPROTO_TCP, TCP_NODELAY, 1);
	setint(8, IPPROTO_TCP, TCP_KEEPIDLE, 77);
	setint(8, IPPROTO_TCP, TCP_KEEPINTVL, 11);
	setint(8, IPPROTO_TCP, TCP_KEEPCNT, 5);
	bind4(8, 0, LOCAL);
	CHECK(!listen(8, 5), "listen 8: %m");
	CHECK(!fcntl(8, F_SETFL, O_NONBLOCK), "fcntl 8");
	port[8] = port_of(8);
	sock_at(9, AF_INET6, SOCK_STREAM);
	setint(9, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	CHECK(!setsockopt(9, SOL_SOCKET, SO_LINGER, &l, sizeof(l)), "linger: %m");
	setint(9, SOL_SOCKET, SO_SNDBUF, 25000);
	sndbuf9 = getint(9, SOL_SOCKET, SO_SNDBUF);
	CHECK(!bind(9, (void *)&sin6, sizeof(sin6)), "bind 9: %m");
	CHECK(!listen(9, 3), "listen 9: %m");
	port[9] = port_of(9);
	sock_at(10, AF_INET, SOCK_STREAM);
	setint(10, SOL_SOCKET, SO_RCVBUF, 32768);
	rcvbuf10 = getint(10, SOL_SOCKET, SO_RCVBUF);
	bind4(10, 0, htonl(INADDR_ANY));
	port[10] = port_of(10);
	sock_at(11, AF_INET, SOCK_DGRAM);
	setint(11, SOL_SOCKET, SO_BROADCAST, 1);
	setint(11, IPPROTO_IP, IP_TTL, 33);
	setint(11, IPPROTO_IP, IP_TOS, 0x10);
	setint(11, SOL_SOCKET, SO_PRIORITY, 3);
	setint(11, SOL_SOCKET, SO_MARK, 0x77);
	CHECK(!setsockopt(11, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "rcvtimeo: %m");
}

/* The next datagram of @fd is @len bytes of @want from @from's port over IPv4. */
static void expect_dgram(int fd, const void *want, size_t len, int family,
			 uint16_t from)
{
	struct sockaddr_in6 sa = {};
	struct sockaddr_in *sin = (void *)&sa;
	socklen_t alen = sizeof(sa);
	char buf[4096];
	ssize_t n;

	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (void *)&sa, &alen);
	CHECK(n == (ssize_t)len && !memcmp(buf, want, len),
	      "fd %d: %zd bytes (%m), %zu expected", fd, n, len);
	if (family == AF_INET) {
		CHECK(sin->sin_family == AF_INET && sin->sin_addr.s_addr == LOCAL &&
		      ntohs(sin->sin_port) == from, "fd %d: from %s:%u, not port %u", fd,
		      inet_ntoa(sin->sin_addr), ntohs(sin->sin_port), from);
		return;
	}
	CHECK(sa.sin6_family == AF_INET6 && ntohs(sa.sin6_port) == from,
	      "fd %d: from port %u, not %u", fd, ntohs(sa.sin6_port), from);
	if (family == AF_INET6)
		CHECK(IN6_IS_ADDR_LOOPBACK(&sa.sin6_addr), "fd %d: not from ::1", fd);
	else
		CHECK(IN6_IS_ADDR_V4MAPPED(&sa.sin6_addr) &&
		      sa.sin6_addr.s6_addr32[3] == LOCAL, "fd %d: not from ::ffff:127.0.0.1", fd);
}

static void expect_empty(int fd)
{
	char c;

	CHECK(recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "fd %d has more to read", fd);
}

static void check_peer(int fd, uint16_t p)
{
	struct sockaddr_in sin = {};
	socklen_t len = sizeof(sin);

	CHECK(!getpeername(fd, (void *)&sin, &len) && sin.sin_addr.s_addr == LOCAL &&
	      ntohs(sin.sin_port) == p, "fd %d: peer port %u, not %u", fd,
	      ntohs(sin.sin_port), p);
}

static void check_udp(void)
{
	char c;

	expect_dgram(3, "u1", 2, AF_INET, port[4]);
	expect_dgram(3, "u22", 3, AF_INET, port[5]);
	expect_dgram(3, big, sizeof(big), AF_INET, port[5]);
	expect_empty(3);
	expect_dgram(4, "back", 4, AF_INET, port[3]);
	expect_empty(4);
	expect_dgram(6, "six", 3, AF_INET6, port[7]);
	expect_dgram(6, "four", 4, 0, port[5]);
	expect_empty(6);
	check_peer(4, port[3]);
	check_peer(12, port[3]);
	CHECK(recv(12, &c, 1, 0) == 0, "fd 12 is not shut down for reading: %m");
	CHECK(getpeername(3, (void *)big, &(socklen_t){ sizeof(big) }) && errno == ENOTCONN,
	      "fd 3 is connected");
	/* the connection and the ports work */
	CHECK(send(4, "again", 5, 0) == 5, "send 4: %m");
	wait_in(3);
	expect_dgram(3, "again", 5, AF_INET, port[4]);
	send4(5, port[6], "more", 4);
	wait_in(6);
	expect_dgram(6, "more", 4, 0, port[5]);
}

/* A new client of listener @fd connects; bytes go both ways. */
static void check_accepts(int fd, int family, uint16_t p)
{
	struct sockaddr_in6 sin6 = v6(p);
	struct sockaddr_in sin = v4(p, LOCAL);
	int c = socket(family, SOCK_STREAM, 0), a;
	char buf[4];

	CHECK(c >= 0, "socket: %m");
	if (family == AF_INET)
		CHECK(!connect(c, (void *)&sin, sizeof(sin)), "connect to %u: %m", p);
	else
		CHECK(!connect(c, (void *)&sin6, sizeof(sin6)), "connect to [::1]:%u: %m", p);
	fcntl(fd, F_SETFL, 0);
	a = accept(fd, NULL, NULL);
	CHECK(a >= 0, "accept %d: %m", fd);
	CHECK(write(c, "hi", 2) == 2 && write(a, "ho", 2) == 2, "write: %m");
	CHECK(read(a, buf, 4) == 2 && !memcmp(buf, "hi", 2), "read a");
	CHECK(read(c, buf, 4) == 2 && !memcmp(buf, "ho", 2), "read c");
	close(a);
	close(c);
}

static void check_tcp(void)
{
	struct linger l;
	struct timeval tv;
	socklen_t len = sizeof(l);

	CHECK(getint(8, SOL_SOCKET, SO_REUSEADDR) == 1 && getint(8, SOL_SOCKET, SO_KEEPALIVE) == 1 &&
	      getint(8, IPPROTO_TCP, TCP_NODELAY) == 1 && getint(8, IPPROTO_TCP, TCP_KEEPIDLE) == 77 &&
	      getint(8, IPPROTO_TCP, TCP_KEEPINTVL) == 11 && getint(8, IPPROTO_TCP, TCP_KEEPCNT) == 5 &&
	      getint(8, SOL_SOCKET, SO_ACCEPTCONN) == 1, "fd 8 options");
	CHECK(fcntl(8, F_GETFL) & O_NONBLOCK, "fd 8 blocks");
	CHECK(accept(8, NULL, NULL) < 0 && errno == EAGAIN, "fd 8 had a connection");
	check_accepts(8, AF_INET, port[8]);
	CHECK(getint(9, IPPROTO_IPV6, IPV6_V6ONLY) == 1 &&
	      getint(9, SOL_SOCKET, SO_SNDBUF) == sndbuf9, "fd 9 options");
	CHECK(!getsockopt(9, SOL_SOCKET, SO_LINGER, &l, &len) && l.l_onoff && l.l_linger == 7,
	      "fd 9 linger");
	check_accepts(9, AF_INET6, port[9]);
	CHECK(getint(10, SOL_SOCKET, SO_RCVBUF) == rcvbuf10 &&
	      getint(10, SOL_SOCKET, SO_ACCEPTCONN) == 0, "fd 10 options");
	CHECK(!listen(10, 1), "listen 10: %m");
	check_accepts(10, AF_INET, port[10]);
	len = sizeof(tv);
	CHECK(getint(11, SOL_SOCKET, SO_BROADCAST) == 1 && getint(11, IPPROTO_IP, IP_TTL) == 33 &&
	      getint(11, IPPROTO_IP, IP_TOS) == 0x10 && getint(11, SOL_SOCKET, SO_PRIORITY) == 3 &&
	      getint(11, SOL_SOCKET, SO_MARK) == 0x77 &&
	      !getsockopt(11, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) && tv.tv_sec == 1 &&
	      tv.tv_usec >= 499000 && tv.tv_usec <= 504000, "fd 11 options");
}

/* A TCP connection between @cfd and @sfd over @family; @sfd accepted. */
/* @cfd a TCP client of @sfd; @rcvbuf: @sfd's SO_RCVBUF, if not 0 */
static void tcp_pair(int cfd, int sfd, int family, int rcvbuf)
{
	struct sockaddr_in6 sin6 = v6(0);
	struct sockaddr_in sin = v4(0, LOCAL);
	int l = fcntl(socket(family, SOCK_STREAM, 0), F_DUPFD, 100);	/* out of the way */
	socklen_t len = family == AF_INET ? sizeof(sin) : sizeof(sin6);
	void *sa = family == AF_INET ? (void *)&sin : (void *)&sin6;
	int a;

	CHECK(l >= 0, "listener: %m");
	if (rcvbuf)
		setint(l, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	CHECK(!bind(l, sa, len) && !listen(l, 1), "listener: %m");
	CHECK(!getsockname(l, sa, &len), "getsockname: %m");
	sock_at(cfd, family, SOCK_STREAM);
	CHECK(!connect(cfd, sa, len), "connect %d: %m", cfd);
	a = accept(l, NULL, NULL);
	CHECK(a >= 0 && dup2(a, sfd) == sfd, "accept: %m");
	if (a != sfd)
		close(a);
	close(l);
	port[cfd] = port_of(cfd);
	port[sfd] = port_of(sfd);
}

static void setup_conns(void)
{
	static unsigned char chunk[4096];
	ssize_t n;
	size_t i;

	tcp_pair(13, 14, AF_INET, 0);
	CHECK(!fcntl(13, F_SETFL, O_NONBLOCK), "fcntl 13");
	for (;;) {
		for (i = 0; i < sizeof(chunk); i++)
			chunk[i] = pat(stream13 + i);
		n = write(13, chunk, sizeof(chunk));
		if (n < 0 && errno == EAGAIN)
			break;
		CHECK(n > 0, "write 13: %m");
		stream13 += n;
	}
	CHECK(!fcntl(13, F_SETFL, 0), "fcntl 13");
	CHECK(write(14, "from14", 6) == 6, "write 14: %m");
	tcp_pair(15, 16, AF_INET6, 0);
	setint(15, IPPROTO_TCP, TCP_NODELAY, 1);
	CHECK(write(15, "six-c", 5) == 5 && write(16, "six-s", 5) == 5, "write 15/16: %m");
	wait_in(14);
	wait_in(13);
	wait_in(16);
	wait_in(15);
}

/* Read exactly @len bytes of @fd into @buf. */
static void read_all(int fd, void *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = read(fd, buf, len);
		CHECK(n > 0, "read %d: %zd %m, %zu left", fd, n, len);
		buf += n;
		len -= n;
	}
}

static void check_conns(void)
{
	static unsigned char chunk[4096];
	size_t i, k, n;
	char buf[8];

	for (i = 0; i < stream13; i += n) {
		n = stream13 - i < sizeof(chunk) ? stream13 - i : sizeof(chunk);
		read_all(14, chunk, n);
		for (k = 0; k < n; k++)
			CHECK(chunk[k] == pat(i + k), "fd 14: byte %zu is %u", i + k, chunk[k]);
	}
	read_all(13, buf, 6);
	CHECK(!memcmp(buf, "from14", 6), "fd 13 read %.6s", buf);
	read_all(16, buf, 5);
	read_all(15, buf + 5, 3);
	CHECK(!memcmp(buf, "six-c", 5) && !memcmp(buf + 5, "six", 3), "fd 15/16");
	read_all(15, buf, 2);
	CHECK(!memcmp(buf, "-s", 2), "fd 15");
	CHECK(getint(15, IPPROTO_TCP, TCP_NODELAY) == 1, "fd 15: TCP_NODELAY");
	/* and on both ways, nothing more */
	CHECK(write(13, "more", 4) == 4 && write(14, "back", 4) == 4, "write: %m");
	read_all(14, buf, 4);
	CHECK(!memcmp(buf, "more", 4), "fd 14 read %.4s", buf);
	read_all(13, buf, 4);
	CHECK(!memcmp(buf, "back", 4), "fd 13 read %.4s", buf);
	for (i = 13; i <= 16; i++)
		expect_empty(i);
	check_peer(13, port[14]);
	check_peer(14, port[13]);
}

static void check_ports(void)
{
	int fd;

	for (fd = 3; fd <= 16; fd++)
		CHECK(port_of(fd) == port[fd], "fd %d: port %u, not %u", fd, port_of(fd),
		      port[fd]);
}

/* fd 3 a TCP listener, fd 4 a UDP socket, both on 127.0.0.1:@p. */
static void fixed_port(uint16_t p, const char *go)
{
	bind4(sock_at(3, AF_INET, SOCK_STREAM), p, LOCAL);
	CHECK(!listen(3, 1), "listen: %m");
	bind4(sock_at(4, AF_INET, SOCK_DGRAM), p, LOCAL);
	ready_then_wait(go);
	CHECK(port_of(3) == p && port_of(4) == p, "ports %u %u", port_of(3), port_of(4));
	check_accepts(3, AF_INET, p);
	send4(4, p, "self", 4);
	wait_in(4);
	expect_dgram(4, "self", 4, AF_INET, p);
	printf("port ok\n");
}

static void conn(const char *go)
{
	char buf[2];

	tcp_pair(3, 4, AF_INET, 0);
	CHECK(write(3, "c3", 2) == 2 && write(4, "s4", 2) == 2, "write: %m");
	bind4(sock_at(5, AF_INET, SOCK_DGRAM), 0, LOCAL);
	port[5] = port_of(5);
	connect4(sock_at(6, AF_INET, SOCK_DGRAM), port[5]);
	CHECK(send(6, "d6", 2, 0) == 2, "send 6: %m");
	port[6] = port_of(6);
	wait_in(3);
	wait_in(4);
	wait_in(5);
	ready_then_wait(go);
	expect_dgram(5, "d6", 2, AF_INET, port[6]);
	read_all(4, buf, 2);
	CHECK(!memcmp(buf, "c3", 2), "fd 4 read %.2s", buf);
	read_all(3, buf, 2);
	CHECK(!memcmp(buf, "s4", 2), "fd 3 read %.2s", buf);
	CHECK(write(4, "ok", 2) == 2, "write 4: %m");
	read_all(3, buf, 2);
	CHECK(!memcmp(buf, "ok", 2), "fd 3 read %.2s", buf);
	check_peer(3, port[4]);
	printf("conn ok\n");
}

/* Accept a connection of listener @l: its peer is @c, it has @len of @want to read. */
static void accept_pending(int l, int c, const void *want, size_t len)
{
	static unsigned char buf[80000];
	struct sockaddr_in6 peer = {};
	socklen_t plen = sizeof(peer);
	int a = accept(l, (void *)&peer, &plen);

	CHECK(a >= 0, "accept %d: %m", l);
	CHECK(ntohs(peer.sin6_port) == port[c], "fd %d: accepted from port %u, not %u",
	      l, ntohs(peer.sin6_port), port[c]);	/* same offset as sin_port */
	CHECK(len <= sizeof(buf), "too long");
	read_all(a, buf, len);
	CHECK(!memcmp(buf, want, len), "fd %d: the connection of %d read other bytes", l, c);
	CHECK(port_of(a) == port[l], "fd %d: accepted on port %u", l, port_of(a));
	CHECK(write(a, "ack", 3) == 3, "write: %m");
	read_all(c, buf, 3);
	CHECK(!memcmp(buf, "ack", 3), "fd %d read %.3s", c, buf);
	expect_empty(a);
	close(a);
}

/*
 * fd 3 listens on 127.0.0.1 with fd 4 and 5 connected, not accepted,
 * each having written; fd 6 listens on ::1 (dual stack) with fd 7
 * connected over IPv4, 30000 bytes written. After GOFILE accept() takes
 * them in order, each with its bytes, and answers them.
 */
static void pending(const char *go)
{
	static unsigned char big7[30000];
	struct sockaddr_in6 sin6 = v6(0);
	size_t i;

	bind4(sock_at(3, AF_INET, SOCK_STREAM), 0, LOCAL);
	CHECK(!listen(3, 4), "listen 3: %m");
	port[3] = port_of(3);
	connect4(sock_at(4, AF_INET, SOCK_STREAM), port[3]);
	connect4(sock_at(5, AF_INET, SOCK_STREAM), port[3]);
	CHECK(write(4, "p-four", 6) == 6 && write(5, "p-five", 6) == 6, "write: %m");
	sin6.sin6_addr = in6addr_any;
	sock_at(6, AF_INET6, SOCK_STREAM);
	setint(6, IPPROTO_IPV6, IPV6_V6ONLY, 0);
	CHECK(!bind(6, (void *)&sin6, sizeof(sin6)) && !listen(6, 1), "listen 6: %m");
	port[6] = port_of(6);
	connect4(sock_at(7, AF_INET, SOCK_STREAM), port[6]);
	for (i = 0; i < sizeof(big7); i++)
		big7[i] = pat(i);
	CHECK(write(7, big7, sizeof(big7)) == sizeof(big7), "write 7: %m");
	for (i = 4; i <= 7; i++)
		port[i] = port_of(i);
	usleep(100000);
	ready_then_wait(go);
	accept_pending(3, 4, "p-four", 6);
	accept_pending(3, 5, "p-five", 6);
	CHECK(!fcntl(3, F_SETFL, O_NONBLOCK), "fcntl 3");
	CHECK(accept(3, NULL, NULL) < 0 && errno == EAGAIN, "fd 3: a third connection");
	accept_pending(6, 7, big7, sizeof(big7));
	printf("pending ok\n");
}

/* A sum of every byte and where it is. */
static uint64_t stream_sum(uint64_t sum, const unsigned char *buf, size_t n, size_t at)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum = sum * 1099511628211ULL + buf[i] + ((at + i) & 0xff);
	return sum;
}

static void server(uint16_t p, const char *go)
{
	static unsigned char buf[65536];
	uint64_t sum = 0;
	size_t total = 0;
	ssize_t n;
	int a;

	sock_at(3, AF_INET, SOCK_STREAM);
	setint(3, SOL_SOCKET, SO_REUSEADDR, 1);
	bind4(3, p, LOCAL);
	CHECK(!listen(3, 1), "listen: %m");
	if (go) {
		ready_then_wait(go);
	} else {
		printf("ready %d\n", getpid());
		fflush(stdout);
	}
	a = accept(3, NULL, NULL);
	CHECK(a >= 0, "accept: %m");
	while ((n = read(a, buf, sizeof(buf))) > 0) {
		sum = stream_sum(sum, buf, n, total);
		total += n;
	}
	CHECK(n == 0, "server read: %m after %zu bytes", total);
	printf("server %zu %llu\n", total, (unsigned long long)sum);
}

static void client(uint16_t p, size_t bytes)
{
	unsigned char buf[1000];
	uint64_t sum = 0;
	size_t total = 0, n, i;

	connect4(sock_at(3, AF_INET, SOCK_STREAM), p);
	while (total < bytes) {
		n = bytes - total < sizeof(buf) ? bytes - total : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pat(total + i);
		CHECK(write(3, buf, n) == (ssize_t)n, "client write: %m after %zu bytes", total);
		sum = stream_sum(sum, buf, n, total);
		total += n;
		usleep(1000);
	}
	CHECK(!shutdown(3, SHUT_WR), "shutdown: %m");
	CHECK(read(3, buf, 1) == 0, "client: no end of file: %m");
	printf("client %zu %llu\n", total, (unsigned long long)sum);
}

/* Wait for @fd's urgent byte, check it is @want. */
static void expect_oob(int fd, char want)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	char c;

	CHECK(poll(&p, 1, 5000) == 1 && p.revents & POLLPRI, "fd %d: no urgent byte", fd);
	CHECK(recv(fd, &c, 1, MSG_OOB) == 1 && c == want, "fd %d: urgent %c: %m", fd, c);
}

/* Read @len bytes of @fd as one read(), which stops at the urgent mark. */
static void read_to_mark(int fd, const char *want, size_t len)
{
	char buf[64];

	CHECK(sockatmark(fd) == 0, "fd %d: at its urgent mark", fd);
	CHECK(read(fd, buf, sizeof(buf)) == (ssize_t)len && !memcmp(buf, want, len),
	      "fd %d: not %s up to its mark", fd, want);
	CHECK(sockatmark(fd) == 1, "fd %d: not at its urgent mark", fd);
}

static void setup_urgent(void)
{
	static unsigned char bulk[URG_BULK + 1];
	int i;

	tcp_pair(3, 4, AF_INET, 0);
	CHECK(send(3, "before!", 7, MSG_OOB) == 7 && write(3, "after", 5) == 5, "3: %m");
	tcp_pair(5, 6, AF_INET6, 0);
	CHECK(send(5, "ab?", 3, MSG_OOB) == 3 && write(5, "cd", 2) == 2, "5: %m");
	expect_oob(6, '?');
	tcp_pair(7, 8, AF_INET, 0);
	setint(8, SOL_SOCKET, SO_OOBINLINE, 1);
	CHECK(send(7, "in#", 3, MSG_OOB) == 3 && write(7, "line", 4) == 4, "7: %m");
	/* all of it queued before the urgent pointer is set, then sent with it */
	tcp_pair(9, 10, AF_INET, 2048);
	setint(9, SOL_SOCKET, SO_SNDBUF, 1 << 20);
	for (i = 0; i < URG_BULK; i++)
		bulk[i] = pat(i);
	bulk[URG_BULK] = 'U';
	CHECK(send(9, bulk, sizeof(bulk), MSG_OOB | MSG_DONTWAIT) == sizeof(bulk), "9: %m");
	wait_in(4);
	wait_in(6);
	wait_in(8);
	wait_in(10);
	CHECK(ioctl(9, SIOCOUTQNSD, &i) == 0 && i > 0, "9: all sent");
}

static void check_urgent(void)
{
	static unsigned char chunk[8192];
	size_t got, k;
	ssize_t n;
	char c, buf[8];

	read_to_mark(4, "before", 6);
	expect_oob(4, '!');
	read_all(4, buf, 5);
	CHECK(!memcmp(buf, "after", 5), "4: %.5s", buf);
	CHECK(recv(6, &c, 1, MSG_OOB) < 0 && errno == EINVAL, "6: urgent byte again");
	read_to_mark(6, "ab", 2);
	read_all(6, buf, 2);
	CHECK(!memcmp(buf, "cd", 2), "6: %.2s", buf);
	read_to_mark(8, "in", 2);
	CHECK(recv(8, &c, 1, MSG_OOB) < 0 && errno == EINVAL, "8: out of line");
	read_all(8, buf, 5);
	CHECK(!memcmp(buf, "#line", 5), "8: %.5s", buf);
	for (got = 0; got < URG_BULK; got += n) {
		CHECK(sockatmark(10) == 0, "10: at its mark after %zu", got);
		n = read(10, chunk, sizeof(chunk));
		CHECK(n > 0 && got + n <= URG_BULK, "10: read %zd after %zu: %m", n, got);
		for (k = 0; k < (size_t)n; k++)
			CHECK(chunk[k] == pat(got + k), "10: byte %zu", got + k);
	}
	CHECK(sockatmark(10) == 1, "10: not at its mark");
	expect_oob(10, 'U');
	CHECK(write(9, "end", 3) == 3 && write(3, "more", 4) == 4, "write: %m");
	read_all(10, buf, 3);
	CHECK(!memcmp(buf, "end", 3), "10: %.3s", buf);
	read_all(4, buf, 4);
	CHECK(!memcmp(buf, "more", 4) && !sockatmark(4), "4: %.4s", buf);
	for (k = 4; k <= 10; k += 2)
		expect_empty(k);
	printf("urgent ok\n");
}

static void refusal(const char *mode, const char *go)
{
	if (!strcmp(mode, "closing")) {
		tcp_pair(3, 4, AF_INET, 0);
		CHECK(!shutdown(3, SHUT_WR), "shutdown: %m");
		usleep(100000);
	} else if (!strcmp(mode, "pktinfo")) {
		setint(sock_at(3, AF_INET, SOCK_DGRAM), IPPROTO_IP, IP_PKTINFO, 1);
	} else if (!strcmp(mode, "shared")) {
		tcp_pair(3, 4, AF_INET, 0);
		if (!fork()) {
			/* held only while its parent lives: the test leaves nothing */
			CHECK(!prctl(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig");
			pause();
			_exit(0);
		}
	} else if (!strcmp(mode, "netlink")) {
		CHECK(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) == 3, "netlink: %m");
	} else {
		FAIL("unknown mode %s", mode);
	}
	ready_then_wait(go);
	if (!strcmp(mode, "shared")) {
		char buf[2];

		CHECK(write(3, "s3", 2) == 2, "write 3: %m");
		read_all(4, buf, 2);
		CHECK(!memcmp(buf, "s3", 2), "fd 4 read %.2s", buf);
		printf("shared ok\n");
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "lo")) {
		lo_up();
		return 0;
	}
	if (argc != 2 && argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ckpt-inet [lo | port PORT | MODE] GOFILE | "
			"server PORT | client PORT BYTES\n");
		return 255;
	}
	close_range(3, ~0U, 0);
	signal(SIGPIPE, SIG_IGN);	/* a reset connection fails with its line */
	if (argc == 3 && !strcmp(argv[1], "server")) {
		server(atoi(argv[2]), NULL);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "lazy")) {
		server(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "client")) {
		client(atoi(argv[2]), strtoul(argv[3], NULL, 0));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "port")) {
		fixed_port(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "conn")) {
		conn(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "urgent")) {
		setup_urgent();
		ready_then_wait(argv[2]);
		check_urgent();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pending")) {
		pending(argv[2]);
		return 0;
	}
	if (argc == 3) {
		refusal(argv[1], argv[2]);
		return 0;
	}
	setup_udp();
	setup_tcp();
	setup_conns();
	ready_then_wait(argv[1]);
	check_ports();
	check_udp();
	check_tcp();
	check_conns();
	printf("inet ok\n");
	return 0;
}
