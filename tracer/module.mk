# The tracer: event schema helpers, clock, shared-memory rings, collector,
# trace file writer and reader, event printing.
LIB_SRCS += tracer/event_kind.c tracer/clock.c tracer/shm.c tracer/tracer.c tracer/collector.c \
	tracer/trace_writer.c tracer/trace_reader.c tracer/event_print.c
CLI_SRCS += cli/cmd_dump.c cli/cmd_salvage.c cli/cmd_snapshot.c
TEST_PROGS += tests/tracer/test_tracer_basic.c

# A synthetic traced program (demo, crash/salvage tests, benchmark).
SYNTH := $(BUILD)/rdmatrace-synth
ALL_TARGETS += $(SYNTH)
$(SYNTH): tracer/synth_workload.c $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
TEST_SCRIPTS += tests/tracer/test_dump.sh
FUZZ_TARGETS += trace_reader
TEST_PROGS += tests/tracer/test_stress.c
TEST_SCRIPTS += tests/tracer/test_sanitizers.sh
TEST_SCRIPTS += tests/tracer/test_crash.sh
