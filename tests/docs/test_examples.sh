#!/usr/bin/env bash
# Every command shown in the docs runs again and prints what the docs show,
# up to times, numbers, addresses and paths (scripts/doc-examples --check).
. tests/lib.sh
files=$(grep -l '^<!-- example: ' docs/*.md docs/*/*.md README.md 2>/dev/null)
if [ -z "$files" ]; then skip "doc examples" "no examples in the docs"; done_testing; exit; fi
if sanitizer_build; then
	# the examples' lab runs race on purpose (late receivers, loss); a slowed-down
	# build changes which race wins, not what the docs are about
	skip "doc examples" "sanitizer build: the examples are recorded from the normal build's timing"
	done_testing
	exit
fi
for f in $files; do
	if out=$(scripts/doc-examples --check "$f" 2>&1); then
		ok "examples in $f ($(tail -1 <<<"$out" | sed 's/doc-examples: //'))"
	else
		not_ok "examples in $f"
		sed 's/^/#   /' <<<"$out" | head -60
	fi
done
rm -rf runs/doc-*
done_testing
