# Captures: RoCEv2 wire tables, ICRC, decoder, pcap/pcapng I/O, live capture.
LIB_SRCS += captures/roce_wire.c captures/icrc.c
TEST_PROGS += tests/unit/test_icrc.c
