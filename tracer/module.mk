# The tracer: event schema helpers, clock, shared-memory rings, collector,
# trace file writer and reader, event printing.
LIB_SRCS += tracer/event_kind.c tracer/clock.c tracer/shm.c tracer/tracer.c tracer/collector.c \
	tracer/trace_writer.c tracer/trace_reader.c tracer/event_print.c tracer/crc32c.c tracer/process_events.c
CLI_SRCS += cli/cmd_dump.c cli/cmd_salvage.c cli/cmd_snapshot.c
TEST_PROGS += tests/tracer/test_tracer_basic.c

# A synthetic traced program (demo, crash/salvage tests, benchmark).
SYNTH := $(BUILD)/rdmatrace-synth
ALL_TARGETS += $(SYNTH)
$(SYNTH): tracer/synth_workload.c $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
TEST_SCRIPTS += tests/tracer/test_dump.sh
FUZZ_TARGETS += trace_reader proc_events
TEST_PROGS += tests/tracer/test_stress.c
TEST_SCRIPTS += tests/tracer/test_sanitizers.sh
TEST_SCRIPTS += tests/tracer/test_crash.sh
TEST_PROGS += tests/tracer/test_collector.c tests/tracer/test_process_events.c

# Two shared objects, each with its own hidden copy of the tracer, for test_two_copies.
TRACER_COPY_SOS := $(BUILD)/tests/tracer/libtracercopy_a.so $(BUILD)/tests/tracer/libtracercopy_b.so
$(BUILD)/tests/tracer/libtracercopy_%.so: tests/tracer/tracer_copy.c tests/tracer/tracer_copy.map $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,--version-script=tests/tracer/tracer_copy.map -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
TEST_PROGS += tests/tracer/test_two_copies.c
$(BUILD)/tests/tracer/test_two_copies: $(TRACER_COPY_SOS)
TEST_PROGS += tests/tracer/test_trace_reader.c
TEST_PROGS += tests/tracer/test_clock.c

# Benchmark (make bench): built on demand, with LTTng-UST when its headers are installed.
TRACER_BENCH := $(BUILD)/bench/tracer-bench
BENCH_SCRIPTS += bench/tracer_bench.sh
$(TRACER_BENCH): bench/tracer_bench.c bench/tracer_bench_tp.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ibench $(if $(shell pkg-config --exists lttng-ust 2>/dev/null && echo y),-DHAVE_LTTNG) \
	    -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS) \
	    $(if $(shell pkg-config --exists lttng-ust 2>/dev/null && echo y),$(shell pkg-config --libs lttng-ust) -ldl)
