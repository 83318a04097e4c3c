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
# Numbers given on the command line (cli/number_arg.c): nothing, a sign,
# white space, trailing characters and values out of range are refused with
# a usage error (status 2) that names what was given; good ones are taken
number_refused() { # number_refused DESC ARG... : status 2 and the bad value named
	local desc=$1 bad=${*: -1} rc=0 err
	shift
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "'$bad'" <<<"$err"; then ok "$desc"; else
		not_ok "$desc (status $rc)"; printf '%s\n' "$err" | sed 's/^/#   /' | head -5; fi
}
for bad in "" "-1" "+3" " 3" "3x" "0x1000000" "99999999999999999999999"; do
	number_refused "dump --qpn '$bad' refused" "$RDMATRACE" dump /dev/null --qpn "$bad"
	number_refused "packets --qp '$bad' refused" "$RDMATRACE" packets /dev/null --qp "$bad"
done
for bad in "" "-2" " 2" "2x" "18446744073709551616"; do
	number_refused "diagnose --limit '$bad' refused" "$RDMATRACE" diagnose "$tmp" --limit "$bad"
	number_refused "wireshark --frame '$bad' refused" "$RDMATRACE" wireshark --frame "$bad"
done
for bad in "0" "5x" "-5" "99999999999"; do
	number_refused "snapshot '$bad' refused" "$RDMATRACE" snapshot -- "$bad"
	err=$("$RDMATRACE" view --frames "$bad" "$tmp" 2>&1 >/dev/null)
	check "view --frames '$bad' refused" grep -q -- "--frames needs a positive number" <<<"$err"
done
err=$("$RDMATRACE" dump --qpn 0x11 /dev/null 2>&1 >/dev/null)
check "dump --qpn 0x11 taken (the file is what it complains of)" bash -c "! grep -q 'bad QP number' <<<\"\$1\"" _ "$err"
err=$("$RDMATRACE" diagnose --limit 3 "$tmp/none" 2>&1 >/dev/null)
check "diagnose --limit 3 taken" bash -c "! grep -q 'needs a number' <<<\"\$1\"" _ "$err"
done_testing
