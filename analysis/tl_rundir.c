/*
 * The timeline of a run directory: which inputs it has (traces/ *.rtr, the
 * capture), whether RUNDIR/timeline.rtl is current, and `correlate` itself
 * (build, save, write the annotated capture and the sidecar).
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rdmatrace/capfile.h"
#include "tl_internal.h"

struct inputs {
	char **traces;
	size_t ntraces;
	char *capture;
	char **unused;            /* the other captures found (not correlated) */
	int *unused_rank;         /* capture_rank() of each */
	size_t nunused;
};

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->ntraces; i++)
		free(in->traces[i]);
	free(in->traces);
	free(in->capture);
	for (size_t i = 0; i < in->nunused; i++)
		free(in->unused[i]);
	free(in->unused);
	free(in->unused_rank);
	memset(in, 0, sizeof(*in));
}

/* dir/name appended to the list (*list, *n). */
static int add_path(char ***list, size_t *n, const char *dir, const char *name)
{
	char **t = realloc(*list, (*n + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	*list = t;
	size_t len = strlen(dir) + strlen(name) + 2;
	if (!(t[*n] = malloc(len)))
		return -ENOMEM;
	snprintf(t[(*n)++], len, "%s/%s", dir, name);
	return 0;
}

static int add_trace(struct inputs *in, const char *dir, const char *name)
{
	return add_path(&in->traces, &in->ntraces, dir, name);
}

static bool is_dir(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The *.rtr files of dir/sub (none when it is not a directory). */
static int add_traces_of(struct inputs *in, const char *dir, const char *sub)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] != '.' && ends_with(de->d_name, ".rtr"))
			rc = add_trace(in, path, de->d_name);
	closedir(d);
	return rc;
}

/* capture_rank() of a capture at the top of the run directory, at least. */
enum { CAPTURE_RANK_TOP = 4 };

/* How much a capture file named name is preferred as the run's capture:
 * capture.pcapng, then capture.* (such as capture.pcapng.gz), then
 * wire.*, then any other; one at the top of the run directory before one
 * in a host's run directory inside it (`record --capture` on each host).
 * -1: not a capture file. */
static int capture_rank(const char *name, bool top)
{
	if (!rt_capfile_name_is_capture(name) || !strcmp(name, "annotated.pcapng") || name[0] == '.')
		return -1;
	int prio = !strcmp(name, "capture.pcapng") ? 3 : !strncmp(name, "capture.", 8) ? 2 : !strncmp(name, "wire.", 5) ? 1 : 0;
	return top ? CAPTURE_RANK_TOP + prio : prio;
}

/* Capture dir/name of rank r, found: choose_capture() decides which is the run's. */
static int add_capture(struct inputs *in, const char *dir, const char *name, int r)
{
	int *ranks = realloc(in->unused_rank, (in->nunused + 1) * sizeof(*ranks));
	if (!ranks)
		return -ENOMEM;
	in->unused_rank = ranks;
	ranks[in->nunused] = r;
	return add_path(&in->unused, &in->nunused, dir, name);
}

/* Whether paths a and b are in the same directory. */
static bool same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	return sa && sb && sa - a == sb - b && !strncmp(a, b, (size_t)(sa - a));
}

/* The run's capture, of those found: the highest ranked (the first by path
 * of those alike: readdir's order is no order); the others stay listed as
 * not used.  None when the best are in the hosts' directories and they are
 * in more than one: two hosts' captures, or run directories side by side,
 * are not told apart here, and a note names them all. */
static void choose_capture(struct inputs *in)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < in->nunused; i++)
		if (best == SIZE_MAX || in->unused_rank[i] > in->unused_rank[best] ||
		    (in->unused_rank[i] == in->unused_rank[best] && strcmp(in->unused[i], in->unused[best]) < 0))
			best = i;
	if (best == SIZE_MAX)
		return;
	if (in->unused_rank[best] < CAPTURE_RANK_TOP)
		for (size_t i = 0; i < in->nunused; i++)
			if (!same_dir(in->unused[i], in->unused[best]))
				return;
	in->capture = in->unused[best];
	in->unused[best] = in->unused[--in->nunused];
	in->unused_rank[best] = in->unused_rank[in->nunused];
}

/* A host's run directory inside the run directory: the .rtr files of its
 * traces/, and its captures. */
static int add_sub_run(struct inputs *in, const char *rundir, const char *name)
{
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/traces", name);
	int rc = add_traces_of(in, rundir, sub);
	snprintf(sub, sizeof(sub), "%s/%s", rundir, name);
	DIR *d = rc < 0 ? NULL : opendir(sub);
	if (!d)
		return rc;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		int r = capture_rank(de->d_name, false);
		if (r >= 0 && !is_dir(sub, de->d_name))
			rc = add_capture(in, sub, de->d_name, r);
	}
	closedir(d);
	return rc;
}

/* The trace files and the capture (choose_capture(); the other captures
 * found are listed as not used). */
static int find_inputs(const char *rundir, struct inputs *in, char *err, size_t errlen)
{
	memset(in, 0, sizeof(*in));
	DIR *d = opendir(rundir);
	if (!d) {
		int e = errno;
		snprintf(err, errlen, "cannot open run directory %s: %s", rundir, strerror(e));
		return -e;
	}
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, "annotated.pcapng") || n[0] == '.')
			continue;
		if (ends_with(n, ".rtr")) {
			if ((rc = add_trace(in, rundir, n)) < 0)
				break;
			continue;
		}
		int r = capture_rank(n, true);
		if (r < 0 || is_dir(rundir, n)) {
			/* traces/, and the run directories `rdmatrace record -o` made on
			 * each host, put side by side in this one (the VM lab's
			 * layout): their traces/ and captures */
			if (is_dir(rundir, n) &&
			    (rc = strcmp(n, "traces") ? add_sub_run(in, rundir, n) : add_traces_of(in, rundir, n)) < 0)
				break;
			continue;
		}
		if ((rc = add_capture(in, rundir, n, r)) < 0)
			break;
	}
	closedir(d);
	if (rc < 0) {
		inputs_free(in);
		return rc;
	}
	if (in->ntraces > 1)
		qsort(in->traces, in->ntraces, sizeof(char *), cmp_str);
	choose_capture(in);
	if (in->nunused > 1) /* (the ranks are not needed any more) */
		qsort(in->unused, in->nunused, sizeof(char *), cmp_str);
	if (!in->ntraces && !in->capture && !tl_rundir_has_untraced(rundir)) {
		snprintf(err, errlen, "%s has no trace files (traces/*.rtr) and no capture (capture.pcapng)", rundir);
		return -ENOENT;
	}
	return 0;
}

static int64_t mtime_ns(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* FNV-1a over each input's name (relative to the run directory), size and
 * modification time: any input added, removed, rewritten or touched changes
 * it.  Never 0 (0 means "no stamp recorded"). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t stamp_file(uint64_t h, const char *rundir, const char *path)
{
	size_t rl = strlen(rundir);
	const char *rel = !strncmp(path, rundir, rl) ? path + rl : path;
	struct stat st;
	int64_t v[2] = {-1, -1};
	if (stat(path, &st) == 0) {
		v[0] = (int64_t)st.st_size;
		v[1] = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	}
	h = fnv(h, rel, strlen(rel) + 1);
	return fnv(h, v, sizeof(v));
}

static uint64_t input_stamp(const char *rundir, const struct inputs *in)
{
	uint64_t h = 0xcbf29ce484222325ull;
	/* the program that builds it too: a new rdmatrace analyses again what
	 * an older one left (the same program, reinstalled or not, does not) */
	h = stamp_file(h, rundir, "/proc/self/exe");
	if (in->capture)
		h = stamp_file(h, rundir, in->capture);
	for (size_t i = 0; i < in->ntraces; i++)
		h = stamp_file(h, rundir, in->traces[i]);
	for (size_t i = 0; i < in->nunused; i++) /* (named in a note) */
		h = stamp_file(h, rundir, in->unused[i]);
	return h ? h : 1;
}

int rt_timeline_capture_of(const char *rundir, char *path, size_t len)
{
	struct inputs in;
	char err[256];
	if (find_inputs(rundir, &in, err, sizeof(err)) < 0)
		return -ENOENT;
	int rc = !in.capture ? -ENOENT : (size_t)snprintf(path, len, "%s", in.capture) >= len ? -ENAMETOOLONG : 0;
	inputs_free(&in);
	return rc;
}

int rt_timeline_stale(const char *rundir)
{
	char path[4096], err[256];
	snprintf(path, sizeof(path), "%s/%s", rundir, RT_TL_FILE_NAME);
	uint64_t stamp;
	if (tl_file_stamp(path, &stamp) < 0)
		return 1; /* missing, damaged or of another version */
	int64_t t = mtime_ns(path);
	if (t < 0)
		return 1;
	struct inputs in;
	if (find_inputs(rundir, &in, err, sizeof(err)) < 0)
		return 0; /* nothing to rebuild from: the timeline is all there is */
	if (stamp) {
		/* the header says what it was built from: compare, read nothing else */
		int stale = input_stamp(rundir, &in) != stamp;
		inputs_free(&in);
		return stale;
	}
	int stale = 0;
	if (in.capture && mtime_ns(in.capture) > t)
		stale = 1;
	for (size_t i = 0; i < in.ntraces; i++)
		if (mtime_ns(in.traces[i]) > t)
			stale = 1;
	char tdir[4096];
	snprintf(tdir, sizeof(tdir), "%s/traces", rundir);
	if (mtime_ns(tdir) > t) /* a trace file was added or removed */
		stale = 1;
	inputs_free(&in);
	return stale;
}

int rt_timeline_correlate(const char *rundir, struct rt_timeline **out, char *err, size_t errlen)
{
	return rt_timeline_correlate_ex(rundir, 0, out, err, errlen);
}

int rt_timeline_correlate_ex(const char *rundir, unsigned flags, struct rt_timeline **out, char *err,
			     size_t errlen)
{
	bool ann = !(flags & RT_TL_CORRELATE_NO_ANNOTATED);
	struct inputs in;
	int rc = find_inputs(rundir, &in, err, errlen);
	if (rc < 0)
		return rc;
	char annp[4096], jsonl[4096], path[4096];
	snprintf(annp, sizeof(annp), "%s/annotated.pcapng", rundir);
	snprintf(jsonl, sizeof(jsonl), "%s/annotations.jsonl", rundir);
	snprintf(path, sizeof(path), "%s/%s", rundir, RT_TL_FILE_NAME);
	struct rt_tl_inputs ti = {
		.traces = (const char *const *)in.traces,
		.ntraces = in.ntraces,
		.capture = in.capture,
		.annotated_out = in.capture && ann ? annp : NULL,
		.annotations_jsonl = in.capture && ann ? jsonl : NULL,
		.timeline_out = path,
		.rundir = rundir,
		.unused_captures = (const char *const *)in.unused,
		.nunused_captures = in.nunused,
	};
	uint64_t stamp = input_stamp(rundir, &in);
	struct rt_timeline *tl;
	rc = rt_timeline_build(&ti, &tl, err, errlen);
	inputs_free(&in);
	if (rc < 0)
		return rc;
	tl->input_stamp = stamp;
	tl_phase(NULL);
	rc = rt_timeline_save(tl, path, err, errlen);
	tl_phase("save");
	if (rc < 0 || !out) {
		rt_timeline_free(tl);
		if (out)
			*out = NULL;
		return rc;
	}
	*out = tl;
	return 0;
}

int rt_timeline_open_rundir(const char *rundir, unsigned flags, struct rt_timeline **out, char *err,
			    size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", rundir, RT_TL_FILE_NAME);
	bool rebuilt = false;
	if ((flags & RT_TL_OPEN_REBUILD_STALE) && rt_timeline_stale(rundir)) {
		int rc = rt_timeline_correlate(rundir, NULL, err, errlen);
		if (rc < 0)
			return rc;
		rebuilt = true;
	}
	int rc = rt_timeline_load(path, out, err, errlen);
	if (rc >= 0 || rc == -ENOMEM || rebuilt || !(flags & RT_TL_OPEN_REBUILD_STALE))
		return rc;
	/* a timeline damaged past its header is rebuilt like a stale one, when
	 * the inputs it came from are there */
	struct inputs in;
	char ferr[256];
	if (find_inputs(rundir, &in, ferr, sizeof(ferr)) < 0)
		return rc;
	inputs_free(&in);
	if ((rc = rt_timeline_correlate(rundir, NULL, err, errlen)) < 0)
		return rc;
	return rt_timeline_load(path, out, err, errlen);
}
