#!/usr/bin/env bats
# Host-side checks of the series' documentation in the patched tree
# (build/linux): kernel-doc of the ckpt sources, the ABI entries, the rst.

setup() {
	K=$BATS_TEST_DIRNAME/../../build/linux
	[ -f "$K/Documentation/userspace-api/ckpt.rst" ] || skip "no patched tree (make kernel)"
}

@test "docs: kernel-doc finds no warning in the ckpt sources and headers" {
	cd "$K"
	run scripts/kernel-doc -none kernel/ckpt/*.c include/linux/ckpt.h \
		include/uapi/linux/ckpt.h arch/x86/kernel/ckpt.c
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	# and it does find one where a member is not described
	sed 's/^ \* @nr_held:.*$//' include/linux/ckpt.h > "$BATS_TEST_TMPDIR/ckpt.h"
	run scripts/kernel-doc -none "$BATS_TEST_TMPDIR/ckpt.h"
	[[ $output == *"'nr_held' not described"* ]]
}

@test "docs: the ABI entries of /proc/<pid>/checkpoint and /sys/kernel/ckpt/restart validate" {
	cd "$K"
	d=$BATS_TEST_TMPDIR/abi
	mkdir "$d"
	cp Documentation/ABI/testing/procfs-checkpoint Documentation/ABI/testing/sysfs-kernel-ckpt "$d/"
	run scripts/get_abi.pl validate --dir "$d"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run scripts/get_abi.pl rest --dir "$d"
	[[ $output == *'**\/proc\/\<pid\>\/checkpoint**'* ]]
	[[ $output == *'**\/sys\/kernel\/ckpt\/restart**'* ]]
}

@test "docs: userspace-api/ckpt.rst parses as reStructuredText without a warning, and is in the index" {
	cd "$K"
	grep -qx '   ckpt' Documentation/userspace-api/index.rst
	# docutils with Sphinx's :manpage: role as plain text
	run python3 - Documentation/userspace-api/ckpt.rst <<'PY'
import sys
from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import directives, roles
from docutils.parsers.rst.directives.body import CodeBlock

def manpage(name, rawtext, text, lineno, inliner, options={}, content=[]):
    return [nodes.literal(rawtext, text)], []

roles.register_local_role("manpage", manpage)
directives.register_directive("code-block", CodeBlock)
src = open(sys.argv[1]).read()
publish_doctree(src, source_path=sys.argv[1],
                settings_overrides={"report_level": 2, "halt_level": 2})
PY
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
}

@test "docs: the ckpt(8) man page renders without a warning and documents every subcommand" {
	cd "$K/tools/ckpt"
	run groff -man -Tutf8 -ww -z ckpt.8
	[ "$status" -eq 0 ] && [ -z "$output" ]
	for s in info validate checkpoint restart help; do
		grep -q "^\.SS ckpt $s" ckpt.8
	done
	grep -qi "json" ckpt.8
}
