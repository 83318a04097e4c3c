/*
 * A program that does not link libibverbs at all: it dlopen()s a plugin
 * (libverbs_plugin.so, which needs libibverbs.so.1) with RTLD_LOCAL, as
 * Python does with pyverbs, and runs it.  The probe must still see the
 * plugin's contexts, although libibverbs is then outside the global scope
 * where dlsym(RTLD_NEXT) looks.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	if (n <= 0)
		return 2;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return 2;
	strcpy(slash + 1, "libverbs_plugin.so");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen_prog: %s\n", dlerror());
		return 2;
	}
	int (*run)(void) = (int (*)(void))dlsym(h, "verbs_plugin_run");
	int rc = run ? run() : 2;
	printf("dlopen_prog: %s\n", rc ? "FAILED" : "ok");
	return rc;
}
