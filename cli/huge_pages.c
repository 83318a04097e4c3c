/*
 * A timeline build touches about a gigabyte of new memory for a million
 * packets.  Where the kernel gives transparent huge pages only to memory
 * that asks for them (THP mode "madvise", as on many virtual machines), each
 * 4 KiB page of it costs a page fault, and on a virtual machine faults are
 * dear: a third of `correlate`'s time.  glibc asks for huge pages for its
 * large blocks when started with the tunable glibc.malloc.hugetlb=1, which
 * can only be given before the process starts; so a command that builds
 * timelines runs itself again with it, once, and that second start puts the
 * environment back as it was, for the programs it may start.
 * RDMATRACE_NO_HUGE_PAGES=1 turns this off; a GLIBC_TUNABLES that already
 * names glibc.malloc.hugetlb is left as the user set it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "huge_pages.h"

/* Set only in the second start: "=" and the GLIBC_TUNABLES it replaced, or
 * "" when there was none. */
#define SAVED "RDMATRACE_SAVED_GLIBC_TUNABLES"
#define TUNABLE "glibc.malloc.hugetlb=1"

static void restore(const char *saved)
{
	if (saved[0] == '=')
		setenv("GLIBC_TUNABLES", saved + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(SAVED);
}

/* Whether the kernel gives huge pages only on request. */
static int thp_on_request(void)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return 0;
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = 0;
	fclose(f);
	return strstr(mode, "[madvise]") != NULL;
}

void rt_huge_pages_start(char **argv, int want)
{
	const char *saved = getenv(SAVED);
	if (saved) { /* the second start */
		char copy[4096];
		snprintf(copy, sizeof(copy), "%s", saved);
		restore(copy);
		return;
	}
	const char *off = getenv("RDMATRACE_NO_HUGE_PAGES");
	const char *old = getenv("GLIBC_TUNABLES");
	if (!want || (off && strcmp(off, "0") != 0) || (old && strstr(old, "glibc.malloc.hugetlb")) ||
	    !thp_on_request())
		return;
	char keep[4096], value[4096 + sizeof(TUNABLE) + 1];
	if (old && strlen(old) + 1 >= sizeof(keep))
		return; /* (not worth cutting a user's setting short) */
	snprintf(keep, sizeof(keep), "%s%s", old ? "=" : "", old ? old : "");
	snprintf(value, sizeof(value), "%s%s%s", old ? old : "", old && old[0] ? ":" : "", TUNABLE);
	if (setenv(SAVED, keep, 1) < 0 || setenv("GLIBC_TUNABLES", value, 1) < 0)
		return;
	execv("/proc/self/exe", argv);
	restore(keep); /* could not run again: go on as started */
}
