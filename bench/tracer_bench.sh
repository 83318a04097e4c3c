#!/usr/bin/env bash
# `make bench` part for the tracer: hot-path cost (1 and 2 threads), the cost
# with tracing off, the floor (a bare ring write with a TSC timestamp),
# sustained throughput into a file, and an LTTng-UST tracepoint with the same
# payload measured in the same run under a live LTTng session.  Prints
# medians and the LTTng/rdmatrace ratio.  Not a test: it never fails on a
# missed target, it says so.
#
# Environment: BUILD (build dir), BENCH_REPS (repetitions, default 9),
# BENCH_EVENTS (events per repetition and thread, default 2000000).
set -u
BUILD=${BUILD:-build}
REPS=${BENCH_REPS:-9}
EVENTS=${BENCH_EVENTS:-2000000}
make -s --no-print-directory "$BUILD/bench/tracer-bench" || exit 1
B=$BUILD/bench/tracer-bench
T=$(mktemp -d /tmp/rdmatrace-bench-XXXXXX)
export TMPDIR=$T
our_sessiond=""
session="rdmatrace-bench-$$"
cleanup() {
	if [ -n "$our_sessiond" ]; then
		lttng destroy "$session" >/dev/null 2>&1
		kill "$our_sessiond" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$our_sessiond" 2>/dev/null || break; sleep 0.2; done
	fi
	rm -rf "$T"
}
trap cleanup EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "== tracer benchmark: $(nproc) CPUs ($cpu), load $(cut -d' ' -f1-3 /proc/loadavg), $REPS interleaved reps x $EVENTS events"
tsc=$(grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo && echo invariant || echo "not invariant")
echo "   TSC: $tsc"

# The LTTng session first, so every measurement below can be interleaved:
# on a shared machine the load changes from second to second, and
# measuring A for a minute and then B for a minute compares two machines.
lt_ok=0 lnote=""
if "$B" lttng 1 1 1 >/dev/null 2>&1 || [ $? -ne 3 ]; then
	if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
		lnote="lttng-tools not installed (scripts/install-deps.sh --bench)"
	else
		pidfile=/var/run/lttng/lttng-sessiond.pid
		[ "$(id -u)" = 0 ] || pidfile=$HOME/.lttng/lttng-sessiond.pid
		if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
			lnote="(using the session daemon already running, pid $(cat "$pidfile"))"
		else
			lttng-sessiond --daemonize >/dev/null 2>&1
			for _ in $(seq 50); do [ -f "$pidfile" ] && break; sleep 0.1; done
			our_sessiond=$(cat "$pidfile" 2>/dev/null)
			lnote="(session daemon $our_sessiond started for this run)"
		fi
		# Snapshot mode: LTTng's flight recorder, records into in-memory ring buffers
		# that overwrite, like the rdmatrace hot-path runs (flight recorder, no I/O).
		if lttng create "$session" --snapshot --output="$T/lttng" >/dev/null &&
			lttng enable-event -u -s "$session" 'rdmatrace_bench:*' >/dev/null &&
			lttng start "$session" >/dev/null; then
			lt_ok=1
			lnote="$lnote; snapshot session (in-memory ring buffers, like rdmatrace's flight recorder)"
		else
			lnote="could not set up an LTTng session"
		fi
	fi
else
	lnote="bench built without LTTng-UST (liblttng-ust-dev missing)"
fi

: >"$T/bare" >"$T/hot1" >"$T/hot2" >"$T/off" >"$T/loop" >"$T/lt1" >"$T/lt2"
for _ in $(seq "$REPS"); do
	"$B" bare "$EVENTS" 1 >>"$T/bare"
	"$B" hot 1 "$EVENTS" 1 >>"$T/hot1"
	"$B" off $((EVENTS * 10)) 1 >>"$T/off"
	"$B" loop $((EVENTS * 10)) 1 >>"$T/loop"
	"$B" hot 2 "$EVENTS" 1 >>"$T/hot2"
	if [ $lt_ok = 1 ]; then
		"$B" lttng 1 "$EVENTS" 1 >>"$T/lt1"
		"$B" lttng 2 "$EVENTS" 1 >>"$T/lt2"
	fi
done
if [ $lt_ok = 1 ]; then
	lttng stop "$session" >/dev/null
	lttng destroy "$session" >/dev/null
fi
bare=$(median <"$T/bare") hot1=$(median <"$T/hot1") hot2=$(median <"$T/hot2")
off=$(median <"$T/off") loop=$(median <"$T/loop")
lt1=$(median <"$T/lt1") lt2=$(median <"$T/lt2")
[ -s "$T/lt1" ] || lt1=nan
[ -s "$T/lt2" ] || lt2=nan
file=$("$B" file 1)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.1fx", a / b }'; }
meets() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "nan") print "n/a"; else if (v + 0 <= t + 0) print "met"; else print "NOT met" }'; }

printf "\n%-46s %10s\n" "median ns/event" ""
printf "%-46s %10s\n" "bare ring write + TSC (no tracer, the floor)" "$bare"
printf "%-46s %10s\n" "rdmatrace over the floor, 1 thread" "$(awk -v a="$hot1" -v b="$bare" 'BEGIN { printf "%.2f", a - b }')"
printf "%-46s %10s   target <= 15: %s\n" "rdmatrace, 1 thread" "$hot1" "$(meets "$hot1" 15)"
printf "%-46s %10s   target <= 15: %s\n" "rdmatrace, 2 threads (per thread)" "$hot2" "$(meets "$hot2" 15)"
offnet=$(awk -v a="$off" -v b="$loop" 'BEGIN { d = a - b; if (d < 0) d = 0; printf "%.3f", d }')
printf "%-46s %10s\n" "tracing off: loop with the disabled call" "$off"
printf "%-46s %10s\n" "tracing off: the same loop, empty" "$loop"
printf "%-46s %10s   target < 1: %s\n" "rdmatrace, tracing off (difference)" "$offnet" "$(meets "$offnet" 0.999)"
printf "%-46s %10s\n" "LTTng-UST tracepoint, 1 thread" "$lt1"
printf "%-46s %10s\n" "LTTng-UST tracepoint, 2 threads (per thread)" "$lt2"
r1=$(ratio "$lt1" "$hot1") r2=$(ratio "$lt2" "$hot2")
printf "%-46s %10s   target >= 10x: %s\n" "ratio LTTng/rdmatrace, 1 thread" "$r1" \
	"$(awk -v a="$lt1" -v b="$hot1" 'BEGIN { if (a == "nan") print "n/a"; else print (a / b >= 10) ? "met" : "NOT met" }')"
printf "%-46s %10s\n" "ratio LTTng/rdmatrace, 2 threads" "$r2"
echo "LTTng: $lnote"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sustained into a file (1 s flat out, 4 MiB ring, in-process collector): $file"
