/* A private temporary directory per test program (tests run in parallel with others'). */
#ifndef RDMATRACE_TESTS_TRACER_TMPDIR_H
#define RDMATRACE_TESTS_TRACER_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char test_tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char buf[8][512];
	static int i;
	if (!test_tmpdir[0]) {
		snprintf(test_tmpdir, sizeof(test_tmpdir), "/tmp/rdmatrace-test-XXXXXX");
		if (!mkdtemp(test_tmpdir)) {
			perror("mkdtemp");
			exit(1);
		}
	}
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", test_tmpdir, name);
	return buf[i];
}

static void tmp_cleanup(void)
{
	if (test_tmpdir[0]) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", test_tmpdir);
	}
}

#endif
