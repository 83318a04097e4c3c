/*
 * Locating the Wireshark plugin and profile, resolving a run directory to
 * the capture Wireshark should open (re-running correlation when the
 * annotated copy is missing or stale), and installing the profile.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datadir.h"
#include "rdmatrace/timeline.h"
#include "wireshark_files.h"

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int ws_find_plugin_dir(char *dir, size_t len, char *err, size_t errlen)
{
	char lua[PATH_MAX];
	if (rt_find_data_file("wireshark/rdmatrace.lua", lua, sizeof(lua)) == 0) {
		char *slash = strrchr(lua, '/');
		*slash = 0;
		if (snprintf(dir, len, "%s", lua) < (int)len)
			return 0;
	}
	snprintf(err, errlen, "cannot find rdmatrace.lua (set RDMATRACE_DATADIR to the directory that holds wireshark/)");
	return -ENOENT;
}

static time_t mtime_of(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? st.st_mtime : 0;
}

/* Newest modification time of the run's inputs (its capture and traces). */
static time_t run_inputs_mtime(const char *rundir)
{
	static const char *const inputs[] = { "traces", "run.json" };
	char p[PATH_MAX];
	time_t newest = rt_timeline_capture_of(rundir, p, sizeof(p)) == 0 ? mtime_of(p) : 0;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		time_t t = rt_path_join(p, sizeof(p), rundir, inputs[i]) == 0 ? mtime_of(p) : 0;
		if (t > newest)
			newest = t;
	}
	return newest;
}

/* Runs `<this binary> correlate RUNDIR`, its output going to stderr. */
static int run_correlate(const char *rundir)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = 0;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl(exe, "rdmatrace", "correlate", rundir, (char *)NULL);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int ws_resolve_capture(const char *target, char *path, size_t len, int *annotated, char *err,
		       size_t errlen)
{
	*annotated = 0;
	if (is_file(target)) {
		snprintf(path, len, "%s", target);
		return 0;
	}
	if (!is_dir(target)) {
		snprintf(err, errlen, "%s: no such run directory or capture file", target);
		return -ENOENT;
	}
	char ann[PATH_MAX];
	if (rt_path_join(ann, sizeof(ann), target, "annotated.pcapng") != 0) {
		snprintf(err, errlen, "%s: path too long", target);
		return -ENAMETOOLONG;
	}
	if (!is_file(ann) || mtime_of(ann) < run_inputs_mtime(target)) {
		if (run_correlate(target) != 0)
			fprintf(stderr, "rdmatrace: could not (re)build %s with `rdmatrace correlate`;"
					" opening the raw capture without annotations\n", ann);
	}
	if (is_file(ann)) {
		snprintf(path, len, "%s", ann);
		*annotated = 1;
		return 0;
	}
	if (rt_timeline_capture_of(target, path, len) == 0)
		return 0;
	snprintf(err, errlen, "%s: the run has no capture (annotated.pcapng, capture.pcapng, or another *.pcap, "
		 "*.pcapng, either also .gz, .zst or .lz4)", target);
	return -ENOENT;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	if (!in)
		return -errno;
	FILE *out = fopen(to, "wb");
	if (!out) {
		int e = -errno;
		fclose(in);
		return e;
	}
	char buf[8192];
	size_t n;
	int rc = 0;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -EIO;
	if (ferror(in))
		rc = -EIO;
	fclose(in);
	if (fclose(out) != 0)
		rc = -EIO;
	return rc;
}

int ws_install_profile(const char *plugin_dir, char *installed_to, size_t len, char *err, size_t errlen)
{
	static const char *const files[] = { "colorfilters", "preferences", "disabled_protos" };
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n;
	if (xdg && *xdg)
		n = snprintf(installed_to, len, "%s/wireshark/profiles/rdmatrace", xdg);
	else if (home && *home)
		n = snprintf(installed_to, len, "%s/.config/wireshark/profiles/rdmatrace", home);
	else {
		snprintf(err, errlen, "neither XDG_CONFIG_HOME nor HOME is set: cannot install the profile");
		return -ENOENT;
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "configuration path too long");
		return -ENAMETOOLONG;
	}
	int rc = rt_mkdir_p(installed_to);
	if (rc != 0) {
		snprintf(err, errlen, "cannot create %s: %s", installed_to, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char from[PATH_MAX], to[PATH_MAX], profile_dir[PATH_MAX];
		rc = rt_path_join(profile_dir, sizeof(profile_dir), plugin_dir, "profile");
		if (rc == 0)
			rc = rt_path_join(from, sizeof(from), profile_dir, files[i]);
		if (rc == 0)
			rc = rt_path_join(to, sizeof(to), installed_to, files[i]);
		if (rc == 0)
			rc = copy_file(from, to);
		if (rc != 0) {
			snprintf(err, errlen, "cannot copy %s to %s: %s", from, to, strerror(-rc));
			return rc;
		}
	}
	return 0;
}
