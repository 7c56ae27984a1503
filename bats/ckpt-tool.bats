#!/usr/bin/env bats
# tools/ckpt of the series, as /usr/sbin/ckpt: info, validate, checkpoint,
# restart, help.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

TOOL=/usr/sbin/ckpt

# errno numbers the kernel refuses images with, by the name ckpt prints
errname() {
	case $1 in
	1) echo EPERM ;; 3) echo ESRCH ;; 13) echo EACCES ;; 16) echo EBUSY ;;
	22) echo EINVAL ;; 95) echo EOPNOTSUPP ;; 116) echo ESTALE ;; *) echo "E$1" ;;
	esac
}

@test "tool: checkpoint -o, info and validate of a running event loop, restart --sysfs brings it back" {
	start_bg "$T/out" ckpt-events "$T/go"
	crid=$($TOOL checkpoint "$PID" -o "$T/img" 2> "$T/err")
	[ "$crid" -gt 0 ] && [ ! -s "$T/err" ]
	run $TOOL validate "$T/img"
	[ "$status" -eq 0 ] && [ "$output" = "$T/img: ok" ]
	$TOOL info "$T/img" > "$T/info"
	cat "$T/info"
	grep -q "^checkpoint: id $crid, " "$T/info"
	grep -q "^process:    pid $PID, comm \"ckpt-events\", " "$T/info"
	grep -q "^exe:        /opt/ckpt/bin/ckpt-events$" "$T/info"
	grep -Eq "^  3 +[0-9]+ +eventfd +rw .*O_NONBLOCK count 5$" "$T/info"
	grep -Eq "^  6 +[0-9]+ +pipe +r .*1 bytes buffered of 65536$" "$T/info"
	grep -Eq "^  8 +[0-9]+ +epoll .* 4 items$" "$T/info"
	grep -Eq "^  pending: +SIGUSR1 " "$T/info"
	grep -Eq "^ +1 HEAD +1 +[0-9]+$" "$T/info"
	kill -9 "$PID"
	wait_gone "$PID"
	[ "$($TOOL restart --sysfs "$T/img")" = "$PID" ]
	touch "$T/go"
	wait_for "$T/out" "events ok"
}

@test "tool: restart in place of the tool, --crid checked; checkpoint errors name the errno and the kernel's line" {
	start_bg "$T/out" ckpt-wait sleep 3000
	$TOOL checkpoint "$PID" > "$T/img"
	crid=$(od -An -td4 -j 28 -N 4 "$T/img" | tr -d ' ')
	kill -9 "$PID"
	run $TOOL restart --crid $((crid + 1)) "$T/img"
	[ "$status" -eq 1 ]
	[[ $output == *ESRCH* ]]
	[[ $output == *"ckpt: kernel: "*"image has checkpoint id $crid, not $((crid + 1))"* ]]
	$TOOL restart --crid "$crid" "$T/img" > "$T/out2" 2>&1 3>&- 4>&- &
	BG_PIDS="$BG_PIDS $!"
	wait_for "$T/out" "slept ret=0"
	run $TOOL checkpoint 999999 -o "$T/none"
	[ "$status" -eq 1 ] && [[ $output == *"checkpoint 999999: ESRCH"* ]]
	start_bg "$T/out3" ckpt-hold devtty
	run $TOOL checkpoint "$PID" -o "$T/tty.img"
	[ "$status" -eq 1 ] && [[ $output == *EOPNOTSUPP* ]]
	[[ $output == *"ckpt: kernel: "*"/dev/tty"* ]]
}

@test "tool: checkpoint on a terminal shows a progress line (MiB written, rate, share of resident memory), nothing when not one" {
	local size last mib pct
	start_bg "$T/out" ckpt-fill 64 "$T/go"
	ckpt-pty "$T/tty" $TOOL checkpoint "$PID" -o "$T/img"
	size=$(stat -c %s "$T/img")
	# each line redrawn after a CR and ended by erase-to-end-of-line, the
	# last one ended by a newline; then the checkpoint id on stdout
	tr '\r\033' '\n\n' < "$T/tty" | grep -v '^\[K$' | grep -v '^$' > "$T/lines"
	cat -A "$T/tty" | head -c 600
	cat "$T/lines"
	grep -Exq "[0-9]+" <(tail -n 1 "$T/lines")
	sed '$d' "$T/lines" > "$T/progress"
	[ "$(wc -l < "$T/progress")" -ge 2 ]
	run grep -Evx "ckpt: $PID: [0-9]+\.[0-9] MiB written, [0-9]+\.[0-9] MiB/s, [0-9]+% of its resident memory" "$T/progress"
	[ "$status" -eq 1 ]
	# the last line: the whole image, about all of the resident memory
	last=$(tail -n 1 "$T/progress")
	mib=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')
	[[ $last == "ckpt: $PID: $mib MiB written, "* ]]
	pct=$(echo "$last" | sed 's/.*, \([0-9]*\)% .*/\1/')
	[ "$pct" -ge 60 ] && [ "$pct" -le 110 ]
	grep -q $'\x1b\[K' "$T/tty" && [ "$(tail -c 1 "$T/tty" | od -An -c | tr -d ' ')" = '\n' ]
	# not a terminal: nothing on stderr, the id on stdout
	$TOOL checkpoint "$PID" -o "$T/img2" 2> "$T/err" > "$T/crid"
	[ ! -s "$T/err" ] && grep -Exq "[0-9]+" "$T/crid"
	kill -9 "$PID"
	wait_gone "$PID"
	$TOOL restart --sysfs "$T/img"
	touch "$T/go"
	wait_for "$T/out" "fill ok"
}

@test "tool: help and usage: each subcommand has --help (exit 0), bad usage exits 2" {
	$TOOL --help | grep -q '^Usage: ckpt SUBCOMMAND'
	for s in info validate checkpoint restart; do
		$TOOL $s --help | grep -q "^Usage: ckpt $s"
		$TOOL help $s | grep -q "^Usage: ckpt $s"
	done
	expect_rc 2 $TOOL
	expect_rc 2 $TOOL frobnicate
	expect_rc 2 $TOOL info
	expect_rc 2 $TOOL checkpoint
	expect_rc 2 $TOOL checkpoint 1 -o
}

@test "tool: info --json is one object with the documented schema, values as in the image (main + 14 threads)" {
	start_bg "$T/out" ckpt-threads 14 "$T/go"
	cat "/proc/$PID/checkpoint" > "$T/img"
	$TOOL info --json "$T/img" > "$T/json"
	python3 - "$T/json" "$PID" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
for k in ("file", "size", "valid", "checksum", "head", "process", "threads",
          "creds", "limits", "seccomp", "mm", "mappings", "shared_memory",
          "files", "fds", "locks", "signals", "timers", "records"):
    assert k in d, k
assert d["valid"] is True and d["error"] is None
h = d["head"]
assert h["version"] >= 1 and h["arch_name"] == "x86_64" and h["page_size"] == 4096
assert open("/proc/sys/kernel/osrelease").read().strip() == h["release"]
p = d["process"]
assert p["pid"] == pid and p["comm"] == "ckpt-threads", p
assert p["exe"] == "/opt/ckpt/bin/ckpt-threads"
assert len(d["threads"]) == 15 and sum(t["main"] for t in d["threads"]) == 1
assert d["threads"][0]["tid"] == pid
assert len({t["tid"] for t in d["threads"]}) == 15
assert len(d["mappings"]) == d["mm"]["nr_vmas"]
assert any(m["label"] == "[stack]" for m in d["mappings"])
assert [f["fd"] for f in d["fds"]] == sorted(f["fd"] for f in d["fds"])
assert len(d["timers"]["posix"]) >= 1
kinds = {r["name"]: r for r in d["records"]}
assert kinds["HEAD"]["count"] == 1 and kinds["TAIL"]["count"] == 1
assert kinds["THREAD"]["count"] == 14
assert sum(r["bytes"] for r in d["records"]) == d["size"]
PY
}

@test "tool: validate refuses every mutated image the kernel refuses, with the kernel's errno and text" {
	local m img rc v what n=0
	touch "$T/lockfile"
	mkdir "$T/pipes"
	image_of sleep ckpt-wait sleep 100000
	image_of threads ckpt-threads 14 "$T/never"
	image_of seccomp ckpt-seccomp "$T/never"
	image_of events ckpt-events "$T/never"
	image_of ptimers ckpt-ptimers "$T/never"
	image_of pipes ckpt-pipes "$T/pipes" "$T/never"
	image_of locks ckpt-locks hold "$T/lockfile" "$T/never"
	image_of prctl ckpt-prctl "$T/never"
	image_of unix ckpt-unix "$T/never"
	image_of listen ckpt-unix-listen "$T" "$T/never"
	ckpt-inet lo
	image_of inet ckpt-inet "$T/never"
	image_of pending ckpt-inet pending "$T/never"
	image_of urgent ckpt-inet urgent "$T/never"
	for m in sleep:clockid sleep:dr7 sleep:tls sleep:xfeatures sleep:version sleep:mmflags sleep:saflags \
		sleep:membarrier sleep:spec77 seccomp:bpf seccomp:seccompprev seccomp:seccompleaf \
		threads:threadseccomp threads:threadnnp events:epolldup ptimers:alarm ptimers:clock10 \
		pipes:pipehuge locks:lockfile locks:lockkind locks:lockrange prctl:dispatch \
		threads:threadtid threads:threaddup threads:threadpending threads:threadsched \
		threads:threadaltstack threads:futexclock threads:futexaddr threads:waitpollmask \
		threads:waitepollmax threads:waitclock threads:waitflags unix:unixtype unix:unixpeer \
		unix:unixshut unix:unixlen unix:unixswap unix:unixmade listen:unixaddr \
		listen:unixbacklog listen:unixclient listen:unixwait listen:unixembryo \
		listen:unixorphan listen:unixaccepted listen:unixoneway listen:unixowpeer unix:unixcred unix:unixrights \
		unix:unixqueue unix:unixqemb unix:unixflight inet:inetstate inet:inetaddr inet:inetdgram \
		inet:inetlen inet:tcpunsent inet:tcpwscale pending:inetwaiting pending:inetwaitport \
		urgent:tcpurgboth urgent:tcpurgmark urgent:tcpurgbyte urgent:tcpurgup; do
		img="$T/${m#*:}.img"
		ckpt-mutate "$T/${m%%:*}.img" "$img" "${m#*:}"
		dmesg -c > /dev/null
		rc=0
		timeout 5 rstr 0 "$img" > /dev/null 2>&1 || rc=$?
		what=$(log_reason 'rstr\[[0-9]*\]')
		v=$($TOOL validate "$img" 2>&1) || true
		echo "${m#*:}: kernel $rc '$what'; validate: $v"
		# the kernel refused each (rstr's errno); an alarm clock is the
		# restoring machine's, which validate cannot know (ckpt.8)
		[ "$rc" -gt 0 ] && [ "$rc" -lt 124 ] && [ -n "$what" ]
		if [ "$what" = "POSIX timer 1: no alarm clock here" ]; then
			[ "$v" = "$img: ok" ]
			continue
		fi
		[ "$v" = "$img: $(errname "$rc"): $what" ]
		n=$((n + 1))
		sleep 0.6
	done
	[ "$n" -ge 63 ]
	# the images they came from are valid
	$TOOL validate -q "$T/sleep.img" "$T/threads.img" "$T/seccomp.img" "$T/events.img" \
		"$T/ptimers.img" "$T/pipes.img" "$T/locks.img" "$T/prctl.img" "$T/unix.img" \
		"$T/listen.img" "$T/inet.img" "$T/pending.img" "$T/urgent.img"
}

@test "tool: validate refuses truncated, flipped and foreign images as the kernel does" {
	ckpt-self > "$T/img" 2> /dev/null
	size=$(stat -c %s "$T/img")
	for cut in 4000 $((size / 2)) $((size - 100)); do
		head -c "$cut" "$T/img" > "$T/bad"
		dmesg -c > /dev/null
		expect_rc 22 rstr 0 "$T/bad"
		what=$(log_reason 'rstr\[[0-9]*\]')
		run $TOOL validate "$T/bad"
		[ "$status" -eq 1 ] && [ "$output" = "$T/bad: EINVAL: $what" ]
		sleep 0.6
	done
	cp "$T/img" "$T/bad"
	printf '\377' | dd of="$T/bad" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
	run $TOOL validate "$T/bad"
	[ "$status" -eq 1 ] && [[ $output == *"EINVAL: "*checksum* ]]
}
