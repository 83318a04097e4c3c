# Analysis: the run's timeline (linking, clock alignment, diagnosis,
# annotations, exports) and the correlate / diagnose / export commands.
LIB_SRCS += analysis/tl_build.c analysis/tl_link.c analysis/tl_cm_peer.c analysis/tl_ud.c analysis/tl_uc.c analysis/tl_recv_counter.c analysis/tl_clock.c analysis/tl_detect.c analysis/tl_create_reason.c analysis/tl_output.c \
	analysis/tl_qp_av.c analysis/tl_recordings.c analysis/tl_access.c \
	analysis/tl_stats.c analysis/tl_prefault.c analysis/tl_annotate.c analysis/tl_format.c analysis/tl_file.c analysis/tl_rundir.c analysis/tl_open_path.c \
	analysis/tl_export.c
CLI_SRCS += cli/cmd_correlate.c cli/cmd_diagnose.c cli/cmd_export.c
TEST_PROGS += tests/analysis/test_correlate.c

# Benchmark input generator (bench/correlate_bench.sh).
CORRELATE_GEN := $(BUILD)/bench/correlate_gen
ALL_TARGETS += $(CORRELATE_GEN)
$(CORRELATE_GEN): bench/correlate_gen.c tests/analysis/simrun.h tests/captures/synth.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
# How fast the machine gives new memory (printed by bench/correlate_bench.sh).
FIRST_TOUCH := $(BUILD)/bench/first_touch
ALL_TARGETS += $(FIRST_TOUCH)
$(FIRST_TOUCH): bench/first_touch.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)
BENCH_SCRIPTS += bench/correlate_bench.sh
FUZZ_TARGETS += timeline correlate
TEST_TOOLS += tests/analysis/lose_events.c
TEST_SCRIPTS += tests/analysis/test_analysis_cli.sh
TEST_SCRIPTS += tests/analysis/test_uroce_golden.sh
TEST_SCRIPTS += tests/analysis/test_uroce_storms.sh
