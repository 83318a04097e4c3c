#!/usr/bin/env bash
# `rdmatrace dump` on a real trace from the synthetic workload: text, JSON,
# filters, several files, and clear errors for bad input.
. tests/lib.sh
SYNTH=$BUILD/rdmatrace-synth
T=$(mktemp -d /tmp/rdmatrace-dump-XXXXXX)
trap 'rm -rf "$T"' EXIT

RDMATRACE_OUTPUT=$T/a.rtr "$SYNTH" --threads 2 --messages 20 --rnr-at 5 --error-at 7 >/dev/null
check "synthetic workload wrote a trace" test -s "$T/a.rtr"
check "trace file is owner-only (0600)" test "$(stat -c %a "$T/a.rtr")" = 600
"$RDMATRACE" dump "$T/a.rtr" >"$T/a.txt" 2>"$T/a.err"
check "dump exits 0 on a clean file" test $? -eq 0
check_grep "text has work requests" ' wr_post qpn=17 queue=send opcode=RDMA_WRITE wr_id=0x1 ' "$T/a.txt"
check_grep "text has the error completion" 'completion qpn=[0-9]+ wr_id=0x7 status=RETRY_EXC_ERR' "$T/a.txt"
check_grep "text has the RNR NAK" ' rnr qpn=[0-9]+ dir=rx psn=[0-9]+ timer_code=14 timer_us=960' "$T/a.txt"
check_grep "text names program and pid" 'rdmatrace-synth\[[0-9]+\]/[0-9]+ #' "$T/a.txt"
# 2 threads x (8 setup + 20 x (1 wr + 8 pkts + 1 ack + 1 wc) + retry extras) + 2 markers
n=$(grep -c ' wr_post ' "$T/a.txt")
check "40 work requests" test "$n" -eq 40
sorted=$(awk '{print $1}' "$T/a.txt" | sort -c 2>&1 && echo yes)
check "records come out in time order" test "$sorted" = yes

"$RDMATRACE" dump --json "$T/a.rtr" >"$T/a.json"
check "json: one object per line, as many as text lines" test "$(wc -l <"$T/a.json")" -eq "$(wc -l <"$T/a.txt")"
if command -v python3 >/dev/null; then
	check "json parses" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/a.json"
else
	skip "json parses" "no python3"
fi
check_grep "json has kind and fields" '"kind":"completion".*"status":"RETRY_EXC_ERR"' "$T/a.json"

"$RDMATRACE" dump --kind completion --qpn 17 "$T/a.rtr" >"$T/f.txt"
check "filters: only completions of QP 17" test "$(grep -vc ' completion qpn=17 ' "$T/f.txt")" -eq 0 -a "$(wc -l <"$T/f.txt")" -eq 20
check_fails "unknown kind is an error" "$RDMATRACE" dump --kind nonsense "$T/a.rtr"

RDMATRACE_OUTPUT=$T/b.rtr "$SYNTH" --threads 1 --messages 5 >/dev/null
"$RDMATRACE" dump "$T/a.rtr" "$T/b.rtr" >"$T/ab.txt"
check "two files merge: all records of both" test "$(wc -l <"$T/ab.txt")" -eq $(($(wc -l <"$T/a.txt") + $("$RDMATRACE" dump "$T/b.rtr" | wc -l)))
check "merged output stays in time order" bash -c "awk '{print \$1}' '$T/ab.txt' | sort -c"
"$RDMATRACE" dump --info "$T/a.rtr" >"$T/info.txt"
check_grep "--info shows the header" 'program rdmatrace-synth, pid [0-9]+, mode stream, clock (tsc|monotonic)' "$T/info.txt"

check_fails "no file is a usage error" "$RDMATRACE" dump
check_fails "missing file fails" "$RDMATRACE" dump "$T/none.rtr"
echo "hello, not a trace" >"$T/text.rtr"
err=$("$RDMATRACE" dump "$T/text.rtr" 2>&1 >/dev/null); rc=$?
check "non-trace file: exit 2 naming file and offset" bash -c "[ $rc -eq 2 ] && grep -q '$T/text.rtr: not an rdmatrace trace file (bad magic at byte offset 0)' <<<'$err'"
done_testing
