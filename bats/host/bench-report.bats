#!/usr/bin/env bats
# Host-side test of scripts/bench-report (no guest boot): medians, ratios, chart.

setup() {
	L=$BATS_TEST_TMPDIR/guest.log
	cat > "$L" <<-'END'
	bench: kernel 6.1.0, 2 cpus, 2001 MiB
	bench: criu 3.17.1; criu check: Looks good.
	raw ours 4 1 ckpt 10000000 held 2000000 image 4194304 restart 5000000 write 4000000 dirty 4194304
	raw ours 4 2 ckpt 30000000 held 4000000 image 4194304 restart 7000000 write 4000000 dirty 4194304
	raw ours 4 3 ckpt 20000000 held 9000000 image 4194304 restart 6000000 write 4000000 dirty 4194304
	raw criu 4 1 ckpt 200000000 held 40000000 image 8388608 restart 60000000 write 50000000 dirty 4194304
	raw criu 4 2 ckpt 200000000 held 40000000 image 8388608 restart 60000000 write 50000000 dirty 4194304
	raw criu 4 3 ckpt 200000000 held 40000000 image 8388608 restart 60000000 write 50000000 dirty 4194304
	raw dd 4 1 ckpt 4000000 held - image 4194304 restart 3000000 write - dirty -
	raw dd 4 2 ckpt 4000000 held - image 4194304 restart 3000000 write - dirty -
	raw dd 4 3 ckpt 4000000 held - image 4194304 restart 3000000 write - dirty -
	END
}

@test "bench-report: medians per size, ratios to criu and to the limit, an SVG chart" {
	run scripts/bench-report "$L" "$BATS_TEST_TMPDIR/chart.svg"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "make bench: medians of 3 runs; kernel 6.1.0, 2 cpus, 2001 MiB; criu 3.17.1"* ]]
	# median 20 ms vs 200 ms (0.10) and 4 ms (5.00)
	[[ $output =~ checkpoint\ ms\ +20\.00\ +200\.0\ +4\.00\ +0\.10\ +5\.00 ]]
	[[ $output =~ held\ still\ ms\ +4\.00\ +40\.00\ +-\ +0\.10\ +- ]]
	[[ $output =~ restart\ ms\ +6\.00\ +60\.00\ +3\.00\ +0\.10\ +2\.00 ]]
	[[ $output =~ image\ MiB\ +4\.00\ +8\.00\ +4\.00\ +0\.50\ +1\.00 ]]
	grep -q '^<svg ' "$BATS_TEST_TMPDIR/chart.svg"
	# 3 clusters of ours, criu, limit; held still has no limit
	[ "$(grep -c '<rect .*<title>' "$BATS_TEST_TMPDIR/chart.svg")" -eq 8 ]
	tail -n 1 "$BATS_TEST_TMPDIR/chart.svg" | grep -q '^</svg>$'
}

@test "bench-report: a log without measurements is an error" {
	echo "bench: error: criu dump failed" > "$L"
	run scripts/bench-report "$L"
	[ "$status" -eq 1 ]
	[[ $output == *"no raw lines"* ]]
}
