#!/usr/bin/env bats
# setitimer() timers keep the time they had left.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

timers_roundtrip() {
	check_roundtrip "$1" "timers ok" ckpt-timers "$T/go"
}

@test "timers: ITIMER_REAL, _VIRTUAL, _PROF time left and intervals, SIGALRM fires (syscalls)" {
	timers_roundtrip syscall
}

@test "timers: the same through /proc and restart()" {
	timers_roundtrip proc
}

@test "timers: the same through /proc and /sys/kernel/ckpt/restart" {
	timers_roundtrip sysfs
}
