#!/usr/bin/env bash
# Viewer benchmark: time to the first screen and to the end of generated
# runs of 1 M and 10 M trace events, and the slowest key of a navigation
# session at the end of the run.
#
# Each run is written by viewer-gen (two hosts' trace files through the
# tracer's trace writer: WRITE round trips after a setup + RNR + Go-Back-N
# scenario) and correlated once with `rdmatrace correlate` (that time is
# reported too, but it is the correlation's cost, paid once per run); the
# viewer then opens RUNDIR/timeline.rtl by memory-mapping it.
#
# Times are wall clock of the whole process (`rdmatrace view --batch`:
# open, draw, exit), best of 3 runs; key times come from --key-times
# (handling + drawing of each key).  Targets: first screen < 500 ms, every
# key < 50 ms.  index_ms is the one pass that builds the viewer's chunk
# index (the terminal does it in the background after the first screen);
# cold_max is the slowest key of a session started right after opening,
# warm_max the slowest once the index exists.
#
# Environment: VIEWER_BENCH_SIZES (default "1000000 10000000"),
# VIEWER_BENCH_DIR (default /tmp/rdmatrace-viewer-bench; runs are kept
# there and reused while their timeline opens with all rows),
# VIEWER_BENCH_CLEAN=1 removes them at the end.
set -u
BUILD=${BUILD:-build}
RT=$BUILD/rdmatrace
GEN=$BUILD/tests/viewer/viewer-gen
DIR=${VIEWER_BENCH_DIR:-/tmp/rdmatrace-viewer-bench}
SIZES=${VIEWER_BENCH_SIZES:-1000000 10000000}
mkdir -p "$DIR"

ms_now() { date +%s%N; }

# best_of3 CMD...: the best wall time of 3 runs, in ms
best_of3() {
	local best=999999 s e t
	for _ in 1 2 3; do
		s=$(ms_now)
		"$@" >/dev/null 2>&1
		e=$(ms_now)
		t=$(( (e - s) / 1000000 ))
		[ "$t" -lt "$best" ] && best=$t
	done
	echo "$best"
}

printf '%-9s %9s %11s %9s %7s %10s %18s %18s\n' events rows correlate_s first_ms end_ms index_ms "cold_max_ms (key)" "warm_max_ms (key)"
for n in $SIZES; do
	run=$DIR/run-$n
	rows=$("$RT" view "$run" --batch --no-rebuild --size 200x4 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) rows.*/\1/p' | head -1)
	if [ ! -s "$run/timeline.rtl" ] || [ "${rows:-0}" -lt "$n" ]; then
		rm -rf "$run"
		"$GEN" "$run" --events "$n" >/dev/null || { echo "viewer-gen failed" >&2; exit 1; }
		s=$(ms_now)
		"$RT" correlate "$run" >/dev/null 2>&1 || { echo "rdmatrace correlate failed" >&2; exit 1; }
		e=$(ms_now)
		corr=$(awk -v t=$(( (e - s) / 1000000 )) 'BEGIN { printf "%.1f", t / 1000 }')
		echo "$corr" >"$run/.correlate_s"
	fi
	corr=$(cat "$run/.correlate_s" 2>/dev/null || echo "?")
	rows=$("$RT" view "$run" --batch --no-rebuild --size 200x4 | sed -n 's/.* \([0-9][0-9]*\) rows.*/\1/p' | head -1)
	first=$(best_of3 "$RT" view "$run" --batch --no-rebuild)
	end=$(best_of3 "$RT" view "$run" --batch --no-rebuild --keys G)
	# the chunk index: a filter no row matches walks every chunk once
	idx=$("$RT" view "$run" --batch --no-rebuild --key-times --keys 'p999999<Enter>' 2>&1 >/dev/null |
		awk '$3 == "Enter" { print $4 }')
	# a session: moves, pages, jumps, filters, time jump, lanes, bookmarks
	keys='Gkkkbb<PgDn>gGeErRxXcC!!p17<Enter>y<BS>Yuo write<Enter>uP<Enter><Enter>Pt1<Enter>lTTlmgB'
	slowest() { sort -k4 -g | tail -1 | awk '{ printf "%.1f (%s)", $4, $3 }'; }
	# cold: right after opening (what a user typing ahead would meet)
	cold=$("$RT" view "$run" --batch --no-rebuild --key-times --keys "$keys" 2>&1 >/dev/null | slowest)
	# warm: after the chunk index exists (the terminal builds it in the
	# background right after the first screen; here a no-match filter does)
	warm=$("$RT" view "$run" --batch --no-rebuild --key-times --keys "p999999<Enter>u$keys" 2>&1 >/dev/null |
		awk '$2 > 9' | slowest)
	printf '%-9s %9s %11s %9s %7s %10.1f %18s %18s\n' "$n" "$rows" "$corr" "$first" "$end" "${idx:-0}" "$cold" "$warm"
done
[ "${VIEWER_BENCH_CLEAN:-0}" = 1 ] && rm -rf "$DIR"
exit 0
