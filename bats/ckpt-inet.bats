#!/usr/bin/env bats
# TCP and UDP sockets over IPv4 and IPv6 come back bound, listening and
# connected, with their options and the datagrams they had to read.

load ckpt-lib

setup() {
	ckpt_setup
	ckpt-inet lo
}
teardown() { ckpt_teardown; }

inet_roundtrip() {
	check_roundtrip "$1" "inet ok" ckpt-inet "$T/go"
}

# mutated_einval IMAGE MUTATION:TEXT...: each mutation of IMAGE (checksum
# recomputed) is EINVAL, logged with TEXT; nothing is left running
mutated_einval() {
	local img=$1 m
	shift
	for m in "$@"; do
		dmesg -c > /dev/null
		ckpt-mutate "$img" "$T/bad" "${m%%:*}"
		run rstr < "$T/bad"
		echo "${m%%:*}: $status $output"
		[ "$status" -eq 22 ]
		expect_log "${m#*:}"
		[ -z "$(pidof ckpt-inet)" ]
	done
}

@test "inet: UDP datagrams (bytes and senders, IPv4 into IPv6), connected UDP, TCP listeners with their options, TCP connections with data queued both ways, over 127.0.0.1 and ::1 (syscalls)" {
	inet_roundtrip syscall
}

@test "inet: the same through /proc and restart()" {
	inet_roundtrip proc
}

@test "inet: the same through /proc and /sys/kernel/ckpt/restart" {
	inet_roundtrip sysfs
}

@test "inet: a listener's connections not yet accepted come back in its queue with their bytes, accept() takes them in order (syscalls, then /proc and sysfs)" {
	check_roundtrip syscall "pending ok" ckpt-inet pending "$T/go"
	/usr/sbin/ckpt info "$T/img" > "$T/info"
	grep -q "IPv4 TCP listening, local 127.0.0.1:[0-9]*, backlog 4, 2 waiting" "$T/info"
	grep -q "waiting to be accepted: IPv4 TCP established, local 127.0.0.1:.*, 6 to read" "$T/info"
	/usr/sbin/ckpt info --json "$T/img" | python3 -c '
import json, sys
d = json.load(sys.stdin)
l = [f for f in d["files"] if f.get("inet", {}).get("state") == "listening"]
assert [len(f["waiting"]) for f in l] == [2, 1], l
w = l[0]["waiting"][0]
assert w["inet"]["state"] == "established", w
assert w["inet"]["local_port"] == l[0]["inet"]["local_port"], w
assert w["tcp"]["receive_queue"] == 6, w
'
	rm -f "$T/go"
	check_roundtrip sysfs "pending ok" ckpt-inet pending "$T/go"
	# killed before it accepts: its port is free (no TIME-WAIT) to bind again
	image_of w ckpt-inet pending "$T/never"
	mutated_einval "$T/w.img" inetwaiting:"file [0-9]*: malformed inet record" \
		inetwaitport:"file [0-9]*: malformed connection not yet accepted"
	# unchanged, it comes back, its original killed with its queue
	rstr < "$T/w.img" > "$T/rstr.out" 2>&1 &
	r=$!
	BG_PIDS="$BG_PIDS $r"
	touch "$T/never"
	wait "$r"
	[ "$(sed -n 2p "$T/w.out")" = "pending ok" ]
}

@test "inet: urgent data (MSG_OOB) comes back: a byte to read, one read, one inline, one not received yet with its sender's pointer and bytes not sent; reads stop at each mark as before (syscalls, then sysfs)" {
	check_roundtrip syscall "urgent ok" ckpt-inet urgent "$T/go"
	/usr/sbin/ckpt info "$T/img" | grep -q "12 to read, .*urgent byte 0x21 at 6$"
	/usr/sbin/ckpt info --json "$T/img" | python3 -c '
import json, sys
d = json.load(sys.stdin)
files = {f["index"]: f for f in d["files"]}
tcp = {x["fd"]: files[x["file"]].get("tcp", {}) for x in d["fds"]}
def urg(fd):
    return tuple(tcp[fd].get(k) for k in ("urgent", "urgent_mark", "urgent_byte"))
assert urg(4) == ("to_read", 6, 0x21), urg(4)
assert urg(6) == ("read", 2, None), urg(6)
assert urg(8) == ("to_read", 2, 0x23), urg(8)
assert urg(10) == ("not_received", 50000, None), (urg(10), tcp[10])
assert tcp[10]["receive_queue"] > 0, tcp[10]
assert tcp[9]["urgent_pointer"] == tcp[9]["send_queue"] == 50001 - tcp[10]["receive_queue"], tcp[9]
assert tcp[9]["not_sent"] > 0, tcp[9]
assert all("urgent_pointer" not in tcp[fd] for fd in (3, 4, 5, 6, 7, 8, 10)), tcp
'
	rm -f "$T/go"
	check_roundtrip sysfs "urgent ok" ckpt-inet urgent "$T/go"
	image_of u ckpt-inet urgent "$T/never"
	mutated_einval "$T/u.img" tcpurgboth:"malformed TCP record" \
		tcpurgmark:"malformed TCP record" tcpurgbyte:"malformed TCP record" \
		tcpurgup:"malformed TCP record"
}

@test "inet: a TCP connection another process holds too is EBUSY with --kill, logged (the kill would leave it in repair mode there); the process runs on, and a checkpoint without --kill takes it" {
	start_bg "$T/s.out" ckpt-inet shared "$T/go"
	expect_rc 16 ckpt-save "$PID" "$T/img" 2
	expect_log "fd 3: a TCP socket another process holds too cannot end with the checkpoint"
	runs_on "$PID"
	run /usr/sbin/ckpt checkpoint --kill "$PID" -o "$T/img"
	[ "$status" -ne 0 ]
	runs_on "$PID"
	ckpt-save "$PID" "$T/img" > /dev/null
	runs_on "$PID"
	touch "$T/go"
	wait_for "$T/s.out" "^shared ok"
}

# refused MODE RC TEXT: ckpt-inet MODE is refused with RC, logging TEXT; it runs on
refused() {
	start_bg "$T/$1.out" ckpt-inet "$1" "$T/go"
	expect_rc "$2" ckpt-save "$PID" "$T/img"
	expect_log "$3"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	runs_on "$PID"
}

@test "inet: a TCP connection being closed, IP_PKTINFO, a netlink socket are refused, logged; the process runs on" {
	refused closing 95 "fd 3: IPv4 socket: a TCP connection being closed (FIN-WAIT, CLOSE-WAIT, LAST-ACK, CLOSING) cannot come back yet"
	refused pktinfo 95 "fd 3: IPv4 socket: IP options that cannot come back are set"
	refused netlink 95 "fd 3: socket of family 16 unsupported"
}

@test "inet: a port taken meanwhile is EADDRINUSE, logged, nothing left; once free the image comes back on it" {
	image_of p ckpt-inet port 7411 "$T/go"
	start_bg "$T/hold.out" ckpt-inet port 7411 "$T/never"
	holder=$PID
	run rstr < "$T/p.img"
	echo "$status $output"
	[ "$status" -eq 98 ]
	expect_log ": cannot bind to 127.0.0.1:7411 (-98)"
	[ "$(pidof ckpt-inet)" = "$holder" ]
	kill -9 "$holder"
	wait "$holder" 2> /dev/null || true
	rstr < "$T/p.img" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	[ "$(sed -n 2p "$T/p.out")" = "port ok" ]
}

@test "inet: bad INET and TCP records and datagrams (checksum recomputed) are EINVAL, logged; nothing is left running" {
	image_of i ckpt-inet "$T/go"
	mutated_einval "$T/i.img" inetstate:"malformed inet record" inetaddr:"malformed inet record" \
		inetdgram:"malformed datagram 0" inetlen:"malformed datagram 0" \
		tcpunsent:"malformed TCP record" tcpwscale:"malformed TCP record"
}

@test "inet: an address not configured here is EADDRNOTAVAIL; port 80 comes back for root, is EACCES for nobody; SO_MARK is EPERM for nobody; logged, nothing left" {
	image_of p ckpt-inet port 7412 "$T/go"
	ckpt-mutate "$T/p.img" "$T/bad" inetnotavail
	run rstr < "$T/bad"
	echo "$status $output"
	[ "$status" -eq 99 ]
	expect_log "cannot bind to 10.9.9.9:7412"
	# root's own image on port 80
	rm -f "$T/go"
	image_of r ckpt-inet port 80 "$T/go"
	rstr < "$T/r.img" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	[ "$(sed -n 2p "$T/r.out")" = "port ok" ]
	# nobody's: the socket is made under the restored credentials
	chmod 0777 "$T"
	touch "$T/n.out"
	chmod 0666 "$T/n.out"
	rm -f "$T/go"
	image_of n runas 65534 65534 ckpt-inet port 7413 "$T/go"
	for m in inetport80:13:"cannot bind to 127.0.0.1:80" \
		inetmark:1:"cannot set the options of an inet socket"; do
		dmesg -c > /dev/null
		ckpt-mutate "$T/n.img" "$T/bad" "${m%%:*}"
		run rstr < "$T/bad"
		echo "$m: $status $output"
		f=${m#*:}
		[ "$status" -eq "${f%%:*}" ]
		expect_log "${f#*:}"
		[ -z "$(pidof ckpt-inet)" ]
	done
}

@test "inet: a TCP connection comes back only for a restorer with CAP_NET_ADMIN: EPERM without, logged, nothing left; with it, nobody's connection goes on" {
	chmod 0777 "$T"
	touch "$T/n.out"
	chmod 0666 "$T/n.out"
	image_of n runas 65534 65534 ckpt-inet conn "$T/go"
	# CAP_CHECKPOINT_RESTORE (40) alone
	run capsrun 65534 65534 40 rstr 0 "$T/n.img"
	echo "$status $output"
	[ "$status" -eq 1 ]
	expect_log "a TCP connection comes back only for a restorer with CAP_NET_ADMIN"
	[ -z "$(pidof ckpt-inet)" ]
	# and CAP_NET_ADMIN (12)
	capsrun 65534 65534 40,12 rstr 0 "$T/n.img" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	[ "$(sed -n 2p "$T/n.out")" = "conn ok" ]
}

# kill_cycle HOW: the server of a client outside the image, checkpointed
# with the kill flag mid-stream, restored HOW; the whole stream arrives
killed_server() {
	local c
	start_bg "$T/s.out" ckpt-inet server 7430
	ckpt-inet client 7430 1500000 > "$T/c.out" 2>&1 3>&- 4>&- &
	c=$!
	BG_PIDS="$BG_PIDS $c"
	wait_for /proc/net/tcp ":1D06 0100007F:[0-9A-F]* 01"
	sleep 0.5
	case $1 in
	tool) /usr/sbin/ckpt checkpoint --kill "$PID" -o "$T/img" ;;
	syscall) ckpt-save "$PID" "$T/img" 2 ;;
	esac
	wait_gone "$PID"
	# the client streams on meanwhile: nothing may answer it with a reset
	sleep 1
	if [ "$1" = tool ]; then
		echo "$T/img" > /sys/kernel/ckpt/restart
		BG_PIDS="$BG_PIDS $PID"
	else
		rstr < "$T/img" > "$T/rstr.out" 2>&1 &
		BG_PIDS="$BG_PIDS $!"
	fi
	wait "$c"
	cat "$T/c.out"
	wait_for "$T/s.out" "^server"
	cat "$T/s.out"
	[ "$(sed -n 's/^client //p' "$T/c.out")" = "$(sed -n 's/^server //p' "$T/s.out")" ]
	[ "$(cut -d' ' -f2 "$T/c.out")" = 1500000 ]
}

@test "inet: a TCP server checkpointed with --kill while a client outside streams to it, restored through sysfs: every byte arrives once, in order, no reset" {
	killed_server tool
}

@test "inet: the same with checkpoint(CKPT_CHECKPOINT_KILL) and restart()" {
	killed_server syscall
}

@test "inet: a server that had not accepted its client yet, checkpointed with --kill while the client streams, restored: accept() takes the connection, every byte arrives once, no reset" {
	local c
	start_bg "$T/s.out" ckpt-inet lazy 7431 "$T/go"
	ckpt-inet client 7431 300000 > "$T/c.out" 2>&1 3>&- 4>&- &
	c=$!
	BG_PIDS="$BG_PIDS $c"
	wait_for /proc/net/tcp ":1D07 0100007F:[0-9A-F]* 01"
	sleep 0.5
	/usr/sbin/ckpt checkpoint --kill "$PID" -o "$T/img"
	wait_gone "$PID"
	sleep 1
	echo "$T/img" > /sys/kernel/ckpt/restart
	BG_PIDS="$BG_PIDS $PID"
	touch "$T/go"
	wait "$c"
	cat "$T/c.out"
	wait_for "$T/s.out" "^server"
	cat "$T/s.out"
	[ "$(sed -n 's/^client //p' "$T/c.out")" = "$(sed -n 's/^server //p' "$T/s.out")" ]
	[ "$(cut -d' ' -f2 "$T/c.out")" = 300000 ]
	/usr/sbin/ckpt info "$T/img" | grep -q "waiting to be accepted: IPv4 TCP established, local 127.0.0.1:7431"
}

# A real server: Debian's redis-server (five threads, epoll, a listener
# over IPv4 and IPv6) with a client outside the image connected to it.
redis_run() { # OUT GO: a fresh server on port 6390 and one client run
	redis-server --save '' --appendonly no --port 6390 --logfile "$T/redis.log" 3>&- 4>&- &
	RPID=$!
	BG_PIDS="$BG_PIDS $RPID"
	start_bg "$1" python3 /tests/redis-client.py 6390 "$2"
	CPID=$PID
}

@test "inet: redis-server checkpointed with --kill, restored through sysfs: its client's connection goes on, every key is there, as in a plain run" {
	redis_run "$T/plain" "$T/p"
	touch "$T/p.1" "$T/p"
	wait "$CPID"
	kill "$RPID"
	wait "$RPID" || true
	redis_run "$T/out" "$T/go"
	[ "$(ls "/proc/$RPID/task" | wc -l)" -ge 4 ]
	/usr/sbin/ckpt checkpoint --kill "$RPID" -o "$T/img"
	wait_gone "$RPID"
	# the client's next command reaches the parked connection
	touch "$T/go.1"
	sleep 1
	echo "$T/img" > /sys/kernel/ckpt/restart
	[ "$(ls "/proc/$RPID/task" | wc -l)" -ge 4 ]
	touch "$T/go"
	wait "$CPID"
	cat "$T/out"
	diff "$T/plain" "$T/out"
	grep -qx "values ok 300" "$T/out"
	grep -qx "incr 2" "$T/out"
	grep -qx "redis ok" "$T/out"
	/usr/sbin/ckpt info "$T/img" > "$T/info"
	grep -q "IPv4 TCP listening, local 0.0.0.0:6390, .*reuseaddr" "$T/info"
	grep -q "IPv6 TCP listening, local \[::\]:6390, .*v6only" "$T/info"
	grep -q "IPv4 TCP established, local 127.0.0.1:6390, remote 127.0.0.1:" "$T/info"
}
