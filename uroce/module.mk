# uroce: the userspace RoCEv2 engine behind a drop-in libibverbs.so.1
# (build/uroce/libibverbs.so.1; uroce/rdmacm/ adds librdmacm.so.1).  The
# packet builder it shares with the decoder lives in captures/roce_build.c.
LIB_SRCS += captures/roce_build.c
UROCE_SRCS := uroce/util.c uroce/trace.c uroce/engine.c uroce/transport.c uroce/qp.c uroce/device.c \
	uroce/objects.c uroce/wr_api.c uroce/faults.c uroce/gso.c uroce/misc.c uroce/provider_abi.c
UROCE_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(UROCE_SRCS))
UROCE_DIR = $(BUILD)/uroce
UROCE_LIB = $(UROCE_DIR)/libibverbs.so.1
# Pull the tracer's entry points out of librdmatrace.a when it has them
# (trace.c references them weakly, so a tree without the tracer still links).
UROCE_TRACER_SYMS = $$(nm $(LIB) 2>/dev/null | grep -q ' T rt_event_begin_fast$$' && \
	echo -Wl,-u,rt_event_begin_fast -Wl,-u,rt_event_commit_slot -Wl,-u,rt_tracer_enabled \
	-Wl,-u,rt_tracer_start_from_env)
ALL_TARGETS += $(UROCE_LIB) $(UROCE_DIR)/libibverbs.so

$(UROCE_LIB): $(UROCE_OBJS) $(LIB) uroce/libibverbs.map
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ -Wl,-soname,libibverbs.so.1 -Wl,--version-script=uroce/libibverbs.map \
	    -Wl,-z,now $(UROCE_OBJS) $(UROCE_TRACER_SYMS) $(LIB) $(ALL_LDFLAGS) -Wl,--as-needed $(LIB_LDLIBS)

$(UROCE_DIR)/libibverbs.so: $(UROCE_LIB)
	ln -sf libibverbs.so.1 $@

# Test programs that run over uroce link against it (not against librdmatrace.a alone).
UROCE_TEST_SRCS := $(wildcard tests/uroce/t_*.c)
UROCE_TEST_BINS = $(patsubst %.c,$(BUILD)/%,$(UROCE_TEST_SRCS))
# t_capture_icrc only needs the library (it reads a capture file).
UROCE_TEST_SRCS := $(filter-out tests/uroce/t_capture_icrc.c,$(UROCE_TEST_SRCS))
ALL_TARGETS += $(BUILD)/tests/uroce/t_capture_icrc
$(BUILD)/tests/uroce/t_capture_icrc: tests/uroce/t_capture_icrc.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
ALL_TARGETS += $(UROCE_TEST_BINS)
$(BUILD)/tests/uroce/t_%: tests/uroce/t_%.c tests/uroce/uroce_test.h $(UROCE_DIR)/libibverbs.so $(LIB) tests/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Iuroce -o $@ $< -L$(UROCE_DIR) -Wl,-rpath,'$$ORIGIN/../../uroce' -libverbs \
	    $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
TEST_SCRIPTS += tests/uroce/test_uroce.sh
# Benchmark (make bench): bench/uroce_bench.sh runs bench/uroce_bench.c.
ALL_TARGETS += $(BUILD)/bench/uroce_bench
$(BUILD)/bench/uroce_bench: bench/uroce_bench.c tests/uroce/uroce_test.h $(UROCE_DIR)/libibverbs.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/uroce -Iuroce -o $@ $< -L$(UROCE_DIR) -Wl,-rpath,'$$ORIGIN/../uroce' -libverbs \
	    $(ALL_LDFLAGS)
BENCH_SCRIPTS += bench/uroce_bench.sh
# uroce fault-injection rules (uroce/faults.c compiled into the target)
FUZZ_TARGETS += uroce_faults
