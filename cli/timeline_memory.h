/*
 * The memory set-up of the commands that build timelines (see
 * timeline_memory.c).
 */
#ifndef RDMATRACE_CLI_TIMELINE_MEMORY_H
#define RDMATRACE_CLI_TIMELINE_MEMORY_H

/* Called first thing in main(): when want is true, runs the command again
 * (once) with glibc asking for transparent huge pages if the system gives
 * them only on request (in that second start, puts the environment back as
 * it was), and has glibc take every block from its main heap and keep freed
 * memory for reuse.  Returns only when the command is to go on in this
 * process. */
void rt_timeline_memory_start(char **argv, int want);

#endif
