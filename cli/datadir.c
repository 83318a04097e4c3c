/* Locating rdmatrace's data files, and the CLI's path helpers; see datadir.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"

int rt_path_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rt_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int exists_at(const char *dir, const char *relative, char *out, size_t len)
{
	char cand[PATH_MAX];
	struct stat st;
	if (rt_path_join(cand, sizeof(cand), dir, relative) != 0 || stat(cand, &st) != 0)
		return 0;
	char *resolved = realpath(cand, NULL);
	if (!resolved)
		return 0;
	int ok = snprintf(out, len, "%s", resolved) < (int)len;
	free(resolved);
	return ok;
}

int rt_find_data_file(const char *relative, char *out, size_t len)
{
	const char *env = getenv("RDMATRACE_DATADIR");
	if (env && *env && exists_at(env, relative, out, len))
		return 0;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			static const char *const rel[] = { "..", "../share/rdmatrace" };
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				char base[PATH_MAX];
				if (rt_path_join(base, sizeof(base), exe, rel[i]) == 0 && exists_at(base, relative, out, len))
					return 0;
			}
		}
	}
	if (exists_at("/usr/share/rdmatrace", relative, out, len))
		return 0;
	return -ENOENT;
}
