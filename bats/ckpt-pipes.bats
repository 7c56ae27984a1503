#!/usr/bin/env bats
# Pipes and FIFOs come back with the data buffered in them.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

pipes_roundtrip() {
	check_roundtrip "$1" "pipes ok" ckpt-pipes "$T" "$T/go"
}

@test "pipes: both ends, a lone read end, 100 KiB in a 128 KiB pipe, a FIFO (syscalls)" {
	pipes_roundtrip syscall
}

@test "pipes: the same through /proc and restart()" {
	pipes_roundtrip proc
}

@test "pipes: the same through /proc and /sys/kernel/ckpt/restart" {
	pipes_roundtrip sysfs
}

@test "pipes: a FIFO someone else holds keeps its own contents" {
	mkfifo "$T/f"
	exec 7<> "$T/f"
	start_bg "$T/out" sh -c 'exec ckpt-wait read < "$1"' sh "$T/f"
	sleep 0.3
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" || true
	echo later >&7
	rstr < "$T/img" > "$T/rstr.out" 2>&1 7<&- || true
	exec 7>&-
	# one copy of the data: what was written, read once
	grep -Fxq 'read ret=6 errno=0 data=later' "$T/out"
}
