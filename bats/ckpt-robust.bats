#!/usr/bin/env bats
# An image is untrusted input: paths it names that are something else now
# give an errno at once, never a wait, on both restart paths.

load ckpt-lib

setup() { ckpt_setup; }

# ckpt-sysv's segments outlive the processes of a test: remove them all,
# so that its key is free for ckpt-shm.bats
teardown() {
	ckpt_teardown
	remove_sysv_segments
}

# fifo_image: $T/img of $T/prog (a copy of ckpt-wait) holding $T/file at fd 5
fifo_image() {
	cp "$CKPT_BIN/ckpt-wait" "$T/prog"
	echo data > "$T/file"
	start_bg "$T/out" sh -c "exec 5< $T/file; exec $T/prog sleep 100000"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
}

# no_wait RC LOG COMMAND...: COMMAND ends within 20 s with status RC, and
# the kernel log says LOG
no_wait() {
	local want=$1 log=$2 rc=0
	shift 2
	timeout 20 "$@" > "$T/nw.out" 2>&1 || rc=$?
	cat "$T/nw.out"
	if [ "$rc" -ne "$want" ]; then
		echo "'$*' exited $rc, expected $want (124: it waited)" >&2
		return 1
	fi
	expect_log "$log"
}

sysfs_restart() { echo "$1" > /sys/kernel/ckpt/restart; }

@test "robust: a descriptor's file that is a FIFO now is refused at once (restart() and sysfs)" {
	fifo_image
	rm "$T/file"
	mkfifo "$T/file"
	no_wait 116 "is not what was saved" rstr 0 "$T/img"
	dmesg -c > /dev/null
	run timeout 20 bash -c "$(declare -f sysfs_restart); sysfs_restart $T/img"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Stale file handle"* ]]
	expect_log "is not what was saved"
	[ ! -d "/proc/$PID" ] || ! grep -q prog "/proc/$PID/comm"
}

@test "robust: an executable that is a FIFO now is refused at once (restart() and sysfs)" {
	fifo_image
	rm "$T/prog"
	mkfifo "$T/prog"
	no_wait 13 "no regular file" rstr 0 "$T/img"
	run timeout 20 bash -c "$(declare -f sysfs_restart); sysfs_restart $T/img"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Permission denied"* ]]
}

@test "robust: an image path that is a FIFO is refused by /sys/kernel/ckpt/restart at once (EINVAL)" {
	mkfifo "$T/img"
	run timeout 20 bash -c "$(declare -f sysfs_restart); sysfs_restart $T/img"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Invalid argument"* ]]
	expect_log "image $T/img is not a regular file"
}

# failnth_checkpoint OKLINE COMMAND... GOFILE: walk every allocation of a
# checkpoint of COMMAND; then COMMAND must still do its work and print OKLINE.
failnth_checkpoint() {
	local ok=$1 rc=0 t0
	shift
	start_bg "$T/out" "$@"
	t0=$SECONDS
	run ckpt-failnth checkpoint "$PID" 20000
	echo "$output"
	echo "# checkpoint of ${*:1:1}: $output" >&3
	[ "$status" -eq 0 ]
	# at least 2 s from ready to go, as a round trip gives (ckpt-ptimers'
	# t9 must have expired): the checkpoints alone may take less
	while ((SECONDS - t0 < 3)); do sleep 0.2; done
	touch "${!#}"
	wait "$PID" || rc=$?
	cat "$T/out"
	[ "$rc" -eq 0 ]
	[ "$(sed -n 2p "$T/out")" = "$ok" ]
}

@test "robust: each allocation of a checkpoint made to fail in turn (fail-nth) gives an errno; the process runs on unchanged (pipes, FIFO)" {
	failnth_checkpoint "pipes ok" ckpt-pipes "$T" "$T/go"
}

@test "robust: the same for memfds, shared memory, SysV segments" {
	failnth_checkpoint "memfd ok" ckpt-memfd "$T/go"
}

@test "robust: the same for POSIX timers, eventfd, signalfd, epoll, seccomp" {
	failnth_checkpoint "ptimers ok" ckpt-ptimers "$T/go"
	rm -f "$T/go"
	failnth_checkpoint "events ok" ckpt-events "$T/go"
	rm -f "$T/go"
	failnth_checkpoint "seccomp ok" ckpt-seccomp "$T/go"
}

# failnth_restart NAME COMMAND...: walk every allocation of a restart of an
# image of COMMAND; nothing may be left behind (processes, SysV segments).
failnth_restart() {
	local name=$1 before
	shift
	start_bg "$T/$name.out" "$@"
	cat "/proc/$PID/checkpoint" > "$T/$name.img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	before=$(wc -l < /proc/sysvipc/shm)
	run timeout 900 ckpt-failnth restart "$T/$name.img" 20000
	echo "$output"
	echo "# restart of $name: $output" >&3
	[ "$status" -eq 0 ]
	[ "$(wc -l < /proc/sysvipc/shm)" -eq "$before" ]
	# what is needed after the point of no return is allocated before it
	[[ "$output" == *", killed 0" ]]
}

@test "robust: each allocation of a restart made to fail in turn (fail-nth): an errno before the point of no return and none after it, the caller intact, nothing left" {
	failnth_restart pipes ckpt-pipes "$T" "$T/go"
	failnth_restart memfd ckpt-memfd "$T/go"
	failnth_restart ptimers ckpt-ptimers "$T/go"
}

@test "robust: the same for SysV segments, seccomp (threads with filters of their own too), signals" {
	failnth_restart sysv ckpt-sysv "$T/go"
	failnth_restart seccomp ckpt-seccomp "$T/go"
	failnth_restart seccompown ckpt-seccomp own "$T/go"
	failnth_restart signals ckpt-signals "$T/go"
}

@test "robust: the same for eventfd, signalfd, epoll (items moved), timerfd, file locks, membarrier" {
	touch "$T/lockfile"
	failnth_restart events ckpt-events "$T/go"
	failnth_restart epollfd ckpt-epollfd "$T/go"
	failnth_restart timers ckpt-timers "$T/go"
	failnth_restart locks ckpt-locks hold "$T/lockfile" "$T/go"
	failnth_restart membarrier ckpt-membarrier none "$T/go"
}

@test "robust: the same for a restart of 15 threads (cloned before the point of no return), and no thread left running" {
	failnth_restart threads ckpt-threads 14 "$T/go"
	[ -z "$(pidof ckpt-threads)" ]
}

@test "robust: the same for 300 descriptors, beyond the restorer's file table (grown before the point of no return)" {
	echo data > "$T/f"
	failnth_restart fds ckpt-fds dup 300 "$T/f" "$T/go"
}

# mem_done: let $PID (ckpt-mem) check itself and exit; it must say "all ok"
mem_done() {
	local rc=0
	touch "$T/go"
	wait "$PID" || rc=$?
	[ "$rc" -eq 0 ]
	grep -q "^all ok" "$T/out"
}

@test "stress: two checkpoints of one process at once, 50 rounds: both images whole, the process unchanged" {
	start_bg "$T/out" ckpt-mem "$T/go"
	run ckpt-stress twice "$PID" 50
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 100" ]
	mem_done
}

@test "stress: eight readers of /proc/PID/checkpoint at once, 10 rounds: every image whole" {
	start_bg "$T/out" ckpt-mem "$T/go"
	run ckpt-stress readers "$PID" 8 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 80" ]
	mem_done
}

@test "stress: 1000 checkpoints of a process spinning on its registers; every 50th restored whole" {
	local img rc
	start_bg "$T/out" ckpt-mem "$T/go"
	run ckpt-stress busy "$PID" 1000 50 "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 1000" ]
	[ "$(ls "$T"/img.* | wc -l)" -eq 20 ]
	mem_done
	for img in "$T"/img.*; do
		rm -f "$T/go"
		rstr < "$img" > "$T/rstr.out" 2>&1 &
		r=$!
		touch "$T/go"
		rc=0
		wait "$r" || rc=$?
		echo "$img: $rc"
		[ "$rc" -eq 0 ]
	done
}

@test "stress: two restarts of one image at once through /sys/kernel/ckpt/restart: exactly one wins, the other is EBUSY" {
	start_bg "$T/out" ckpt-wait sleep 100000
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	(echo "$T/img" > /sys/kernel/ckpt/restart) 2> "$T/e1" &
	a=$!
	(echo "$T/img" > /sys/kernel/ckpt/restart) 2> "$T/e2" &
	b=$!
	ra=0 rb=0
	wait "$a" || ra=$?
	wait "$b" || rb=$?
	cat "$T/e1" "$T/e2"
	BG_PIDS="$BG_PIDS $PID"
	[ $((ra + rb)) -eq 1 ]
	grep -q "Device or resource busy" "$T/e1" "$T/e2"
	[ "$(cat "/proc/$PID/comm")" = ckpt-wait ]
}

# churn_restore: restart every $T/img.* of a ckpt-churn target; each must
# check itself and print "churn ok" on its own stdout, $T/out (cut back to
# its "ready" line first)
churn_restore() {
	local img rc first
	first=$(head -n 1 "$T/out")
	for img in "$T"/img.*; do
		rm -f "$T/go"
		echo "$first" > "$T/out"
		rstr < "$img" > "$T/rstr.out" 2>&1 &
		r=$!
		touch "$T/go"
		rc=0
		wait "$r" || rc=$?
		echo "$img: $rc"
		cat "$T/rstr.out" "$T/out"
		[ "$rc" -eq 0 ]
		[ "$(sed -n 2p "$T/out")" = "churn ok" ]
	done
}

# churn_stress MODE: 200 checkpoints of ckpt-churn MODE, each whole, then
# every 50th image restored (churn_restore)
churn_stress() {
	start_bg "$T/out" ckpt-churn "$1" "$T/go"
	run ckpt-stress busy "$PID" 200 50 "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 200" ]
	touch "$T/go"
	wait "$PID"
	churn_restore
}

@test "stress: 200 checkpoints of a process forking and reaping children all the time; every 50th restored checks itself" {
	churn_stress fork
}

@test "stress: 200 checkpoints of a process creating and joining threads all the time; every 50th restored checks itself" {
	churn_stress threads
}

@test "stress: 200 checkpoints of a process mapping, mprotecting and unmapping from a 1 ms SIGALRM handler; every 50th restored checks itself" {
	churn_stress mmap
}

@test "stress: 200 checkpoints while another thread attaches to the target with ptrace and detaches, in a loop: every image whole, the target runs on" {
	start_bg "$T/out" ckpt-mem "$T/go"
	run ckpt-stress attach "$PID" 200
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 200" ]
	mem_done
}

@test "stress: 200 readers of /proc/PID/checkpoint SIGKILLed mid-read: the target is let go every time, the next image is whole" {
	start_bg "$T/out" ckpt-mem "$T/go"
	run ckpt-stress killreader "$PID" 200
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok images 1" ]
	mem_done
}

@test "robust: fail-nth over a checkpoint and a restart of unix sockets (pairs, credentials and descriptors in flight): errnos, the process runs on, nothing left" {
	failnth_checkpoint "unix ok" ckpt-unix "$T/go"
	rm -f "$T/go"
	failnth_restart unix ckpt-unix "$T/go"
	[ -z "$(pidof ckpt-unix)" ]
}

@test "robust: fail-nth over a checkpoint and a restart of a TCP connection and a UDP socket with a datagram: errnos, the process runs on, nothing left" {
	ckpt-inet lo
	failnth_checkpoint "conn ok" ckpt-inet conn "$T/go"
	rm -f "$T/go"
	failnth_restart conn ckpt-inet conn "$T/go"
	[ -z "$(pidof ckpt-inet)" ]
}

@test "robust: fail-nth over a checkpoint and a restart of TCP listeners with connections not yet accepted: errnos, the process runs on, nothing left" {
	ckpt-inet lo
	failnth_checkpoint "pending ok" ckpt-inet pending "$T/go"
	rm -f "$T/go"
	failnth_restart pending ckpt-inet pending "$T/go"
	[ -z "$(pidof ckpt-inet)" ]
}
