#!/usr/bin/env bats
# Shared memory: anonymous, /dev/zero, memfd (contents saved), files (by path).

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

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
