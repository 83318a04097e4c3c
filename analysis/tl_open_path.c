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

/* The magic of a pcap file (either byte order, micro- or nanoseconds) or of
 * a pcapng section header. */
static bool capture_magic(const uint8_t m[8])
{
	static const uint8_t magics[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 }, { 0x4d, 0x3c, 0xb2, 0xa1 },
		{ 0xa1, 0xb2, 0x3c, 0x4d }, { 0x0a, 0x0d, 0x0d, 0x0a },
	};
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (!memcmp(m, magics[i], 4))
			return true;
	return false;
}

/* What a file is, by its first bytes (a compressed capture by its name too:
 * a compressed file can hold anything). */
enum file_kind { FILE_OTHER, FILE_CAPTURE, FILE_TRACE };

static enum file_kind file_kind(const char *path, const uint8_t magic[8])
{
	if (capture_magic(magic) || (rt_capfile_compression(magic, 8) && rt_capfile_name_is_capture(path)))
		return FILE_CAPTURE;
	return memcmp(magic, RT_FILE_MAGIC, 8) ? FILE_OTHER : FILE_TRACE;
}

/* Several files correlated together: one capture at most, the others trace
 * files. */
static int open_files(const char *const *paths, size_t n, struct rt_timeline **out, char *err, size_t errlen)
{
	const char **traces = calloc(n, sizeof(*traces));
	if (!traces) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct rt_tl_inputs in = { .traces = traces };
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct stat st;
		uint8_t magic[8];
		if (stat(paths[i], &st) < 0 || !S_ISREG(st.st_mode) || (rc = file_magic(paths[i], magic)) < 0) {
			rc = rc < 0 ? rc : -EINVAL;
			snprintf(err, errlen, "%s: %s", paths[i],
				 rc == -EINVAL ? "not a regular file (several files: a capture and trace files)"
					       : strerror(-rc));
			break;
		}
		enum file_kind k = file_kind(paths[i], magic);
		if (k == FILE_TRACE) {
			traces[in.ntraces++] = paths[i];
		} else if (k == FILE_CAPTURE && !in.capture) {
			in.capture = paths[i];
		} else {
			rc = -EINVAL;
			snprintf(err, errlen, k == FILE_CAPTURE ? "%s: a second capture (one is correlated with the traces: %s)"
								: "%s: neither a capture nor a trace file%s",
				 paths[i], k == FILE_CAPTURE ? in.capture : "");
		}
	}
	if (rc == 0)
		rc = rt_timeline_build(&in, out, err, errlen);
	free(traces);
	return rc;
}

int rt_timeline_open_paths(const char *const *paths, size_t n, unsigned flags, struct rt_timeline **out, char *err,
			   size_t errlen)
{
	*out = NULL;
	if (n == 1)
		return rt_timeline_open_path(paths[0], flags, out, err, errlen);
	if (n == 0) {
		snprintf(err, errlen, "nothing to open");
		return -EINVAL;
	}
	return open_files(paths, n, out, err, errlen);
}

int rt_timeline_open_path(const char *path, unsigned flags, struct rt_timeline **out, char *err, size_t errlen)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode))
		return rt_timeline_open_rundir(path, flags, out, err, errlen);
	if (!S_ISREG(st.st_mode)) { /* (a pipe would be read twice: to see what it is, then by the build) */
		snprintf(err, errlen, "%s: not a run directory or a regular file", path);
		return -EINVAL;
	}
	uint8_t magic[8];
	int rc = file_magic(path, magic);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (file_kind(path, magic) != FILE_OTHER)
		return open_files(&path, 1, out, err, errlen);
	/* a saved timeline, or something we cannot read: the loader says which */
	char msg[512];
	rc = rt_timeline_load(path, out, msg, sizeof(msg));
	if (rc < 0)
		snprintf(err, errlen, "%s: not a run directory, timeline, trace file or capture (%s)", path, msg);
	return rc;
}
