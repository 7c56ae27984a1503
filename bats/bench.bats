#!/usr/bin/env bats
# Smoke test of make bench: its guest script (scripts/bench-guest) still runs
# end to end with N=1 and one repetition. No timing thresholds: it fails when a
# step fails, e.g. a checkpoint, a criu dump or restore, or the check of the
# restored memory.

setup() { load helpers; }
teardown() { rm -rf /tmp/bench; }

@test "bench-guest N=1, one repetition: ours (1 and 64 threads, a tree of 16 processes), criu and dd measured, restored memory verified" {
	run bench-guest -s 1 -r 1
	echo "$output"
	assert_success
	assert_line --regexp '^raw ours 1 1 ckpt [0-9]+ held [0-9]+ image [0-9]+ restart [0-9]+ write [0-9]+ dirty [0-9]+$'
	assert_line --regexp '^raw ours64t 1 1 ckpt [0-9]+ held [0-9]+ image [0-9]+ restart [0-9]+ write [0-9]+ dirty [0-9]+$'
	assert_line --regexp '^raw ours16p 1 1 ckpt [0-9]+ held [0-9]+ image [0-9]+ restart [0-9]+ write [0-9]+ dirty [0-9]+$'
	assert_line --regexp '^raw stopped 1 1 ckpt [0-9]+ held - image [0-9]+ restart - write - dirty -$'
	assert_line --regexp '^raw criu 1 1 ckpt [0-9]+ held [0-9]+ image [0-9]+ restart [0-9]+ write [0-9]+ dirty [0-9]+$'
	assert_line --regexp '^raw dd 1 1 ckpt [0-9]+ held - image 1048576 restart [0-9]+ write - dirty -$'
	assert_line --partial 'bench: N=1 rep 1: ours ckpt'
	assert_line 'bench: done'
}
