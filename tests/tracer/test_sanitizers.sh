#!/usr/bin/env bash
# The tracer stress test (and the basic tracer test) rebuilt under
# ThreadSanitizer and AddressSanitizer and run at a reduced size.  Part of
# `make test` because the issue asks for it; it builds into
# $BUILD/sanitize-{thread,address}/ and takes well under a minute and a half.
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

# Only the tracer's own sources (and the wire tables the event printer uses),
# compiled straight into each test: a full `make SANITIZE=...` of every
# module would take minutes on this machine.
srcs=$(ls tracer/*.c | grep -v synth_workload) 
srcs="$srcs captures/roce_wire.c"
flags="-std=c11 -D_GNU_SOURCE -pthread -Iinclude -Itests -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror"
for san in thread address; do
	dir=$BUILD/sanitize-$san
	mkdir -p "$dir"
	log=$(mktemp /tmp/rdmatrace-san-XXXXXX)
	built=1
	# the library sources once (one compiler run), then each test against those objects
	if ! (cd "$dir" && ${CC:-cc} $flags -I"$OLDPWD/include" -fsanitize=$san -c $(for f in $srcs; do echo "$OLDPWD/$f"; done)) >"$log" 2>&1; then
		built=0
	fi
	for t in test_stress test_tracer_basic; do
		[ $built = 1 ] || break
		if ! ${CC:-cc} $flags -fsanitize=$san -o "$dir/$t" "tests/tracer/$t.c" $(for f in $srcs; do b=${f##*/}; echo "$dir/${b%.c}.o"; done) -lrt -lm >>"$log" 2>&1; then
			built=0
		fi
	done
	[ $built = 1 ] || sed 's/^/#   /' "$log" | tail -20
	if [ $built = 0 ]; then
		not_ok "$san: build"
		rm -f "$log"
		continue
	fi
	ok "$san: build"
	for t in test_stress test_tracer_basic; do
		if STRESS_EVENTS=100000 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
			ASAN_OPTIONS="detect_leaks=1 exitcode=66" "$dir/$t" >"$log" 2>&1 &&
			! grep -q -E 'WARNING: ThreadSanitizer|ERROR: (Address|Leak|Thread)Sanitizer|^not ok' "$log"; then
			ok "$san: $t clean ($(grep -c '^ok' "$log") cases$(grep -q '# SKIP' "$log" && echo ', some skipped'))"
		else
			not_ok "$san: $t"
			grep -E '^(not ok|#)|Sanitizer|^    #' "$log" | grep -v SKIP | head -30 | sed 's/^/#   /'
		fi
	done
	rm -f "$log"
done
done_testing
