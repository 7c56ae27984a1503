#!/usr/bin/env bats
# checkpoint(pid, fd, flags) and restart(crid, fd, flags) on single processes.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

@test "ckpt-self saves itself to stdout, rstr brings it back with ret=0 and its comm" {
	ckpt-self > "$T/img" 2> "$T/out1"
	grep -Eq '^hello, world!  \(ret=[1-9][0-9]*\)$' "$T/out1"
	grep -Fxq 'comm=ckpt-self' "$T/out1"
	# the restored process writes on its own stderr, from where it was
	restore_ok "$T/img" "$T/out2"
	grep -Fxq 'hello, world!  (ret=0)' "$T/out1"
	grep -Fxq 'comm=ckpt-self' "$T/out1"
}

@test "checkpoint ids are positive and unique" {
	ckpt-self > "$T/a" 2> "$T/o1"
	ckpt-self > "$T/b" 2> "$T/o2"
	a=$(sed -n 's/.*(ret=\([0-9]*\))/\1/p' "$T/o1")
	b=$(sed -n 's/.*(ret=\([0-9]*\))/\1/p' "$T/o2")
	[ "$a" -gt 0 ] && [ "$b" -gt "$a" ]
	# restart() with the other image's id refuses it
	expect_rc 3 rstr "$b" < "$T/a"
	restore_ok "$T/b" "$T/o3" && grep -q 'ret=0' "$T/o2"
}

run_mem_roundtrip() {
	local prog=$1
	start_bg "$T/out1" "$prog" "$T/go"
	ckpt-save "$PID" "$T/img" > "$T/crid"
	kill -9 "$PID"
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	grep -q '^all ok' "$T/out1"
}

@test "static program: every memory kind, xmm/ymm, MXCSR, TLS, rseq, vdso survive; heap, fork, exec, faults work after" {
	run_mem_roundtrip ckpt-mem
}

@test "dynamic program (ld.so, libc, vdso, rseq) makes the same round trip" {
	run_mem_roundtrip ckpt-mem-dyn
	# libc and ld.so are recorded as file mappings, not copied
	grep -q 'libc.so.6' "$T/img"
	grep -q 'ld-linux-x86-64.so.2' "$T/img"
	[ "$(stat -c %s "$T/img")" -lt $((4 << 20)) ]
}

@test "the checkpointed process continues unharmed" {
	start_bg "$T/out1" ckpt-mem-dyn "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	ckpt-save "$PID" "$T/img2" > /dev/null
	touch "$T/go"
	wait "$PID"
	grep -q '^all ok' "$T/out1"
}

@test "a nanosleep in progress completes normally, and resumes after restart" {
	start_bg "$T/out1" ckpt-wait sleep 2000
	sleep 0.5
	ckpt-save "$PID" "$T/img" > /dev/null
	wait "$PID"
	grep -Eq '^slept ret=0 errno=0 ms=(19[89][0-9]|[2-9][0-9]{3})$' "$T/out1"
	: > "$T/out1"
	restore_ok "$T/img" "$T/out2"
	tr -d '\0' < "$T/out1" | grep -Eq '^slept ret=0 errno=0 ms=(19[89][0-9]|[2-9][0-9]{3})$'
}

@test "a clock_nanosleep() on the process's CPU clock is refused at checkpoint, naming its restart; the sleep then ends as it would" {
	start_bg "$T/out" ckpt-cpusleep 1500
	sleep 0.3
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "thread $PID is in a system call that cannot be restarted (posix_cpu_nsleep_restart)"
	wait "$PID"
	[ "$(sed -n 2p "$T/out")" = "cpusleep ok" ]
}

@test "a read in progress completes normally, and is restarted after restart" {
	mkfifo "$T/fifo"
	exec 7<> "$T/fifo"
	start_bg "$T/out1" sh -c 'exec ckpt-wait read < "$1"' sh "$T/fifo"
	sleep 0.3
	ckpt-save "$PID" "$T/img" > /dev/null
	echo hello >&7
	wait "$PID"
	grep -Fxq 'read ret=6 errno=0 data=hello' "$T/out1"
	( sleep 0.5; echo again >&7 ) &
	: > "$T/out1"
	rstr 0 "$T/img" > "$T/out2" 2>&1 7<&- || true
	exec 7>&-
	tr -d '\0' < "$T/out1" | grep -Fq 'read ret=6 errno=0 data=again'
}

@test "image size: N MiB touched costs N MiB + 1% + a small constant; zero pages cost nothing" {
	start_bg "$T/out1" ckpt-fill 32 "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	size=$(stat -c %s "$T/img")
	echo "image $size bytes for 32 MiB touched (+96 MiB untouched or zero)"
	[ "$size" -ge $((32 << 20)) ]
	[ "$size" -le $(((32 << 20) + (32 << 20) / 100 + (256 << 10))) ]
	kill -9 "$PID"
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	grep -q '^fill ok' "$T/out1"
}

@test "bad arguments: unknown flags EINVAL, bad fd EBADF, no such pid ESRCH" {
	expect_rc 22 ckpt-call checkpoint 0 1 1 > /dev/null
	expect_rc 9 ckpt-call checkpoint 0 99 0
	expect_rc 9 ckpt-call checkpoint 0 0 0 < /dev/null
	expect_rc 3 ckpt-call checkpoint 999999 1 0 > /dev/null
	expect_rc 22 ckpt-call restart 0 0 2 < /dev/null
	expect_rc 9 ckpt-call restart 0 99 0
	# CKPT_RESTART_CRID needs a positive id to check
	expect_rc 22 ckpt-call restart 0 0 1 < /dev/null
	expect_rc 22 ckpt-call restart -1 0 1 < /dev/null
}

@test "a signal cutting the image stream is EINTR, never a restarted call: restart() from a pipe, checkpoint() into one" {
	ckpt-self > "$T/img" 2> /dev/null
	half=$(($(stat -c %s "$T/img") / 2))
	# restart() has read half the image when a SIGALRM with SA_RESTART comes
	run bash -c '{ head -c "$1" "$2"; sleep 2; tail -c "+$(($1 + 1))" "$2"; } |
		ckpt-call restart 0 0 0 500' _ "$half" "$T/img"
	echo "$output"
	[ "$status" -eq 4 ]
	# checkpoint() waits for room in a pipe nobody reads yet
	start_bg "$T/out" python3 -c 'import time; print("ready", flush=True); time.sleep(1000)'
	run bash -c 'ckpt-call checkpoint "$1" 1 0 500 | { sleep 2; cat > /dev/null; }
		echo "rc=${PIPESTATUS[0]}"' _ "$PID"
	echo "$output"
	[[ $output == *"checkpoint: Interrupted system call"*rc=4 ]]
	runs_on "$PID"
	# the whole image, read in time, restores
	restore_ok "$T/img" "$T/out2"
}

@test "unsupported state (SysV shm made read-only by mprotect) is refused with EOPNOTSUPP, target untouched" {
	start_bg "$T/out1" ckpt-hold sysvshm
	expect_rc 95 ckpt-save "$PID" "$T/img"
	expect_log "SysV shm [0-9]* at [0-9a-f]*: part of it, or protection changed"
	runs_on "$PID"
}

flip() { # FILE OFFSET: xor one byte with 0x5a
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0x5a)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

# refused IMAGE WHAT: restart fails with an errno, nothing of the image runs
# (a process that would run prints hello, or waits for a file that never
# comes and is stopped by the timeout)
refused() {
	local rc=0
	timeout 20 rstr < "$1" > "$T/bad.out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ] || grep -q hello "$T/bad.out"; then
		echo "image $1 ($2) was not refused: rc=$rc" >&2
		cat "$T/bad.out" >&2
		return 1
	fi
}

@test "bad images: empty, random, wrong version, truncated, flipped bytes are refused" {
	ckpt-self > "$T/img" 2> /dev/null
	size=$(stat -c %s "$T/img")
	: > "$T/bad"
	refused "$T/bad" empty
	head -c 100000 /dev/urandom > "$T/bad"
	refused "$T/bad" random
	cp "$T/img" "$T/bad"
	printf '\377' | dd of="$T/bad" bs=1 seek=16 conv=notrunc 2> /dev/null
	refused "$T/bad" version
	expect_log "image version 255"
	for off in 0 1 7 8 9 16 24 100 200 500 1000 $(seq 1500 $((size / 20)) $((size - 1))) $((size - 16)) $((size - 1)); do
		head -c "$off" "$T/img" > "$T/bad"
		refused "$T/bad" "truncated at $off"
	done
	for off in 0 5 8 12 16 20 24 28 40 60 100 $(seq 150 $((size / 20)) $((size - 1))) $((size - 9)) $((size - 1)); do
		cp "$T/img" "$T/bad"
		flip "$T/bad" "$off"
		refused "$T/bad" "byte $off flipped"
	done
	restore_ok "$T/img" "$T/out"
}

@test "bad images with POSIX timers, memfds, SysV segments, seccomp filters: flipped and truncated are refused" {
	local prog img size end off keyed
	for prog in ckpt-ptimers ckpt-memfd ckpt-sysv ckpt-seccomp; do
		img="$T/$prog.img"
		start_bg "$T/$prog.out" "$prog" "$T/never"
		cat "/proc/$PID/checkpoint" > "$img"
		kill -9 "$PID"
		wait "$PID" 2> /dev/null || true
		if [ "$prog" = ckpt-sysv ]; then
			read -r _ _ keyed _ < "$T/$prog.out"
			ckpt-sysv rm "$keyed"	# created again, then removed again
		fi
		size=$(stat -c %s "$img")
		end=$((size < 65536 ? size : 65536))
		for off in $(seq 0 $((end / 12)) $((end - 1))) $((size - 9)); do
			cp "$img" "$T/bad"
			flip "$T/bad" "$off"
			refused "$T/bad" "$prog, byte $off flipped"
		done
		for off in $(seq 64 $((size / 4)) $((size - 1))); do
			head -c "$off" "$img" > "$T/bad"
			refused "$T/bad" "$prog, truncated at $off"
		done
	done
	[ -z "$(awk 'NR > 1' /proc/sysvipc/shm)" ]
}

@test "permissions: a user checkpoints its own process, not another user's, and cannot restart" {
	start_bg "$T/out1" ckpt-wait sleep 100000
	expect_rc 1 as_nobody ckpt-save "$PID" - > /dev/null
	ckpt-self > "$T/img" 2> /dev/null
	chmod 644 "$T/img"
	chmod 755 "$T"
	expect_rc 1 as_nobody rstr < "$T/img"
	as_nobody sh -c 'ckpt-wait sleep 100000 > /dev/null & p=$!; sleep 0.2
		ckpt-save $p /tmp/own.$$ > /dev/null; r=$?; kill $p; rm -f /tmp/own.$$; exit $r'
}

@test "prctl modes: timer slack, syscall user dispatch (selector, region) and rdtsc trapping (PR_SET_TSC) come back and act (syscalls)" {
	check_roundtrip syscall "prctl ok" ckpt-prctl "$T/go"
}

@test "prctl modes: the same through /proc and /sys/kernel/ckpt/restart" {
	check_roundtrip sysfs "prctl ok" ckpt-prctl "$T/go"
}

@test "prctl modes: a syscall user dispatch region that wraps (a changed TASK record) is EINVAL before anything runs" {
	image_of prctl ckpt-prctl "$T/go"
	ckpt-mutate "$T/prctl.img" "$T/bad" dispatch
	expect_rc 22 rstr < "$T/bad"
	expect_log "task record: bad syscall user dispatch"
	[ "$(wc -l < "$T/prctl.out")" -eq 1 ]
}

@test "prctl modes: speculation control and CPUID faulting this machine cannot give (a changed TASK or CPU record) are EOPNOTSUPP before anything runs; a bad control is EINVAL" {
	image_of prctl ckpt-prctl "$T/go"
	# under TCG the CPU is not affected: no speculation control is prctl()'s
	grep -q "Not affected" /sys/devices/system/cpu/vulnerabilities/spec_store_bypass
	ckpt-mutate "$T/prctl.img" "$T/bad" specdisable
	expect_rc 95 rstr < "$T/bad"
	expect_log "speculation control 0 unsupported here"
	ckpt-mutate "$T/prctl.img" "$T/bad" spec77
	expect_rc 22 rstr < "$T/bad"
	expect_log "task record: speculation control 1: 0x77"
	run grep -qw cpuid_fault /proc/cpuinfo
	[ "$status" -eq 1 ]
	ckpt-mutate "$T/prctl.img" "$T/bad" nocpuid
	expect_rc 95 rstr < "$T/bad"
	expect_log "CPUID faulting unsupported here"
	[ "$(wc -l < "$T/prctl.out")" -eq 1 ]
}
