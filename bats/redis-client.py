# redis-client.py PORT GOFILE: one connection to a redis-server on
# 127.0.0.1:PORT for the whole run. It stores 300 keys (values of up to
# 20 KB), prints "ready", sends INCR without waiting for GOFILE (the
# command meets a server being checkpointed, killed and restored), and once
# GOFILE exists reads every key back on the same connection and prints what
# it found, so that a run with a checkpoint prints what a plain run does.
# The INCR is sent once GOFILE.1 exists: the test makes it after the
# checkpoint killed the server, so the command reaches a parked connection.
import hashlib
import os
import socket
import sys
import time

port, gofile = int(sys.argv[1]), sys.argv[2]


def connect():
    for _ in range(500):
        try:
            return socket.create_connection(("127.0.0.1", port))
        except ConnectionRefusedError:
            time.sleep(0.02)
    sys.exit("redis: no server on port %d" % port)


class Conn:
    def __init__(self, sock):
        self.s, self.buf = sock, b""

    def send(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)

    def line(self):
        while b"\r\n" not in self.buf:
            more = self.s.recv(65536)
            if not more:
                sys.exit("redis: connection closed")
            self.buf += more
        l, self.buf = self.buf.split(b"\r\n", 1)
        return l

    def reply(self):
        l = self.line()
        if l[:1] in (b"+", b":"):
            return l[1:].decode()
        if l[:1] == b"$":
            n = int(l[1:])
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(65536)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        sys.exit("redis: unexpected reply %r" % l)

    def cmd(self, *args):
        self.send(*args)
        return self.reply()


def value(i):
    return hashlib.sha256(b"%d" % i).hexdigest().encode() * (i % 300 + 1)


c = Conn(connect())
print("client id", c.cmd("CLIENT", "ID"))
for i in range(300):
    c.send("SET", "k%d" % i, value(i))
print("set", sum(c.reply() == "OK" for i in range(300)))
print("ready", flush=True)


def wait(path):
    while not os.path.exists(path):
        time.sleep(0.02)


wait(gofile + ".1")
c.send("INCR", "counter")
wait(gofile)
print("incr", c.reply())
print("client id", c.cmd("CLIENT", "ID"))
print("dbsize", c.cmd("DBSIZE"))
print("values ok", sum(c.cmd("GET", "k%d" % i) == value(i) for i in range(300)))
print("incr", c.cmd("INCR", "counter"))
print("redis ok")
