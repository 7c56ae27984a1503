#!/usr/bin/env bats
# The 2008 RFC's demo, with its two programs as it printed them
# (bats/progs/seed/README). Named to run first in the guest's boot: the
# RFC shows checkpoint ids 1 and 2, those of the first checkpoints since boot.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

# wait_line FILE N: wait until FILE has N lines
wait_line() {
	local i
	for i in $(seq 1 500); do
		[ "$(wc -l < "$1")" -ge "$2" ] && return 0
		sleep 0.02
	done
	echo "$1 never got $2 lines:" >&2
	cat "$1" >&2
	return 1
}

# spin_bg COMMAND...: start COMMAND (stdin kept, stderr appended to $T/tty), set PID
spin_bg() {
	"$@" <&0 2>> "$T/tty" 3>&- 4>&- &
	PID=$!
	BG_PIDS="$BG_PIDS $PID"
}

@test "seed demo as the RFC shows it: ./ckpt > out.1 (ret=1), ./ckpt > out.2 (ret=2), ./rstr < out.1 (ret=0), ps shows ckpt" {
	cp /opt/seed/ckpt /opt/seed/rstr "$T/"
	cd "$T"
	: > tty
	# the RFC's terminal is a file here, appended to as a terminal is;
	# kill -9 is its ctrl-c (a background job of a script ignores SIGINT)
	spin_bg ./ckpt > out.1
	wait_line tty 1
	kill -9 "$PID"
	spin_bg ./ckpt > out.2
	wait_line tty 2
	kill -9 "$PID"
	spin_bg ./rstr < out.1
	wait_line tty 3
	printf 'hello, world!  (ret=%s)\n' 1 2 0 | diff - tty
	# the rstr process is now the ckpt that was saved, still spinning
	[ "$(cat /proc/$PID/comm)" = ckpt ]
	ps -o pid,comm | grep -Eq "^ *$PID ckpt$"
	[ -z "$(ps -o comm | grep -x rstr)" ]
	grep -q 'R (running)' /proc/$PID/status
	[ "$(grep -c 'should not reach here' tty)" -eq 0 ]
}
