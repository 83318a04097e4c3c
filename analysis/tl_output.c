/*
 * The recorded program's own output, for the finding of a process that gave
 * up with a non-zero exit status: the program says why on its stderr
 * ("Couldn't open XRC domain"), and `rdmatrace record` kept it in the
 * recording's logs/ (run.json's "log", next to the traces/ directory the
 * process's trace is in).  This finds that file from the trace's path and
 * gives its last line that is not empty.  Only a recording's own run.json
 * is read, and only a log path inside the recording's directory.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

/* The recording's directory: the trace's directory's parent when that is
 * "traces" (RECDIR/traces/HOST-PID-PROGRAM.rtr), into dir. */
static bool recording_dir(const char *trace, char *dir, size_t len)
{
	const char *slash = strrchr(trace, '/');
	if (!slash || slash - trace < 6 || strncmp(slash - 6, "traces", 6) ||
	    (slash - trace > 6 && slash[-7] != '/'))
		return false;
	size_t n = (size_t)(slash - 6 - trace);
	if (n + 1 > len)
		return false;
	memcpy(dir, trace, n);
	dir[n] = 0;
	if (!n)
		snprintf(dir, len, ".");
	return true;
}

/* run.json's "log" string (record writes it with json_str: \" and \\
 * escaped, no other escapes in a path it made) into out, when run.json is
 * the one `rdmatrace record` wrote. */
static bool log_of(const char *runjson, char *out, size_t len)
{
	FILE *f = fopen(runjson, "r");
	if (!f)
		return false;
	char buf[16384];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* a recording's own run.json (not the lab's, which holds every side's
	 * recording, their logs named alike) */
	const char *tool = strstr(buf, "\"tool\": \"");
	if (!tool || strncmp(tool + 9, "rdmatrace record\"", 17))
		return false;
	const char *p = strstr(buf, "\"log\": \"");
	if (!p)
		return false;
	p += 8;
	size_t o = 0;
	for (; *p && *p != '"' && o + 1 < len; p++) {
		if (*p == '\\' && p[1])
			p++;
		out[o++] = *p;
	}
	out[o] = 0;
	return *p == '"' && o > 0 && !strstr(out, "..") && out[0] != '/';
}

bool tl_program_output_tail(const char *trace, char *log, size_t loglen, char *line, size_t linelen)
{
	char dir[4096], path[8192];
	if (!trace || !linelen || !recording_dir(trace, dir, sizeof(dir)))
		return false;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (!log_of(path, log, loglen))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, log);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[4096];
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	long from = size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0;
	size_t n = size >= 0 && fseek(f, from, SEEK_SET) == 0 ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	fclose(f);
	buf[n] = 0;
	/* the last line with something on it */
	size_t end = n;
	while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == '\r' || buf[end - 1] == ' ' || buf[end - 1] == '\t'))
		end--;
	size_t start = end;
	while (start > 0 && buf[start - 1] != '\n' && buf[start - 1] != '\r')
		start--;
	if (start == end)
		return false;
	/* printable ASCII only (the finding's text goes into JSON as it is),
	 * cut with "..." when longer than line has room for */
	size_t o = 0, i = start;
	for (; i < end && o + 4 < linelen; i++) {
		unsigned char ch = (unsigned char)buf[i];
		line[o++] = ch == '"' ? '\'' : ch < 32 || ch >= 127 ? '?' : (char)ch;
	}
	if (i < end && o + 3 < linelen) {
		memcpy(line + o, "...", 3);
		o += 3;
	}
	line[o] = 0;
	return true;
}
