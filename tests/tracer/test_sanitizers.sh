#!/usr/bin/env bash
# The tracer stress test (and the basic tracer test) rebuilt under
# ThreadSanitizer and AddressSanitizer and run at a reduced size.  Part of
# `make test` because the issue asks for it; it builds into build-thread/
# and build-address/ and takes well under a minute and a half.
# Skipped inside a sanitizer build (BUILD=build-*) so it never recurses.
. tests/lib.sh

case "$BUILD" in
build-*)
	skip "stress under TSan/ASan" "already a sanitizer build ($BUILD)"
	done_testing
	exit
	;;
esac
if [ -n "${RDMATRACE_SKIP_SANITIZERS:-}" ]; then
	skip "stress under TSan/ASan" "RDMATRACE_SKIP_SANITIZERS is set"
	done_testing
	exit
fi

for san in thread address; do
	dir=build-$san
	log=$(mktemp /tmp/rdmatrace-san-XXXXXX)
	if ! make -s --no-print-directory SANITIZE=$san "$dir/tests/tracer/test_stress" \
		"$dir/tests/tracer/test_tracer_basic" >"$log" 2>&1; then
		not_ok "$san: build"
		sed 's/^/#   /' "$log" | tail -20
		rm -f "$log"
		continue
	fi
	ok "$san: build"
	for t in test_stress test_tracer_basic; do
		if STRESS_EVENTS=100000 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
			ASAN_OPTIONS="detect_leaks=1 exitcode=66" "$dir/tests/tracer/$t" >"$log" 2>&1 &&
			! grep -q -E 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|^not ok' "$log"; then
			ok "$san: $t clean ($(grep -c '^ok' "$log") cases)"
		else
			not_ok "$san: $t"
			grep -E '^(not ok|#)|Sanitizer|^    #' "$log" | head -30 | sed 's/^/#   /'
		fi
	done
	rm -f "$log"
done
done_testing
