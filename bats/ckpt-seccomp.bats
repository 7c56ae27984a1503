#!/usr/bin/env bats
# seccomp: filters (as the programs they were installed from) and strict
# mode come back and still act; a filter with a listener is refused.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

seccomp_roundtrip() {
	check_roundtrip "$1" "seccomp ok" ckpt-seccomp "$T/go"
}

@test "seccomp: two filters (one logging) keep acting, another can be added (syscalls)" {
	seccomp_roundtrip syscall
}

@test "seccomp: the same through /proc and restart()" {
	seccomp_roundtrip proc
}

@test "seccomp: the same through /proc and /sys/kernel/ckpt/restart" {
	seccomp_roundtrip sysfs
}

@test "seccomp: threads given the filters by SECCOMP_FILTER_FLAG_TSYNC have them after restart, and TSYNC works again (/proc and /sys/kernel/ckpt/restart)" {
	check_roundtrip sysfs "seccomp ok" ckpt-seccomp threads "$T/go"
}

@test "seccomp: the same through checkpoint() and restart()" {
	check_roundtrip syscall "seccomp ok" ckpt-seccomp threads "$T/go"
}

@test "seccomp: threads with filters of their own, or none and no no_new_privs, come back each with its own, the filters they shared shared: a TSYNC filter reaches a thread that has the main thread's first (/proc and /sys/kernel/ckpt/restart)" {
	check_roundtrip sysfs "seccomp ok" ckpt-seccomp own "$T/go"
}

@test "seccomp: threads with filters of their own through checkpoint() and restart()" {
	check_roundtrip syscall "seccomp ok" ckpt-seccomp own "$T/go"
}

@test "seccomp: strict mode comes back, the process blocked in read() again" {
	start_bg "$T/out" ckpt-hold strict
	grep -q "Seccomp:.1" "/proc/$PID/status"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	for i in $(seq 1 200); do
		grep -q "Seccomp:.1" "/proc/$r/status" && break
		sleep 0.05
	done
	grep -q "Seccomp:.1" "/proc/$r/status"
	runs_on "$r"
	[ "$(readlink "/proc/$r/fd/3")" = "$(readlink "/proc/$r/fd/4")" ]
}

@test "seccomp: a filter with a user-space listener is refused with EOPNOTSUPP; the process runs on" {
	start_bg "$T/out" ckpt-hold listener
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "seccomp filter with a listener unsupported"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not supported"* ]]
	runs_on "$PID"
	grep -q "Seccomp:.2" "/proc/$PID/status"
}
