/*
 * How the commands that build timelines get their memory.  A build touches
 * about a gigabyte of new memory for a million packets, in arrays that grow
 * by doubling and are freed phase by phase; on a virtual machine, memory is
 * dear in three ways, and glibc's defaults hit all three:
 *
 * * Where the kernel gives transparent huge pages only to memory that asks
 *   for them (THP mode "madvise", as on many virtual machines), each 4 KiB
 *   page of new memory costs a page fault, and faults are dear there.
 *   glibc asks for huge pages for its large blocks when started with the
 *   tunable glibc.malloc.hugetlb=1, which can only be given before the
 *   process starts; so such a command runs itself again with it, once, and
 *   that second start puts the environment back as it was, for the programs
 *   it may start.  RDMATRACE_NO_HUGE_PAGES=1 turns this off; a
 *   GLIBC_TUNABLES that already names glibc.malloc.hugetlb is left as the
 *   user set it.
 * * glibc gives each large block (over 128 KiB at first, up to 32 MiB as
 *   blocks are freed) a mapping of its own and grows it with mremap(),
 *   which can move it to an address not aligned to 2 MiB: its huge pages
 *   are split into small ones, and every later access to them pays for it
 *   (on a machine whose host shadows the guest's page tables, more than the
 *   work done in them; sampled during a 1 M packet build, 32 - 82 % of its
 *   memory was in huge pages, 99 % from the main heap).  A freed mapping
 *   goes back to the kernel, and the next block is new memory again,
 *   zeroed by the kernel.
 * * Threads get heaps of their own, so memory one thread frees is not
 *   reused by another.
 *
 * So these commands also take every block from the one main heap (mmap
 * threshold off, one arena) and keep what is freed for reuse (trim
 * threshold at its maximum).  RDMATRACE_MALLOC_DEFAULTS=1 leaves glibc's
 * allocator as it is configured (docs/timeline.md has the measurements).
 */
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timeline_memory.h"

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

/* Whether environment variable name is set to anything but "0". */
static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && strcmp(v, "0") != 0;
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

static void huge_pages_start(char **argv, int want)
{
	const char *saved = getenv(SAVED);
	if (saved) { /* the second start */
		char copy[4096];
		snprintf(copy, sizeof(copy), "%s", saved);
		restore(copy);
		return;
	}
	const char *old = getenv("GLIBC_TUNABLES");
	if (!want || env_on("RDMATRACE_NO_HUGE_PAGES") || (old && strstr(old, "glibc.malloc.hugetlb")) ||
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

/* Every block from the main heap, kept for reuse once freed. */
static void heap_for_builds(void)
{
	if (env_on("RDMATRACE_MALLOC_DEFAULTS"))
		return;
#ifdef M_ARENA_MAX /* (glibc's; elsewhere the allocator is left as it is) */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_ARENA_MAX, 1);
#endif
}

void rt_timeline_memory_start(char **argv, int want)
{
	huge_pages_start(argv, want);
	if (want)
		heap_for_builds();
}
