/*
 * A tiny test harness for the C test programs, in TAP style so the runner
 * (tests/run-tests.sh) can count cases across programs:
 *
 *     static void test_ring_wraps(void) { CHECK(x == 1); CHECK_EQ_U(a, b); }
 *     int main(void) { RUN(test_ring_wraps); return test_done(); }
 *
 * Each RUN prints "ok N - name" or "not ok N - name" with the failed checks
 * above it; SKIP(reason) inside a test marks it skipped.  test_done() prints
 * the plan and returns the exit status.
 */
#ifndef RDMATRACE_TESTLIB_H
#define RDMATRACE_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int testlib_num;
static int testlib_failed_tests;
static int testlib_case_failed;
static const char *testlib_skip_reason;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			testlib_case_failed = 1;                                      \
		}                                                                     \
	} while (0)

#define CHECK_EQ_U(a, b)                                                              \
	do {                                                                          \
		unsigned long long testlib_a = (unsigned long long)(a);               \
		unsigned long long testlib_b = (unsigned long long)(b);               \
		if (testlib_a != testlib_b) {                                         \
			printf("#   %s:%d: %s == %s failed: %llu != %llu\n", __FILE__,   \
			       __LINE__, #a, #b, testlib_a, testlib_b);               \
			testlib_case_failed = 1;                                      \
		}                                                                     \
	} while (0)

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *testlib_sa = (a), *testlib_sb = (b);                      \
		if (!testlib_sa || !testlib_sb || strcmp(testlib_sa, testlib_sb)) {   \
			printf("#   %s:%d: %s == %s failed: \"%s\" != \"%s\"\n",         \
			       __FILE__, __LINE__, #a, #b,                            \
			       testlib_sa ? testlib_sa : "(null)",                    \
			       testlib_sb ? testlib_sb : "(null)");                   \
			testlib_case_failed = 1;                                      \
		}                                                                     \
	} while (0)

#define SKIP(reason)                                                                  \
	do {                                                                          \
		testlib_skip_reason = (reason);                                       \
		return;                                                               \
	} while (0)

#define RUN(fn)                                                                       \
	do {                                                                          \
		testlib_case_failed = 0;                                              \
		testlib_skip_reason = NULL;                                           \
		fflush(stdout);                                                       \
		fn();                                                                 \
		testlib_num++;                                                        \
		if (testlib_skip_reason)                                              \
			printf("ok %d - %s # SKIP %s\n", testlib_num, #fn,            \
			       testlib_skip_reason);                                  \
		else if (testlib_case_failed) {                                       \
			printf("not ok %d - %s\n", testlib_num, #fn);                 \
			testlib_failed_tests++;                                       \
		} else                                                                \
			printf("ok %d - %s\n", testlib_num, #fn);                     \
		fflush(stdout);                                                       \
	} while (0)

static inline int test_done(void)
{
	printf("1..%d\n", testlib_num);
	return testlib_failed_tests ? 1 : 0;
}

#endif
