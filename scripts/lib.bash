# shellcheck shell=bash
# Common helpers sourced by the scripts in scripts/.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$ROOT/build                       # everything generated lives here (git-ignored)
# Kernel variant (env KVARIANT): "test" (default: make check's debug kernel,
# tinyconfig + config/*.config) or "bench" (make bench: the same without
# config/debug.config, plus config/bench/*.config). Each variant has its own
# object dir, stamps and initramfs; all share build/linux and the kbuild lock.
KVARIANT=${KVARIANT:-test}
case $KVARIANT in
test) SFX= ;;
bench) SFX=-bench ;;
*) printf '%s: error: KVARIANT=%s: expected test or bench\n' "${0##*/}" "$KVARIANT" >&2; exit 2 ;;
esac
OBJ=$B/obj$SFX                      # kernel out-of-tree build directory
KLOCK=${KBUILD_LOCK:-$B/.kbuild.lock}   # every kernel make runs under this lock
BZIMAGE=$OBJ/arch/x86/boot/bzImage
INITRAMFS=$B/initramfs$SFX.cpio.gz

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# kconfig_fragments: the fragments of $KVARIANT, one a line, in merge order.
kconfig_fragments() {
	local f
	for f in "$ROOT"/config/*.config; do
		[[ $KVARIANT == bench && ${f##*/} == debug.config ]] || printf '%s\n' "$f"
	done
	[[ $KVARIANT != bench ]] || printf '%s\n' "$ROOT"/config/bench/*.config
}

# kmake ARGS...: kernel make in build/linux, out of tree in $OBJ, serialized by flock.
kmake() {
	local cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
	fi
	mkdir -p "$OBJ" "$(dirname "$KLOCK")"
	KBUILD_BUILD_USER=ckpt KBUILD_BUILD_HOST=ckpt KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' \
		flock "$KLOCK" make -s -C "$B/linux" O="$OBJ" ARCH=x86_64 CC="$cc" "$@"
}

# hash_files FILE...: one sha256 over names and contents of existing files.
hash_files() {
	local f
	for f in "$@"; do [[ -e $f ]] && printf '%s\n' "${f#"$ROOT"/}" && cat "$f"; done | sha256sum | cut -d' ' -f1
}
