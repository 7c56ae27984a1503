#!/usr/bin/env bats
# POSIX timers (timer_create) keep their ids, clocks, notification, time left
# (or wall-clock expiry, for CLOCK_REALTIME with TIMER_ABSTIME) and interval,
# a pending expiry signal, and the next id handed out.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

# 2 s between checkpoint and restart: absolute timers must not count them
ptimers_roundtrip() {
	AFTER_KILL="sleep 2" check_roundtrip "$1" "ptimers ok" ckpt-ptimers "$T/go"
}

@test "ptimers: POSIX timers keep ids, clocks, notification, time left, interval, a pending expiry and the next id (syscalls)" {
	ptimers_roundtrip syscall
}

@test "ptimers: the same through /proc and restart()" {
	ptimers_roundtrip proc
}

@test "ptimers: the same through /proc and /sys/kernel/ckpt/restart" {
	ptimers_roundtrip sysfs
}

@test "ptimers: a timer on another process's CPU clock is refused with EOPNOTSUPP, target untouched" {
	start_bg "$T/out" ckpt-hold cputimer
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "POSIX timer 0 on clock -[0-9]* unsupported"
	runs_on "$PID"
}
