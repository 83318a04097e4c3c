# uroce's drop-in librdmacm.so.1: RDMA CM over the IB CM protocol on QP1 of
# the uroce engine, linked against uroce's libibverbs.so.1 next to it.
URDMACM_SRCS := uroce/rdmacm/cm_mad.c uroce/rdmacm/cma_core.c uroce/rdmacm/cma_api.c \
	uroce/rdmacm/cma_addr.c uroce/rdmacm/cma_event.c uroce/rdmacm/cma_trace.c \
	uroce/rdmacm/cma_ep.c uroce/rdmacm/rsocket.c
URDMACM_SO := $(BUILD)/uroce/librdmacm.so.1
# roce_wire.c: the CM attribute names (shared with the decoder)
URDMACM_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(URDMACM_SRCS) captures/roce_wire.c)
# The engine's libibverbs.so.1 when its module builds it, else the system one
# (link time only: at run time build/uroce/libibverbs.so.1 is the one loaded).
UROCE_VERBS_SO ?= $(BUILD)/uroce/libibverbs.so.1
URDMACM_VERBS := $(if $(filter $(UROCE_VERBS_SO),$(ALL_TARGETS)),$(UROCE_VERBS_SO),)
URDMACM_VERBS_LINK := $(if $(URDMACM_VERBS),-l:libibverbs.so.1,-libverbs)

# The MAD codec is also in the library, for the unit tests and decoders.
LIB_SRCS += uroce/rdmacm/cm_mad.c
ALL_TARGETS += $(URDMACM_SO)
TEST_PROGS += tests/uroce/cm_mad_test.c

# Its own hidden copy of the tracer (librdmatrace.a), as docs/tracer.md describes.
$(URDMACM_SO): $(URDMACM_OBJS) $(LIB) uroce/rdmacm/librdmacm.map uroce/rdmacm/module.mk $(URDMACM_VERBS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,librdmacm.so.1 -Wl,--version-script=uroce/rdmacm/librdmacm.map \
	    $(ALL_LDFLAGS) -o $@ $(URDMACM_OBJS) $(LIB) \
	    -L$(BUILD)/uroce $(URDMACM_VERBS_LINK) $(LIB_LDLIBS)

# End-to-end CM test: rdma-core's headers, uroce's libraries found through
# the rpath build/uroce (skips itself when no uroce device is there).
TEST_PROGS += tests/uroce/cm_connect_test.c
$(BUILD)/tests/uroce/cm_connect_test: tests/uroce/cm_connect_test.c $(URDMACM_SO) tests/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< -Wl,-rpath,'$$ORIGIN/../../uroce' -L$(BUILD)/uroce \
	    -l:librdmacm.so.1 $(URDMACM_VERBS_LINK) -Wl,--allow-shlib-undefined $(ALL_LDFLAGS)
TEST_SCRIPTS += tests/uroce/binaries_test.sh
BENCH_SCRIPTS += uroce/rdmacm/bench_connect.sh
FUZZ_TARGETS += cm_mad
