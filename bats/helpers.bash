# shellcheck shell=bash
# Shared helpers for the guest tests: `load helpers` in setup().
bats_load_library bats-support
bats_load_library bats-assert

# Test programs from bats/progs: NAME (static) and NAME-dyn (dynamic).
CKPT_BIN=/opt/ckpt/bin

# as_nobody CMD [ARGS...]: run CMD as the unprivileged user nobody (uid/gid 65534).
as_nobody() {
	runas 65534 65534 "$@"
}
