#!/usr/bin/env bats
# Open files, working directory, root and umask come back.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

files_roundtrip() {
	check_roundtrip "$1" "files ok" ckpt-files "$T" "$T/go"
	[ "$(cat "$T/log")" = ab ]
}

@test "files: offsets, dup sharing, cloexec, O_APPEND, dirs, devices, cwd, umask (syscalls)" {
	files_roundtrip syscall
}

@test "files: the same through /proc and restart()" {
	files_roundtrip proc
}

@test "files: the same through /proc and /sys/kernel/ckpt/restart" {
	files_roundtrip sysfs
}

@test "files: a file the restorer cannot open fails the restart, nothing runs" {
	chmod 755 "$T"
	cd "$T"
	echo secret > "$T/data"
	exec 7< "$T/data"
	start_bg "$T/out" capsrun 65534 65534 - ckpt-wait sleep 100000
	exec 7<&-
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	chmod 600 "$T/data"
	chmod 666 "$T/out"
	chmod 644 "$T/img"
	# nobody with CAP_CHECKPOINT_RESTORE restores nobody's process, but
	# may not open the file it held
	expect_rc 13 capsrun 65534 65534 40 rstr < "$T/img"
	expect_log "cannot open $T/data"
	rm "$T/data"
	expect_rc 2 rstr < "$T/img"
	expect_log "cannot open $T/data"
	[ "$(wc -l < "$T/out")" -eq 1 ]
}

@test "files: removed files and unsupported kinds are refused, naming the fd; the process runs on" {
	start_bg "$T/out" ckpt-hold deleted "$T/gone"
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: gone was removed"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not supported"* ]]
	runs_on "$PID"
	start_bg "$T/out2" ckpt-hold pidfd
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: anonymous file \[pidfd\] unsupported"
	runs_on "$PID"
	if start_bg "$T/out3" ckpt-hold socket 2> /dev/null; then
		expect_rc 95 ckpt-save "$PID" "$T/img"
		expect_log "fd 3: socket of family 16 unsupported"
	fi
}

@test "files: /dev/tty, the controlling terminal, is refused naming the fd; the process runs on" {
	start_bg "$T/out" ckpt-hold devtty
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 5: /dev/tty, the controlling terminal, cannot come back"
	runs_on "$PID"
}

@test "files: a pty master (/dev/ptmx) is refused naming the fd; the process runs on" {
	start_bg "$T/out" ckpt-hold ptmx
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: a pty master cannot come back"
	runs_on "$PID"
}

@test "files: a process in another mount namespace is EOPNOTSUPP (its paths would name other files here), logged, through both interfaces; it runs on; from inside its namespace, one whose files are all there is accepted" {
	start_bg "$T/out" unshare -m ckpt-wait sleep 100000
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "is not under the checkpointer's root (another mount namespace?)"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not supported"* ]]
	runs_on "$PID"
	# its stdout is on the mounts it came from: refused from inside its namespace too
	expect_rc 95 nsenter -t "$PID" -m ckpt-save "$PID" "$T/img2"
	runs_on "$PID"
	# a process whose files were all opened in its namespace, checkpointed from there
	unshare -m sh -c "ckpt-wait sleep 100000 < /dev/null > $T/ns.out 2>&1 & p=\$!
		until grep -q ready $T/ns.out; do sleep 0.05; done
		ckpt-save \$p $T/img3 > /dev/null; echo rc=\$?; kill \$p" > "$T/ns.log" 2>&1 3>&- 4>&-
	cat "$T/ns.log"
	grep -qx "rc=0" "$T/ns.log"
	[ -s "$T/img3" ]
}

@test "files: a character device with state of its own open (/dev/kmsg) is EOPNOTSUPP naming the fd; /dev/zero, /dev/urandom and /dev/full come back" {
	start_bg "$T/out" sh -c 'exec ckpt-wait sleep 100000 5< /dev/kmsg'
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "fd 5: character device 1:11 (kmsg) keeps state of each open"
	runs_on "$PID"
	kill -9 "$PID"
	start_bg "$T/out" sh -c 'exec ckpt-wait sleep 100000 5< /dev/zero 6< /dev/urandom 7> /dev/full'
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" || true
	rstr < "$T/img" > /dev/null 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	runs_on "$r"
	[ "$(readlink "/proc/$r/fd/5")" = /dev/zero ]
	[ "$(readlink "/proc/$r/fd/6")" = /dev/urandom ]
	[ "$(readlink "/proc/$r/fd/7")" = /dev/full ]
}
