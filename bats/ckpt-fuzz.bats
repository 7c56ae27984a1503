#!/usr/bin/env bats
# restart() fed images of rich processes changed in one place, records
# known (ckpt-fuzz): every case is refused with an errno or restored, none
# hangs its caller (and vm-run fails the run on a kernel-log splat).
# FUZZ_SEED, FUZZ_CASES and FUZZ_TIMEOUT (ms) override the defaults
# (scripts/fuzz runs many more cases); FUZZ_PROGRESS=N shows a progress
# line every N cases as the fuzzer runs.

load ckpt-lib

# The restored processes open their files again as themselves (ckpt-creds
# is uid 1000): $T and their output files must be theirs to open.
setup() {
	ckpt_setup
	chmod 755 "$T"
}

# A case may bring back ckpt-sysv's segments, or make new ones: none of
# them may outlive the test (ckpt-sysv's key would be in use).
teardown() {
	ckpt_teardown
	remove_sysv_segments
}

# fuzz_image NAME COMMAND...: $T/NAME.img of COMMAND, killed after; added
# to IMGS. The programs wait for $T/go, which never comes: a restored
# process waits on until it is killed.
fuzz_image() {
	touch "$T/$1.out"
	chmod 0666 "$T/$1.out"
	image_of "$@"
	IMGS+=("$T/$1.img")
}

fuzz_images() {
	IMGS=()
	mkdir "$T/files" "$T/pipes" "$T/shm"
	fuzz_image events ckpt-events "$T/go"
	fuzz_image pipes ckpt-pipes "$T/pipes" "$T/go"
	fuzz_image files ckpt-files "$T/files" "$T/go"
	fuzz_image ptimers ckpt-ptimers "$T/go"
	fuzz_image timers ckpt-timers "$T/go"
	fuzz_image seccomp ckpt-seccomp "$T/go"
	fuzz_image signals ckpt-signals "$T/go"
	fuzz_image creds ckpt-creds "$T/go"
	fuzz_image limits ckpt-limits "$T/go"
	fuzz_image madvise ckpt-madvise "$T/go"
	fuzz_image memfd ckpt-memfd "$T/go"
	fuzz_image shm ckpt-shm "$T/shm" "$T/go"
	fuzz_image sysv ckpt-sysv "$T/go"
	fuzz_image mem-dyn ckpt-mem-dyn "$T/go"
	fuzz_image locks ckpt-locks hold "$T/locks.f" "$T/go"
	fuzz_image threads ckpt-threads 14 "$T/go"
}

# tap: stdin, line by line as it comes, to the TAP stream as comments
tap() {
	local l
	while IFS= read -r l; do
		printf '# %s\n' "$l" >&3
	done
}

@test "fuzz: images changed in one place (checksum recomputed) are refused or restored, never hang the restorer" {
	local seed=${FUZZ_SEED:-1} cases=${FUZZ_CASES:-3000} rc=0 start
	fuzz_images
	ls -l "${IMGS[@]}"
	start=$SECONDS
	if [ -n "${FUZZ_PROGRESS:-}" ]; then
		# as it runs, on the TAP stream
		{
			ckpt-fuzz -s "$seed" -n "$cases" -t "${FUZZ_TIMEOUT:-5000}" \
				-p "$FUZZ_PROGRESS" "${IMGS[@]}" 2>&1 || echo "$?" > "$T/rc"
		} | tee "$T/fuzz.out" | tap
		[ ! -f "$T/rc" ] || rc=$(cat "$T/rc")
	else
		ckpt-fuzz -s "$seed" -n "$cases" -t "${FUZZ_TIMEOUT:-5000}" \
			"${IMGS[@]}" > "$T/fuzz.out" 2>&1 || rc=$?
		# the summary, in the TAP log too
		tap < "$T/fuzz.out"
	fi
	echo "ckpt-fuzz -s $seed -n $cases over ${#IMGS[@]} images:" \
		"exit $rc in $((SECONDS - start)) s" | tap
	cat "$T/fuzz.out"
	[ "$rc" -eq 0 ]
	grep -qx "cases $cases" "$T/fuzz.out"
	grep -qx "hangs 0" "$T/fuzz.out"
}

@test "fuzz: the same seed gives the same cases, each case the same alone, another seed others" {
	local k
	IMGS=()
	fuzz_image events ckpt-events "$T/go"
	fuzz_image pipes ckpt-pipes "$T" "$T/go"
	fuzz_image sleep ckpt-wait sleep 100000
	ckpt-fuzz -l -s 42 -n 300 "${IMGS[@]}" > "$T/a"
	ckpt-fuzz -l -s 42 -n 300 "${IMGS[@]}" > "$T/b"
	ckpt-fuzz -l -s 43 -n 300 "${IMGS[@]}" > "$T/c"
	ckpt-fuzz -l -s 42 -f 123 -n 1 "${IMGS[@]}" > "$T/one"
	head -n 5 "$T/a"
	[ "$(wc -l < "$T/a")" -eq 300 ]
	cmp "$T/a" "$T/b"
	run cmp -s "$T/a" "$T/c"
	[ "$status" -eq 1 ]
	[ "$(cat "$T/one")" = "$(sed -n 124p "$T/a")" ]
	# every kind of change is made
	for k in field len type drop dup swap trunc str; do
		grep -q "^case [0-9]* [^:]*: $k " "$T/a"
	done
	# an image that is not one is refused
	head -c 1000 "$T/events.img" > "$T/cut.img"
	expect_rc 2 ckpt-fuzz -l "$T/cut.img"
	expect_rc 2 ckpt-fuzz
}

# Checks that look at the restoring machine, not at the image (paths that
# must open, ids that must be free, the restorer's privileges, this CPU's
# and this kernel's features, clocks that must exist): ckpt validate cannot
# see them (ckpt.8), so it may accept such an image, or go on past the
# kernel's check and refuse it for a later reason. By errno, then by text.
LIVE_ERRNOS=" ENOENT ENOTDIR ENAMETOOLONG EACCES ELOOP EISDIR ENXIO ESTALE EBUSY EPERM "
LIVE_TEXTS="this CPU lacks|^xstate size [0-9]+ exceeds|unsupported here$|no alarm clock here$"

# kernel_text IMG: the kernel's log line for restarting IMG again, once
# the log's rate limit (10 lines in 5 s) lets it through
kernel_text() {
	sleep 5.1
	dmesg -c > /dev/null
	timeout 10 rstr 0 "$1" > /dev/null 2>&1 || true
	log_reason 'rstr\[[0-9]*\]'
}

@test "fuzz: ckpt validate gives the kernel's verdict on fuzzed images: its errno, and its text where the log kept it" {
	local f line img e what v same=0 texts=0 live=0 n=0 bad=0
	fuzz_images
	mkdir "$T/cases"
	for f in 0 75; do
		dmesg -c > /dev/null
		ckpt-fuzz -v -s 2 -f "$f" -n 75 -t "${FUZZ_TIMEOUT:-5000}" -w "$T/cases" \
			"${IMGS[@]}" > "$T/batch" 2>&1
		while IFS= read -r line; do
			[[ $line =~ ^case\ ([0-9]+)\ .*\ -\>\ (errno\ ([A-Z0-9]+)\ \(pid\ ([0-9]+)\)|restored) ]] || continue
			img=$T/cases/case-${BASH_REMATCH[1]}.img
			e=${BASH_REMATCH[3]}
			v=$(ckpt validate "$img" 2>&1) || true
			n=$((n + 1))
			if [ "${BASH_REMATCH[2]}" = restored ]; then
				what=ok
			elif [[ $LIVE_ERRNOS == *" $e "* ]]; then
				live=$((live + 1))
				rm "$img"
				continue
			else
				what=$(log_reason "ckpt-fuzz\[${BASH_REMATCH[4]}\]")
				# rate-limited away: needed when the verdicts differ
				if [ -z "$what" ] && [[ $e == EOPNOTSUPP || $v != "$img: $e: "* ]]; then
					what=$(kernel_text "$img")
				fi
				if [[ $what =~ $LIVE_TEXTS ]]; then
					live=$((live + 1))
					rm "$img"
					continue
				fi
				[ -z "$what" ] || texts=$((texts + 1))
				what="$e: ${what:-${v#"$img: $e: "}}"
			fi
			if [ "$v" = "$img: $what" ]; then
				same=$((same + 1))
			else
				echo "${line%% ->*}: kernel '$what', validate '$v'"
				bad=$((bad + 1))
			fi
			rm "$img"
		done < "$T/batch"
	done
	echo "$n cases: $same same verdict ($texts with the kernel's text), $live live checks, $bad differ" | tap
	[ "$n" -eq 150 ] && [ "$bad" -eq 0 ] && [ "$texts" -ge 12 ]
}
