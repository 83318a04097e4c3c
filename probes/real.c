/*
 * Finding the real libibverbs / librdmacm / libmlx5 functions the probe
 * wraps.  dlsym(RTLD_NEXT) finds them when the libraries are in the global
 * scope (linked by the program, or dlopen'ed with RTLD_GLOBAL).  A library
 * dlopen'ed with RTLD_LOCAL (Python extensions such as pyverbs) is not in
 * that scope, so the probe falls back to a handle on the already loaded
 * library (RTLD_NOLOAD: the probe never loads anything itself).  A NULL
 * answer is not cached by the callers, so a library loaded later is found.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "probe.h"

static const char *const rt_probe_libs[] = {
	"libibverbs.so.1",
	"librdmacm.so.1",
	"libmlx5.so.1",
};

void *rt_probe_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f)
		return f;
	for (size_t i = 0; i < sizeof(rt_probe_libs) / sizeof(rt_probe_libs[0]); i++) {
		void *h = dlopen(rt_probe_libs[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		f = dlsym(h, name);
		dlclose(h);
		if (f)
			return f;
	}
	return NULL;
}

void *rt_probe_real_any(const char *name)
{
	void *f = rt_probe_real(name);
	return f ? f : dlsym(RTLD_DEFAULT, name);
}
