#!/usr/bin/env bats
# cat /proc/<pid>/checkpoint > img and echo img > /sys/kernel/ckpt/restart

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

# user_procs: how many user processes there are (kernel threads have no exe)
user_procs() {
	local d n=0
	for d in /proc/[0-9]*; do
		[ -e "$d/exe" ] && n=$((n + 1))
	done
	echo "$n"
}

last_count() { tail -n 1 "$1" | cut -d' ' -f2; }

@test "/proc/<pid>/checkpoint is mode 0400 and /sys/kernel/ckpt/restart 0200" {
	start_bg "$T/out" ckpt-wait sleep 100000
	[ "$(stat -c %a "/proc/$PID/checkpoint")" = 400 ]
	[ "$(stat -c %a /sys/kernel/ckpt/restart)" = 200 ]
}

@test "sendfile() into a file and splice() into a pipe stream whole images: every byte and register back" {
	local how
	for how in sendfile pipe; do
		start_bg "$T/out" ckpt-mem "$T/go-$how"
		roundtrip "$how" "$T/go-$how"
		cat "$T/out"
		[ "$RC" -eq 0 ]
		sed -n 2p "$T/out" | grep -q "^all ok pid="
	done
}

@test "cat a running process's checkpoint, kill it, echo the image back: same pid, counting on" {
	start_bg "$T/out" ckpt-count "$T/count" 100
	sleep 1
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	n=$(last_count "$T/count")
	echo "$T/img" > /sys/kernel/ckpt/restart
	[ -d "/proc/$PID" ]
	BG_PIDS="$BG_PIDS $PID"
	sleep 1
	m=$(last_count "$T/count")
	echo "count $n before, $m after restore"
	[ "$m" -gt "$n" ]
	grep -q "count $((n + 1)) pid $PID" "$T/count"
	# adopted by init, in a session of its own, with its own descriptors
	[ "$(awk '/^PPid:/ {print $2}' "/proc/$PID/status")" = 1 ]
	set -- $(cut -d')' -f2 "/proc/$PID/stat")
	[ "$3" = "$PID" ] && [ "$4" = "$PID" ]
	[ "$(readlink "/proc/$PID/fd/1")" = "$T/out" ]
	[ "$(readlink "/proc/$PID/fd/2")" = "$T/out" ]
	[ "$(readlink "/proc/$PID/fd/0")" = /dev/null ]
	# nothing else but the count file, open while a line is written
	fd3=$(readlink "/proc/$PID/fd/3" || true)
	[ -z "$fd3" ] || [ "$fd3" = "$T/count" ]
	[ ! -e "/proc/$PID/fd/4" ]
	[ "$(cat "/proc/$PID/comm")" = ckpt-count ]
}

@test "the same image restores again after the restored process exited" {
	start_bg "$T/out" ckpt-count "$T/count" 100
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	for round in 1 2; do
		echo "$T/img" > /sys/kernel/ckpt/restart
		[ -d "/proc/$PID" ]
		kill -9 "$PID"
		wait_gone "$PID"
	done
}

@test "a restored pid that is taken is EBUSY; nothing is left behind" {
	start_bg "$T/out" ckpt-wait sleep 100000
	cat "/proc/$PID/checkpoint" > "$T/img"
	before=$(user_procs)
	run sh -c "echo $T/img > /sys/kernel/ckpt/restart"
	[ "$status" -ne 0 ]
	[[ "$output" == *"resource busy"* ]]
	expect_log "as pid $PID"
	[ "$(user_procs)" -le "$before" ]
}

@test "sysfs restart errors: missing file ENOENT, bad image EINVAL, unprivileged refused" {
	run sh -c "echo $T/missing > /sys/kernel/ckpt/restart"
	[ "$status" -ne 0 ] && [[ "$output" == *"No such file"* ]]
	expect_log "cannot open image $T/missing"
	head -c 5000 /dev/urandom > "$T/bad"
	run sh -c "echo $T/bad > /sys/kernel/ckpt/restart"
	[ "$status" -ne 0 ] && [[ "$output" == *"Invalid argument"* ]]
	ckpt-self > "$T/img" 2> /dev/null
	chmod 755 "$T"; chmod 644 "$T/img"
	run as_nobody sh -c "echo $T/img > /sys/kernel/ckpt/restart"
	[ "$status" -ne 0 ]
	[[ "$output" == *"denied"* || "$output" == *"not permitted"* ]]
}

@test "the /proc image is the syscall's format; dd bs=1 reads a restorable image" {
	start_bg "$T/out1" ckpt-mem "$T/go"
	dd if="/proc/$PID/checkpoint" of="$T/img" bs=4093 2> /dev/null
	kill -9 "$PID"
	touch "$T/go"
	restore_ok "$T/img" "$T/out2"
	grep -q '^all ok' "$T/out1"
	start_bg "$T/out3" ckpt-wait sleep 100000
	dd if="/proc/$PID/checkpoint" of="$T/img1" bs=1 2> /dev/null
	kill -9 "$PID"
	wait "$PID" || true
	echo "$T/img1" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	[ "$(cat "/proc/$PID/comm")" = ckpt-wait ]
	[ "$(cut -d')' -f2 "/proc/$PID/stat" | cut -d' ' -f2)" = S ]
}

@test "a stopped process stays stopped, and comes back stopped; continued, a sleeping one completes its sleep" {
	local r
	start_bg "$T/out1" ckpt-wait sleep 1500
	kill -STOP "$PID"
	cat "/proc/$PID/checkpoint" > "$T/img"
	[ "$(cut -d')' -f2 "/proc/$PID/stat" | cut -d' ' -f2)" = T ]
	kill -CONT "$PID"
	wait "$PID"
	grep -q '^slept ret=0 errno=0' "$T/out1"
	: > "$T/out1"
	rstr < "$T/img" > "$T/out2" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	stopped_state "$r"
	kill -CONT "$r"
	wait "$r"
	tr -d '\0' < "$T/out1" | grep -q '^slept ret=0 errno=0'
}

@test "/proc/self/checkpoint fails with EDEADLK" {
	run cat /proc/self/checkpoint
	[ "$status" -ne 0 ]
	[[ "$output" == *"deadlock"* ]]
}

@test "unprivileged: own process readable, another user's not" {
	start_bg "$T/out" ckpt-wait sleep 100000
	run as_nobody cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ] && [[ "$output" == *"denied"* ]]
	as_nobody sh -c 'ckpt-wait sleep 100000 > /dev/null & p=$!; sleep 0.3
		cat /proc/$p/checkpoint | wc -c > /tmp/own.size; kill $p'
	[ "$(cat /tmp/own.size)" -gt 4096 ]
	rm -f /tmp/own.size
}

@test "reader closing early or killed: the process runs on" {
	start_bg "$T/out1" ckpt-mem "$T/go"
	head -c 1000 "/proc/$PID/checkpoint" > /dev/null
	cat "/proc/$PID/checkpoint" > "$T/fifo-less" &
	reader=$!
	sleep 0.2
	kill -9 "$reader" || true
	wait "$reader" || true
	touch "$T/go"
	wait "$PID"
	grep -q '^all ok' "$T/out1"
}

@test "the process exiting during the read: the image is still whole and restores" {
	start_bg "$T/out1" ckpt-fill 16 "$T/go"
	exec 8< "/proc/$PID/checkpoint"
	head -c 4096 <&8 > "$T/img"
	kill -9 "$PID"
	wait "$PID" || true
	cat <&8 >> "$T/img"
	exec 8<&-
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	touch "$T/go"
	wait_gone "$PID"
	grep -q '^fill ok' "$T/out1"
	: > "$T/out1"
	rm "$T/go"
	rstr < "$T/img" > "$T/out2" 2>&1 &
	touch "$T/go"
	wait $! || { cat "$T/out2"; false; }
	tr -d '\0' < "$T/out1" | grep -q '^fill ok'
}

# cow_stream [huge]: ckpt-cow stamps 16 MiB pass after pass while its
# image is streamed through a reader that waits; killed and restored, it
# finds every page as the previous pass left it
cow_stream() {
	local kb
	start_bg "$T/out" ckpt-cow 16 "$T/passes" "$@"
	sleep 0.5
	if [ "${1:-}" = huge ]; then
		kb=$(sed -n 's/^AnonHugePages: *\([0-9]*\) kB/\1/p' "/proc/$PID/smaps_rollup")
		echo "AnonHugePages: $kb kB"
		[ "$kb" -ge 8192 ]
	fi
	# the 1 MiB pipe fills at once; the process must keep stamping pages
	cat "/proc/$PID/checkpoint" | {
		sleep 0.5
		a=$(grep -c pass "$T/passes")
		sleep 1
		b=$(grep -c pass "$T/passes")
		echo "$a $b" > "$T/during"
		cat > "$T/img"
	}
	read -r a b < "$T/during"
	echo "passes while the reader waited: $a, then $b"
	[ "$b" -gt "$a" ]
	kill -9 "$PID"
	wait "$PID" || true
	n=$(grep -c pass "$T/passes")
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	sleep 1.5
	kill -9 "$PID"
	! grep FAIL "$T/passes" || false
	m=$(grep -c pass "$T/passes")
	echo "$n passes before the restore, $m in all"
	[ "$m" -gt "$n" ]
}

@test "the process runs on while its pages are streamed, and they are one moment's" {
	cow_stream
}

@test "the same in transparent huge pages: each is held still where it is, and a write after the process runs on splits and copies it" {
	grep -q '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled
	cow_stream huge
}
