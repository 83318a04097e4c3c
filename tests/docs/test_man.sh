#!/usr/bin/env bash
# The man pages are generated from the commands' own help text
# (scripts/gen-man): they must be current, cover every command, and render
# without groff warnings.
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
check "scripts/gen-man runs" scripts/gen-man "$T/man"
check "docs/man is current (run scripts/gen-man after changing a command's help)" diff -r "$T/man" docs/man
for c in $("$RDMATRACE" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
	check "man page for rdmatrace $c" test -s "docs/man/rdmatrace-$c.1"
done
if command -v groff >/dev/null; then
	check "the pages render without warnings" bash -c 'out=$(groff -man -ww -z docs/man/*.1 2>&1); [ -z "$out" ] || { echo "$out"; false; }'
else
	skip "the pages render without warnings" "groff not installed"
fi
done_testing
