# uroce's drop-in librdmacm.so.1: RDMA CM over the IB CM protocol on QP1 of
# the uroce engine, linked against uroce's libibverbs.so.1 next to it.
URDMACM_SRCS := uroce/rdmacm/cm_mad.c uroce/rdmacm/cma_core.c uroce/rdmacm/cma_api.c \
	uroce/rdmacm/cma_addr.c uroce/rdmacm/cma_event.c uroce/rdmacm/cma_trace.c \
	uroce/rdmacm/cma_ep.c uroce/rdmacm/rsocket.c
URDMACM_SO := $(BUILD)/uroce/librdmacm.so.1
URDMACM_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(URDMACM_SRCS))
# The engine's libibverbs.so.1 when its module builds it, else the system one
# (link time only: at run time build/uroce/libibverbs.so.1 is the one loaded).
UROCE_VERBS_SO ?= $(BUILD)/uroce/libibverbs.so.1
URDMACM_VERBS := $(if $(filter $(UROCE_VERBS_SO),$(ALL_TARGETS)),$(UROCE_VERBS_SO),)

# The MAD codec is also in the library, for the unit tests and decoders.
LIB_SRCS += uroce/rdmacm/cm_mad.c
ALL_TARGETS += $(URDMACM_SO)
TEST_PROGS += tests/uroce/cm_mad_test.c

$(URDMACM_SO): $(URDMACM_OBJS) uroce/rdmacm/librdmacm.map $(URDMACM_VERBS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,librdmacm.so.1 -Wl,--version-script=uroce/rdmacm/librdmacm.map \
	    $(ALL_LDFLAGS) -o $@ $(URDMACM_OBJS) \
	    $(if $(URDMACM_VERBS),-L$(dir $(URDMACM_VERBS)) -l:libibverbs.so.1,-libverbs)
