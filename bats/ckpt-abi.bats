#!/usr/bin/env bats
# The image ABI of <linux/ckpt.h>: the record order its comment gives, one
# version, and the kernel's own encodings.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

HDR=/usr/include/linux/ckpt.h

# The "Record order:" grammar of the header as an extended regex over the
# output of ckpt-records ("HEAD,TASK,...,TAIL,"): { } group, * and ? repeat.
order_regex() {
	sed -n '/^ \* Record order:$/,/^ \*$/p' "$HDR" | sed '1d;$d;s/^ \*//' |
		tr '\n' ' ' | sed -E 's/\{/(/g; s/\}/)/g; s/([A-Z_]+)([*?]?)/(\1,)\2/g; s/ //g'
}

# image_kinds: every record kind enum ckpt_type has, without CKPT_
image_kinds() {
	sed -n '/^enum ckpt_type {$/,/^};$/p' "$HDR" | sed -n 's/^\tCKPT_\([A-Z_]*\)[ \t]*=.*/\1/p'
}

@test "abi: the record order the uapi header gives is the order of real images, which have every record kind" {
	local re img seq kind
	re=$(order_regex)
	[ -n "$re" ]
	echo "order: $re"
	touch "$T/lockfile"
	mkdir "$T/pipes"
	image_of threads ckpt-threads 14 "$T/never"
	image_of events ckpt-events "$T/never"
	image_of sysv ckpt-sysv "$T/never"
	image_of locks ckpt-locks hold "$T/lockfile" "$T/never"
	image_of seccomp ckpt-seccomp "$T/never"
	image_of pipes ckpt-pipes "$T/pipes" "$T/never"
	image_of unix ckpt-unix "$T/never"
	image_of listen ckpt-unix-listen "$T" "$T/never"
	ckpt-inet lo
	image_of inet ckpt-inet "$T/never"
	image_of pending ckpt-inet pending "$T/never"
	# a tree's: HEAD TREE PTY* TAIL, then an image as above of each process
	mkdir "$T/tree"
	start_bg "$T/tree.out" ckpt-tree "$T/tree"
	cat "/proc/$PID/checkpoint_tree" > "$T/tree.img"
	kill -9 $(awk '$2 == "start" { print $3 }' "$T/tree/log")
	wait "$PID" 2> /dev/null || true
	# one with a pty: ckpt-pty holds the master, ckpt-term's session has it
	mkdir "$T/term"
	ckpt-pty "$T/term/tty" ckpt-term "$T/term" < /dev/null > "$T/term/out" 2>&1 3>&- 4>&- &
	BG_PIDS="$BG_PIDS $!"
	wait_for "$T/term/tty" ready
	cat "/proc/$!/checkpoint_tree" > "$T/term.img"
	touch "$T/term/go"
	wait "$!"
	remove_sysv_segments
	: > "$T/all"
	for img in "$T"/*.img; do
		seq=$(ckpt-records "$img")
		echo "$img: $seq"
		if [ "$img" = "$T/tree.img" ]; then
			echo "$seq" | grep -Eqx "(HEAD,)(TREE,)(TAIL,)($re){4}"
		elif [ "$img" = "$T/term.img" ]; then
			echo "$seq" | grep -Eqx "(HEAD,)(TREE,)(PTY,)(TAIL,)($re){3}"
		else
			echo "$seq" | grep -Eqx "$re"
		fi
		echo "$seq" | tr ',' '\n' >> "$T/all"
	done
	# no kind is missing from these images, so the grammar was tried on all
	for kind in $(image_kinds); do
		grep -qx "$kind" "$T/all" || { echo "no $kind record in any image"; false; }
	done
	[ "$(image_kinds | wc -l)" -ge 28 ]
}

@test "abi: an image of another version is EOPNOTSUPP, and the log line names both versions" {
	ckpt-self > "$T/img" 2> /dev/null
	ckpt-mutate "$T/img" "$T/bad" version
	expect_rc 95 rstr 0 "$T/bad"
	local v
	v=$(sed -n 's/^#define CKPT_VERSION[ \t]*\([0-9]*\)$/\1/p' "$HDR")
	expect_log "image version $((v + 1)), this kernel reads version $v"
	# the same image with its own version comes back
	ckpt-mutate "$T/img" "$T/good" none
	restore_ok "$T/good" "$T/out"
}

@test "abi: the MM record carries coredump_filter as /proc shows it; an unknown bit is EINVAL" {
	ckpt-self > "$T/img" 2> /dev/null
	ckpt-mutate "$T/img" "$T/bad" mmflags
	expect_rc 22 rstr 0 "$T/bad"
	expect_log "mm record: bad flags 0x2[0-9a-f][0-9a-f]/"
}
