/*
 * The recorded program's own output, for the finding of a process that gave
 * up with a non-zero exit status: the program says why on its stderr
 * ("Couldn't open XRC domain"), and the tool that ran it kept it in the
 * recording's logs/.  `rdmatrace record` names it in its run.json, next to
 * the traces/ directory the process's trace is in: "stderr_log" (its stderr
 * alone, when it wrote any) and "log" (stdout and stderr; stdout, buffered
 * in a pipe, often comes last).  The lab (scripts/lab-run), whose run.json
 * holds every side's recording, names each side's "stderr" and "output"
 * beside the side's record, whose processes list their traces.  This finds
 * those files from the trace's path and quotes the last lines of stderr
 * (two, the error and what the program made of it), else the last line of
 * the output.  Only the recording's own run.json is read, and only log
 * paths inside the recording's directory.
 *
 * Also who stopped a program killed by a signal, when the tool that ran it
 * says: the lab's time limit (its side's exit status 124), the VM lab's
 * (result "stopped"), or a `timeout N` its command ran under there (status
 * 124 in scripts/lab-vm's run.json, in the directory above the recording).
 */
#include <errno.h>
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

/* The path of key ("\"log\": \"") in [from, to) into out. */
static bool path_of(const char *from, const char *to, const char *key, char *out, size_t len)
{
	const char *p = strstr(from, key);
	return p && p < to && json_path(p + strlen(key), out, len);
}

/* The last occurrence of needle in [from, to), NULL when none. */
static const char *last_before(const char *from, const char *to, const char *needle)
{
	const char *found = NULL;
	for (const char *p = strstr(from, needle); p && p < to; p = strstr(p + 1, needle))
		found = p;
	return found;
}

/* The logs of the process whose trace is RECDIR/traces/name, from the
 * recording's run.json (the whole file in json): its stderr (err, "" when
 * not named) and its output (out). */
static bool logs_of(const char *json, const char *name, char *err, char *out, size_t len)
{
	const char *end = json + strlen(json);
	*err = *out = 0;
	enum tl_run_tool tool = tl_run_json_tool(json);
	if (tool == TL_RUN_RECORD) {
		if (!path_of(json, end, "\"stderr_log\": \"", err, len))
			*err = 0;
		return path_of(json, end, "\"log\": \"", out, len) || *err;
	}
	if (tool != TL_RUN_LAB)
		return false;
	/* the side whose record lists the trace: it starts at the last "output"
	 * before it (name "@SIDE": that side's, for a side without a trace) */
	char key[600];
	if (snprintf(key, sizeof(key), name[0] == '@' ? "\"%s\": {\"exit_status\"" : "\"trace\": \"traces/%s\"",
		     name[0] == '@' ? name + 1 : name) >= (int)sizeof(key))
		return false;
	const char *trace = strstr(json, key);
	if (trace && name[0] == '@') /* the side's record starts after its output */
		trace = strstr(trace, "\"record\": ");
	const char *side = trace ? last_before(json, trace, "\"output\": \"") : NULL;
	if (!side)
		return false;
	if (!path_of(side, trace, "\"stderr\": \"", err, len))
		*err = 0;
	return path_of(side, trace, "\"output\": \"", out, len) || *err;
}

/* The last n lines with something on them of RECDIR/log, made printable
 * ASCII (the finding's text goes into JSON as it is) and quoted, joined with
 * " and ", into words; the number of lines quoted. */
static unsigned last_lines(const char *dir, const char *log, unsigned n, char *words, size_t len)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", dir, log);
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	char buf[4096];
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	long from = size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0;
	size_t got = size >= 0 && fseek(f, from, SEEK_SET) == 0 ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	fclose(f);
	/* the lines' bounds, last first */
	size_t starts[2], ends[2];
	unsigned found = 0;
	size_t end = got;
	while (found < n && found < 2) {
		while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == '\r' || buf[end - 1] == ' ' || buf[end - 1] == '\t'))
			end--;
		size_t start = end;
		while (start > 0 && buf[start - 1] != '\n' && buf[start - 1] != '\r')
			start--;
		if (start == end || (start == 0 && from > 0))
			break; /* no more lines, or one cut at the start of what was read */
		size_t line_end = end;
		end = start;
		while (buf[start] == ' ' || buf[start] == '\t')
			start++; /* its indentation */
		starts[found] = start;
		ends[found++] = line_end;
	}
	size_t o = 0;
	for (unsigned k = found; k-- > 0;) {
		o += (size_t)snprintf(words + o, len - o, "%s\"", k + 1 < found ? " and " : "");
		size_t i = starts[k];
		for (; i < ends[k] && o + 6 < len && i - starts[k] < 160; i++) {
			unsigned char ch = (unsigned char)buf[i];
			words[o++] = ch == '"' ? '\'' : ch < 32 || ch >= 127 ? '?' : (char)ch;
		}
		if (i < ends[k] && o + 5 < len) {
			memcpy(words + o, "...", 3);
			o += 3;
		}
		if (o + 2 < len)
			words[o++] = '"';
		words[o] = 0;
		if (o + 8 >= len)
			break;
	}
	return found;
}

int tl_run_json_read(const char *dir, char **json, size_t *len)
{
	char path[4200];
	*json = NULL;
	*len = 0;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t cap = 1 << 20; /* a lab's run.json with every side's processes */
	char *j = malloc(cap);
	size_t n = j ? fread(j, 1, cap - 1, f) : 0;
	fclose(f);
	if (!j)
		return -ENOMEM;
	j[n] = 0;
	*json = j;
	*len = n;
	return 0;
}

enum tl_run_tool tl_run_json_tool(const char *json)
{
	const char *tool = strstr(json, "\"tool\": \""); /* the first: the file's own, not a side's record */
	if (tool && !strncmp(tool + 9, "rdmatrace record\"", 17))
		return TL_RUN_RECORD;
	if (tool && !strncmp(tool + 9, "rdmatrace lab\"", 14))
		return TL_RUN_LAB;
	if (tool && !strncmp(tool + 9, "rdmatrace scripts/lab-vm\"", 25))
		return TL_RUN_VM;
	return TL_RUN_OTHER;
}

bool tl_program_output_words(const char *trace, char *words, size_t len)
{
	char dir[4096], *json;
	size_t n;
	if (!trace || !recording_dir(trace, dir, sizeof(dir)) || tl_run_json_read(dir, &json, &n) < 0 || !json)
		return false;
	bool found = tl_run_json_output_words(dir, json, strrchr(trace, '/') + 1, words, len);
	free(json);
	return found;
}

bool tl_run_json_output_words(const char *dir, const char *json, const char *trace_name, char *words, size_t len)
{
	char err[256], out[256], quote[520];
	if (len < 16 || !logs_of(json, trace_name, err, out, sizeof(err)))
		return false;
	if (*err && last_lines(dir, err, 2, quote, sizeof(quote))) {
		snprintf(words, len, " Its stderr (%s) ends with %s.", err, quote);
		return true;
	}
	if (*out && last_lines(dir, out, 1, quote, sizeof(quote))) {
		snprintf(words, len, " The recorded output (%s) ends with %s.", out, quote);
		return true;
	}
	return false;
}

long long tl_json_int(const char *from, const char *to, const char *key, long long def)
{
	const char *p = strstr(from, key);
	return p && p < to ? strtoll(p + strlen(key), NULL, 10) : def;
}

/* The VM lab's process entry (scripts/lab-vm's run.json, in json) that
 * is the one match() accepts (its [from, to) and arg): its start in *from
 * and end in *to. */
static bool vm_process(const char *json, bool (*match)(const char *from, const char *to, const char *arg),
		       const char *arg, const char **from, const char **to)
{
	const char *procs = strstr(json, "\"processes\": [");
	const char *end = procs ? strstr(procs, "\n  ]") : NULL;
	for (const char *e = procs ? strstr(procs, "{\"host\": ") : NULL; e && e < end;) {
		const char *next = strstr(e + 1, "{\"host\": ");
		const char *stop = next && next < end ? next : end;
		if (match(e, stop, arg)) {
			*from = e;
			*to = stop;
			return true;
		}
		e = next;
	}
	return false;
}

/* A VM lab process entry whose command records into the directory named
 * base (`rdmatrace record -o .../base -- ...`). */
static bool records_into(const char *from, const char *to, const char *base)
{
	const char *cmd = strstr(from, "\"command\": \"");
	for (const char *o = cmd && cmd < to ? strstr(cmd, " -o ") : NULL; o && o < to; o = strstr(o + 1, " -o ")) {
		const char *path = o + 4, *sp = strchr(path, ' ');
		if (!sp || sp >= to)
			break;
		size_t n = strlen(base);
		if ((size_t)(sp - path) >= n && !strncmp(sp - n, base, n) && (sp - n == path || sp[-(long)n - 1] == '/'))
			return true;
	}
	return false;
}

/* A VM lab process entry of the host (VM) named host. */
static bool runs_on(const char *from, const char *to, const char *host)
{
	size_t n = strlen(host);
	return (size_t)(to - from) > 10 + n && !strncmp(from + 10, host, n) && from[10 + n] == '"';
}

/* What a VM lab process entry [from, to) of run.json vm says stopped it:
 * the lab itself (result "stopped": the whole run's time limit, or the
 * grace it gives one side once the other has ended), or a `timeout N` its
 * command ran under (status 124). */
static bool vm_stop_words(const char *vm, const char *from, const char *to, char *words, size_t len)
{
	const char *res = strstr(from, "\"result\": \"stopped\"");
	const char *cmd = strstr(from, "\"command\": \"timeout ");
	if (res && res < to) {
		if (strstr(vm, "\"timed_out\": true"))
			snprintf(words, len, " The VM lab stopped it: the run outlived its --timeout (run.json: result "
					     "\"stopped\", timed_out).");
		else
			snprintf(words, len, " The VM lab stopped it: it went on after the other side had ended, for "
					     "longer than the lab's --grace (run.json: result \"stopped\").");
		return true;
	}
	if (!cmd || cmd >= to || tl_json_int(from, to, "\"exit_status\": ", -1) != 124)
		return false;
	/* its duration: the first word after "timeout" that starts with a digit */
	char limit[32] = "";
	for (const char *c = cmd + 20; c < to && *c != '"' && !limit[0]; c++) {
		if (c[-1] != ' ' || *c < '0' || *c > '9')
			continue;
		int k = 0;
		while (k + 1 < (int)sizeof(limit) && c[k] && c[k] != ' ' && c[k] != '"') {
			limit[k] = c[k];
			k++;
		}
		limit[k] = 0;
	}
	snprintf(words, len, " Its command ran under `timeout %s` in the VM lab, which stopped it when that time ran "
			     "out (run.json: exit status 124).", limit[0] ? limit : "N");
	return true;
}

bool tl_program_stop_words(const char *trace, char *words, size_t len)
{
	char dir[4096], *json;
	size_t n;
	if (!trace || len < 16 || !recording_dir(trace, dir, sizeof(dir)) || tl_run_json_read(dir, &json, &n) < 0 || !json)
		return false;
	bool found = false;
	const char *from, *to;
	enum tl_run_tool tool = tl_run_json_tool(json);
	if (tool == TL_RUN_LAB) {
		/* the side whose record lists the trace: the last side to start before it */
		char key[600];
		const char *name = strrchr(trace, '/') + 1;
		const char *tr = snprintf(key, sizeof(key), "\"trace\": \"traces/%s\"", name) < (int)sizeof(key)
					 ? strstr(json, key) : NULL;
		const char *srv = tr ? last_before(json, tr, "\"server\": {\"exit_status\": ") : NULL;
		const char *cli = tr ? last_before(json, tr, "\"client\": {\"exit_status\": ") : NULL;
		const char *side = cli > srv ? cli : srv;
		/* a VM backend's run: the VM lab's own run.json is in the lab's, as "vm" */
		const char *vm = strstr(json, "\"vm\": {");
		if (vm && !strstr(vm, "\"tool\": \"rdmatrace scripts/lab-vm\""))
			vm = NULL;
		if (side && tl_json_int(side, tr, "\"exit_status\": ", -1) == 124) {
			snprintf(words, len, " The lab stopped it: its side of the run had not ended within the lab's time "
					     "limit (--timeout; run.json: exit status 124).");
			found = true;
		} else if (side && vm && vm_process(vm, runs_on, side == cli ? "client" : "server", &from, &to)) {
			found = vm_stop_words(vm, from, to, words, len);
		}
	} else if (tool == TL_RUN_RECORD) {
		/* a recording the VM lab made: its run.json is in the directory above */
		char parent[4200], *vm;
		size_t vn;
		for (size_t k = strlen(dir); k > 1 && dir[k - 1] == '/'; k--)
			dir[k - 1] = 0; /* (recording_dir keeps the slash before traces/) */
		const char *slash = strrchr(dir, '/');
		const char *base = slash ? slash + 1 : dir;
		snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
		if (*base && tl_run_json_read(parent, &vm, &vn) == 0 && vm) {
			if (tl_run_json_tool(vm) == TL_RUN_VM && vm_process(vm, records_into, base, &from, &to))
				found = vm_stop_words(vm, from, to, words, len);
			free(vm);
		}
	}
	free(json);
	return found;
}
