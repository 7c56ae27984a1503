#!/usr/bin/env bats
# Shared memory: anonymous, /dev/zero, memfd (contents saved), files (by path).
# A memfd held at descriptors and mapped is one memfd again.

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

memfd_roundtrip() {
	check_roundtrip "$1" "memfd ok" ckpt-memfd "$T/go"
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
