/*
 * What `rdmatrace wireshark` and `rdmatrace tshark` share: where the Lua
 * plugin and the profile are, and which capture of a run to open.
 */
#ifndef RDMATRACE_CLI_WIRESHARK_FILES_H
#define RDMATRACE_CLI_WIRESHARK_FILES_H

#include <stddef.h>

/* Directory holding rdmatrace.lua and profile/: $RDMATRACE_DATADIR/wireshark,
 * else wireshark/ next to the binary's parent directory, else the installed
 * share directory.  Returns 0 or -ENOENT with a message in err. */
int ws_find_plugin_dir(char *dir, size_t len, char *err, size_t errlen);

/* The capture to open for TARGET (a run directory or a capture file).  For a
 * run directory, annotated.pcapng is (re)built with `rdmatrace correlate`
 * when it is missing or older than the run's inputs; if that is not possible
 * the raw capture is used and *annotated is 0.  Returns 0 or -errno. */
int ws_resolve_capture(const char *target, char *path, size_t len, int *annotated, char *err,
		       size_t errlen);

/* Copy the profile into Wireshark's personal configuration
 * ($XDG_CONFIG_HOME or ~/.config)/wireshark/profiles/rdmatrace.
 * Returns 0 or -errno; *installed_to receives the directory. */
int ws_install_profile(const char *plugin_dir, char *installed_to, size_t len, char *err, size_t errlen);

#endif
