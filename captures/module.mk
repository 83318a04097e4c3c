# Captures: RoCEv2 wire tables, ICRC, decoder, pcap/pcapng I/O, live capture.
LIB_SRCS += captures/roce_wire.c captures/icrc.c captures/roce_decode.c captures/cm_decode.c \
	captures/roce_format.c captures/qp_stats.c captures/capfile.c captures/capfile_mmap.c \
	captures/pcapng_write.c captures/live_capture.c
LIB_LDLIBS += -lpcap
CLI_SRCS += cli/cmd_packets.c cli/cmd_capture.c
TEST_PROGS += tests/unit/test_icrc.c
TEST_PROGS += tests/captures/test_tshark.c
TEST_PROGS += tests/captures/test_decode.c
