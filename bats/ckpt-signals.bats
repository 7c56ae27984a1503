#!/usr/bin/env bats
# Signal handlers, blocked and pending signals, sigaltstack, pdeathsig.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

signals_roundtrip() {
	check_roundtrip "$1" "signals ok" ckpt-signals "$T/go"
}

@test "signals: handlers, mask, pending with siginfo, altstack, pdeathsig (syscalls)" {
	signals_roundtrip syscall
}

@test "signals: the same through /proc and restart()" {
	signals_roundtrip proc
}

@test "signals: the same through /proc and /sys/kernel/ckpt/restart" {
	signals_roundtrip sysfs
}

@test "signals: the checkpointed process keeps its pending signals" {
	start_bg "$T/out" ckpt-signals "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	cat "/proc/$PID/checkpoint" > /dev/null
	touch "$T/go"
	wait "$PID"
	grep -Fxq "signals ok" "$T/out"
}
