#!/usr/bin/env bats
# Host-side tests of scripts/vm-run (each test boots the guest once: keep them few).

@test "vm-run returns the command's exit status and output, --add adds files and dirs" {
	echo payload > "$BATS_TEST_TMPDIR/file"
	mkdir -p "$BATS_TEST_TMPDIR/dir/sub" && echo inner > "$BATS_TEST_TMPDIR/dir/sub/x"
	run scripts/vm-run --add "$BATS_TEST_TMPDIR/file:/tmp/in/file" \
		--add "$BATS_TEST_TMPDIR/dir:/opt/added" --timeout 300 \
		-- sh -c 'cat /tmp/in/file /opt/added/sub/x; ls -ld /bin | cut -c1; exit 7'
	echo "$output"
	[ "$status" -eq 7 ]
	[ "$output" = "$(printf 'payload\ninner\nl')" ]
}
