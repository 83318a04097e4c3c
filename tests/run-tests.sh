#!/usr/bin/env bash
# Runs every test program and script given on the command line, counts the
# TAP lines they print ("ok", "not ok", "# SKIP") and ends with the one
# summary line `make test` promises: "N passed, N failed, N skipped".
# A test that exits non-zero (or is killed) without reporting a failure
# counts as one failed case, so a crash never goes unnoticed.
#
# Environment: BUILD (build dir), TEST_JOBS (parallel programs, default 2),
# TEST_TIMEOUT (seconds per program, default 600), TEST_FILTER (substring).
set -u
BUILD=${BUILD:-build}
JOBS=${TEST_JOBS:-2}
TIMEOUT=${TEST_TIMEOUT:-600}
LOGDIR=$BUILD/test-logs
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
export BUILD

tests=()
for t in "$@"; do
	case "$t" in *"${TEST_FILTER:-}"*) tests+=("$t") ;; esac
done

log_of() { echo "$LOGDIR/$(echo "$1" | tr '/' '_').log"; }

run_one() {
	local t=$1 log start end rc
	log=$(log_of "$t")
	start=$(date +%s.%N)
	if [[ $t == *.sh ]]; then
		timeout -k 10 "$TIMEOUT" bash "$t" >"$log" 2>&1 </dev/null
	else
		timeout -k 10 "$TIMEOUT" "$t" >"$log" 2>&1 </dev/null
	fi
	rc=$?
	end=$(date +%s.%N)
	echo "# exit $rc after $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f s", b - a }')" >>"$log"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "not ok - $t timed out after ${TIMEOUT}s" >>"$log"; fi
	echo "$rc" >"$log.rc"
}

running=0
for t in "${tests[@]}"; do
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	log=$(log_of "$t")
	rc=$(cat "$log.rc" 2>/dev/null || echo 1)
	p=$(grep -E '^ok [0-9]+ ' "$log" | grep -vc '# SKIP' || true)
	s=$(grep -E '^ok [0-9]+ .*# SKIP' -c "$log" || true)
	f=$(grep -Ec '^not ok' "$log" || true)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $t exited with status $rc" >>"$log"; fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then f=1; echo "not ok - $t reported no test" >>"$log"; fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	time=$(sed -n "s/^# exit [0-9]* after \(.*\)$/\1/p" "$log" | tail -1)
	if [ "$f" -gt 0 ]; then
		echo "FAIL $t ($p passed, $f failed, $time) log: $log"
		grep -E '^(not ok|#   )' "$log" | head -30 | sed 's/^/    /'
	else
		echo "PASS $t ($p passed${s:+, $s skipped}, $time)"
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
