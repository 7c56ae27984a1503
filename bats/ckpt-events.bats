#!/usr/bin/env bats
# eventfd, signalfd and epoll: the files of an event loop.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

events_roundtrip() {
	check_roundtrip "$1" "events ok" ckpt-events "$T/go"
}

@test "events: eventfd counts, signalfd, epoll items and readiness, nested epoll (syscalls)" {
	events_roundtrip syscall
}

@test "events: the same through /proc and restart()" {
	events_roundtrip proc
}

@test "events: the same through /proc and /sys/kernel/ckpt/restart" {
	events_roundtrip sysfs
}

@test "events: an epoll watching an epoll that watches another is refused at checkpoint, the process runs on" {
	start_bg "$T/out" ckpt-hold nested
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: epoll nested more than once (fd 4)"
	runs_on "$PID"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
}

@test "events: an epoll item whose file the process has no descriptor of (a child holds it) is refused, naming the fds" {
	start_bg "$T/out" ckpt-hold stale
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: epoll watches a file the process has no descriptor of (added as fd 4)"
	runs_on "$PID"
}

@test "events: epoll items whose files moved (dup2(), close()) come back as the same (file, fd) pairs, ready as they were (syscalls)" {
	check_roundtrip syscall "epollfd ok" ckpt-epollfd "$T/go"
}

@test "events: moved epoll items the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "epollfd ok" ckpt-epollfd "$T/go"
}
