#!/usr/bin/env bats
# Address space details: what madvise() was told of each mapping,
# transparent huge pages, and locked memory.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

@test "madvise: DONTFORK, WIPEONFORK, DONTDUMP, SEQUENTIAL, RANDOM come back and act (syscalls)" {
	check_roundtrip syscall "madvise ok" ckpt-madvise "$T/go"
}

@test "madvise: the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "madvise ok" ckpt-madvise "$T/go"
}

# thp_setup: khugepaged scans every 10 ms, so a restored range is collapsed
# within the test's wait.
thp_setup() {
	local k=/sys/kernel/mm/transparent_hugepage
	grep -q '\[always\]\|\[madvise\]' "$k/enabled"
	echo 10 > "$k/khugepaged/scan_sleep_millisecs"
	echo 10 > "$k/khugepaged/alloc_sleep_millisecs"
}

@test "thp: memory in transparent huge pages comes back whole, and khugepaged collapses it again (syscalls)" {
	thp_setup
	check_roundtrip syscall "thp ok" ckpt-thp on "$T/go"
}

@test "thp: the same through /proc and /sys/kernel/ckpt/restart" {
	thp_setup
	check_roundtrip sysfs "thp ok" ckpt-thp on "$T/go"
}

@test "thp: a process that turned THP off (PR_SET_THP_DISABLE) keeps it off, and gets no huge page" {
	thp_setup
	check_roundtrip syscall "thp ok" ckpt-thp off "$T/go"
}

@test "mlock: mlock(), mlock2(MLOCK_ONFAULT), MAP_LOCKED and mlockall(MCL_FUTURE) come back (syscalls)" {
	check_roundtrip syscall "mlock ok" ckpt-mlock "$T/go"
}

@test "mlock: the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "mlock ok" ckpt-mlock "$T/go"
}

@test "mlock: locked memory comes back only within the restorer's RLIMIT_MEMLOCK (ENOMEM before the point of no return)" {
	chmod 0777 "$T"
	touch "$T/out"
	chmod 0666 "$T/out"
	start_bg "$T/out" runas 65534 65534 ckpt-mlock "$T/go"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	# nobody with CAP_CHECKPOINT_RESTORE only, 16 KiB it may lock
	expect_rc 12 capsrun 65534 65534 40 sh -c "ulimit -S -l 16; exec rstr 0 $T/img"
	expect_log "cannot lock it (RLIMIT_MEMLOCK)"
	# with its default limit, the same restorer brings it back
	touch "$T/go"
	RC=0
	capsrun 65534 65534 40 rstr 0 "$T/img" || RC=$?
	cat "$T/out"
	[ "$RC" -eq 0 ]
	[ "$(sed -n 2p "$T/out")" = "mlock ok" ]
}

@test "membarrier: private expedited, SYNC_CORE, RSEQ and global expedited registrations come back (syscalls)" {
	check_roundtrip syscall "membarrier ok" ckpt-membarrier "$T/go"
}

@test "membarrier: the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "membarrier ok" ckpt-membarrier "$T/go"
}

@test "membarrier: a process that registered nothing is still not registered (EPERM) after restart" {
	check_roundtrip syscall "membarrier ok" ckpt-membarrier none "$T/go"
}

@test "membarrier: a registration no command makes (a changed MM record) is EINVAL before anything runs" {
	image_of mb ckpt-membarrier none "$T/go"
	ckpt-mutate "$T/mb.img" "$T/bad" membarrier
	expect_rc 22 rstr < "$T/bad"
	expect_log "mm record: membarrier 0x1"
	[ "$(wc -l < "$T/mb.out")" -eq 1 ]
}
