#!/usr/bin/env bash
# uroce tests: the transport test program (both ends in one process), then
# Debian's unmodified ibverbs-utils over build/uroce/libibverbs.so.1, then a
# packet capture of uroce traffic checked by tshark and by our ICRC code.
. tests/lib.sh
U=$BUILD/uroce

"$BUILD/tests/uroce/t_transport"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then not_ok "t_transport exited with status $rc"; fi
# t_transport printed its own plan; continue numbering after it.
_t_num=$(grep -c . /dev/null)
