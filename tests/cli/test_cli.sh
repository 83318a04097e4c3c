#!/usr/bin/env bash
# The rdmatrace command itself: overview, per-command help, unknown commands.
. tests/lib.sh

out=$("$RDMATRACE" --help)
check "--help lists commands" grep -q '^commands:' <<<"$out"
check_fails "no arguments is a usage error" "$RDMATRACE"
check_fails "unknown command is an error" "$RDMATRACE" no-such-command
err=$("$RDMATRACE" no-such-command 2>&1 >/dev/null)
check "unknown command names itself" grep -q "unknown command 'no-such-command'" <<<"$err"
for cmd in $("$RDMATRACE" --help | awk '/^commands:/ {on=1; next} on && !NF {exit} on {print $1}'); do
	check "$cmd --help prints usage" bash -c "'$RDMATRACE' $cmd --help | grep -qi usage"
done

# Commands that build timelines run again with glibc asking for transparent
# huge pages where the kernel gives them only on request (cli/huge_pages.c)
if command -v strace >/dev/null && grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	tmp=$(mktemp -d /tmp/rdmatrace-cli.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	"$BUILD/bench/correlate_gen" "$tmp/run" 200 >/dev/null
	strace -f -qq -v -s 256 -e trace=execve -o "$tmp/st" "$RDMATRACE" correlate --quiet "$tmp/run" >/dev/null 2>&1
	check "correlate runs itself again once, with glibc.malloc.hugetlb=1" \
		test "$(grep -c 'execve(.*GLIBC_TUNABLES=glibc.malloc.hugetlb=1' "$tmp/st")" = 1
	GLIBC_TUNABLES=glibc.malloc.check=0 strace -f -qq -v -s 256 -e trace=execve -o "$tmp/st2" \
		"$RDMATRACE" diagnose "$tmp/run" >/dev/null 2>&1
	check "a GLIBC_TUNABLES of the user's is kept, the tunable added to it" \
		grep -q 'GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1' "$tmp/st2"
	RDMATRACE_NO_HUGE_PAGES=1 strace -f -qq -v -s 256 -e trace=execve -o "$tmp/st3" \
		"$RDMATRACE" diagnose "$tmp/run" >/dev/null 2>&1
	check "RDMATRACE_NO_HUGE_PAGES=1: one start" test "$(grep -c 'execve(' "$tmp/st3")" = 1
	strace -f -qq -e trace=execve -o "$tmp/st4" "$RDMATRACE" dump --info "$tmp"/run/traces/* >/dev/null 2>&1
	check "a command that builds no timeline: one start" test "$(grep -c 'execve(' "$tmp/st4")" = 1
else
	skip "huge pages for timeline commands" "no strace, or the kernel's THP mode is not madvise"
fi
done_testing
