#!/usr/bin/env bats
# Shared memory: anonymous, /dev/zero, memfd (contents saved), files (by path).
# A memfd held at descriptors and mapped is one memfd again.

load ckpt-lib

setup() { ckpt_setup; }

# SysV segments outlive a failed test: remove those ckpt-sysv announced.
teardown() {
	local ready pid id
	if [ -f "$T/out" ] && read -r ready pid id _ < "$T/out" &&
		[ "$ready" = ready ] && [ -n "$id" ]; then
		ckpt-sysv rm "$id" 2> /dev/null || true
	fi
	ckpt_teardown
}

shm_roundtrip() {
	check_roundtrip "$1" "shm ok" ckpt-shm "$T" "$T/go"
	[ "$(head -c 5 "$T/shared")" = world ]
}

@test "shm: MAP_SHARED anonymous, /dev/zero, read-only, memfd, a shared file (syscalls)" {
	shm_roundtrip syscall
}

@test "shm: the same through /proc and restart()" {
	shm_roundtrip proc
}

@test "shm: the same through /proc and /sys/kernel/ckpt/restart" {
	shm_roundtrip sysfs
}

memfd_roundtrip() {
	check_roundtrip "$1" "memfd ok" ckpt-memfd "$T/go"
}

@test "memfd: nobody's memfds restored by root are nobody's, with their modes" {
	chmod 0777 "$T"
	touch "$T/out"
	chmod 0666 "$T/out"
	check_roundtrip syscall "memfd ok" runas 65534 65534 ckpt-memfd "$T/go"
}

@test "memfd: held at fds (dup, reopened) and mapped twice, sealed, private COW, mremap()ed anonymous (syscalls)" {
	memfd_roundtrip syscall
}

@test "memfd: the same through /proc and restart()" {
	memfd_roundtrip proc
}

@test "memfd: the same through /proc and /sys/kernel/ckpt/restart" {
	memfd_roundtrip sysfs
}

sysv_roundtrip() {
	check_roundtrip "$1" "sysv ok" ckpt-sysv "$T/go"
}

@test "sysv: segments attached twice, and removed while attached, keep ids, keys, modes and bytes (syscalls)" {
	sysv_roundtrip syscall
}

@test "sysv: the same through /proc and restart()" {
	sysv_roundtrip proc
}

@test "sysv: the same through /proc and /sys/kernel/ckpt/restart" {
	sysv_roundtrip sysfs
}

@test "sysv: a segment removed after the checkpoint is created again with its id, key and bytes" {
	start_bg "$T/out" ckpt-sysv "$T/go"
	read -r _ _ keyed _ < "$T/out"
	AFTER_KILL="ckpt-sysv rm $keyed" roundtrip proc "$T/go"
	cat "$T/out"
	[ "$RC" -eq 0 ]
	[ "$(sed -n 2p "$T/out")" = "sysv ok" ]
}

@test "sysv: root restoring nobody's image attaches a segment only as nobody may: one now mode 000 is EACCES" {
	chmod 0777 "$T"
	touch "$T/out"
	chmod 0666 "$T/out"
	start_bg "$T/out" capsrun 65534 65534 - ckpt-sysv "$T/go"
	read -r _ _ keyed _ < "$T/out"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	# its creator, nobody, may not attach it now; root (CAP_IPC_OWNER) could
	ckpt-sysv own "$keyed" 0 000
	expect_rc 13 timeout 20 rstr 0 "$T/img"
	expect_log "cannot attach SysV shm $keyed at"
	# given back to nobody, the same image comes back
	ckpt-sysv own "$keyed" 65534 640
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	[ "$(sed -n 2p "$T/out")" = "sysv ok" ]
}

@test "sysv: a failed restart removes the segments it created" {
	start_bg "$T/out" ckpt-sysv "$T/go"
	read -r _ _ keyed gone < "$T/out"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	ckpt-sysv rm "$keyed"
	size=$(stat -c %s "$T/img")
	head -c $((size - 8)) "$T/img" > "$T/bad"	# the checksum fails
	rc=0
	rstr < "$T/bad" > "$T/bad.out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ]
	[ "$rc" -lt 128 ]
	expect_log "image truncated at byte"	# at the end: after the segments
	[ -z "$(awk -v a="$keyed" -v b="$gone" '$2 == a || $2 == b' /proc/sysvipc/shm)" ]
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	[ "$(sed -n 2p "$T/out")" = "sysv ok" ]
}

@test "sysv: a restart whose POSIX timers cannot be allocated (RLIMIT_SIGPENDING 0) fails before the point of no return, no segment left" {
	start_bg "$T/out" ckpt-sysv "$T/go" timer
	read -r _ _ keyed gone < "$T/out"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	ckpt-sysv rm "$keyed"
	rc=0
	(ulimit -i 0 && exec rstr < "$T/img") > "$T/bad.out" 2>&1 || rc=$?
	cat "$T/bad.out"
	[ "$rc" -eq 12 ]	# ENOMEM, the caller intact: allocated before the PONR
	expect_log "cannot allocate 1 POSIX timers (RLIMIT_SIGPENDING)"
	[ -z "$(awk -v a="$keyed" -v b="$gone" '$2 == a || $2 == b' /proc/sysvipc/shm)" ]
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	[ "$(sed -n 2p "$T/out")" = "sysv ok" ]
}
