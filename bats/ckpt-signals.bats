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
	wait_status "$1" "^SigBlk:.*$2\$"
}

@test "signals: a process in sigsuspend() comes back with its own mask, not sigsuspend()'s" {
	start_bg "$T/out" ckpt-sigmask
	sigblk "$PID" 0000000000000800	# in sigsuspend(): SIGUSR2 only
	sysfs_cycle
	sigblk "$PID" 0000000000000800	# back in sigsuspend()
	kill -USR1 "$PID"
	wait_gone "$PID"
	cat "$T/out"
	[ "$(sed -n 2p "$T/out")" = "sigmask ok" ]
}

@test "signals: a process in a job-control stop comes back stopped, and runs on at SIGCONT (/proc and /sys/kernel/ckpt/restart)" {
	start_bg "$T/out" ckpt-membarrier none "$T/go"
	kill -STOP "$PID"
	stopped_state "$PID"
	sysfs_cycle
	stopped_state "$PID"
	touch "$T/go"
	sleep 0.3
	grep -q "State:.*T (stopped)" "/proc/$PID/status"
	[ "$(wc -l < "$T/out")" -eq 1 ]
	kill -CONT "$PID"
	wait_gone "$PID"
	[ "$(sed -n 2p "$T/out")" = "membarrier ok" ]
}

@test "signals: the same through checkpoint() and restart(): the restorer stops as the process" {
	local r
	start_bg "$T/out" ckpt-membarrier none "$T/go"
	kill -STOP "$PID"
	stopped_state "$PID"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	stopped_state "$r"
	touch "$T/go"
	sleep 0.3
	[ "$(wc -l < "$T/out")" -eq 1 ]
	kill -CONT "$r"
	wait "$r"
	[ "$(sed -n 2p "$T/out")" = "membarrier ok" ]
}

@test "signals: pending signals are charged to the restored user: beyond its RLIMIT_SIGPENDING EAGAIN before anything runs, within it all come back" {
	chmod 755 "$T"
	touch "$T/sigq.out"
	chmod 0666 "$T/sigq.out"
	image_of sigq runas 65534 65534 ckpt-sigq 6 8 "$T/go"
	# nobody has 6 signals pending elsewhere: 6 more are beyond 8
	start_bg "$T/hold" runas 65534 65534 ckpt-sigq 6 100 "$T/never"
	holder=$PID
	grep -q SigQ:.6/ "/proc/$holder/status"
	expect_rc 11 rstr 0 "$T/sigq.img"
	expect_log "6 pending signals, beyond RLIMIT_SIGPENDING 8 of uid 65534"
	# nothing was left charged to nobody by the failed restart
	grep -q SigQ:.6/ "/proc/$holder/status"
	kill -9 "$holder"
	wait_gone "$holder"
	echo "$T/sigq.img" > /sys/kernel/ckpt/restart
	PID=$(sed -n 's/^ready //p' "$T/sigq.out")
	BG_PIDS="$BG_PIDS $PID"
	grep -q SigQ:.6/ "/proc/$PID/status"
	touch "$T/go"
	wait_for "$T/sigq.out" "sigq ok 6"
}
