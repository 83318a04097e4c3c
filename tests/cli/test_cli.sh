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

# The memory set-up of the commands that build timelines
# (cli/timeline_memory.c), seen with strace on one generated run (a 20 k
# packet run's arrays are megabytes)
tmp=$(mktemp -d /tmp/rdmatrace-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v strace >/dev/null && "$BUILD/bench/correlate_gen" "$tmp/run" 20000 >/dev/null

# They run again with glibc asking for transparent huge pages where the
# kernel gives them only on request
if command -v strace >/dev/null && grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
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

# ... and take every block from glibc's main heap: no anonymous mapping of a
# MiB or more but thread stacks, where glibc's defaults map the build's
# arrays and give each thread a heap of its own
if command -v strace >/dev/null && ! sanitizer_build; then
	big_maps() { # big_maps STRACE_LOG: anonymous mappings of 1 MiB or more, stacks left out
		grep 'mmap(' "$1" | grep MAP_ANONYMOUS | grep -v MAP_STACK |
			awk -F', ' '$2 >= 1048576' | wc -l
	}
	strace -f -qq -e trace=mmap -o "$tmp/heap" "$RDMATRACE" correlate --quiet --force "$tmp/run" >/dev/null 2>&1
	check "correlate: the build's memory all from the main heap" test "$(big_maps "$tmp/heap")" = 0
	RDMATRACE_MALLOC_DEFAULTS=1 strace -f -qq -e trace=mmap -o "$tmp/heap-defaults" \
		"$RDMATRACE" correlate --quiet --force "$tmp/run" >/dev/null 2>&1
	check "RDMATRACE_MALLOC_DEFAULTS=1: glibc's defaults (large blocks mapped)" test "$(big_maps "$tmp/heap-defaults")" -gt 0
else
	skip "main heap for timeline commands" "no strace, or a sanitizer build (its own allocator)"
fi
done_testing
