# Build/boot/test harness. `make check` is the test command (also .ci/run).
.PHONY: check bench demo fuzz deps kernel initramfs checkpatch kernel-git export clean help

check:          ## deps + kernel + initramfs + bats suite in the guest (last line: N passed, N failed, N skipped)
	@scripts/check

bench:          ## non-debug kernel + criu in one guest boot: ours vs criu vs tmpfs dd (BENCH_SIZES, BENCH_REPS) -> build/bench/
	@scripts/bench

demo:           ## set up like check, boot the guest: count, checkpoint with cat, kill, restore with echo
	@scripts/demo

fuzz:           ## set up like check, boot the guest: ckpt-fuzz restarts FUZZ_CASES (50000) changed images (FUZZ_SEED, FUZZ_TIMEOUT)
	@scripts/fuzz

deps:           ## install missing Debian packages
	@scripts/deps

kernel: deps    ## unpack, patch, configure and build the debug kernel (incremental)
	@scripts/build-kernel

initramfs: kernel ## build build/initramfs.cpio.gz (only when its inputs changed)
	@scripts/build-initramfs

checkpatch: deps ## checkpatch.pl --strict over every patch; fails on ERROR/WARNING
	@scripts/checkpatch

kernel-git: deps ## create build/git: pristine kernel (tag base) + the series as commits
	@scripts/kernel-git

export:         ## write build/git's commits base..HEAD back to patches/ + patches/series
	@scripts/export-series

clean:          ## remove the harness's build outputs (keeps build/git and the ccache)
	rm -rf build/pristine build/pristine.tmp build/stage build/linux build/obj build/obj-bench build/progs \
		build/progs-bench build/ckpt-tool build/ckpt-tool-bench build/kselftest build/kselftest-bench build/initramfs.root build/initramfs-bench.root build/initramfs*.cpio.gz \
		build/initramfs*.cpio.gz.tmp build/check build/bench build/*.stamp build/config*.log

help:
	@grep -E '^[a-z-]+:.*##' Makefile | sed 's/:.*##/\t/'
