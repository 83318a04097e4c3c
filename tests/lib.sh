# Helpers for shell tests, sourced by tests/**/*.sh.  They print TAP lines
# ("ok N - desc", "not ok N - desc", "ok N - desc # SKIP why") that
# tests/run-tests.sh counts, and finish with `done_testing`.
# Tests run from the top of the tree with $BUILD set (default: build).

BUILD=${BUILD:-build}
RDMATRACE=${RDMATRACE:-$BUILD/rdmatrace}
_t_num=0
_t_failed=0

ok()      { _t_num=$((_t_num + 1)); echo "ok $_t_num - $*"; }
not_ok()  { _t_num=$((_t_num + 1)); _t_failed=$((_t_failed + 1)); echo "not ok $_t_num - $*"; }
skip()    { _t_num=$((_t_num + 1)); echo "ok $_t_num - $1 # SKIP $2"; }

# sanitizer_build: true for `make SANITIZE=address|undefined|thread` builds
sanitizer_build() { case "$BUILD" in *-address|*-thread|*-undefined) return 0 ;; esac; return 1; }

# skip_all NAME REASON: the whole script is skipped, as one SKIP line; exits.
skip_all() { skip "$1" "$2"; done_testing; exit; }

# need_uroce_programs NAME [SANITIZER_REASON]: the script runs Debian's own
# RDMA programs over uroce; skipped (skip_all) unless uroce's libraries are
# built, and in a sanitizer build (the programs are not instrumented).
need_uroce_programs() {
	if [ ! -e "$BUILD/uroce/libibverbs.so.1" ] || [ ! -e "$BUILD/uroce/librdmacm.so.1" ]; then
		skip_all "$1" "uroce's libibverbs.so.1 is not built"
	fi
	if sanitizer_build; then
		skip_all "$1" "${2:-sanitizer build: uninstrumented binaries cannot load it}"
	fi
}

# asan_build LOG: builds build-address/rdmatrace (incrementally, at most 240
# s, one test at a time: tests run in parallel) for tests that run commands
# again under AddressSanitizer; its output goes to LOG.
asan_build() {
	mkdir -p build-address
	flock build-address/.build-lock nice -n 10 timeout 240 \
		make -s -j2 --no-print-directory SANITIZE=address build-address/rdmatrace >"$1" 2>&1
}

# check DESC CMD...: passes when CMD exits 0; its output is shown on failure.
check() {
	local desc=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc"; printf '%s\n' "$out" | sed 's/^/#   /' | head -40; fi
}

# check_fails DESC CMD...: passes when CMD exits non-zero.
check_fails() {
	local desc=$1; shift
	if "$@" >/dev/null 2>&1; then not_ok "$desc (unexpectedly succeeded)"; else ok "$desc"; fi
}

# check_grep DESC PATTERN FILE: passes when FILE has a line matching PATTERN (grep -E).
check_grep() {
	if grep -Eq -- "$2" "$3"; then ok "$1"; else not_ok "$1"; echo "#   no line matches /$2/ in $3"; head -20 "$3" | sed 's/^/#   /'; fi
}

done_testing() { echo "1..$_t_num"; [ "$_t_failed" -eq 0 ]; }
