#!/usr/bin/env bash
# Every public header compiles on its own as C11, with gcc and with clang
# (the fuzz targets and users' programs may use either): a header that leans
# on one compiler's extensions, or on something another header includes,
# breaks someone else's build, not ours.
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		skip "public headers compile alone with $cc" "$cc not installed"
		continue
	fi
	for h in include/rdmatrace/*.h; do
		printf '#include "%s"\n' "${h#include/}" >"$T/one.c"
		check "$h compiles alone with $cc -std=c11" \
			$cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -fsyntax-only "$T/one.c"
	done
done
done_testing
