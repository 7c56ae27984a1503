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

# sigblk PID MASK: wait until PID's blocked mask is MASK (hex, as in status)
sigblk() {
	local i
	for i in $(seq 1 250); do
		grep -q "^SigBlk:.*$2\$" "/proc/$1/status" 2> /dev/null && return 0
		sleep 0.02
	done
	grep SigBlk "/proc/$1/status" >&2
	return 1
}

@test "signals: a process in sigsuspend() comes back with its own mask, not sigsuspend()'s" {
	start_bg "$T/out" ckpt-sigmask
	sigblk "$PID" 0000000000000800	# in sigsuspend(): SIGUSR2 only
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	sigblk "$PID" 0000000000000800	# back in sigsuspend()
	kill -USR1 "$PID"
	wait_gone "$PID"
	cat "$T/out"
	[ "$(sed -n 2p "$T/out")" = "sigmask ok" ]
}
