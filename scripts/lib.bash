# shellcheck shell=bash
# Common helpers sourced by the scripts in scripts/.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$ROOT/build                       # everything generated lives here (git-ignored)
OBJ=$B/obj                          # kernel out-of-tree build directory
KLOCK=${KBUILD_LOCK:-$B/.kbuild.lock}   # every kernel make runs under this lock
BZIMAGE=$OBJ/arch/x86/boot/bzImage
INITRAMFS=$B/initramfs.cpio.gz

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# kmake ARGS...: kernel make in build/linux, out of tree in build/obj, serialized by flock.
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
