#!/usr/bin/env bats
# Bound and listening AF_UNIX sockets come back, with the connections
# waiting in their backlogs.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

listen_roundtrip() {
	check_roundtrip "$1" "listen ok" ckpt-unix-listen "$T" "$T/go"
}

@test "unix listen: listeners, their backlogs and accepted connections, path, abstract and autobound names, a bound datagram queue (syscalls)" {
	listen_roundtrip syscall
}

@test "unix listen: the same through /proc and restart()" {
	listen_roundtrip proc
}

@test "unix listen: the same through /proc and /sys/kernel/ckpt/restart" {
	listen_roundtrip sysfs
}

@test "unix listen: a name or path in use is EADDRINUSE, nothing left; the process that holds it runs on, another file stays" {
	start_bg "$T/a.out" ckpt-unix-listen "$T" "$T/go"
	local a=$PID
	ckpt-save "$a" "$T/img" > /dev/null
	# the abstract name, held by the process itself
	expect_rc 98 rstr < "$T/img"
	expect_log "cannot bind a unix socket to @ckpt-listen.$a"
	kill -9 "$a"
	wait "$a" 2> /dev/null || true
	# the path, held by another process's listener
	rm "$T/srv.sock" "$T/dgram.sock"
	start_bg "$T/b.out" ckpt-unix-listen "$T" "$T/go"
	dmesg -c > /dev/null
	expect_rc 98 rstr < "$T/img"
	expect_log "cannot bind a unix socket to $T/srv.sock"
	[ "$(pidof ckpt-unix-listen | wc -w)" -eq 1 ]
	touch "$T/go"
	wait "$PID"
	grep -qx "listen ok" "$T/b.out"
	# a regular file where the socket file was
	rm "$T/srv.sock"
	echo keep > "$T/srv.sock"
	dmesg -c > /dev/null
	expect_rc 98 rstr < "$T/img"
	expect_log "cannot bind a unix socket to $T/srv.sock"
	[ "$(cat "$T/srv.sock")" = keep ]
	[ -z "$(pidof ckpt-unix-listen)" ]
}

# refused MODE RC TEXT: ckpt-unix-listen MODE is refused with RC, logging TEXT
refused() {
	dmesg -c > /dev/null
	start_bg "$T/$1.out" ckpt-unix-listen "$1" "$T" "$T/go"
	expect_rc "$2" ckpt-save "$PID" "$T/img"
	expect_log "$3"
	runs_on "$PID"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	rm -f "$T"/*.sock
}

@test "unix listen: peers outside, a connected socket bound itself, bound senders, relative and removed paths, a socket connected one way to one of no address are refused, logged; the process runs on" {
	refused outclient 16 "fd 3: unix listener: a connection in its backlog is from outside the image"
	refused outlistener 16 "fd 3: unix socket: connecting to a listener outside the image"
	refused boundconn 95 "fd 4: unix socket: a connected socket bound to an address cannot come back yet"
	refused boundfrom 95 "fd 3: a message from a bound socket is queued"
	refused relative 95 "fd 3: unix socket bound to ./rel.sock, now at $T/rel.sock"
	refused removed 95 "fd 3: the socket file of $T/gone.sock was removed"
	refused owunbound 95 "fd 3: unix socket: connected one way to a socket of no address"
}

@test "unix listen: bad records of bound and listening sockets (checksum recomputed) are EINVAL, logged; nothing is left running" {
	image_of l ckpt-unix-listen "$T" "$T/go"
	for m in unixaddr:"malformed unix record" unixbacklog:"malformed unix record" \
		unixclient:"is not its client" unixwait:"not the unix socket its listener" \
		unixembryo:"malformed unix record" unixorphan:"did not connect it" \
		unixaccepted:"malformed unix record" unixoneway:"malformed unix record" \
		unixowpeer:"is not a bound socket of its type"; do
		dmesg -c > /dev/null
		ckpt-mutate "$T/l.img" "$T/bad" "${m%%:*}"
		run rstr < "$T/bad"
		echo "${m%%:*}: $status $output"
		[ "$status" -eq 22 ]
		expect_log "${m#*:}"
		[ -z "$(pidof ckpt-unix-listen)" ]
		sleep 0.6
	done
	# the image they came from comes back whole
	ckpt-mutate "$T/l.img" "$T/good" none
	rstr < "$T/good" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	grep -qx "listen ok" "$T/l.out"
}

@test "unix listen: peers outside are EBUSY; with CKPT_CHECKPOINT_DISCONNECT (ckpt-save, ckpt checkpoint -d) they come back disconnected: what was queued (descriptors in flight too, to a connection not accepted as well), then EOF, EPIPE, ECONNREFUSED" {
	start_bg "$T/out" ckpt-unix-listen disconnect "$T" "$T/go"
	expect_rc 16 ckpt-save "$PID" "$T/img"
	expect_log "fd 3: unix socket: connected to a socket outside the image"
	ckpt-save "$PID" "$T/img" 1 > /dev/null
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	# a record of a socket whose peer is gone, mutated, is refused
	ckpt-mutate "$T/img" "$T/bad" unixgone
	expect_rc 22 rstr < "$T/bad"
	expect_log "malformed unix record"
	rstr < "$T/img" > "$T/rstr.out" 2>&1 &
	local r=$!
	touch "$T/go"
	wait "$r"
	grep -qx "disconnect ok" "$T/out"
	# the tool's flag, and the image restored through sysfs
	rm "$T/go" "$T/d.sock" "$T/d2.sock"
	start_bg "$T/out2" ckpt-unix-listen disconnect "$T" "$T/go"
	/usr/sbin/ckpt checkpoint -d "$PID" -o "$T/img2"
	kill -9 "$PID"
	wait "$PID" 2> /dev/null || true
	echo "$T/img2" > /sys/kernel/ckpt/restart
	touch "$T/go"
	wait_for "$T/out2" "^disconnect ok"
}
