# Captures: RoCEv2 wire tables, the QP state machine's rules, ICRC, decoder, pcap/pcapng I/O, live capture.
LIB_SRCS += captures/qp_rules.c captures/roce_wire.c captures/icrc.c captures/crc_clmul.c captures/roce_decode.c captures/cm_decode.c \
	captures/roce_format.c captures/qp_stats.c captures/capture_copies.c captures/capfile.c captures/capfile_parse.c captures/capfile_window.c captures/capfile_compressed.c \
	captures/pcapng_write.c captures/live_capture.c
LIB_LDLIBS += -lpcap -lz -lzstd -llz4
CLI_SRCS += cli/cmd_packets.c cli/cmd_capture.c
TEST_PROGS += tests/unit/test_icrc.c
TEST_PROGS += tests/captures/test_tshark.c
TEST_PROGS += tests/captures/test_decode.c
TEST_PROGS += tests/captures/test_capfile.c
TEST_PROGS += tests/captures/test_live.c
ALL_TARGETS += $(BUILD)/tests/captures/synth_gen
TEST_SCRIPTS += tests/captures/test_cli_captures.sh
FUZZ_TARGETS += roce_decode capfile capfile_libpcap
BENCH_SCRIPTS += bench/captures_bench.sh
ALL_TARGETS += $(BUILD)/bench/captures_bench
$(BUILD)/bench/captures_bench: bench/captures_bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIB_LDLIBS)
TEST_PROGS += tests/captures/test_crc.c
TEST_PROGS += tests/captures/test_capture_copies.c
FUZZ_TARGETS += roce_transport
