# The LD_PRELOAD probe (build/librdmatrace-probe.so), its tests, and `rdmatrace record`.
# It is not part of librdmatrace.a: its objects define ibv_* and rdma_*.
CLI_SRCS += cli/cmd_record.c
PROBE_SRCS := probes/init.c probes/real.c probes/objmap.c probes/hooks.c \
	probes/hooks_ex.c probes/track.c probes/verbs_wrap.c probes/cm_wrap.c \
	probes/dv_wrap.c probes/counters.c probes/create_failed.c probes/verbs_calls.c \
	probes/qp_av.c
PROBE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(PROBE_SRCS))
PROBE_SO := $(BUILD)/librdmatrace-probe.so
ALL_TARGETS += $(PROBE_SO)

# librdmatrace.a supplies the tracer (only its members the probe needs are linked).
$(PROBE_SO): $(PROBE_OBJS) $(LIB) probes/probe.map
	$(CC) -shared -o $@ $(PROBE_OBJS) -Wl,--version-script=probes/probe.map \
		-Wl,--as-needed $(LIB) $(ALL_LDFLAGS) -ldl $(LIB_LDLIBS)

# Hook-layer unit tests: probe objects + an in-memory tracer, no libibverbs.
PROBE_TEST_FAKE := tests/probes/fake_tracer.c
TEST_PROGS += tests/probes/test_probe_hooks.c
$(BUILD)/tests/probes/test_probe_hooks: tests/probes/test_probe_hooks.c $(PROBE_TEST_FAKE) \
		tests/probes/fake_tracer.h tests/probes/fake_provider.h $(PROBE_OBJS) $(LIB) tests/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Iprobes -rdynamic -o $@ $< $(PROBE_TEST_FAKE) $(PROBE_OBJS) \
		$(LIB) $(ALL_LDFLAGS) -ldl $(LIB_LDLIBS)

# Benchmark over the null provider (make bench runs bench/probe_bench.sh):
# probe_bench_fake isolates the probe, probe_bench adds the real tracer.
PROBE_BENCH := $(BUILD)/bench/probe_bench
PROBE_BENCH_FAKE := $(BUILD)/bench/probe_bench_fake
ALL_TARGETS += $(PROBE_BENCH) $(PROBE_BENCH_FAKE)
BENCH_SCRIPTS += bench/probe_bench.sh
$(PROBE_BENCH_FAKE): bench/probe_bench.c $(PROBE_TEST_FAKE) tests/probes/fake_tracer.h \
		tests/probes/fake_provider.h $(PROBE_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DPROBE_BENCH_FAKE -Itests/probes -Iprobes -rdynamic -o $@ $< \
		$(PROBE_TEST_FAKE) $(PROBE_OBJS) $(LIB) $(ALL_LDFLAGS) -ldl $(LIB_LDLIBS)
$(PROBE_BENCH): bench/probe_bench.c tests/probes/fake_provider.h $(PROBE_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/probes -Iprobes -rdynamic -o $@ $< $(PROBE_OBJS) $(LIB) \
		$(ALL_LDFLAGS) -ldl $(LIB_LDLIBS)

# ... and over uroce (bench/probe_bench.sh runs it when uroce is built)
PROBE_BENCH_UROCE := $(BUILD)/bench/probe_bench_uroce
ALL_TARGETS += $(PROBE_BENCH_UROCE)
$(PROBE_BENCH_UROCE): bench/probe_bench_uroce.c $(PROBE_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iprobes -o $@ $< $(PROBE_OBJS) $(LIB) $(ALL_LDFLAGS) -libverbs -ldl $(LIB_LDLIBS)

# End-to-end: an ordinary verbs program over a stand-in libibverbs.so.1
# (its own directory, found through the rpath), run by `rdmatrace record` in
# tests/probes/test_record.sh; a plugin of it loaded with dlopen(RTLD_LOCAL).
PROBE_FAKEVERBS := $(BUILD)/tests/probes/fakeverbs/libibverbs.so.1
PROBE_VERBS_PROG := $(BUILD)/tests/probes/verbs_prog
PROBE_PLUGIN := $(BUILD)/tests/probes/libverbs_plugin.so
PROBE_DLOPEN_PROG := $(BUILD)/tests/probes/dlopen_prog
$(PROBE_FAKEVERBS): tests/probes/fakeverbs.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libibverbs.so.1 -o $@ $< $(ALL_LDFLAGS)
$(PROBE_VERBS_PROG): tests/probes/verbs_prog.c $(PROBE_FAKEVERBS)
	$(CC) $(ALL_CFLAGS) -DVERBS_PROG_FAKE -o $@ $< $(PROBE_FAKEVERBS) -Wl,-rpath,'$$ORIGIN/fakeverbs' $(ALL_LDFLAGS)
$(PROBE_PLUGIN): tests/probes/verbs_prog.c $(PROBE_FAKEVERBS)
	$(CC) $(ALL_CFLAGS) -DVERBS_PROG_PLUGIN -shared -o $@ $< $(PROBE_FAKEVERBS) \
		-Wl,-rpath,'$$ORIGIN/fakeverbs' $(ALL_LDFLAGS)
$(PROBE_DLOPEN_PROG): tests/probes/dlopen_prog.c $(PROBE_PLUGIN)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl
# the same program against the system libibverbs: runs over uroce
$(PROBE_VERBS_PROG)_sys: tests/probes/verbs_prog.c
	$(CC) $(ALL_CFLAGS) -o $@ $< -libverbs $(ALL_LDFLAGS)
# many RDMA CM connections to one listener with a small backlog (librdmacm:
# uroce or the kernel's), for test_probe_uroce.sh and the VM lab's tests
PROBE_CM_CROWD := $(BUILD)/tests/probes/cm_crowd
$(PROBE_CM_CROWD): tests/probes/cm_crowd.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lrdmacm -libverbs $(ALL_LDFLAGS)
ALL_TARGETS += $(PROBE_VERBS_PROG) $(PROBE_VERBS_PROG)_sys $(PROBE_DLOPEN_PROG) $(PROBE_CM_CROWD)
TEST_SCRIPTS += tests/probes/test_record.sh
TEST_SCRIPTS += tests/probes/test_probe_uroce.sh
