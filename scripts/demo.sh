#!/usr/bin/env bash
# `make demo`: the default lab scenario on the embedded uroce backend (no
# RDMA hardware, no kernel module, no root needed), its diagnosis, and the
# viewer when the terminal is interactive.  Builds nothing: make demo did.
#
# The default scenario is "rnr": a receiver that posts its receives late,
# with RDMA CM's min_rnr_timer of 0, so the sender stalls 655.36 ms per RNR
# NAK.  RDMATRACE_DEMO_SCENARIO picks another one (rdmatrace lab --list).
set -u
BUILD=${BUILD:-build}
RT=$BUILD/rdmatrace
scenario=${RDMATRACE_DEMO_SCENARIO:-rnr}
run=${RDMATRACE_DEMO_DIR:-runs/demo-$scenario}

"$RT" lab "$scenario" -o "$run"
status=$?
echo
if [ $status -ne 0 ]; then
	echo "the $scenario lab did not show what it should (exit status $status); everything recorded is in $run"
fi
if [ -t 0 ] && [ -t 1 ] && "$RT" --help | grep -q '^  view '; then
	echo "opening the viewer (press ? for help, q to quit)..."
	sleep 1
	exec "$RT" view "$run"
fi
echo "the run is in $run; explore it with:"
echo "  $RT view $run          # the timeline (terminal UI)"
echo "  $RT diagnose $run      # findings in plain words"
echo "  $RT wireshark $run     # the annotated capture in Wireshark"
exit $status
