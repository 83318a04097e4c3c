/*
 * Transparent huge pages for the commands that build timelines (see
 * huge_pages.c).
 */
#ifndef RDMATRACE_CLI_HUGE_PAGES_H
#define RDMATRACE_CLI_HUGE_PAGES_H

/* Called first thing in main(): runs the command again (once) with glibc
 * asking for transparent huge pages when want is true and the system gives
 * them only on request; in that second start, puts the environment back as
 * it was.  Returns only when the command is to go on in this process. */
void rt_huge_pages_start(char **argv, int want);

#endif
