/*
 * How fast this machine gives a process new memory: maps SIZE MiB (in huge
 * pages where the kernel gives them on request), touches every page, unmaps
 * it, four times over, and prints each round's rate.  The correlate
 * benchmark prints it beside its own times because on a virtual machine
 * whose host backs the guest's memory lazily, memory the process touches
 * for the first time costs far more than the work done in it (a 1 M packet
 * build touches about 770 MiB), and memory given back to the host by an
 * earlier process costs that again: the first round shows what a build
 * pays, the later ones the same memory reused within one process.
 *
 *   build/bench/first_touch [SIZE_MIB]      (default 512)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 512;
	if (mib <= 0 || mib > 65536) {
		fprintf(stderr, "usage: first_touch [SIZE_MIB (1-65536)]\n");
		return 2;
	}
	size_t len = (size_t)mib << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	printf("new memory, %ld MiB a round:", mib);
	for (int round = 0; round < 4; round++) {
		double t0 = now_s();
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("first_touch: mmap");
			return 1;
		}
#ifdef MADV_HUGEPAGE
		madvise(p, len, MADV_HUGEPAGE);
#endif
		for (size_t i = 0; i < len; i += page)
			p[i] = 1;
		double t = now_s() - t0;
		munmap(p, len);
		printf(" %.2f", (double)len / 1e9 / t);
	}
	printf(" GB/s (first touch, then reused)\n");
	return 0;
}
