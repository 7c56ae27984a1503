#!/usr/bin/env bats
# Multi-threaded processes: every thread held, saved and brought back with
# its own id and state, in both restart paths.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

# tids_of FILE: the thread ids ckpt-threads printed, main first, sorted
tids_of() {
	{ sed -n 's/^ready //p' "$1"; sed -n 's/^tid [0-9]* //p' "$1"; } | sort -n
}

# task_tids PID: the threads PID has now, sorted
task_tids() {
	ls "/proc/$1/task" | sort -n
}

# threads_done OUT: the restored ckpt-threads finished and said so
threads_done() {
	cat "$1"
	[ "$(tail -n 1 "$1")" = "threads ok" ]
}

# restore_threads IMG NTASKS: with $T/out as it was at checkpoint
# ($T/out.orig), restore IMG through /sys/kernel/ckpt/restart, check that
# it has NTASKS threads, let it finish ($T/go) and check that it did
restore_threads() {
	cp "$T/out.orig" "$T/out"
	echo "$1" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	[ "$(ls "/proc/$PID/task" | wc -l)" -eq "$2" ]
	touch "$T/go"
	wait_gone "$PID"
	threads_done "$T/out"
	rm "$T/go"
}

@test "threads: 16 threads come back with their ids, names and state (/proc and /sys/kernel/ckpt/restart)" {
	start_bg "$T/out" ckpt-threads 16 "$T/go"
	[ "$(ls "/proc/$PID/task" | wc -l)" -eq 17 ]
	tids_of "$T/out" > "$T/tids"
	sysfs_cycle
	task_tids "$PID" > "$T/now"
	diff "$T/tids" "$T/now"
	[ "$(cat "/proc/$PID/task/$(sed -n 's/^tid 3 //p' "$T/out")/comm")" = w3 ]
	# getppid() of every thread: init adopted them all
	for t in $(cat "$T/now"); do
		grep -q "^PPid:	1$" "/proc/$PID/task/$t/status"
	done
	touch "$T/go"
	wait_gone "$PID"
	threads_done "$T/out"
}

# switches PID TID: the voluntary and involuntary context switches of TID
switches() {
	sed -n 's/^\(nonvoluntary\|voluntary\)_ctxt_switches:\t*//p' "/proc/$1/task/$2/status" | paste -sd' '
}

@test "threads: a thread asleep in a condition variable wait is held where it sleeps, never woken; one in nanosleep() is woken, and both come back" {
	start_bg "$T/out" ckpt-threads 16 "$T/go"
	cond=$(sed -n 's/^tid 14 //p' "$T/out")
	nap=$(sed -n 's/^tid 1 //p' "$T/out")
	# asleep in futex() (202) and clock_nanosleep() (230)
	wait_for "/proc/$PID/task/$cond/syscall" '^202 '
	wait_for "/proc/$PID/task/$nap/syscall" '^230 '
	c0=$(switches "$PID" "$cond")
	n0=$(switches "$PID" "$nap")
	cat "/proc/$PID/checkpoint" > "$T/img"
	c1=$(switches "$PID" "$cond")
	n1=$(switches "$PID" "$nap")
	echo "condition variable waiter $cond: $c0 -> $c1; nanosleep() $nap: $n0 -> $n1"
	[ "$c1" = "$c0" ]
	[ "$n1" != "$n0" ]
	grep -q '^202 ' "/proc/$PID/task/$cond/syscall"
	cp "$T/out" "$T/out.orig"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	restore_threads "$T/img" 17
}

@test "threads: a process the cgroup v2 freezer froze in its waits is checkpointed frozen and stays so; thawed it finishes, and so does its image" {
	cg=$(cgroup2_root)/ckpt-frozen
	mkdir -p "$cg"
	# frozen, epoll_pwait() and rt_sigtimedwait() return EINTR as stopped
	start_bg "$T/out" ckpt-threads 16 "$T/go" stopped
	echo "$PID" > "$cg/cgroup.procs"
	echo 1 > "$cg/cgroup.freeze"
	wait_for "$cg/cgroup.events" '^frozen 1'
	cat "/proc/$PID/checkpoint" > "$T/img"
	grep -q '^frozen 1' "$cg/cgroup.events"
	cp "$T/out" "$T/out.orig"
	echo 0 > "$cg/cgroup.freeze"
	touch "$T/go"
	wait_gone "$PID"
	rmdir "$cg"
	threads_done "$T/out"
	rm "$T/go"
	restore_threads "$T/img" 17
}

@test "threads: a dynamically linked 16-thread process comes back through checkpoint() and restart()" {
	start_bg "$T/out" ckpt-threads-dyn 16 "$T/go"
	roundtrip syscall "$T/go"
	[ "$RC" -eq 0 ]
	threads_done "$T/out"
}

@test "threads: the restored process has every saved thread, the main one with restart()'s caller's id" {
	start_bg "$T/out" ckpt-threads 14 "$T/go"
	tids_of "$T/out" | grep -vx "$PID" > "$T/tids"
	ckpt-save "$PID" "$T/img" > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	for i in $(seq 1 250); do
		[ "$(ls "/proc/$r/task" 2> /dev/null | wc -l)" -eq 15 ] && break
		sleep 0.02
	done
	task_tids "$r" | grep -vx "$r" > "$T/now"
	diff "$T/tids" "$T/now"
	touch "$T/go"
	wait "$r"
	threads_done "$T/out"
}

@test "threads: restart() from a multi-threaded caller, from its main thread or another, first ends the caller's threads as execve() does" {
	for from in main thread; do
		start_bg "$T/out" ckpt-threads 14 "$T/go"
		tids_of "$T/out" | grep -vx "$PID" > "$T/tids"
		ckpt-save "$PID" "$T/img" > /dev/null
		kill -9 "$PID"
		wait "$PID" 2> /dev/null || true
		rstr-threads 5 "$from" < "$T/img" > "$T/rstr.out" 2>&1 &
		r=$!
		BG_PIDS="$BG_PIDS $r"
		for i in $(seq 1 250); do
			task_tids "$r" 2> /dev/null | grep -vx "$r" > "$T/now" || true
			cmp -s "$T/tids" "$T/now" && break
			sleep 0.02
		done
		cat "$T/rstr.out"
		[ "$(sed -n 's/^caller //p' "$T/rstr.out")" -eq "$r" ]
		[ "$(grep -c '^tid ' "$T/rstr.out")" -eq 5 ]
		# the image's threads, none of the caller's, the main one with its pid
		diff "$T/tids" "$T/now"
		touch "$T/go"
		wait "$r"
		threads_done "$T/out"
		rm "$T/go"
	done
}

@test "threads: 64 threads, checkpointed twice while running, come back from each image" {
	start_bg "$T/out" ckpt-threads 64 "$T/go"
	cat "/proc/$PID/checkpoint" > "$T/img1"
	sleep 0.2
	cat "/proc/$PID/checkpoint" > "$T/img2"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	cp "$T/out" "$T/out.orig"
	for img in img1 img2; do
		restore_threads "$T/$img" 65
	done
}

@test "threads: a stopped multi-threaded process comes back stopped, every thread, and runs on at SIGCONT" {
	start_bg "$T/out" ckpt-threads 14 "$T/go" stopped
	kill -STOP "$PID"
	stopped_state "$PID"
	sysfs_cycle
	stopped_state "$PID"
	for t in $(task_tids "$PID"); do
		wait_status "$PID/task/$t" "^State:.*T (stopped)"
	done
	touch "$T/go"
	kill -CONT "$PID"
	wait_gone "$PID"
	threads_done "$T/out"
}

@test "threads: a thread in a ptrace stop is held as it is; the process runs on once its tracer detaches, and the image comes back" {
	start_bg "$T/out" ckpt-threads 14 "$T/go"
	tid=$(sed -n 's/^tid 2 //p' "$T/out")
	target=$PID
	start_bg "$T/tracer" ptrace-stop "$tid" "$T/detach"
	tracer=$PID
	PID=$target
	wait_status "$PID/task/$tid" "^State:.*t (tracing stop)"
	cat "/proc/$PID/checkpoint" > "$T/img"
	cp "$T/out" "$T/out.orig"
	# still in its trace stop, the tracer's to let go
	wait_status "$PID/task/$tid" "^State:.*t (tracing stop)"
	touch "$T/detach"
	wait "$tracer"
	grep -q detached "$T/tracer"
	touch "$T/go"
	wait "$PID"
	threads_done "$T/out"
	rm "$T/go"
	restore_threads "$T/img" 15
}

@test "threads: a thread id in use is EBUSY, logged, and the restorer runs on with no thread made" {
	start_bg "$T/out" ckpt-threads 14 "$T/go"
	ckpt-save "$PID" "$T/img" > /dev/null
	# the process still runs: its thread ids are taken
	run rstr < "$T/img"
	[ "$status" -eq 16 ]
	expect_log "cannot take thread id"
	[ "$(ls "/proc/$PID/task" | wc -l)" -eq 15 ]
	touch "$T/go"
	wait "$PID"
	threads_done "$T/out"
}

@test "threads: a thread the restorer's RLIMIT_NPROC does not allow is EAGAIN before the point of no return: the restorer runs on, no thread is left" {
	chmod 755 "$T"
	cd "$T"
	start_bg "$T/out" capsrun 65534 65534 - ckpt-threads 14 "$T/go"
	chmod 666 "$T/out"
	cp "$T/out" "$T/out.orig"
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	chmod 644 "$T/img"
	# nobody may have two tasks: the restorer and the first of 14 threads
	run sh -c "ulimit -Su 2 && capsrun 65534 65534 40 rstr < $T/img; echo \"rc \$?\""
	echo "$output"
	[ "$(tail -n 1 <<< "$output")" = "rc 11" ]
	expect_log "cannot create thread"
	[ -z "$(pidof ckpt-threads)" ]
	[ -z "$(pidof rstr)" ]
	# the ids the failed restart reserved and used are free again
	restore_threads "$T/img" 15
}

# bw_cmd PID COMMAND: the reply of bench-work PID (its directory $T/w)
bw_cmd() {
	local i
	rm -f "$T/w/out-$1"
	echo "$2" > "$T/w/cmd-$1.tmp" && mv "$T/w/cmd-$1.tmp" "$T/w/cmd-$1"
	for i in $(seq 1 500); do
		[ -f "$T/w/out-$1" ] && { cat "$T/w/out-$1"; return 0; }
		sleep 0.02
	done
	echo "bench-work $1 does not answer $2" >&2
	return 1
}

@test "threads: a reader that does not read keeps the checkpoint waiting, not the process: the records of 64 threads are kept in memory while it is held" {
	local i gap
	mkdir "$T/w"
	bench-work 1 "$T/w" 64 < /dev/null > "$T/work.log" 2>&1 3>&- 4>&- &
	BG_PIDS="$BG_PIDS $!"
	for i in $(seq 1 1000); do
		[ -s "$T/w/ready" ] && break
		sleep 0.02
	done
	PID=$(cat "$T/w/ready")
	[ "$(bw_cmd "$PID" reset)" = reset ]
	# the reader holds the FIFO open (64 KiB) for 3 s before it reads
	mkfifo "$T/fifo"
	( exec 7< "$T/fifo"; sleep 3; cat <&7 > "$T/img" ) 3>&- 4>&- &
	r=$!
	ckpt-save "$PID" "$T/fifo" > /dev/null 3>&- 4>&- &
	w=$!
	sleep 1.5
	kill -0 "$w"	# still waiting for the reader
	[[ "$(bw_cmd "$PID" report)" == "gap "* ]]	# while the process answers
	wait "$w"
	wait "$r"
	gap=$(bw_cmd "$PID" report | cut -d' ' -f2)
	echo "largest gap $gap ns"
	[ "$gap" -lt 1000000000 ]
	# and the image is whole
	kill -9 "$PID"
	wait "$PID" || true
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	[ "$(ls "/proc/$PID/task" | wc -l)" -eq 64 ]
	[ "$(bw_cmd "$PID" verify)" = ok ]
}

@test "threads: Debian's python3 running four threading workers, checkpointed mid-run, killed and restored, prints what a plain run prints" {
	python3 /tests/threads-work.py 2000 > "$T/plain"
	start_bg "$T/out" python3 /tests/threads-work.py 2000
	sleep 1
	[ "$(ls "/proc/$PID/task" | wc -l)" -eq 5 ]
	! grep -q "python threads ok" "$T/out" || false
	sysfs_cycle
	wait_gone "$PID"
	diff <(sed 1d "$T/plain") <(sed 1d "$T/out")
}

@test "threads: bad THREAD records, and bad futex, poll, epoll and sigtimedwait restarts, are EINVAL, logged, and leave no thread behind" {
	image_of t ckpt-threads 14 "$T/go"
	tids_of "$T/t.out" > "$T/tids"
	for m in threadtid:"thread record: id" threaddup:"saved twice" \
		threadpending:"malformed thread record" threadsched:"bad scheduling record" \
		threadaltstack:"malformed thread record" \
		threadseccomp:"seccomp: mode 0, filter 1 of 0, no_new_privs 0" \
		threadnnp:"seccomp: mode 0, filter 0 of 0, no_new_privs 2" \
		futexclock:"bad syscall restart" futexaddr:"bad syscall restart" \
		waitpollmask:"bad syscall restart" waitepollmax:"bad syscall restart" \
		waitclock:"bad syscall restart" waitflags:"bad syscall restart"; do
		# the log line is rate-limited: 10 in 5 s
		n=$((${n:-0} + 1))
		if [ "$n" -eq 10 ]; then sleep 5.5; fi
		dmesg -c > /dev/null
		ckpt-mutate "$T/t.img" "$T/bad" "${m%%:*}"
		run rstr < "$T/bad"
		echo "${m%%:*}: $status $output"
		[ "$status" -eq 22 ]
		expect_log "${m#*:}"
		for t in $(cat "$T/tids"); do [ ! -d "/proc/$t" ]; done
	done
}
