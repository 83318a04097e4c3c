/*
 * Finding the files rdmatrace ships beside its binary (the Wireshark
 * plugin, the lab scripts): in $RDMATRACE_DATADIR, in the source tree the
 * binary was built in, or in an installed share directory; and the small
 * path helpers the commands share.
 */
#ifndef RDMATRACE_CLI_DATADIR_H
#define RDMATRACE_CLI_DATADIR_H

#include <stddef.h>

/* Path of RELATIVE (e.g. "wireshark/rdmatrace.lua") in the first of
 * $RDMATRACE_DATADIR, BINDIR/.., BINDIR/../share/rdmatrace, /usr/share/rdmatrace
 * where it exists.  Returns 0 or -ENOENT. */
int rt_find_data_file(const char *relative, char *out, size_t len);

/* dir + "/" + name into buf; 0, or -ENAMETOOLONG when it does not fit. */
int rt_path_join(char *buf, size_t len, const char *dir, const char *name);

/* mkdir -p PATH (mode 0755 for what it creates); 0 or -errno. */
int rt_mkdir_p(const char *path);

#endif
