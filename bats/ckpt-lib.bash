# Helpers shared by the checkpoint/restart bats files (on top of helpers.bash).
load helpers

# A fresh directory per test; processes started with start_bg die with it.
ckpt_setup() {
	T=$(mktemp -d /tmp/ckpt.XXXXXX)
	BG_PIDS=""
	dmesg -c > /dev/null
}

ckpt_teardown() {
	local p
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$T"
	# ckpt_err() is rate-limited (10 lines in 5 s): after a test that
	# logged more, let the window pass, or the next test's line is lost
	if [ "$(dmesg | grep -c ckpt)" -ge 10 ]; then sleep "$(ratelimit_left)"; fi
}

# ratelimit_left: seconds until the rate-limit window of the last ckpt line
# is over. A window opens with a line that is printed, so the one open now
# opened at the last ckpt line printed or before it: 5 s after that line
# (and a little for the two clocks: printk's and uptime's) it is over.
ratelimit_left() {
	local last now
	last=$(dmesg | grep ckpt | tail -n 1 | sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p')
	now=$(cut -d' ' -f1 /proc/uptime)
	awk -v l="${last:-0}" -v n="$now" 'BEGIN { w = l + 5.3 - n; printf "%.2f\n", (w > 0 ? w : 0) }'
}

# cgroup2_root: print where the cgroup v2 hierarchy is, mounted if it was not
cgroup2_root() {
	grep -q "^[^ ]* /sys/fs/cgroup cgroup2 " /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup
	echo /sys/fs/cgroup
}

# start_bg OUTFILE COMMAND...: run COMMAND in the background, wait until it
# printed its "ready" line; sets PID.
start_bg() {
	local out=$1 i
	shift
	# fds 3 and 4 are bats' output pipe and log: not for background processes
	"$@" > "$out" 2>&1 3>&- 4>&- &
	PID=$!
	BG_PIDS="$BG_PIDS $PID"
	for i in $(seq 1 1000); do
		grep -q '^ready' "$out" 2>/dev/null && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.02
	done
	echo "$* did not get ready:" >&2
	cat "$out" >&2
	return 1
}

# expect_rc RC COMMAND...: COMMAND must exit with RC.
expect_rc() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "'$*' exited $rc, expected $want" >&2
		return 1
	fi
}

# The kernel log since ckpt_setup must contain this text.
expect_log() {
	if ! dmesg | grep -q -- "$1"; then
		echo "kernel log lacks '$1':" >&2
		dmesg | tail -n 5 >&2
		return 1
	fi
}

# restore_ok IMAGE OUT: restart IMAGE with rstr, output to OUT, exit 0.
restore_ok() {
	local rc=0
	rstr < "$1" > "$2" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "restart of $1 exited $rc:" >&2
		cat "$2" >&2
		return 1
	fi
}

# wait_for FILE REGEX: until a line of FILE matches REGEX (10 s), or fail
wait_for() {
	local i
	for i in $(seq 1 500); do
		grep -q "$2" "$1" 2> /dev/null && return 0
		sleep 0.02
	done
	echo "$1 lacks '$2':" >&2
	cat "$1" >&2
	return 1
}

# log_reason WHO: the text of the last kernel log line "ckpt: WHO: TEXT
# (-ERRNO)", WHO a basic regex such as 'rstr\[[0-9]*\]'
log_reason() {
	dmesg | sed -n "s/.*ckpt: $1: \(.*\) (-[0-9]*)\$/\1/p" | tail -n 1
}

# runs_on PID: the process runs on, not held or stopped: it is (back) in its
# interruptible sleep (a process polling a file may be running when first
# looked at)
runs_on() {
	wait_for "/proc/$1/status" "State:.*S (sleeping)"
}

# wait_gone PID: until the process is reaped
wait_gone() {
	local i
	for i in $(seq 1 500); do
		[ -d "/proc/$1" ] || return 0
		sleep 0.02
	done
	echo "process $1 still there" >&2
	return 1
}

# image_of NAME COMMAND...: $T/NAME.img of COMMAND, killed after
image_of() {
	local name=$1
	shift
	start_bg "$T/$name.out" "$@"
	cat "/proc/$PID/checkpoint" > "$T/$name.img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
}

# sysfs_cycle: checkpoint $PID through /proc into $T/img, kill it, and
# restart the image through /sys/kernel/ckpt/restart: $PID again
sysfs_cycle() {
	cat "/proc/$PID/checkpoint" > "$T/img"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
}

# wait_status PID REGEX: until a line of /proc/PID/status matches REGEX, or fail
wait_status() {
	wait_for "/proc/$1/status" "$2"
}

# stopped_state PID: until PID is in a stop (State T), or fail
stopped_state() {
	wait_status "$1" "^State:.*T (stopped)"
}

# roundtrip HOW GOFILE: checkpoint the running $PID, kill it, restore it,
# create GOFILE and wait until the restored process exits (status in RC).
#   syscall: checkpoint() and restart() (rstr becomes the process)
#   proc:    cat /proc/PID/checkpoint, then restart()
#   sysfs:   cat /proc/PID/checkpoint, then echo IMAGE > /sys/kernel/ckpt/restart
#   sendfile: sendfile() of /proc/PID/checkpoint into a file (fails rather
#            than reading), then restart()
#   pipe:    cat /proc/PID/checkpoint | cat (a splice into a pipe), restart()
# AFTER_KILL, if set, is a command run once the process is gone.
roundtrip() {
	local how=$1 go=$2
	case $how in
	syscall) ckpt-save "$PID" "$T/img" > /dev/null ;;
	proc | sysfs) cat "/proc/$PID/checkpoint" > "$T/img" ;;
	sendfile) ckpt-sendfile "/proc/$PID/checkpoint" "$T/img" ;;
	pipe) cat "/proc/$PID/checkpoint" | cat > "$T/img" ;;
	*) echo "roundtrip: unknown way $how" >&2; return 2 ;;
	esac
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	if [ -n "${AFTER_KILL:-}" ]; then $AFTER_KILL; fi
	restore_image "$how" "$go"
}

# restore_image HOW GOFILE: restart $T/img (sysfs: as $PID through
# /sys/kernel/ckpt/restart; otherwise with rstr), create GOFILE and wait
# until the restored process exits (rstr's status in RC)
restore_image() {
	local r
	RC=0
	if [ "$1" = sysfs ]; then
		echo "$T/img" > /sys/kernel/ckpt/restart
		BG_PIDS="$BG_PIDS $PID"
		touch "$2"
		wait_gone "$PID"
		return
	fi
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	touch "$2"
	wait "$r" || RC=$?
	cat "$T/rstr.out"
}

# check_roundtrip HOW OKLINE COMMAND... GOFILE: start COMMAND (output in
# $T/out), take it through roundtrip HOW, and check that the restored
# process exited 0 after printing OKLINE on its own stdout, after "ready".
check_roundtrip() {
	local how=$1 ok=$2
	shift 2
	start_bg "$T/out" "$@"
	roundtrip "$how" "${!#}"
	cat "$T/out"
	[ "$RC" -eq 0 ]
	[ "$(sed -n 2p "$T/out")" = "$ok" ]
}

# remove_sysv_segments: remove every SysV segment (ckpt-sysv's outlive the
# processes of a test, and its key must be free for the next one)
remove_sysv_segments() {
	local id
	while read -r id; do
		ckpt-sysv rm "$id" 2> /dev/null || true
	done < <(awk 'NR > 1 { print $2 }' /proc/sysvipc/shm 2> /dev/null)
}
