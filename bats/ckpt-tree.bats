#!/usr/bin/env bats
# A process tree checkpointed whole (CKPT_CHECKPOINT_TREE,
# /proc/PID/checkpoint_tree) comes back with its pids, parents, groups,
# session, shared files and a pipe between two of its processes.

load ckpt-lib

setup() { ckpt_setup; }
teardown() { ckpt_teardown; }

# tree_pids: the pids of the root, A, B and C of ckpt-tree, once started
tree_pids() {
	ROOT=$PID
	A=$(awk '$1 == "A" && $2 == "start" { print $3 }' "$T/log")
	B=$(awk '$1 == "B" && $2 == "start" { print $3 }' "$T/log")
	C=$(awk '$1 == "C" && $2 == "start" { print $3 }' "$T/log")
	BG_PIDS="$BG_PIDS $A $B $C"
}

# kill_tree: kill every process of the tree, and wait until all are gone
kill_tree() {
	kill -9 "$ROOT" "$A" "$B" "$C"
	wait "$ROOT" 2> /dev/null || true
	wait_gone "$A"
	wait_gone "$B"
	wait_gone "$C"
}

# refused_taken PID: another process takes PID, a restart of $T/img through
# sysfs is refused when it comes to make PID
refused_taken() {
	echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid
	sleep 30 &
	BG_PIDS="$BG_PIDS $!"
	[ "$!" -eq "$1" ]
	expect_rc 1 sh -c "echo $T/img > /sys/kernel/ckpt/restart"
	expect_log "cannot make process $1 of the tree"
}

# tree_roundtrip HOW: checkpoint the tree mid-stream, kill it, restore it
#   proc:    cat /proc/ROOT/checkpoint_tree, echo IMAGE > /sys/kernel/ckpt/restart
#   syscall: checkpoint(ROOT, fd, CKPT_CHECKPOINT_TREE), then restart()
tree_roundtrip() {
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	if [ "$1" = proc ]; then
		cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	else
		ckpt-save "$ROOT" "$T/img" 4 > /dev/null
	fi
	kill_tree
	restore_image "$([ "$1" = proc ] && echo sysfs || echo syscall)" "$T/go"
	[ "$RC" -eq 0 ]
	cat "$T/out" "$T/log"
	grep -qx "tree ok" "$T/out"
	# the restored processes had the pids of the image
	grep -q "^A end $A " "$T/log"
	grep -q "^B end $B " "$T/log"
	grep -q "^C end $C $B $B " "$T/log"
}

@test "tree: a session with a pipe between two processes, through /proc/PID/checkpoint_tree and sysfs" {
	tree_roundtrip proc
	# the same root too, a session leader again
	grep -q "^R end $ROOT [0-9]* $ROOT $ROOT\$" "$T/log"
}

@test "tree: the same through checkpoint(CKPT_CHECKPOINT_TREE) and restart()" {
	tree_roundtrip syscall
}

@test "tree: a pid taken refuses the restart, and leaves no process behind" {
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	kill_tree
	# another process takes C's pid: A and B are made before it is refused
	refused_taken "$C"
	[ ! -d "/proc/$ROOT" ]
	[ ! -d "/proc/$A" ]
	[ ! -d "/proc/$B" ]
}

@test "tree: a reader of its own tree's checkpoint is refused (EDEADLK)" {
	run sh -c "cat /proc/$$/checkpoint_tree > /dev/null"
	[ "$status" -ne 0 ]
	expect_log "cannot read the checkpoint of a tree it is in"
}

@test "tree: zombies come back with their exit status for their parent to reap, a stopped child stopped" {
	local c
	start_bg "$T/out" ckpt-tree "$T" zombies
	read -r _ ROOT C0 C1 C2 < "$T/out"
	BG_PIDS="$BG_PIDS $C2"
	wait_status "$C0" "^State:.*Z (zombie)"
	stopped_state "$C2"
	cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	kill -9 "$ROOT" "$C2"
	wait "$ROOT" 2> /dev/null || true
	for c in "$C0" "$C1" "$C2"; do wait_gone "$c"; done
	echo "$T/img" > /sys/kernel/ckpt/restart
	# before the parent reaps them: zombies, and stopped, with their parent
	wait_status "$C0" "^State:.*Z (zombie)"
	wait_status "$C1" "^State:.*Z (zombie)"
	stopped_state "$C2"
	wait_status "$C0" "^PPid:.$ROOT\$"
	wait_status "$C2" "^PPid:.$ROOT\$"
	touch "$T/go"
	wait_gone "$ROOT"
	cat "$T/out"
	grep -qx "zombies ok" "$T/out"
}

@test "tree: workers counting in a MAP_SHARED counter and a memfd share them again" {
	local w
	start_bg "$T/out" ckpt-tree "$T" workers
	read -r _ ROOT W1 W2 W3 < "$T/out"
	BG_PIDS="$BG_PIDS $W1 $W2 $W3"
	cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	kill -9 "$ROOT" "$W1" "$W2" "$W3"
	wait "$ROOT" 2> /dev/null || true
	for w in "$W1" "$W2" "$W3"; do wait_gone "$w"; done
	echo "$T/img" > /sys/kernel/ckpt/restart
	touch "$T/go"
	wait_gone "$ROOT"
	cat "$T/out"
	grep -qx "workers ok" "$T/out"
}

# descendants PID: the pids of PID's descendants, from /proc
descendants() {
	local p kids
	kids=$(awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2> /dev/null)
	for p in $kids; do
		echo "$p"
		descendants "$p"
	done
}

# pipeline_roundtrip SCRIPT: bash -c SCRIPT sh DIR, of three processes with
# data in flight, checkpointed mid-stream, killed, restored: DIR/sum is that
# of a plain run
pipeline_roundtrip() {
	local kids p
	mkdir "$T/plain"
	bash -c "$1" sh "$T/plain" > /dev/null
	start_bg "$T/out" bash -c "$1" sh "$T"
	wait_for "$T/out" ready
	for p in $(seq 1 500); do [ -e "$T/mark" ] && break; sleep 0.02; done
	[ -e "$T/mark" ]
	kids=$(descendants "$PID")
	[ "$(echo "$kids" | wc -l)" -eq 3 ]
	cat "/proc/$PID/checkpoint_tree" > "$T/img"
	[ ! -e "$T/sum" ] || ! grep -q done "$T/sum"
	kill -9 "$PID" $kids
	wait "$PID" 2> /dev/null || true
	for p in $kids; do wait_gone "$p"; done
	echo "$T/img" > /sys/kernel/ckpt/restart
	wait_gone "$PID"
	cat "$T/sum" "$T/plain/sum"
	grep -q done "$T/sum"
	cmp "$T/sum" "$T/plain/sum"
}

@test "tree: a bash pipeline (python3 | tr | sha256sum) checkpointed mid-stream ends as a plain run" {
	pipeline_roundtrip 'echo ready; python3 /tests/tree-producer.py "$1/mark" | tr a-z A-Z | sha256sum > "$1/sum"; echo done >> "$1/sum"'
}

@test "tree: the same through a FIFO (python3 > fifo &; tr < fifo | sha256sum), data in flight in it" {
	pipeline_roundtrip 'echo ready; mkfifo "$1/fifo"; python3 /tests/tree-producer.py "$1/mark" > "$1/fifo" & tr a-z A-Z < "$1/fifo" | sha256sum > "$1/sum"; wait; echo done >> "$1/sum"'
}

@test "tree: bad tree images (checksums computed again) are refused, no process left" {
	local m p
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	kill_tree
	for m in treenr:"tree record: 0 processes" \
		 treeparent:"tree record: bad process 1" \
		 treepid:"tree record: pid $ROOT twice" \
		 treepgid:"tree record: group $C of session" \
		 treezombie:"tree record: bad zombie 0" \
		 treeshare:"tree record: bad process 1" \
		 treeshared:"files record: of a table process 0 has" \
		 treefile:"file [0-9]*: malformed record" \
		 treehead:"process 1 of the tree: not a tree's image"; do
		dmesg -c > /dev/null
		ckpt-mutate "$T/img" "$T/bad" "${m%%:*}"
		run sh -c "echo $T/bad > /sys/kernel/ckpt/restart"
		echo "${m%%:*}: $status $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"Invalid argument"* ]]
		expect_log "${m#*:}"
		for p in "$ROOT" "$A" "$B" "$C"; do [ ! -d "/proc/$p" ]; done
	done
	# unchanged, it restores
	ckpt-mutate "$T/img" "$T/good" none
	echo "$T/good" > /sys/kernel/ckpt/restart
	touch "$T/go"
	wait_gone "$ROOT"
	grep -qx "tree ok" "$T/out"
}

@test "tree: ckpt checkpoint --tree, info, validate (the kernel's verdicts) and restart --sysfs" {
	local m
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	ckpt checkpoint --tree "$ROOT" -o "$T/img" > /dev/null
	ckpt validate "$T/img"
	ckpt info "$T/img" > "$T/info"
	grep -q "^tree: *4 processes" "$T/info"
	grep -q "^  pid $C: parent $B, group $B, session $ROOT, exit signal 17" "$T/info"
	grep -q "^process $B of the tree:" "$T/info"
	[ "$(grep -c '^valid: ' "$T/info")" -eq 5 ]
	ckpt info --json "$T/img" | python3 -c '
import json, sys
i = json.load(sys.stdin)
assert i["valid"] and len(i["tree"]) == 4 and len(i["processes"]) == 4, i.keys()
assert i["tree"][3]["ppid"] == i["tree"][2]["pid"] == i["tree"][3]["pgid"]
assert [p["process"]["pid"] for p in i["processes"]] == [t["pid"] for t in i["tree"]]
assert all(p["valid"] for p in i["processes"])'
	for m in treepid:"tree record: pid $ROOT twice" treefile:"file [0-9]*: malformed record" \
		 treehead:"process 1 of the tree: not a tree's image" \
		 treeshared:"files record: of a table process 0 has"; do
		ckpt-mutate "$T/img" "$T/bad" "${m%%:*}"
		run ckpt validate "$T/bad"
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" =~ EINVAL:\ ${m#*:} ]]
	done
	kill_tree
	ckpt restart --sysfs "$T/img"
	touch "$T/go"
	wait_gone "$ROOT"
	grep -qx "tree ok" "$T/out"
}

@test "tree: a subreaper's children in a session and groups whose leaders exited keep them" {
	local e g
	start_bg "$T/out" ckpt-tree "$T" orphans
	e=$(awk '$1 == "E" { print $3, $5, $6 }' "$T/log")
	g=$(awk '$1 == "G" { print $3, $5, $6 }' "$T/log")
	set -- $e $g
	# E in group and session D, G in group F of session D: D and F exited
	[ "$2" = "$3" ] && [ "$6" = "$3" ] && [ "$5" != "$2" ]
	[ ! -d "/proc/$2" ] && [ ! -d "/proc/$5" ]
	BG_PIDS="$BG_PIDS $1 $4"
	ckpt checkpoint --tree "$PID" -o "$T/img" > /dev/null
	ckpt info "$T/img" | grep -q "^  pid $4: parent $PID, group $5, session $2"
	kill -9 "$PID" "$1" "$4"
	wait "$PID" 2> /dev/null || true
	wait_gone "$1"
	wait_gone "$4"
	echo "$T/img" > /sys/kernel/ckpt/restart
	touch "$T/go"
	wait_gone "$PID"
	cat "$T/out" "$T/log"
	grep -qx "orphans ok" "$T/out"
	grep -q "^E end $1 $PID $2 $2\$" "$T/log"
	grep -q "^G end $4 $PID $5 $2\$" "$T/log"
}

# ns_count PID: how many processes have PID as their pid in the innermost
# pid namespace of theirs, other than the initial one
ns_count() {
	grep -l "^NSpid:.*[[:space:]]$1\$" /proc/[0-9]*/status 2> /dev/null |
		xargs -r grep -l "^NSpid:[[:space:]]*[0-9][0-9]*[[:space:]][[:space:]]*[0-9]" |
		wc -l
}

@test "tree: the same tree restored twice at once into two new pid namespaces (sysfs, restart(CKPT_RESTART_NEWPIDNS)), each whole" {
	local r p
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	cat "/proc/$ROOT/checkpoint_tree" > "$T/img"
	kill_tree
	echo "$T/img newpidns" > /sys/kernel/ckpt/restart &
	r=$!
	ckpt restart --newpidns "$T/img" > "$T/pid"
	wait "$r"
	# the root of the second, init of its namespace
	grep -q "^NSpid:[[:space:]]*$(cat "$T/pid")[[:space:]]*1\$" "/proc/$(cat "$T/pid")/status"
	# two of each, with the saved pids; two roots, each its namespace's init
	grep -h "^NSpid:.*[[:space:]][0-9][0-9]*[[:space:]]" /proc/[0-9]*/status || true
	for p in "$A" "$B" "$C" 1; do
		[ "$(ns_count "$p")" -eq 2 ]
	done
	touch "$T/go"
	for r in $(seq 1 500); do
		[ "$(ns_count "$A")$(ns_count 1)" = 00 ] && break
		sleep 0.02
	done
	cat "$T/out" "$T/log"
	[ "$(ns_count 1)" -eq 0 ]
	grep -qx "tree ok" "$T/out"
	grep -q "^A end $A 1 1 1\$" "$T/log"
	grep -q "^C end $C $B $B 1\$" "$T/log"
}

@test "tree: a container (a pid namespace's init) comes back whole in a new pid namespace, with its own pids" {
	local init i
	# unshare(1) keeps its descriptors: the init opens its own (no leak)
	start_bg "$T/out" unshare -p -f sh -c \
		'exec ckpt-tree "$1" < /dev/null > "$1/out" 2>&1' sh "$T"
	init=$(awk -v p="$PID" '$4 == p { print $1 }' /proc/[0-9]*/stat)
	grep -q "^NSpid:[[:space:]]*$init[[:space:]]*1\$" "/proc/$init/status"
	BG_PIDS="$BG_PIDS $init"
	# the pids the processes see, in their namespace (not for teardown)
	A=$(awk '$1 == "A" && $2 == "start" { print $3 }' "$T/log")
	B=$(awk '$1 == "B" && $2 == "start" { print $3 }' "$T/log")
	C=$(awk '$1 == "C" && $2 == "start" { print $3 }' "$T/log")
	[ "$A" -lt "$init" ] && [ "$C" -lt "$init" ]
	cat "/proc/$init/checkpoint_tree" > "$T/img"
	ckpt info "$T/img" > "$T/info"
	grep -q "^  pid 1: parent 0, group 1, session 1," "$T/info"
	grep -q "^  pid $C: parent $B, group $B, session 1," "$T/info"
	kill -9 "$init"
	wait "$PID" 2> /dev/null || true
	for i in $(seq 1 500); do [ "$(ns_count "$A")" -eq 0 ] && break; sleep 0.02; done
	# its pid 1 is init's here: it needs a namespace of its own
	run sh -c "echo $T/img > /sys/kernel/ckpt/restart"
	[ "$status" -ne 0 ]
	expect_log "as pid 1 (-16)"
	echo "$T/img newpidns" > /sys/kernel/ckpt/restart
	[ "$(ns_count "$C")" -eq 1 ]
	touch "$T/go"
	for i in $(seq 1 500); do [ "$(ns_count 1)" -eq 0 ] && break; sleep 0.02; done
	cat "$T/out" "$T/log"
	grep -qx "tree ok" "$T/out"
	grep -q "^A end $A 1 1 1\$" "$T/log"
	grep -q "^C end $C $B $B 1\$" "$T/log"
}

@test "tree: a file and a pipe end held outside are leaks (EBUSY, named); --unshare brings the tree back with its own" {
	# fd 7 is this shell's too
	exec 7>> "$T/shared"
	start_bg "$T/out" ckpt-tree "$T"
	tree_pids
	run sh -c "cat /proc/$ROOT/checkpoint_tree > $T/img"
	[ "$status" -ne 0 ]
	expect_log "process $ROOT: fd 7 ($T/shared) is held by a process outside the tree too (-16)"
	expect_rc 16 ckpt-save "$ROOT" "$T/img" 4
	# the flag needs CKPT_CHECKPOINT_TREE
	expect_rc 22 ckpt-save "$ROOT" "$T/img" 8
	ckpt checkpoint --tree --unshare -o "$T/img" "$ROOT" > /dev/null
	exec 7>&-
	kill_tree
	restore_image sysfs "$T/go"
	cat "$T/out" "$T/log"
	grep -qx "tree ok" "$T/out"
	grep -q "^C end $C $B $B " "$T/log"

	# the root's output is a pipe a process outside reads
	rm -f "$T/go" "$T/log"
	start_bg "$T/out" sh -c 'ckpt-tree "$1" < /dev/null 2> /dev/null | cat' sh "$T"
	ROOT=$(awk '/^ready/ { print $2 }' "$T/out")
	BG_PIDS="$BG_PIDS $ROOT"
	run sh -c "cat /proc/$ROOT/checkpoint_tree > $T/img"
	[ "$status" -ne 0 ]
	expect_log "process $ROOT: fd 1 (pipe:\[[0-9]*\]) has an end open in a process outside the tree (-16)"
	ckpt checkpoint --tree --unshare -o "$T/img" "$ROOT" > /dev/null
	ckpt validate "$T/img"
}

@test "tree: memory, an address space, a table or a working directory shared outside are leaks (EBUSY, named)" {
	local m child what n=0
	for m in shm memfd vm files fs sighand; do
		start_bg "$T/$m.out" ckpt-share "$m"
		child=$(awk '/^ready/ { print $2 }' "$T/$m.out")
		BG_PIDS="$BG_PIDS $child"
		run sh -c "cat /proc/$child/checkpoint_tree > $T/img"
		[ "$status" -ne 0 ]
		case $m in
		shm)	what="mapped /dev/zero (deleted) is held by a process outside the tree too" ;;
		memfd)	what="mapped /memfd:leak (deleted) is shared memory a process outside the tree maps" ;;
		vm)	what="task $PID outside the tree shares its address space (CLONE_VM)" ;;
		files)	what="task $PID outside the tree shares its descriptor table (CLONE_FILES)" ;;
		fs)	what="task $PID outside the tree shares its working directory (CLONE_FS)" ;;
		sighand) what="task $PID outside the tree shares its address space (CLONE_VM)" ;;
		esac
		expect_log "process $child: $what (-16)"
		if [ "$m" = shm ] || [ "$m" = memfd ]; then
			# memory comes back the tree's own with the flag
			ckpt checkpoint --tree --unshare -o "$T/$m.img" "$child" > /dev/null
			ckpt validate "$T/$m.img"
		else
			# what another task changes is never read
			expect_rc 1 ckpt checkpoint --tree --unshare -o "$T/$m.img" "$child"
		fi
		kill -9 "$PID" "$child"
		# at most 10 lines in 5 s: let the window pass now and then
		n=$((n + $(dmesg | grep -c ckpt)))
		if [ "$n" -ge 6 ]; then sleep "$(ratelimit_left)"; n=0; fi
		dmesg -c > /dev/null
	done
}

@test "tree: processes sharing a table (CLONE_FILES), a working directory (CLONE_FS) and a SysV segment, and one with threads, share them again" {
	local f s t id
	mkdir "$T/sub"
	start_bg "$T/out" ckpt-tree "$T" clone
	read -r _ _ f s t id < <(grep '^ready' "$T/out")
	BG_PIDS="$BG_PIDS $f $s $t"
	cat "/proc/$PID/checkpoint_tree" > "$T/img"
	ckpt info "$T/img" > "$T/info"
	grep -q "^  pid $f: parent $PID, .*, files of $PID\$" "$T/info"
	grep -q "^  pid $s: parent $PID, .*, fs of $PID\$" "$T/info"
	ckpt info --json "$T/img" | python3 -c '
import json, sys
t = {p["pid"]: p for p in json.load(sys.stdin)["tree"]}
r, f, s, th = map(int, sys.argv[1:])
assert t[f]["files_of"] == r and t[f]["fs_of"] == 0, t[f]
assert t[s]["fs_of"] == r and t[s]["files_of"] == 0, t[s]
assert t[th]["files_of"] == t[th]["fs_of"] == t[r]["files_of"] == 0, t' "$PID" "$f" "$s" "$t"
	ckpt validate "$T/img"
	kill -9 "$PID" "$f" "$s" "$t"
	wait "$PID" 2> /dev/null || true
	wait_gone "$f"
	wait_gone "$s"
	wait_gone "$t"
	restore_image sysfs "$T/go"
	cat "$T/out" "$T/log"
	grep -qx "clone ok" "$T/out"
}

@test "tree: a stream and a datagram socketpair between a parent and its child, messages unread both ways, come back connected" {
	local c how
	for how in sysfs syscall; do
		rm -f "$T/go"
		start_bg "$T/out" ckpt-tree "$T" unix
		read -r _ _ c < <(grep '^ready' "$T/out")
		BG_PIDS="$BG_PIDS $c"
		cat "/proc/$PID/checkpoint_tree" > "$T/img"
		ckpt info "$T/img" > "$T/info"
		[ "$(grep -c "pair [01] with another process of the tree" "$T/info")" -eq 4 ]
		ckpt validate "$T/img"
		kill -9 "$PID" "$c"
		wait "$PID" 2> /dev/null || true
		wait_gone "$c"
		restore_image "$how" "$T/go"
		cat "$T/out"
		[ "$RC" -eq 0 ]
		grep -qx "unix ok" "$T/out"
		[ "$(grep -c "^unix ok" "$T/out")" -eq 1 ]
	done
}

# refused_mutation NAME:LINE PID...: $T/img mutated by ckpt-mutate NAME is
# refused through sysfs (EINVAL, LINE logged), ckpt validate says the same
# line, and none of the PIDs runs
refused_mutation() {
	local m=$1 p
	shift
	ckpt-mutate "$T/img" "$T/bad" "${m%%:*}"
	dmesg -c > /dev/null
	expect_rc 1 sh -c "echo $T/bad > /sys/kernel/ckpt/restart"
	expect_log "${m#*:}"
	run ckpt validate "$T/bad"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ EINVAL:\ ${m#*:} ]]
	for p in "$@"; do [ ! -d "/proc/$p" ]; done
}

# cow_pages IMAGE: per process of the tree, "PID STORED COPIED" pages
cow_pages() {
	ckpt info --json "$1" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    m = p["mappings"]
    print(p["process"]["pid"], sum(v["pages_stored"] for v in m),
          sum(v["pages_copied"] for v in m))'
}

@test "tree: private pages shared copy-on-write after fork() are stored once, each process gets its own copy back" {
	local x y z g how size m pages
	for how in sysfs syscall; do
		rm -f "$T/go"
		start_bg "$T/out" ckpt-tree "$T" cow
		read -r _ _ x y z g < <(grep '^ready' "$T/out")
		BG_PIDS="$BG_PIDS $x $y $z $g"
		if [ "$how" = sysfs ]; then
			cat "/proc/$PID/checkpoint_tree" > "$T/img"
		else
			ckpt-save "$PID" "$T/img" 4 > /dev/null
		fi
		# 8 MiB the root stamped, 4 MiB Y and 2 MiB G stamped since: 14 MiB
		# stored, not the 40 MiB of five processes' 8 MiB
		size=$(stat -c %s "$T/img")
		echo "image: $size bytes"
		[ "$size" -gt $((14 << 20)) ] && [ "$size" -lt $((16 << 20)) ]
		ckpt validate "$T/img"
		ckpt info "$T/img" | grep -q "pages copied from earlier processes of the tree"
		pages=$(cow_pages "$T/img")
		echo "$pages"
		# PID STORED COPIED: 2048 pages of 8 MiB, their own or the root's
		awk -v r="$PID" -v x="$x" -v y="$y" -v z="$z" -v g="$g" '
			$1 == r { ok += $2 >= 2048 && $3 == 0 }
			$1 == x || $1 == z { ok += $2 < 64 && $3 >= 2048 }
			$1 == y { ok += $2 >= 1024 && $2 < 1088 && $3 >= 1024 }
			$1 == g { ok += $2 >= 512 && $2 < 576 && $3 >= 1536 }
			END { exit ok != 5 }' <<< "$pages"
		kill -9 "$PID" "$x" "$y" "$z" "$g"
		wait "$PID" 2> /dev/null || true
		for p in "$x" "$y" "$z" "$g"; do wait_gone "$p"; done
		restore_image "$how" "$T/go"
		cat "$T/out"
		[ "$RC" -eq 0 ]
		[ "$(grep -c "^cow ok" "$T/out")" -eq 1 ]
	done
	# a run from a later process, from where the process has no page of
	# its own, or of no page: refused, the tool says the same, none left
	for m in runproc:"page run [0-9a-f]*: no pages at [0-9a-f]* of process 1000" \
		 runfrom:"page 1000 of process 0 is not its memory" \
		 runpages:"page run [0-9a-f]* .0 pages. outside VMA"; do
		refused_mutation "$m" "$PID" "$x" "$y" "$z" "$g"
	done
}

# term_tree: ckpt-pty (the root, holding the master) runs ckpt-term, L,
# which leads the session of the pty and put J in the foreground
term_tree() {
	rm -f "$T/go" "$T/tty"
	ckpt-pty "$T/tty" ckpt-term "$T" < /dev/null > "$T/out" 2>&1 3>&- 4>&- &
	PID=$!
	BG_PIDS="$BG_PIDS $PID"
	wait_for "$T/tty" ready
	read -r _ L J < "$T/tty"
	BG_PIDS="$BG_PIDS $L $J"
}

@test "tree: a pty whose master the tree holds comes back: the session's controlling terminal, foreground group, modes, window" {
	local how
	for how in sysfs syscall; do
		term_tree
		if [ "$how" = sysfs ]; then
			cat "/proc/$PID/checkpoint_tree" > "$T/img"
		else
			ckpt-save "$PID" "$T/img" 4 > /dev/null
		fi
		ckpt validate "$T/img"
		ckpt info "$T/img" > "$T/info"
		grep "pty 0" "$T/info"
		grep -q "pty 0: pts/[0-9]*, session $L, foreground group $J, 33x77" "$T/info"
		kill -9 "$PID" "$L" "$J"
		wait "$PID" 2> /dev/null || true
		wait_gone "$L"
		wait_gone "$J"
		restore_image "$how" "$T/go"
		cat "$T/tty" "$T/out"
		[ "$RC" -eq 0 ]
		grep -qx "J ok" "$T/tty"
		grep -qx "term ok" "$T/tty"
	done
	# a session led by the root, a pty the tree does not have: refused,
	# the tool says the same, none left
	for m in ptysession:"pty record 0: session $PID, group $J" \
		 ptyfile:"file [0-9]*: no pty 9 in the tree"; do
		refused_mutation "$m" "$PID" "$L" "$J"
	done
}

@test "tree: util-linux script, its session on its pty, checkpointed, killed, restored: the typescript ends as a plain run's" {
	local l j how
	for how in sysfs syscall; do
		rm -f "$T/go" "$T/typescript" "$T/in"
		# its input open and empty, as a user who types nothing: at the end
		# of a /dev/null, script would send the session an EOF not read yet
		mkfifo "$T/in"
		script -q -f -c "exec ckpt-term $T" "$T/typescript" 0<> "$T/in" > "$T/out" 2>&1 3>&- 4>&- &
		PID=$!
		BG_PIDS="$BG_PIDS $PID"
		wait_for "$T/typescript" ready
		read -r _ l j < <(grep "^ready" "$T/typescript" | tr -d "\r")
		BG_PIDS="$BG_PIDS $l $j"
		if [ "$how" = sysfs ]; then
			cat "/proc/$PID/checkpoint_tree" > "$T/img"
		else
			ckpt-save "$PID" "$T/img" 4 > /dev/null
		fi
		ckpt info "$T/img" | grep -q "pty 0: pts/[0-9]*, session $l, foreground group $j, 33x77"
		kill -9 "$PID" "$l" "$j"
		wait "$PID" 2> /dev/null || true
		wait_gone "$l"
		wait_gone "$j"
		restore_image "$how" "$T/go"
		cat "$T/typescript"
		[ "$RC" -eq 0 ]
		# what a run without the checkpoint writes, in order
		grep -v "^Script " "$T/typescript" | tr -d '\r' > "$T/lines"
		printf 'ready %s %s\nJ ok\nterm ok\n\n' "$l" "$j" | cmp - "$T/lines"
		grep -q 'COMMAND_EXIT_CODE="0"' "$T/typescript"
	done
}

@test "tree: bytes written to a pty of the tree and not read yet refuse the checkpoint (EOPNOTSUPP, named); read, it goes" {
	term_tree
	kill -STOP "$PID"
	printf 'hi\n' > "/dev/pts/$(basename "$(readlink "/proc/$L/fd/0")")"
	run sh -c "cat /proc/$PID/checkpoint_tree > $T/img"
	[ "$status" -ne 0 ]
	expect_log "pts[0-9]* master: 3 bytes not read (-95)"
	kill -CONT "$PID"
	wait_for "$T/tty" hi
	cat "/proc/$PID/checkpoint_tree" > "$T/img"
	touch "$T/go"
	wait "$PID"
	grep -qx "term ok" "$T/tty"
}

@test "tree: a restart that fails after a process made a SysV segment again removes it, and leaves no process" {
	local f s t id before p
	mkdir "$T/sub"
	start_bg "$T/out" ckpt-tree "$T" clone
	read -r _ _ f s t id < <(grep '^ready' "$T/out")
	BG_PIDS="$BG_PIDS $f $s $t"
	cat "/proc/$PID/checkpoint_tree" > "$T/img"
	kill -9 "$PID" "$f" "$s" "$t"
	wait "$PID" 2> /dev/null || true
	for p in "$f" "$s" "$t"; do wait_gone "$p"; done
	ckpt-sysv rm "$id"	# F, the first with it, makes it again
	before=$(wc -l < /proc/sysvipc/shm)
	# T, the last, cannot be made: its pid is taken
	refused_taken "$t"
	[ "$(wc -l < /proc/sysvipc/shm)" -eq "$before" ]
	for p in "$PID" "$f" "$s"; do [ ! -d "/proc/$p" ]; done
}

@test "tree: a controlling terminal (a pty whose master is outside) is a leak (EBUSY, named); --unshare lets it go" {
	local pty root kids
	ckpt-pty "$T/tty" sh -c 'echo ready; sleep 1000 | cat' 3>&- 4>&- &
	pty=$!
	BG_PIDS="$BG_PIDS $pty"
	wait_for "$T/tty" ready
	root=$(awk -v p="$pty" '$4 == p { print $1 }' /proc/[0-9]*/stat)
	kids=$(descendants "$root")
	BG_PIDS="$BG_PIDS $root $kids"
	[ "$(awk '{ print $7 }' "/proc/$root/stat")" -ne 0 ]
	run sh -c "cat /proc/$root/checkpoint_tree > $T/img"
	[ "$status" -ne 0 ]
	expect_log "process $root: its controlling terminal pts[0-9]* is outside the tree (-16)"
	ckpt checkpoint --tree --unshare -o "$T/img" "$root" > /dev/null
	ckpt validate "$T/img"
	# the terminal stays (ckpt-pty ends once no one has it open)
	exec 5<> "$(readlink "/proc/$root/fd/0")"
	kill -9 "$root" $kids
	wait_gone "$root"
	echo "$T/img" > /sys/kernel/ckpt/restart
	exec 5<&-
	# back, in a session of its own, without a controlling terminal
	[ -d "/proc/$root" ]
	[ "$(awk '{ print $7 }' "/proc/$root/stat")" -eq 0 ]
	[ "$(awk '{ print $6 }' "/proc/$root/stat")" -eq "$root" ]
	[ "$(descendants "$root" | wc -l)" -eq 2 ]
}
