#!/usr/bin/env bats
# AF_UNIX socket pairs come back connected, with what each end had to read.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

unix_roundtrip() {
	check_roundtrip "$1" "unix ok" ckpt-unix "$T/go"
}

@test "unix: stream, datagram and seqpacket pairs, data queued both ways (boundaries, a part read), credentials and descriptors in flight (also to sockets whose peer is closed and to connections not accepted yet), options, shutdown (syscalls)" {
	unix_roundtrip syscall
}

@test "unix: the same through /proc and restart()" {
	unix_roundtrip proc
}

@test "unix: the same through /proc and /sys/kernel/ckpt/restart" {
	unix_roundtrip sysfs
}

# refused MODE RC TEXT: ckpt-unix MODE is refused with RC, logging TEXT; it runs on
refused() {
	start_bg "$T/$1.out" ckpt-unix "$1" "$T/go"
	expect_rc "$2" ckpt-save "$PID" "$T/img"
	expect_log "$3"
	run cat "/proc/$PID/checkpoint"
	[ "$status" -ne 0 ]
	runs_on "$PID"
}

@test "unix: credentials of a process that exited, an epoll with items in flight, a peer outside the process are refused, logged; the process runs on" {
	refused creds 95 "fd 3: credentials of a process that exited are queued"
	refused epoll 95 "fd 3: an epoll with items in flight cannot come back"
	refused outside 16 "fd 3: unix socket: connected to a socket outside the image"
}

@test "unix: bad UNIX records (checksum recomputed) are EINVAL, logged; nothing is left running" {
	image_of u ckpt-unix "$T/go"
	for m in unixtype:"malformed unix record" unixpeer:"malformed unix record" \
		unixshut:"malformed unix record" unixlen:"unix record: message of" \
		unixswap:"not the unix socket file" unixmade:"made as a unix socket's peer" \
		unixcred:"unix record: bad credentials" \
		unixrights:"unix queue: descriptor of file 100000" \
		unixqueue:"malformed unix queue record" unixqemb:"malformed unix queue record" \
		unixflight:"fds record: a file without fd"; do
		dmesg -c > /dev/null
		ckpt-mutate "$T/u.img" "$T/bad" "${m%%:*}"
		run rstr < "$T/bad"
		echo "${m%%:*}: $status $output"
		[ "$status" -eq 22 ]
		expect_log "${m#*:}"
		sleep 0.6
	done
	# the image they came from comes back whole
	ckpt-mutate "$T/u.img" "$T/good" none
	rstr < "$T/good" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	grep -qx "unix ok" "$T/u.out"
}

@test "unix: a process's own credentials in flight come back as its own, for nobody too; another pid is EPERM under nobody's credentials, logged, nothing left" {
	# the restored process opens its output again, as nobody
	chmod 0777 "$T"
	touch "$T/out" "$T/n.out"
	chmod 0666 "$T/out" "$T/n.out"
	check_roundtrip sysfs "self ok" runas 65534 65534 ckpt-unix self "$T/go"
	rm -f "$T/go"
	image_of n runas 65534 65534 ckpt-unix self "$T/go"
	ckpt-mutate "$T/n.img" "$T/bad" unixcredpid
	dmesg -c > /dev/null
	run rstr < "$T/bad"
	echo "$status $output"
	[ "$status" -eq 1 ]
	expect_log "cannot queue 4 bytes with credentials pid 1 uid 65534 gid 65534"
	[ -z "$(pidof ckpt-unix)" ]
	# root restores the image whole: nobody's own pid is the restorer's now
	rstr < "$T/n.img" > "$T/rstr.out" 2>&1 &
	touch "$T/go"
	wait $!
	[ "$(sed -n 2p "$T/n.out")" = "self ok" ]
}
