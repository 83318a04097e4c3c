/*
 * The recorded program's own output, for the finding of a process that gave
 * up with a non-zero exit status: the program says why on its stderr
 * ("Couldn't open XRC domain"), and the tool that ran it kept it in the
 * recording's logs/.  `rdmatrace record` names it in its run.json ("log",
 * next to the traces/ directory the process's trace is in); the lab
 * (scripts/lab-run), whose run.json holds every side's recording, names each
 * side's output ("output") beside the side's record, whose processes list
 * their traces.  This finds that file from the trace's path and gives its
 * last line that is not empty.  Only the recording's own run.json is read,
 * and only a log path inside the recording's directory.
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

/* The JSON string that starts at p (just after its opening quote) into out:
 * the tools write paths with \" and \\ escaped and no other escapes.  A
 * relative path inside the recording only. */
static bool json_path(const char *p, char *out, size_t len)
{
	size_t o = 0;
	for (; *p && *p != '"' && o + 1 < len; p++) {
		if (*p == '\\' && p[1])
			p++;
		out[o++] = *p;
	}
	out[o] = 0;
	return *p == '"' && o > 0 && !strstr(out, "..") && out[0] != '/';
}

/* The last occurrence of needle in [from, to), NULL when none. */
static const char *last_before(const char *from, const char *to, const char *needle)
{
	const char *found = NULL;
	for (const char *p = strstr(from, needle); p && p < to; p = strstr(p + 1, needle))
		found = p;
	return found;
}

/* The log of the process whose trace is RECDIR/traces/name, from the
 * recording's run.json (the whole file in json). */
static bool log_of(const char *json, const char *name, char *out, size_t len)
{
	const char *tool = strstr(json, "\"tool\": \"");
	if (!tool)
		return false;
	tool += 9;
	if (!strncmp(tool, "rdmatrace record\"", 17)) {
		const char *p = strstr(json, "\"log\": \"");
		return p && json_path(p + 8, out, len);
	}
	if (strncmp(tool, "rdmatrace lab\"", 14))
		return false;
	/* the side whose record lists the trace: its "output" is the last before it */
	char key[600];
	if (snprintf(key, sizeof(key), "\"trace\": \"traces/%s\"", name) >= (int)sizeof(key))
		return false;
	const char *trace = strstr(json, key);
	const char *output = trace ? last_before(json, trace, "\"output\": \"") : NULL;
	return output && json_path(output + 11, out, len);
}

bool tl_program_output_tail(const char *trace, char *log, size_t loglen, char *line, size_t linelen)
{
	char dir[4096], path[8192];
	if (!trace || !linelen || !recording_dir(trace, dir, sizeof(dir)))
		return false;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t cap = 1 << 20; /* a lab's run.json with every side's processes */
	char *json = malloc(cap);
	size_t jn = json ? fread(json, 1, cap - 1, f) : 0;
	fclose(f);
	if (!json)
		return false;
	json[jn] = 0;
	bool found = log_of(json, strrchr(trace, '/') + 1, log, loglen);
	free(json);
	if (!found)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, log);
	f = fopen(path, "rb");
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
