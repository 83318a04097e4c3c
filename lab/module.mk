# The lab: instrumented endpoint programs (plain libibverbs + librdmacm),
# built as build/lab/rt-lab-NAME and run by `rdmatrace lab`.
LAB_PROGRAMS := minimal imm sendrecv bulk atomics error ud herd
LAB_BINS := $(patsubst %,$(BUILD)/lab/rt-lab-%,$(LAB_PROGRAMS))
ALL_TARGETS += $(LAB_BINS)

$(BUILD)/lab/rt-lab-%: lab/%.c $(BUILD)/obj/lab/lab_common.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilab -o $@ $< $(BUILD)/obj/lab/lab_common.o $(LIB) $(ALL_LDFLAGS) -lrdmacm -libverbs $(LIB_LDLIBS)
CLI_SRCS += cli/cmd_lab.c
TEST_SCRIPTS += tests/lab/test_lab.sh tests/lab/test_lab_hosts.sh tests/lab/test_ud_senders.sh
# lab_common.o is shared by every program: keep it (not an intermediate).
.SECONDARY: $(BUILD)/obj/lab/lab_common.o
