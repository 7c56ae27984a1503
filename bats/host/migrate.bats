#!/usr/bin/env bats
# An image taken in one boot of the guest, restored in a second boot of the
# same kernel: the basis of moving a process to another machine. Two boots.

setup() { D=$BATS_TEST_TMPDIR; }

@test "a TCP listener checkpointed in one guest boot comes back in a second boot and serves a new client there" {
	# boot 1: the server as pid 3000, its image and output file, as a tar on stdout
	run scripts/vm-run --timeout 300 -- sh -c '
		set -e
		ckpt-inet lo
		mkdir -p /srv/mig
		echo 2999 > /proc/sys/kernel/ns_last_pid
		ckpt-inet server 7440 > /srv/mig/s.out 2>&1 &
		while ! grep -q "^ready" /srv/mig/s.out; do sleep 0.05; done
		cat /proc/$!/checkpoint > /srv/mig/img
		kill -9 $!
		tar -C /srv -cf - mig | base64'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo "$output" | base64 -d | tar -C "$D" -xf -
	[ "$(cat "$D/mig/s.out")" = "ready 3000" ]
	# boot 2: restore it, stream to it from a new client
	run scripts/vm-run --add "$D/mig:/srv/mig" --timeout 300 -- sh -c '
		set -e
		ckpt-inet lo
		echo /srv/mig/img > /sys/kernel/ckpt/restart
		cat /proc/3000/comm
		ckpt-inet client 7440 200000
		while ! grep -q "^server" /srv/mig/s.out; do sleep 0.05; done
		cat /srv/mig/s.out'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ckpt-inet ]
	client=$(echo "$output" | sed -n "s/^client //p")
	[ "${client%% *}" = 200000 ]
	[ "$(echo "$output" | sed -n "s/^server //p")" = "$client" ]
	[ "${lines[2]}" = "ready 3000" ]
}
