#!/usr/bin/env bats
# Credentials, limits and scheduling: restored as far as the restorer could
# set them itself, refused with EPERM beyond that.

load ckpt-lib

setup() { ckpt_setup; chmod 755 "$T"; }
teardown() { ckpt_teardown; }

# The restored process opens its files again as itself: its output file
# must be one it may open.
creds_roundtrip() {
	touch "$T/out"
	chmod 0666 "$T/out"
	check_roundtrip "$1" "$3 ok" "$2" "$T/go"
}

@test "creds: uids, gids, groups, capabilities, securebits, no_new_privs (syscalls)" {
	creds_roundtrip syscall ckpt-creds creds
}

@test "creds: the same through /proc and restart()" {
	creds_roundtrip proc ckpt-creds creds
}

@test "creds: the same through /proc and /sys/kernel/ckpt/restart" {
	creds_roundtrip sysfs ckpt-creds creds
}

@test "limits: rlimits, nice, policy, affinity, oom_score_adj, prctl state (syscalls)" {
	creds_roundtrip syscall ckpt-limits limits
}

@test "limits: a real-time process keeps its priority and its nice value (/proc and /sys/kernel/ckpt/restart)" {
	touch "$T/out"
	chmod 0666 "$T/out"
	check_roundtrip sysfs "limits ok" ckpt-limits rt "$T/go"
}

@test "limits: the same through /proc and restart()" {
	creds_roundtrip proc ckpt-limits limits
}

@test "limits: the same through /proc and /sys/kernel/ckpt/restart" {
	creds_roundtrip sysfs ckpt-limits limits
}

@test "creds: a restorer without CAP_SETUID cannot restore other uids: EPERM, nothing runs" {
	start_bg "$T/out" ckpt-creds "$T/go"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	chmod 644 "$T/img"
	chmod 666 "$T/out"
	expect_rc 1 capsrun 65534 65534 40 rstr < "$T/img"
	expect_log "uids 1000/1001/1002/1000 need CAP_SETUID"
	[ "$(sed -n 2p "$T/out")" = "" ]
}

nobody_image() {
	cd "$T"	# a working directory nobody may enter
	start_bg "$T/out" capsrun 65534 65534 - ckpt-wait sleep 100000
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	chmod 644 "$T/img"
	chmod 666 "$T/out"
}

@test "creds: nobody with CAP_CHECKPOINT_RESTORE restores nobody's process, which gets no capability" {
	nobody_image
	capsrun 65534 65534 40 rstr < "$T/img" &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	sleep 1
	grep -q "^Name:.*ckpt-wait" "/proc/$r/status"
	grep -q "^Uid:.*65534.*65534.*65534.*65534" "/proc/$r/status"
	grep -q "^CapPrm:.*0000000000000000" "/proc/$r/status"
	grep -q "^CapAmb:.*0000000000000000" "/proc/$r/status"
}

@test "limits: a hard limit above the restorer's, without CAP_SYS_RESOURCE, is EPERM" {
	nobody_image
	expect_rc 1 sh -c "ulimit -n 1024 && ulimit -Hn 1024 && exec capsrun 65534 65534 40 rstr < $T/img"
	expect_log "rlimit 7 of 4096 needs CAP_SYS_RESOURCE"
}
