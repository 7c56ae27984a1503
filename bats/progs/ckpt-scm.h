/* SPDX-License-Identifier: GPL-2.0 */
/* What the tests of AF_UNIX sockets share: sockets at a given fd, messages with descriptors. */
#ifndef CKPT_SCM_H
#define CKPT_SCM_H

#include <sys/socket.h>
#include "ckpt.h"

/* An AF_UNIX socket of @type at descriptor @fd. */
static inline int sock_at(int type, int fd)
{
	int s = socket(AF_UNIX, type, 0);

	CHECK(s >= 0, "socket: %s", strerror(errno));
	if (s != fd) {
		CHECK(dup2(s, fd) == fd, "dup2 %d %d", s, fd);
		close(s);
	}
	return fd;
}

/* Send @data on @fd with the @n descriptors @fds (at most 8). */
static inline void send_fds(int fd, const char *data, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))] = {};
	struct iovec iov = { (void *)data, strlen(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	CHECK(sendmsg(fd, &msg, 0) == (ssize_t)strlen(data), "fd %d: send %s: %s",
	      fd, data, strerror(errno));
}

/* Read exactly @data (under 64 bytes) from @fd, with @n descriptors, into @fds. */
static inline void recv_fds(int fd, const char *data, int *fds, int n)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))], got[64];
	struct iovec iov = { got, strlen(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t r;

	r = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	CHECK(r == (ssize_t)strlen(data) && !memcmp(got, data, r),
	      "fd %d: read %zd bytes, expected %s", fd, r, data);
	c = CMSG_FIRSTHDR(&msg);
	if (!n) {
		CHECK(!c, "fd %d: %s came with a control message", fd, data);
		return;
	}
	CHECK(c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(n * sizeof(int)) &&
	      !(msg.msg_flags & MSG_CTRUNC), "fd %d: %s without its %d descriptors", fd, data, n);
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
}

#endif
