/*
 * What a user names on the command line, opened as a timeline: a run
 * directory (its saved timeline, correlated first when stale), or a single
 * file correlated on its own in memory: a capture (pcap or pcapng, also
 * compressed), a trace file (.rtr), or a saved timeline (.rtl); or several
 * files, a capture and trace files, correlated together.  The viewer,
 * `diagnose` and `export` take them, so a capture from a colleague, or the
 * files copied from each host, are diagnosed without making a run
 * directory for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/timeline.h"
#include "rdmatrace/trace_format.h"

/* The first 8 bytes of path into magic (zeros past its end): 0, or -errno. */
static int file_magic(const char *path, uint8_t magic[8])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	memset(magic, 0, 8);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, magic, 8);
	int e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}

/* What a path is: a run directory, a capture (by its first bytes, a
 * compressed one by its name too: a compressed file can hold anything), a
 * trace file, another regular file (a saved timeline, or what cannot be
 * read), or something else (a pipe would be read twice: to see what it is,
 * then by the build).  Or -errno when it cannot be looked at. */
enum path_kind { PATH_DIR, PATH_CAPTURE, PATH_TRACE, PATH_OTHER, PATH_SPECIAL };

static int path_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return PATH_DIR;
	if (!S_ISREG(st.st_mode))
		return PATH_SPECIAL;
	uint8_t magic[8];
	int rc = file_magic(path, magic);
	if (rc < 0)
		return rc;
	if (rt_capfile_recognises(magic, 8) || (rt_capfile_compression(magic, 8) && rt_capfile_name_is_capture(path)))
		return PATH_CAPTURE;
	return memcmp(magic, RT_FILE_MAGIC, 8) ? PATH_OTHER : PATH_TRACE;
}

/* A lone path that is no capture or trace file (of kind k): a run
 * directory, a saved timeline, or what we cannot read. */
static int open_lone(const char *path, int k, unsigned flags, struct rt_timeline **out, char *err, size_t errlen)
{
	if (k == PATH_DIR)
		return rt_timeline_open_rundir(path, flags, out, err, errlen);
	if (k == PATH_SPECIAL) {
		snprintf(err, errlen, "%s: not a run directory or a regular file", path);
		return -EINVAL;
	}
	/* a saved timeline, or something we cannot read: the loader says which */
	char msg[512];
	int rc = rt_timeline_load(path, out, msg, sizeof(msg));
	if (rc < 0)
		snprintf(err, errlen, "%s: not a run directory, timeline, trace file or capture (%s)", path, msg);
	return rc;
}

int rt_timeline_open_paths(const char *const *paths, size_t n, unsigned flags, struct rt_timeline **out, char *err,
			   size_t errlen)
{
	*out = NULL;
	if (n == 0) {
		snprintf(err, errlen, "nothing to open");
		return -EINVAL;
	}
	int first = path_kind(paths[0]);
	if (n == 1 && first >= 0 && first != PATH_CAPTURE && first != PATH_TRACE)
		return open_lone(paths[0], first, flags, out, err, errlen);
	/* files correlated together: one capture at most, the others trace files */
	const char **traces = calloc(n, sizeof(*traces));
	if (!traces) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct rt_tl_inputs in = { .traces = traces };
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int k = i ? path_kind(paths[i]) : first;
		if (k == PATH_TRACE) {
			traces[in.ntraces++] = paths[i];
			continue;
		}
		if (k == PATH_CAPTURE && !in.capture) {
			in.capture = paths[i];
			continue;
		}
		rc = k < 0 ? k : -EINVAL;
		if (k < 0)
			snprintf(err, errlen, "%s: %s", paths[i], strerror(-k));
		else if (k == PATH_CAPTURE)
			snprintf(err, errlen, "%s: a second capture (one is correlated with the traces: %s)", paths[i],
				 in.capture);
		else if (k == PATH_OTHER)
			snprintf(err, errlen, "%s: neither a capture nor a trace file", paths[i]);
		else
			snprintf(err, errlen, "%s: not a regular file (several files: a capture and trace files)", paths[i]);
	}
	if (rc == 0)
		rc = rt_timeline_build(&in, out, err, errlen);
	free(traces);
	return rc;
}

int rt_timeline_open_path(const char *path, unsigned flags, struct rt_timeline **out, char *err, size_t errlen)
{
	return rt_timeline_open_paths(&path, 1, flags, out, err, errlen);
}
