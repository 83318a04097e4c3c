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
echo "== tracer benchmark: $(nproc) CPUs ($cpu), load $(cut -d' ' -f1-3 /proc/loadavg), $REPS reps x $EVENTS events"
tsc=$(grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo && echo invariant || echo "not invariant")
echo "   TSC: $tsc"

bare=$("$B" bare "$EVENTS" "$REPS" | median)
hot1=$("$B" hot 1 "$EVENTS" "$REPS" | median)
hot2=$("$B" hot 2 "$EVENTS" "$REPS" | median)
off=$("$B" off $((EVENTS * 10)) "$REPS" | median)
file=$("$B" file 1)

lt1=nan lt2=nan lnote=""
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
		if lttng create "$session" --output="$T/lttng" >/dev/null &&
			lttng enable-event -u -s "$session" 'rdmatrace_bench:*' >/dev/null &&
			lttng start "$session" >/dev/null; then
			lt1=$("$B" lttng 1 "$EVENTS" "$REPS" | median)
			lt2=$("$B" lttng 2 "$EVENTS" "$REPS" | median)
			lttng stop "$session" >/dev/null
			recorded=$(du -sh "$T/lttng" 2>/dev/null | cut -f1)
			lnote="$lnote; LTTng wrote $recorded of trace"
			lttng destroy "$session" >/dev/null
		else
			lnote="could not set up an LTTng session"
		fi
	fi
else
	lnote="bench built without LTTng-UST (liblttng-ust-dev missing)"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.1fx", a / b }'; }
meets() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "nan") print "n/a"; else if (v + 0 <= t + 0) print "met"; else print "NOT met" }'; }

printf "\n%-46s %10s\n" "median ns/event" ""
printf "%-46s %10s\n" "bare ring write + TSC (no tracer, the floor)" "$bare"
printf "%-46s %10s   target <= 15: %s\n" "rdmatrace, 1 thread" "$hot1" "$(meets "$hot1" 15)"
printf "%-46s %10s   target <= 15: %s\n" "rdmatrace, 2 threads (per thread)" "$hot2" "$(meets "$hot2" 15)"
printf "%-46s %10s   target < 1: %s\n" "rdmatrace, tracing off (incl. loop)" "$off" "$(meets "$off" 0.999)"
printf "%-46s %10s\n" "LTTng-UST tracepoint, 1 thread" "$lt1"
printf "%-46s %10s\n" "LTTng-UST tracepoint, 2 threads (per thread)" "$lt2"
r1=$(ratio "$lt1" "$hot1") r2=$(ratio "$lt2" "$hot2")
printf "%-46s %10s   target >= 10x: %s\n" "ratio LTTng/rdmatrace, 1 thread" "$r1" \
	"$(awk -v a="$lt1" -v b="$hot1" 'BEGIN { if (a == "nan") print "n/a"; else print (a / b >= 10) ? "met" : "NOT met" }')"
printf "%-46s %10s\n" "ratio LTTng/rdmatrace, 2 threads" "$r2"
echo "LTTng: $lnote"
echo "sustained into a file (1 s flat out, 4 MiB ring, in-process collector): $file"
