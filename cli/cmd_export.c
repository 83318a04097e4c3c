/*
 * `rdmatrace export RUNDIR|FILE... --format pcapng|perfetto|jsonl [-o OUT]`:
 * the run's timeline in another tool's format.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "command.h"
#include "rdmatrace/timeline.h"
#include "rdmatrace/tl_export.h"

/* The annotated pcapng's default path: RUNDIR/annotated.pcapng for a run
 * directory (the one path given), else beside the capture given:
 * x.pcapng.gz -> x.annotated.pcapng. */
static void default_pcapng(const char *const *paths, size_t n, const struct rt_timeline *tl, char *out, size_t len)
{
	struct stat st;
	if (n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(out, len, "%s/annotated.pcapng", paths[0]);
		return;
	}
	const char *cap = rt_tl_capture_path(tl), *base = strrchr(cap, '/'), *ext;
	base = base ? base + 1 : cap;
	size_t keep = (ext = strstr(base, ".pcap")) ? (size_t)(ext - cap) : strlen(cap);
	snprintf(out, len, "%.*s.annotated.pcapng", (int)keep, cap);
}

static int run(int argc, char **argv)
{
	const char *format = NULL, *outp = NULL;
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:", opts, NULL)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'o')
			outp = optarg;
		else
			return 2;
	}
	if (optind >= argc || !format ||
	    (strcmp(format, "pcapng") && strcmp(format, "perfetto") && strcmp(format, "jsonl"))) {
		fprintf(stderr, "usage: rdmatrace export RUNDIR|FILE... --format pcapng|perfetto|jsonl [-o OUT]\n");
		return 2;
	}
	char err[512], def[4096];
	struct rt_timeline *tl;
	if (rt_timeline_open_paths((const char *const *)argv + optind, (size_t)(argc - optind), RT_TL_OPEN_REBUILD_STALE,
				   &tl, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdmatrace export: %s\n", err);
		return 2;
	}
	int rc;
	if (!strcmp(format, "pcapng")) {
		if (!outp) {
			default_pcapng((const char *const *)argv + optind, (size_t)(argc - optind), tl, def, sizeof(def));
			outp = def;
		}
		rc = rt_tl_export_pcapng(tl, outp, NULL, err, sizeof(err));
		if (rc < 0)
			fprintf(stderr, "rdmatrace export: %s\n", err);
	} else {
		FILE *f = stdout;
		if (outp && strcmp(outp, "-") && !(f = fopen(outp, "w"))) {
			perror(outp);
			rt_timeline_free(tl);
			return 2;
		}
		rc = !strcmp(format, "perfetto") ? rt_tl_export_perfetto(tl, f) : rt_tl_export_jsonl(tl, f);
		if (f != stdout && fclose(f) && !rc)
			rc = -1;
		if (rc < 0)
			fprintf(stderr, "rdmatrace export: writing %s failed\n", outp ? outp : "stdout");
	}
	rt_timeline_free(tl);
	return rc < 0 ? 2 : 0;
}

const struct rt_command rt_cmd_export = {
	.name = "export",
	.builds_timelines = 1,
	.summary = "export a run's timeline: annotated pcapng, Perfetto JSON, JSON Lines",
	.usage = "usage: rdmatrace export RUNDIR|FILE... --format pcapng|perfetto|jsonl [-o OUT]\n"
		 "\n"
		 "FILE instead of a run directory: a capture (pcap, pcapng, also compressed), a trace\n"
		 "file or a saved timeline, correlated on its own in memory; several: a capture and\n"
		 "trace files, correlated together.\n"
		 "  pcapng    the capture with one comment per RoCE packet (default RUNDIR/annotated.pcapng;\n"
		 "            for FILE x.pcapng.gz, x.annotated.pcapng beside it)\n"
		 "  perfetto  Chrome trace-event JSON for ui.perfetto.dev: hosts and QPs as tracks, WRs as\n"
		 "            slices, packets, CM events and findings as instants (default stdout)\n"
		 "  jsonl     one JSON object per timeline row (default stdout)\n"
		 "Correlates first when the timeline is missing or stale.  Exit status: 0 done, 2 error.\n",
	.run = run,
};
