/*
 * `rdmatrace view`: the terminal timeline of a run (viewer/), or its batch
 * rendering for scripts and CI.  This file is option parsing; opening,
 * the model, the screens and the terminal live in viewer/.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "../viewer/batch.h"
#include "../viewer/open.h"
#include "../viewer/ui.h"
#include "number_arg.h"

extern const struct rt_command rt_cmd_view;

static int parse_size(const char *s, int *cols, int *rows)
{
	char x;

	if (sscanf(s, "%dx%d%c", cols, rows, &x) != 2 || *cols < 20 || *rows < 4 || *cols > 1000 || *rows > 1000)
		return -EINVAL;
	return 0;
}

static int run_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "keys", required_argument, NULL, 'k' },
		{ "frames", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "follow", no_argument, NULL, 'f' },
		{ "abs", no_argument, NULL, 'a' },
		{ "lanes", no_argument, NULL, 'l' },
		{ "no-rebuild", no_argument, NULL, 'R' },
		{ "tshark", required_argument, NULL, 'T' },
		{ "key-times", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vw_open_opts oo = { 0, 0 };
	struct vw_batch_opts bo = { "", 1, 24, 80, NULL };
	struct vw_source src;
	struct vw_ui ui;
	const char *tshark = NULL;
	int batch = 0, abs_time = 0, lanes = 0, c, rc;
	char err[512];

	optind = 1;
	while ((c = getopt_long(argc, argv, "bk:n:s:falh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			batch = 1;
			break;
		case 'k':
			bo.keys = optarg;
			break;
		case 'n': {
			uint64_t v;
			if (rt_parse_number_arg(optarg, 10, INT_MAX, &v) < 0 || v < 1) {
				fprintf(stderr, "rdmatrace view: --frames needs a positive number\n");
				return 2;
			}
			bo.frames = (int)v;
			break;
		}
		case 's':
			if (parse_size(optarg, &bo.cols, &bo.rows) < 0) {
				fprintf(stderr, "rdmatrace view: --size wants COLSxROWS (at least 20x4), not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			oo.live = 1;
			break;
		case 'a':
			abs_time = 1;
			break;
		case 'l':
			lanes = 1;
			break;
		case 'R':
			oo.no_rebuild = 1;
			break;
		case 'T':
			tshark = optarg;
			break;
		case 'K':
			bo.key_times = stderr;
			break;
		case 'h':
			fputs(rt_cmd_view.usage, stdout);
			return 0;
		default:
			fprintf(stderr, "see: rdmatrace view --help\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmatrace view: give one run directory, timeline, trace file or capture\n");
		return 2;
	}
	rc = vw_open(argv[optind], &oo, &src, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace view: %s\n", err);
		return 1;
	}
	vw_ui_init(&ui, &src);
	ui.abs_time = abs_time;
	ui.lanes = lanes;
	if (tshark)
		ui.tshark = tshark;
	if (oo.live) {
		ui.follow = 1;
		vw_model_end(&ui.m);
	}
	if (src.messages[0] && vw_source_count(&src))
		snprintf(ui.m.status, sizeof(ui.m.status), "note: %.*s", (int)strcspn(src.messages, "\n"), src.messages);
	if (batch) {
		rc = vw_batch_run(&ui, &bo, stdout, err, sizeof(err));
		if (rc < 0)
			fprintf(stderr, "rdmatrace view: %s\n", err);
		rc = rc < 0 ? 2 : 0;
	} else {
		rc = vw_term_run(&ui, err, sizeof(err));
		if (rc)
			fprintf(stderr, "rdmatrace view: %s\n", err);
	}
	vw_ui_free(&ui);
	vw_source_close(&src);
	return rc;
}

const struct rt_command rt_cmd_view = {
	.name = "view",
	.builds_timelines = 1,
	.summary = "browse a run's timeline in the terminal (or render it in batch mode)",
	.usage =
		"usage: rdmatrace view RUNDIR|TIMELINE|TRACE.rtr|CAPTURE [options]\n"
		"\n"
		"Opens the run's timeline: trace events of every host and the packets on the\n"
		"wire, interleaved in aligned time.  A run directory's timeline is built (and\n"
		"saved as RUNDIR/timeline.rtl) when missing or older than its inputs; a trace\n"
		"file or a capture alone is correlated in memory.  Damaged or empty inputs open\n"
		"with a message saying what is wrong.  Press h inside for every key.\n"
		"\n"
		"options:\n"
		"  --follow            live: follow a run while it is being recorded\n"
		"  --abs               absolute (UTC) times instead of seconds since the start\n"
		"  --lanes             start in the lanes view (host | wire | host)\n"
		"  --no-rebuild        use RUNDIR/timeline.rtl as it is, even when stale\n"
		"  --tshark PROGRAM    tshark to run for the full decode (key w)\n"
		"\n"
		"batch mode (no terminal needed; same drawing code):\n"
		"  --batch             replay --keys, print the final screen, exit\n"
		"  --keys KEYS         keys to replay: characters, <Enter> <Esc> <Tab> <BS> <Up>\n"
		"                      <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <F1>\n"
		"                      <WheelUp> <WheelDown> <Space> <lt> <gt>, ^X for Ctrl-X\n"
		"  --frames N          print the screens after each of the last N keys (form feed\n"
		"                      between them; default 1: the final screen)\n"
		"  --size COLSxROWS    screen size (default 80x24)\n"
		"  --key-times         print each key's handling + drawing time to stderr\n"
		"\n"
		"examples:\n"
		"  rdmatrace view run1\n"
		"  rdmatrace view run1 --batch --keys 'p18<Enter>r<Enter>' --size 120x40\n"
		"  rdmatrace view capture.pcapng\n",
	.run = run_view,
};
