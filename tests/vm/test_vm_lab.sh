#!/usr/bin/env bash
# The lab on the real kernel: minimal, rnr and loss run by `rdmatrace lab
# --backend vm` between two SoftRoCE VMs with Debian's rdma-core, the
# programs traced inside the guests by the probe.  Each scenario checks its
# own results (data verified; RNR NAKs on the wire; retransmissions found by
# correlation), and the run must be correlated across the two guests' clocks.
. tests/lib.sh
. tests/vm/vmlib.sh

for s in minimal rnr loss; do
	R=$VM_TMP/lab-$s
	if timeout 600 "$RDMATRACE" lab "$s" --backend vm -o "$R" >"$R.out" 2>&1; then
		ok "lab $s on the kernel's SoftRoCE: every expectation met"
	else
		not_ok "lab $s on the kernel's SoftRoCE"
		sed 's/^/#   /' "$R.out" | tail -30
	fi
	check "lab $s: no qemu left running" no_qemu_left "$R/.vm"
	check "lab $s: a trace from each guest" test "$(ls "$R"/traces/*.rtr 2>/dev/null | wc -l)" -ge 2
	check "lab $s: both guests' clocks aligned to the capture" \
		bash -c "grep -q 'clock: client offset' '$R/logs/diagnose.txt' && grep -q 'clock: server offset' '$R/logs/diagnose.txt'"
done
check "lab rnr: the kernel's RNR NAK carries timer code 0 (655.36 ms)" grep -q 'RNR NAK 655.36 ms' "$VM_TMP/lab-rnr/logs/packets.txt"
check "lab rnr: diagnosis explains the stall" grep -q 'rnr_stall' "$VM_TMP/lab-rnr/logs/diagnose.txt"
check "lab loss: diagnosis finds Go-Back-N" grep -q 'go_back_n' "$VM_TMP/lab-loss/logs/diagnose.txt"
done_testing
