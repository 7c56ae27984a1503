#!/usr/bin/env bats
# Callers are adversaries: a target that dies under its checkpoint, and a
# checkpoint that would read what its caller may not.

load ckpt-lib

setup() {
	ckpt_setup
	chmod 0777 "$T"
}
teardown() { ckpt_teardown; }

@test "security: a held target SIGKILLed while its checkpoint blocks gives ESRCH (100 rounds, as nobody)" {
	run as_nobody ckpt-race kill 100
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok 100" ]
}

@test "security: the same with the target reaped before the checkpoint goes on (100 rounds, as nobody)" {
	run as_nobody ckpt-race reap 100
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok 100" ]
}

# fifo_self_checkpoint MODE: root makes $T/f with MODE, holds it open and
# writes "root secret" into it; nobody opens it O_WRONLY and checkpoints
# itself into $T/img. Exit status in RC.
fifo_self_checkpoint() {
	mkfifo -m "$1" "$T/f"
	exec 5<> "$T/f"
	echo "root secret" >&5
	RC=0
	as_nobody sh -c "exec 5>&- 6> $T/f; exec ckpt-save 0 $T/img" \
		< /dev/null > "$T/out" 2>&1 || RC=$?
	exec 5>&-
	cat "$T/out"
}

@test "security: a FIFO end held write-only, its data unreadable to the process: EPERM, the data not in the image" {
	fifo_self_checkpoint 0622
	[ "$RC" -eq 1 ]
	expect_log "fd 6: 12 bytes in f the process may not read"
	! grep -q "root secret" "$T/img" || false
}

@test "security: a FIFO end held write-only whose data the process may read: saved" {
	fifo_self_checkpoint 0666
	[ "$RC" -eq 0 ]
	grep -q "root secret" "$T/img"
}

@test "security: seccomp filters are not given to a caller without CAP_SYS_ADMIN (syscall and /proc)" {
	start_bg "$T/out" runas 65534 65534 ckpt-seccomp "$T/go"
	expect_rc 1 as_nobody ckpt-save "$PID" "$T/img"
	expect_log "seccomp filters need CAP_SYS_ADMIN"
	run as_nobody cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# root may: the process is checkpointed and runs on
	ckpt-save "$PID" "$T/img" > /dev/null
	touch "$T/go"
	wait_gone "$PID"
	grep -q "seccomp ok" "$T/out"
}

# privs_roundtrip HOW: nobody's process with RLIMIT_NPROC 0 and a parent-death
# signal, checkpointed and restored by root.
privs_roundtrip() {
	touch "$T/out"
	chmod 0666 "$T/out"
	check_roundtrip "$1" "privs ok" runas 65534 65534 ckpt-privs "$T/go"
}

@test "security: restored by root, nobody's process counts as nobody's for RLIMIT_NPROC, keeps dumpable and its pdeath signal (syscalls)" {
	privs_roundtrip syscall
}

@test "security: the same through /proc and /sys/kernel/ckpt/restart" {
	privs_roundtrip sysfs
}

@test "security: restored by root while nobody is at its RLIMIT_NPROC, the process's next execve() is EAGAIN, as after setuid()" {
	local how
	for how in syscall sysfs; do
		start_bg "$T/sleeper" runas 65534 65534 ckpt-wait sleep 100000
		touch "$T/out"
		chmod 0666 "$T/out"
		rm -f "$T/go"
		check_roundtrip "$how" "privs ok" runas 65534 65534 ckpt-privs exec "$T/go"
	done
}

# keys_roundtrip HOW: nobody's process restored by root from a session
# keyring of root's with a key only its possessors may read.
keys_roundtrip() {
	local r
	touch "$T/out"
	chmod 0666 "$T/out"
	start_bg "$T/out" runas 65534 65534 ckpt-keys "$T/go" "$T/ids"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	RC=0
	if [ "$1" = sysfs ]; then
		ckpt-keys restore "$T/ids" "$T/img" sysfs "$PID" &
		r=$!
		BG_PIDS="$BG_PIDS $r $PID"
		touch "$T/go"
		wait "$r" || RC=$?
	else
		ckpt-keys restore "$T/ids" "$T/img" syscall "$PID" > "$T/rstr.out" 2>&1 &
		r=$!
		BG_PIDS="$BG_PIDS $r"
		touch "$T/go"
		wait "$r" || RC=$?
		cat "$T/rstr.out"
	fi
	cat "$T/out"
	[ "$RC" -eq 0 ]
	[ "$(sed -n 2p "$T/out")" = "keys ok" ]
}

@test "security: restored by root, nobody's process has neither root's session keyring nor its keys (restart())" {
	keys_roundtrip syscall
}

@test "security: the same through /sys/kernel/ckpt/restart" {
	keys_roundtrip sysfs
}

@test "security: root restoring nobody's image opens its files as nobody: one nobody may not open is EACCES" {
	echo secret > "$T/rootonly"
	chmod 0600 "$T/rootonly"
	touch "$T/out"
	chmod 0666 "$T/out"
	start_bg "$T/out" sh -c "exec 5< $T/rootonly; exec runas 65534 65534 ckpt-wait sleep 100000"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	expect_rc 13 timeout 20 rstr < "$T/img"
	expect_log "cannot open $T/rootonly"
}

@test "security: no open at restart gives the restorer a controlling terminal (an executable path now a tty)" {
	cp "$CKPT_BIN/ckpt-wait" "$T/prog"
	start_bg "$T/out" "$T/prog" sleep 100000
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	run ckpt-ctty "$T/img" "$T/prog"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "errno 13 tty 0" ]
	expect_log "executable $T/prog: no regular file"
}

@test "security: a target that execs a setuid program while its checkpoint waits to hold it is refused (EPERM, 200 rounds, as nobody)" {
	cp "$CKPT_BIN/ckpt-wait" "$T/suid"
	chmod 4755 "$T/suid"
	run as_nobody ckpt-race exec 200 "$T/suid"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "ok 200 images "* ]]
}

@test "security: the same through /proc/PID/checkpoint, which pins the address space it was opened for (200 rounds, as nobody)" {
	cp "$CKPT_BIN/ckpt-wait" "$T/suid"
	chmod 4755 "$T/suid"
	run as_nobody ckpt-race exec 200 "$T/suid" proc
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "ok 200 images "* ]]
}

@test "security: the same with a second thread, which the exec ends while the threads are being held: EPERM or EAGAIN, never a hang (200 rounds, as nobody)" {
	cp "$CKPT_BIN/ckpt-wait" "$T/suid"
	chmod 4755 "$T/suid"
	run as_nobody timeout 600 ckpt-race exec 200 "$T/suid" threads
	echo "$output"
	echo "# $output" >&3
	[ "$status" -eq 0 ]
	[[ "$output" == "ok 200 images "* ]]
}

@test "security: a target held by a /proc/PID/checkpoint reader does not keep suspend from freezing tasks (pm_test freezer)" {
	start_bg "$T/out" ckpt-race shared 8
	target=$PID
	start_bg "$T/hold" ckpt-race holdproc "$target" "$T/go"
	holder=$PID
	# held: the checkpoint thread waits on its full pipe, the target in D
	for i in $(seq 1 100); do
		grep -q "State:.*D" "/proc/$target/status" && break
		sleep 0.05
	done
	grep -q "State:.*D" "/proc/$target/status"
	echo freezer > /sys/power/pm_test
	echo 0 > /sys/module/suspend/parameters/pm_test_delay
	rc=0
	echo freeze > /sys/power/state || rc=$?
	echo none > /sys/power/pm_test
	dmesg | grep -i "freez" || true
	[ "$rc" -eq 0 ]
	expect_log "Freezing user space processes"
	! dmesg | grep -q "Freezing of tasks failed" || false
	# still held after the thaw; the reader then gets the whole image
	grep -q "State:.*D" "/proc/$target/status"
	touch "$T/go"
	wait "$holder"
	cat "$T/hold"
	grep -Eq "^image [0-9]{7,}$" "$T/hold"
	grep -q "State:.*S" "/proc/$target/status"
}

@test "security: a target stopped and continued by SIGSTOP/SIGCONT under 200 checkpoints: every image restores whole" {
	run ckpt-stopcont sigcont 200 "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok 200" ]
}

@test "security: a tracee its tracer changes and continues (SETREGS, POKEDATA, PTRACE_CONT) under 200 checkpoints: no torn image" {
	run ckpt-stopcont ptrace 200 "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ok 200" ]
}

@test "security: a target held by a checkpoint is frozen by the cgroup v2 freezer, and thawed runs on" {
	cg=$(cgroup2_root)/ckpt-freeze
	mkdir -p "$cg"
	# shared memory is written while the target is held: it stays held
	start_bg "$T/out" ckpt-race shared 1
	target=$PID
	echo "$target" > "$cg/cgroup.procs"
	start_bg "$T/hold" ckpt-race hold "$target" "$T/go"
	holder=$PID
	for i in $(seq 1 100); do
		grep -q "State:.*D" "/proc/$target/status" && break
		sleep 0.05
	done
	grep -q "State:.*D" "/proc/$target/status"
	echo 1 > "$cg/cgroup.freeze"
	for i in $(seq 1 100); do
		grep -q "^frozen 1" "$cg/cgroup.events" && break
		sleep 0.05
	done
	frozen=$(grep -c "^frozen 1" "$cg/cgroup.events" || true)
	echo 0 > "$cg/cgroup.freeze"
	touch "$T/go"
	wait "$holder"
	cat "$T/hold"
	kill -9 "$target"
	wait "$target" 2> /dev/null || true
	rmdir "$cg"
	[ "$frozen" -eq 1 ]
	grep -Eq "^held [1-9][0-9]*$" "$T/hold"
}

@test "security: 10000 opens and closes of /proc/PID/checkpoint of a task that never returns to user mode leave no thread behind (as nobody)" {
	start_bg "$T/out" runas 65534 65534 ckpt-race vfork
	child=$(cat "/proc/$PID/task/$PID/children")
	BG_PIDS="$BG_PIDS $child"
	run as_nobody ckpt-race opens "$PID" 10000
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "threads 0" ]
	# the task was never held: it is still in vfork(), and killable
	grep -q "State:.*D\|State:.*S" "/proc/$PID/status"
	kill -9 "$PID" "$child"
	wait_gone "$PID"
}

@test "security: no kernel address in the records of images of several processes" {
	local imgs="" p
	for p in ckpt-events ckpt-signals ckpt-ptimers ckpt-seccomp ckpt-mem-dyn; do
		start_bg "$T/$p.out" "$p" "$T/go"
		cat "/proc/$PID/checkpoint" > "$T/$p.img"
		kill -9 "$PID"
		wait "$PID" 2> /dev/null || true
		imgs="$imgs $T/$p.img"
	done
	start_bg "$T/pipes.out" ckpt-pipes "$T" "$T/go"
	ckpt-save "$PID" "$T/pipes.img" > /dev/null
	run ckpt-kscan $imgs "$T/pipes.img"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "clean "* ]]
}

# mutated IMAGE MUTATION WANT_RC LOG: restart of IMAGE changed by MUTATION
# (checksum recomputed) fails with errno WANT_RC before the point of no
# return (a caller killed after it would exit 137), logging LOG.
mutated() {
	local rc=0
	ckpt-mutate "$1" "$T/bad" "$2"
	timeout 20 rstr < "$T/bad" > "$T/bad.out" 2>&1 || rc=$?
	if [ "$rc" -ne "$3" ]; then
		echo "mutation $2: restart exited $rc, expected $3" >&2
		cat "$T/bad.out" >&2
		return 1
	fi
	expect_log "$4"
}

@test "security: images that only fail after the point of no return are refused before it (checksum recomputed)" {
	image_of sleep ckpt-wait sleep 100000
	# the recomputed checksum of an unchanged image is the image's own
	ckpt-mutate "$T/sleep.img" "$T/same" none
	cmp "$T/sleep.img" "$T/same"
	mutated "$T/sleep.img" clockid 22 "cpu record: bad syscall restart"
	mutated "$T/sleep.img" dr7 22 "cpu record: bad DR7 0x20001"
	mutated "$T/sleep.img" tls 95 "TLS descriptors unsupported"
	mutated "$T/sleep.img" xfeatures 22 "invalid xstate\|not permitted here"
	image_of seccomp ckpt-seccomp "$T/go"
	mutated "$T/seccomp.img" bpf 22 "seccomp filters refused by the checkers"
	mutated "$T/seccomp.img" seccompprev 22 "seccomp filter 1: malformed"
	mutated "$T/seccomp.img" seccompleaf 22 "seccomp: mode 2, filter 3 of 2, no_new_privs 1"
	image_of events ckpt-events "$T/go"
	mutated "$T/events.img" epolldup 22 "watched twice"
	image_of ptimers ckpt-ptimers "$T/go"
	mutated "$T/ptimers.img" alarm 95 "no alarm clock here"
	mutated "$T/ptimers.img" clock10 22 "POSIX timer 0: malformed"
}

@test "security: a pipe is sized at restart within F_SETPIPE_SZ's limits before its data is read, nothing sized from the image" {
	touch "$T/pipes.out"
	chmod 0666 "$T/pipes.out"
	image_of pipes runas 65534 65534 ckpt-pipes "$T" "$T/go"
	# 16 MiB: more than pipe-max-size, which only CAP_SYS_RESOURCE may pass
	ckpt-mutate "$T/pipes.img" "$T/big.img" pipebig
	chmod 0644 "$T/big.img"
	expect_rc 1 capsrun 65534 65534 40 rstr 0 "$T/big.img"
	expect_log "cannot make a pipe of 16777216 bytes"
	# root may: the process comes back with every byte of its pipes
	touch "$T/go"
	RC=0
	rstr 0 "$T/big.img" || RC=$?
	cat "$T/pipes.out"
	[ "$RC" -eq 0 ]
	[ "$(sed -n 2p "$T/pipes.out")" = "pipes ok" ]
	# 4 GiB of data the image does not have: refused, not allocated
	mutated "$T/pipes.img" pipehuge 22 "cannot make a pipe of 4294963200 bytes"
}

@test "security: 500000 descriptors of one file checkpoint and restore (descriptor table read in batches, files indexed by hash)" {
	echo data > "$T/file"
	ulimit -n 600000	# the restorer's limit bounds the descriptors it makes
	check_roundtrip syscall "fds ok" ckpt-fds dup 500000 "$T/file" "$T/go"
}

@test "security: 50000 distinct files of one path the same way" {
	echo data > "$T/file"
	ulimit -n 100000
	check_roundtrip proc "fds ok" ckpt-fds open 50000 "$T/file" "$T/go"
}

@test "security: a process sharing its address space (CLONE_VM), signal handlers (CLONE_SIGHAND) or fs context (CLONE_FS) with another is refused" {
	start_bg "$T/vm.out" ckpt-share vm
	child=$(sed -n 's/^ready //p' "$T/vm.out")
	BG_PIDS="$BG_PIDS $child"
	expect_rc 95 ckpt-save "$child" "$T/img"
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "address space shared with another process"
	start_bg "$T/sig.out" ckpt-share sighand
	child=$(sed -n 's/^ready //p' "$T/sig.out")
	BG_PIDS="$BG_PIDS $child"
	expect_rc 95 ckpt-save "$child" "$T/img"
	expect_log "shares its signal handlers with another process"
	start_bg "$T/fs.out" ckpt-share fs
	child=$(sed -n 's/^ready //p' "$T/fs.out")
	BG_PIDS="$BG_PIDS $child"
	expect_rc 95 ckpt-save "$child" "$T/img"
	expect_log "shares its working directory, root and umask with another process"
}

@test "security: a process holding SEM_UNDO semaphore adjustments is refused (its exit undoes them)" {
	start_bg "$T/out" ckpt-share semundo
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "SEM_UNDO adjustments"
	runs_on "$PID"
}

@test "security: restart unshares the restorer's signal handlers, as execve() does: a CLONE_SIGHAND sibling keeps its own" {
	image_of sleep ckpt-wait sleep 100000
	ckpt-share restart "$T/sleep.img" "$T/sib" > "$T/r.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	for i in $(seq 1 100); do
		[ -s "$T/sib" ] && break
		sleep 0.05
	done
	cat "$T/sib" "$T/r.out"
	grep -qx "sibling ok" "$T/sib"
	grep -q "^Name:.*ckpt-wait" "/proc/$r/status"
}

@test "security: a memfd the process holds write-only and may not reopen for reading: EPERM, its pages not in the image" {
	run ckpt-memfd-wo "$T/img"
	echo "$output"
	[ "$output" = "checkpoint -1 errno 1" ]
	expect_log "shared memory memfd:secret the process may not read"
	! grep -q "root secret" "$T/img" || false
}

@test "security: a personality restart cannot set (linux32) is refused at checkpoint, not only at restart" {
	start_bg "$T/out" linux32 ckpt-wait sleep 100000
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "personality 0x8 unsupported"
	runs_on "$PID"
}

# cpuset CPUS: the cgroup v2 cpuset ckpt-cs of CPUS;
# in_cpuset COMMAND...: run COMMAND in it
cpuset() {
	local cg=/sys/fs/cgroup
	grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none "$cg"
	grep -q cpuset "$cg/cgroup.subtree_control" || echo +cpuset > "$cg/cgroup.subtree_control"
	mkdir -p "$cg/ckpt-cs"
	echo "$1" > "$cg/ckpt-cs/cpuset.cpus"
}
in_cpuset() {
	sh -c 'echo $$ > /sys/fs/cgroup/ckpt-cs/cgroup.procs && exec "$@"' sh "$@"
}

@test "security: the affinity comes back within the restorer's cpuset only (cpuset_cpus_allowed()); none of it allowed is EINVAL" {
	local r i
	image_of all ckpt-wait sleep 100000
	image_of cpu0 taskset -c 0 ckpt-wait sleep 100000
	# CPUs 0-1 restored in a cpuset of CPU 1: CPU 1
	cpuset 1
	in_cpuset rstr 0 "$T/all.img" > "$T/rstr.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	for i in $(seq 1 250); do
		r=$(head -n 1 /sys/fs/cgroup/ckpt-cs/cgroup.procs)
		[ -n "$r" ] && [ "$(cat "/proc/$r/comm" 2> /dev/null)" = ckpt-wait ] && break
		sleep 0.02
	done
	cat "$T/rstr.out"
	grep Cpus_allowed_list "/proc/$r/status"
	grep -q "Cpus_allowed_list:[[:space:]]*1$" "/proc/$r/status"
	kill -9 "$r"
	for i in $(seq 1 250); do
		[ -z "$(cat /sys/fs/cgroup/ckpt-cs/cgroup.procs)" ] && break
		sleep 0.02
	done
	# CPU 0 only, restored in a cpuset of CPU 1: refused before it runs
	expect_rc 22 in_cpuset rstr 0 "$T/cpu0.img"
	expect_log "no CPU of the saved affinity is allowed here"
	rmdir /sys/fs/cgroup/ckpt-cs
}
