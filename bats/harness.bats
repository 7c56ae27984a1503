#!/usr/bin/env bats
# Tests of the harness itself: the guest runs our kernel with what tests need.

setup() {
	load helpers
}

@test "guest runs the kernel we built" {
	run uname -r
	assert_success
	assert_output "$(cat /etc/ckpt/kernel.release)"
}

@test "/proc and /sys are mounted and usable" {
	run grep -E '^(proc /proc proc|sysfs /sys sysfs) ' /proc/mounts
	assert_success
	assert_line --partial 'proc /proc proc'
	assert_line --partial 'sysfs /sys sysfs'
	[ "$(cat /proc/self/stat | cut -d' ' -f1)" -gt 1 ]
	[ -d /sys/kernel ]
	[ -r /proc/sys/kernel/osrelease ]
}

@test "devtmpfs on /dev and tmpfs on /tmp" {
	grep -q '^devtmpfs /dev devtmpfs ' /proc/mounts
	grep -q '^tmpfs /tmp tmpfs ' /proc/mounts
	[ -c /dev/null ]
	echo data > "$BATS_TEST_TMPDIR/f"
	[ "$(cat "$BATS_TEST_TMPDIR/f")" = data ]
}

@test "a static test program runs" {
	run hello a b
	assert_success
	assert_output "hello from hello (2 args)"
}

@test "a dynamic test program runs" {
	run hello-dyn
	assert_success
	assert_output "hello from hello-dyn (0 args)"
}

@test "commands can run as the unprivileged user nobody" {
	run as_nobody id -u
	assert_success
	assert_output 65534
	run as_nobody sh -c 'echo x > /proc/sys/kernel/hostname'
	assert_failure
}

@test "2 vCPUs with AVX in xstate" {
	[ "$(grep -c '^processor' /proc/cpuinfo)" -eq 2 ]
	grep -qw avx /proc/cpuinfo
}

@test "debug kernel: KASAN and lockdep are active" {
	grep -q 'KernelAddressSanitizer initialized' /run/dmesg.boot
	[ -e /proc/lockdep ]
}
