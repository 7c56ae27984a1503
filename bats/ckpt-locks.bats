#!/usr/bin/env bats
# File locks a process holds: flock(), POSIX and OFD locks come back, or the
# restart fails before anything runs.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

locks_roundtrip() {
	check_roundtrip "$1" "locks ok" ckpt-locks hold "$T/f" "$T/go"
}

# no_lock_left: /proc/locks has no lock of $T/f
no_lock_left() {
	local ino
	ino=$(stat -c %i "$T/f")
	if grep ":$ino " /proc/locks; then
		echo "locks of $T/f left behind" >&2
		return 1
	fi
}

@test "locks: flock(), POSIX and OFD locks come back, owned as they were (syscalls)" {
	locks_roundtrip syscall
}

@test "locks: the same through /proc and restart()" {
	locks_roundtrip proc
}

@test "locks: the same through /proc and /sys/kernel/ckpt/restart" {
	locks_roundtrip sysfs
}

@test "locks: a restorer that has the locked file open too: closing its descriptor does not drop them" {
	start_bg "$T/out" ckpt-locks hold "$T/f" "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	rstr < "$T/img" 9<> "$T/f" > "$T/rstr.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	touch "$T/go"
	wait $!
	cat "$T/out"
	[ "$(sed -n 2p "$T/out")" = "locks ok" ]
}

@test "locks: a lock someone else holds at restart is EAGAIN before anything runs, each kind; the restorer keeps none" {
	local kind what
	start_bg "$T/out" ckpt-locks hold "$T/f" "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	for kind in flock posix ofd; do
		case $kind in
		flock) what="fd 3: its flock() lock of bytes 0-9223372036854775807" ;;
		posix) what="fd 4: its POSIX lock of bytes 0-9" ;;
		ofd) what="fd 5: its OFD lock of bytes 20-29" ;;
		esac
		start_bg "$T/take.out" ckpt-locks take "$kind" "$T/f"
		dmesg -c > /dev/null
		expect_rc 11 ckpt-locks restart "$T/f" "$T/img" own
		expect_log "$what is held by another process"
		kill -9 "$PID"
		wait "$PID" 2> /dev/null || true
		no_lock_left
		[ "$(wc -l < "$T/out")" -eq 1 ]
	done
	# and with the lock free again, the image comes back
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	touch "$T/go"
	wait $!
	[ "$(sed -n 2p "$T/out")" = "locks ok" ]
}

@test "locks: a restorer holding a POSIX lock of its own on a file the image locks: the image's come back beside it, and it goes with the restorer's descriptors" {
	local r
	start_bg "$T/out" ckpt-locks hold "$T/f" "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	ckpt-locks restart "$T/f" "$T/img" own > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	# restored: the image's POSIX write lock of bytes 0-9 is its own
	wait_for /proc/locks "POSIX *ADVISORY *WRITE *$r .* 0 9$"
	cat /proc/locks
	run grep -q " 1000 1000$" /proc/locks
	[ "$status" -eq 1 ]
	touch "$T/go"
	wait "$r"
	[ "$(sed -n 2p "$T/out")" = "locks ok" ]
}

@test "locks: a lease is refused at checkpoint, naming the descriptor; the process runs on" {
	echo data > "$T/f"
	start_bg "$T/out" ckpt-locks lease "$T/f" "$T/go"
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: a lease cannot come back"
	runs_on "$PID"
	touch "$T/go"
	wait "$PID"
}

@test "locks: bad LOCKS records are refused (file index, kind, range), no lock left" {
	local m
	start_bg "$T/out" ckpt-locks hold "$T/f" "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	for m in lockfile lockkind lockrange; do
		ckpt-mutate "$T/img" "$T/bad" "$m"
		dmesg -c > /dev/null
		expect_rc 22 rstr < "$T/bad"
		expect_log "locks record: bad lock 0"
		no_lock_left
	done
}
