#!/usr/bin/env bats
# Address space details: what madvise() was told of each mapping.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

@test "madvise: DONTFORK, WIPEONFORK, DONTDUMP, SEQUENTIAL, RANDOM come back and act (syscalls)" {
	check_roundtrip syscall "madvise ok" ckpt-madvise "$T/go"
}

@test "madvise: the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "madvise ok" ckpt-madvise "$T/go"
}
