/*
 * Programs that failed before they left a trace.  The probe starts the
 * tracer at a program's first RDMA call, so a program that gives up in its
 * own set-up (perftest refusing its arguments, a program that cannot reach
 * its peer over TCP to exchange QP numbers) leaves a recording with no trace
 * at all, and without this the diagnosis would say nothing of it.  The tool
 * that ran it knows how it ended: `rdmatrace record`'s run.json (RUNDIR, or
 * each recording inside it, as the VM lab lays them out) has its exit status
 * and an empty "processes" list, and the lab's run.json has each side's
 * record.  Each such program is one process_ended finding, quoting the end
 * of its stderr (tl_output.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

/* The string after key ("\"name\": \"") in [p, end) into out (printable, no escapes kept). */
static bool json_text(const char *p, const char *end, const char *key, char *out, size_t len)
{
	const char *k = strstr(p, key);
	if (!k || k >= end || !len)
		return false;
	k += strlen(key);
	size_t o = 0;
	for (; *k && *k != '"' && k < end && o + 1 < len; k++) {
		if (*k == '\\' && k[1])
			k++;
		out[o++] = (unsigned char)*k < 32 || (unsigned char)*k >= 127 ? '?' : *k;
	}
	out[o] = 0;
	return o > 0;
}

/* One record's JSON in [p, end) of run.json json (`rdmatrace record`'s
 * run.json, alone or inside the lab's): a finding when its program left no
 * trace and did not exit 0.  dir: the recording's directory; where: its
 * run.json as the evidence names it; name: how tl_output.c finds its logs in
 * json (see tl_run_json_output_words). */
static int record_finding(struct tl_build *b, const char *json, const char *p, const char *end, const char *dir,
			  const char *where, const char *name)
{
	const char *procs = strstr(p, "\"processes\": [");
	if (!procs || procs >= end || procs[14] != ']')
		return 0; /* it left traces: the process_ended findings of its trace say how it ended */
	const char *exit = strstr(p, "\"exit\": {");
	if (!exit || exit >= end)
		return 0;
	long long code = tl_json_int(exit, end, "\"code\": ", -1), sig = tl_json_int(exit, end, "\"signal\": ", 0);
	if (code == 0 || (code < 0 && sig <= 0))
		return 0;
	char prog[256] = "the program", host[128] = "?", words[900] = "";
	const char *cmd = strstr(p, "\"command\": [\"");
	if (cmd && cmd < end && json_text(cmd, end, "\"command\": [\"", prog, sizeof(prog))) {
		const char *slash = strrchr(prog, '/');
		if (slash)
			memmove(prog, slash + 1, strlen(slash + 1) + 1);
	}
	json_text(p, end, "\"name\": \"", host, sizeof(host));
	long long pid = tl_json_int(p, end, "\"root_pid\": ", 0);
	uint64_t t = (uint64_t)tl_json_int(p, end, "\"end_ns\": ", 0);
	tl_run_json_output_words(dir, json, name, words, sizeof(words));
	char text[2048], pidtxt[40] = "";
	if (pid > 0)
		snprintf(pidtxt, sizeof(pidtxt), " (pid %lld)", pid);
	if (sig > 0)
		snprintf(text, sizeof(text), "%s%s on %s was killed by %s before it made an RDMA call the probe could record "
			 "(its recording has no trace).%s", prog, pidtxt, host, rt_signal_name((int)sig), words);
	else
		snprintf(text, sizeof(text), "%s%s on %s exited with status %lld before it made an RDMA call the probe "
			 "could record (its recording has no trace): it gave up in its own set-up (its arguments, its "
			 "files, its connection to the peer to exchange addresses) before it opened a device.%s",
			 prog, pidtxt, host, code, words);
	struct tl_untraced *u = tl_vec_push(&b->untraced);
	if (!u)
		return -ENOMEM;
	u->t_ns = t;
	u->text = tl_str(b, text);
	u->evidence = tl_strf(b, "%s: exit %s %lld, no process traced", where, sig > 0 ? "signal" : "code",
			      sig > 0 ? sig : code);
	return 0;
}

/* dir/run.json, when it is one of the tools' (record's or the lab's); shown:
 * dir relative to the run directory, "" or ending in '/'. */
static int read_run_json(struct tl_build *b, const char *dir, const char *shown)
{
	char *json;
	size_t n;
	int rc = tl_run_json_read(dir, &json, &n);
	if (rc < 0 || !json)
		return rc;
	const char *end = json + n;
	char where[400];
	enum tl_run_tool tool = tl_run_json_tool(json);
	if (tool == TL_RUN_RECORD) {
		snprintf(where, sizeof(where), "%srun.json", shown);
		rc = record_finding(b, json, json, end, dir, where, "");
	} else if (tool == TL_RUN_LAB) {
		static const char *const sides[] = {"server", "client"};
		for (size_t s = 0; s < 2 && !rc; s++) {
			char key[64], name[16];
			snprintf(key, sizeof(key), "\"%s\": {\"exit_status\"", sides[s]);
			snprintf(name, sizeof(name), "@%s", sides[s]);
			const char *side = strstr(json, key);
			const char *rec = side ? strstr(side, "\"record\": {") : NULL;
			if (!rec)
				continue;
			/* the side's record ends where the next side (or the lab's vm) starts */
			const char *next = strstr(rec, s ? "\"vm\": " : "\"client\": {\"exit_status\"");
			snprintf(where, sizeof(where), "%srun.json (the %s's record)", shown, sides[s]);
			rc = record_finding(b, json, rec, next ? next : end, dir, where, name);
		}
	}
	free(json);
	return rc;
}

int tl_read_recordings(struct tl_build *b, const char *rundir)
{
	if (!rundir)
		return 0;
	int rc = read_run_json(b, rundir, "");
	DIR *d = opendir(rundir);
	if (!d)
		return rc;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "traces") || !strcmp(de->d_name, "logs"))
			continue;
		char sub[4200], shown[300];
		struct stat st;
		snprintf(sub, sizeof(sub), "%s/%s", rundir, de->d_name);
		snprintf(shown, sizeof(shown), "%s/", de->d_name);
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			rc = read_run_json(b, sub, shown);
	}
	closedir(d);
	return rc;
}

bool tl_rundir_has_untraced(const char *rundir)
{
	struct tl_build b;
	memset(&b, 0, sizeof(b));
	tl_vec_init(&b.untraced, sizeof(struct tl_untraced));
	tl_vec_init(&b.strs, 1);
	bool any = tl_read_recordings(&b, rundir) == 0 && b.untraced.n > 0;
	tl_vec_free(&b.untraced);
	tl_vec_free(&b.strs);
	return any;
}
