#!/usr/bin/env bash
# Crashes: a traced program killed with SIGKILL (its events salvaged from
# shared memory), one ended before its destructors ran (its exit handler
# wrote the trace), a fatal signal in flight-recorder mode (the handler gets
# the rings written before the program dies), `rdmatrace snapshot PID`, and
# an error completion triggering a flight-recorder snapshot.
. tests/lib.sh
SYNTH=$BUILD/rdmatrace-synth
T=$(mktemp -d /tmp/rdmatrace-crash-XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do rm -f "/dev/shm/rdmatrace-$(id -u)-$p"; done
	rm -rf "$T"
}
trap cleanup EXIT

# wait_ready FILE: until the synthetic program printed "ready PID" (at most 20 s)
wait_ready() {
	for _ in $(seq 200); do
		grep -q '^ready' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
records() { "$RDMATRACE" dump "$@" 2>/dev/null | grep -vc ' clock_sync '; }
# 1 thread x 50 messages x (1 wr + 8 packets + 1 ack + 1 completion) + 8 setup + 2 markers = 560
EXPECT=560

# --- SIGKILL in stream mode: the collector had drained nothing (long flush interval) ---
RDMATRACE_OUTPUT=$T/k.rtr RDMATRACE_FLUSH_MS=600000 "$SYNTH" --threads 1 --messages 50 --then wait >"$T/k.out" &
pid=$!; pids+=($pid)
check "stream: program ready" wait_ready "$T/k.out"
kill -9 $pid; wait $pid 2>/dev/null
check "stream: segment left behind" test -e "/dev/shm/rdmatrace-$(id -u)-$pid"
# the collector's first poll may have written the first record before the long sleep
partial=$(records "$T/k.rtr")
"$RDMATRACE" salvage --list >"$T/list.txt"
check_grep "salvage --list shows the dead program" "rdmatrace-$(id -u)-$pid .*pids=$pid producers=dead collector=$pid\(gone\) pending=$((EXPECT - partial))" "$T/list.txt"
check "salvage by pid" "$RDMATRACE" salvage -o "$T/k-salvaged.rtr" $pid
check "salvaged file is owner-only" test "$(stat -c %a "$T/k-salvaged.rtr")" = 600
n=$(records "$T/k-salvaged.rtr")
check "stream: salvaged + already written = all $EXPECT records (got $n + $partial)" test $((n + partial)) -eq $EXPECT
check "segment removed after salvage" test ! -e "/dev/shm/rdmatrace-$(id -u)-$pid"
check_fails "salvage of an unknown pid fails" "$RDMATRACE" salvage -o "$T/none.rtr" 999999
# the partial file the dead collector left is still readable
check "dead collector's own file is readable" "$RDMATRACE" dump "$T/k.rtr"
"$RDMATRACE" dump "$T/k-salvaged.rtr" "$T/k.rtr" >/dev/null
check "salvaged + partial file merge without damage" test $? -eq 0

# --- a return from main, and the process ended (_exit) before the destructors
# ran, as another thread's exit() can: the collector had drained nothing, the
# exit handler the tracer registers wrote it all
# (in flight-recorder mode, its exit snapshot: the rings hold them all); the
# segment stays for salvage, with nothing pending ---
for mode in stream flight; do
	RDMATRACE_OUTPUT=$T/x-$mode.rtr RDMATRACE_MODE=$mode RDMATRACE_FLUSH_MS=600000 \
		"$SYNTH" --threads 1 --messages 50 --then exit-early &
	pid=$!; pids+=($pid)
	wait $pid
	check "exit-early ($mode): the program exits 0" test $? -eq 0
	n=$(records "$T/x-$mode.rtr")
	check "exit-early ($mode): all $EXPECT records in the file (got $n)" test "$n" -eq $EXPECT
	"$RDMATRACE" salvage --list >"$T/list-$mode.txt" 2>&1
	check_grep "exit-early ($mode): the segment left has nothing pending" \
		"rdmatrace-$(id -u)-$pid .* pending=0( |\$)" "$T/list-$mode.txt"
	rm -f "/dev/shm/rdmatrace-$(id -u)-$pid"
done

# --- SIGKILL in flight-recorder mode with a small ring: the newest records survive ---
RDMATRACE_OUTPUT=$T/f.rtr RDMATRACE_MODE=flight RDMATRACE_RING_KB=16 RDMATRACE_SIGNALS=none \
	"$SYNTH" --threads 1 --messages 2000 --then wait >"$T/f.out" &
pid=$!; pids+=($pid)
check "flight: program ready" wait_ready "$T/f.out"
kill -9 $pid; wait $pid 2>/dev/null
check "flight: salvage by segment name" "$RDMATRACE" salvage -o "$T/f-salvaged.rtr" "rdmatrace-$(id -u)-$pid"
"$RDMATRACE" dump "$T/f-salvaged.rtr" >"$T/f.txt"
check_grep "flight: the last marker survived" 'marker qpn=0 text="synth done"' "$T/f.txt"
check_grep "flight: the last completion survived" 'completion qpn=17 wr_id=0x7d0 ' "$T/f.txt"
check_grep "flight: overwritten records are counted" 'lost qpn=0 cause=overwritten count=[0-9]+' "$T/f.txt"

# --- fatal signal in flight-recorder mode: the handler has the rings written ---
RDMATRACE_OUTPUT=$T/s.rtr RDMATRACE_MODE=flight "$SYNTH" --threads 2 --messages 30 --then segv >"$T/s.out" 2>&1 &
pid=$!; pids+=($pid)
wait $pid
rc=$?
if sanitizer_build; then # the sanitizer's own SEGV handler reports it and exits
	check "segv: the program still dies (status $rc)" test $rc -ne 0
else
	check "segv: the program still dies of SIGSEGV (status $rc)" test $rc -eq 139
fi
n=$(records "$T/s.rtr")
"$RDMATRACE" dump "$T/s.rtr" >"$T/s.txt" 2>&1
# the handler's end record: the signal, sent by raise() (no address); a
# sanitizer whose own SEGV handler came first (ASan, TSan) leaves none
ends=$(grep -Ec 'process_end qpn=0 pid=[0-9]+ how=signal signal=SIGSEGV si_code=-6 addr=0x0 ' "$T/s.txt")
check "segv: the snapshot has all $((2 * 338 + 2)) records and $ends end record (got $n)" test "$n" -eq $((2 * 338 + 2 + ends))
if ! sanitizer_build; then
	check "segv: the end record names the signal" test "$ends" -eq 1
fi
check "segv: everything written, so no segment is left in /dev/shm" test ! -e "/dev/shm/rdmatrace-$(id -u)-$pid"

# --- rdmatrace snapshot PID ---
RDMATRACE_OUTPUT=$T/p.rtr RDMATRACE_MODE=flight "$SYNTH" --threads 1 --messages 10 --then wait >"$T/p.out" &
pid=$!; pids+=($pid)
check "snapshot: program ready" wait_ready "$T/p.out"
out=$("$RDMATRACE" snapshot $pid)
check "snapshot prints the trace file" test "$out" = "$(cd "$T" && pwd -P)/p.rtr" -o "$out" = "$T/p.rtr"
n=$(records "$T/p.rtr")
check "snapshot wrote the records (got $n)" test "$n" -eq $((10 * 11 + 8 + 2))
kill $pid; wait $pid 2>/dev/null
check_fails "snapshot of an untraced pid fails" "$RDMATRACE" snapshot $$

# --- error completion triggers a flight-recorder snapshot while the program runs ---
RDMATRACE_OUTPUT=$T/e.rtr RDMATRACE_MODE=flight "$SYNTH" --threads 1 --messages 20 --error-at 5 --then wait >"$T/e.out" &
pid=$!; pids+=($pid)
check "error trigger: program ready" wait_ready "$T/e.out"
sleep 0.3
check_grep "error trigger: the error completion is in the file before exit" 'status=RETRY_EXC_ERR' <("$RDMATRACE" dump "$T/e.rtr" 2>/dev/null)
kill $pid; wait $pid 2>/dev/null
done_testing
