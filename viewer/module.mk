# The viewer: `rdmatrace view` (ncurses timeline, lanes, detail, QP list,
# findings, help, tshark hand-off, live mode, batch mode).  The model and
# the screens are free of curses; only viewer/term_curses.c uses it.
LIB_SRCS += viewer/source.c viewer/memsrc.c viewer/model.c viewer/ui.c viewer/screens.c \
	viewer/handoff.c viewer/batch.c viewer/term_curses.c viewer/tlsrc.c
# Only the rdmatrace command needs curses (viewer/term_curses.c); keep it
# out of the shared objects (uroce, probes) that also link the library.
$(CLI): LIB_LDLIBS += -lncursesw
CLI_SRCS += cli/cmd_view.c
TEST_PROGS += tests/viewer/test_model.c
TEST_SCRIPTS += tests/viewer/test_view.sh
BENCH_SCRIPTS += bench/viewer_bench.sh
# Synthetic run directories for the viewer's tests and benchmark.
VIEWER_GEN := $(BUILD)/tests/viewer/viewer-gen
ALL_TARGETS += $(VIEWER_GEN)
$(VIEWER_GEN): tests/viewer/gen_run.c tests/captures/synth.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
