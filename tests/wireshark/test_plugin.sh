#!/usr/bin/env bash
# The Wireshark plugin under Debian's real tshark: filters on annotated
# captures select exactly the annotated frames, expert info lists the
# expected entries, wire-only fields work on captures without annotations,
# the plugin loads cleanly everywhere, and the CLI hand-off behaves.
. tests/lib.sh

if ! command -v tshark >/dev/null; then skip "tshark plugin tests" "tshark not installed"; done_testing; exit; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MK=$BUILD/tests/wireshark/make_annotated
LUA=wireshark/rdmatrace.lua
ts() { tshark -X lua_script:$LUA --disable-protocol rpcordma "$@" 2>"$T/stderr"; }
frames() { ts -r "$1" -Y "$2" -T fields -e frame.number | tr '\n' ' ' | sed 's/ $//'; }
no_lua_errors() { ! grep -Eiq 'lua|error' "$T/stderr"; }

# --- wire-only knowledge on a capture without annotations ---------------
$MK acks "$T/acks.pcapng"
check "RNR NAK waits come from the AETH timer code" test "$(ts -r "$T/acks.pcapng" -Y rdmatrace.rnr_nak -T fields -e rdmatrace.rnr_wait_ms | tr '\n' ' ')" = "655.36 1.28 "
check "rnr_wait_ms > 100 selects only the code-0 RNR NAK" test "$(frames "$T/acks.pcapng" 'rdmatrace.rnr_wait_ms > 100')" = "4"
check "NAK meanings in words" test "$(ts -r "$T/acks.pcapng" -Y rdmatrace.nak -T fields -e rdmatrace.nak | tr '\n' '|')" = "remote access error|PSN sequence error|"
check "Info column says RNR NAK and its wait" grep -q 'RNR NAK 655.36 ms' <(ts -r "$T/acks.pcapng" -T fields -e _ws.col.Info)
ts -r "$T/acks.pcapng" -q -z expert >"$T/expert-acks.txt"
check "expert info: remote access NAK is an error" grep -Eq 'Errors \(1\)' "$T/expert-acks.txt"
check "expert info: RNR NAKs and the sequence-error NAK are warnings" grep -Eq 'Warns \(3\)' "$T/expert-acks.txt"
check "nothing is marked annotated without comments" test -z "$(frames "$T/acks.pcapng" rdmatrace.annotated)"

# --- the real kernel SoftRoCE capture, annotated as correlate does ------
REAL=../shared/captures/rxe-write/wire.pcap
if [ -f "$REAL" ]; then
	$MK copy "$REAL" "$T/ann.pcapng" \
		'18=rdmatrace: host=client pid=41 prog=writer qp=0x11 wr_id=5 wr_opcode=RDMA_WRITE wr_len=8192 pkt_index=1 pkt_count=8 retrans=0 icrc=good finding=F2' \
		'19=rdmatrace: host=client wr_id=5 pkt_index=2 pkt_count=8 retrans=1 retrans_cause=nak_seq icrc=good\nretransmission #1 of PSN 13043548' \
		'20=rdmatrace: host=client wr_id=6 retrans=2 retrans_cause=ack_timeout icrc=bad note_unknown_key="ignored value"' \
		'26=rdmatrace: host=server ack=rnr_nak rnr_wait_ms=655.36 ack_latency_us=1234.5' \
		'27=rdmatrace: host=server wr_id=18446744073709551615 ack=ack'
	check "rdmatrace.retransmission selects exactly the retransmitted frames" test "$(frames "$T/ann.pcapng" rdmatrace.retransmission)" = "19 20"
	check "rdmatrace.wr_id == 5 selects exactly WR 5's frames" test "$(frames "$T/ann.pcapng" 'rdmatrace.wr_id == 5')" = "18 19"
	check "64-bit wr_id survives" test "$(frames "$T/ann.pcapng" 'rdmatrace.wr_id == 18446744073709551615')" = "27"
	check "rnr_wait_ms > 100 uses the annotation" test "$(frames "$T/ann.pcapng" 'rdmatrace.rnr_wait_ms > 100')" = "26"
	check "retransmission cause is a field" test "$(frames "$T/ann.pcapng" 'rdmatrace.retrans_cause == "ack_timeout"')" = "20"
	check "bad ICRC is a field" test "$(frames "$T/ann.pcapng" rdmatrace.icrc_bad)" = "20"
	check "host and packet index fields" test "$(ts -r "$T/ann.pcapng" -Y 'frame.number == 18' -T fields -e rdmatrace.host -e rdmatrace.pkt_index -e rdmatrace.pkt_count -e rdmatrace.qp)" = "$(printf 'client\t1\t8\t0x00000011')"
	check "prose lines become notes" grep -q 'retransmission #1 of PSN 13043548' <(ts -r "$T/ann.pcapng" -Y 'frame.number == 19' -T fields -e rdmatrace.note)
	check "latency to ACK is a number" test "$(frames "$T/ann.pcapng" 'rdmatrace.ack_latency_us > 1000')" = "26"
	check "the plugin loads without errors on annotated captures" no_lua_errors
	ts -r "$T/ann.pcapng" -q -z expert >"$T/expert.txt"
	check "expert info lists both retransmissions" grep -q 'Retransmission #2 (ack_timeout)' "$T/expert.txt"
	check "expert info lists the bad ICRC as an error" grep -q 'Bad ICRC' "$T/expert.txt"
	check "expert info lists the finding" grep -q 'Evidence for finding F2' "$T/expert.txt"
	check "unannotated frames get no rdmatrace tree" test "$(frames "$T/ann.pcapng" 'rdmatrace.annotated' | wc -w)" = "5"
else
	skip "annotated real capture" "../shared/captures not present"
fi
RPING=../shared/captures/rxe-rping/wire.pcap
if [ -f "$RPING" ]; then
	ts -r "$RPING" -T fields -e frame.number >/dev/null
	check "the plugin loads without errors on a plain capture" no_lua_errors
fi

# --- lab runs on uroce, annotated by rdmatrace correlate -------------------
if "$RDMATRACE" --help | grep -q '^  correlate ' && [ -x "$BUILD/lab/rt-lab-sendrecv" ]; then
	"$RDMATRACE" lab rnr -o "$T/rnr" >"$T/rnr.out" 2>&1
	rnr=$(frames "$T/rnr/annotated.pcapng" 'rdmatrace.rnr_wait_ms > 100')
	check "lab rnr: the RNR NAKs (655.36 ms) are selected" test -n "$rnr"
	check "lab rnr: exactly the RNR NAKs the wire shows" test "$rnr" = "$(tshark -r "$T/rnr/annotated.pcapng" -Y 'infiniband.aeth.syndrome.opcode == 1' -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	check "lab rnr: the resends after the RNR wait are retransmissions caused by rnr" test -n "$(frames "$T/rnr/annotated.pcapng" 'rdmatrace.retrans_cause == "rnr"')"
	check "lab rnr: packets name their work request" test -n "$(frames "$T/rnr/annotated.pcapng" 'rdmatrace.wr_id')"
	"$RDMATRACE" lab loss -o "$T/loss" >"$T/loss.out" 2>&1
	check "lab loss: retransmissions are selected" test -n "$(frames "$T/loss/annotated.pcapng" rdmatrace.retransmission)"
	ts -r "$T/loss/annotated.pcapng" -q -z expert >"$T/expert-loss.txt"
	check "lab loss: expert info lists the retransmissions" grep -q 'Retransmission #' "$T/expert-loss.txt"
	check "the plugin loads without errors on lab runs" no_lua_errors
fi

# --- a capture on two interfaces: the copies are fields of their own -------
if "$RDMATRACE" --help | grep -q '^  correlate '; then
	mkdir -p "$T/copies"
	python3 tests/analysis/copy_capture.py tests/analysis/data/rxe-rnr-late.pcapng "$T/copies/capture.pcapng"
	"$RDMATRACE" correlate "$T/copies" >"$T/copies.out" 2>&1
	copies=$(frames "$T/copies/annotated.pcapng" rdmatrace.copy_of)
	check "copies: rdmatrace.copy_of selects the second interface's frames" \
		test -n "$copies" -a "$copies" = "$(frames "$T/copies/annotated.pcapng" 'frame.comment contains "copy_of=" and frame.number % 2 == 0')"
	check "copies: none of them is a retransmission" test -z "$(frames "$T/copies/annotated.pcapng" 'rdmatrace.copy_of and rdmatrace.retransmission')"
	first=${copies%% *}
	check "copies: the Info column names the frame kept" \
		grep -q "\[copy of frame $((first - 1))\]" <(ts -r "$T/copies/annotated.pcapng" -Y "frame.number == $first" -T fields -e _ws.col.Info)
	check "the plugin loads without errors on copies" no_lua_errors
fi

# --- the profile and the commands ----------------------------------------
mkdir -p "$T/home" "$T/run"
cp "$T/acks.pcapng" "$T/run/capture.pcapng"
out=$(HOME=$T/home XDG_CONFIG_HOME= DISPLAY= "$RDMATRACE" wireshark "$T/run" --frame 4 2>"$T/ws-stderr")
if "$RDMATRACE" --help | grep -q '^  correlate '; then
	check "wireshark on a run correlates it and prints the commands" grep -q "^wireshark -X 'lua_script:.*rdmatrace.lua' -C rdmatrace -r '.*/run/annotated.pcapng' -g 4" <<<"$out"
	check "the run's RNR NAK is annotated and filterable" test "$("$RDMATRACE" tshark "$T/run" -- -Y 'rdmatrace.annotated && rdmatrace.rnr_wait_ms > 100' -T fields -e frame.number 2>/dev/null)" = "4"
else
	check "wireshark without correlation prints the commands for the raw capture" grep -q "^wireshark -X 'lua_script:.*rdmatrace.lua' -C rdmatrace -r '.*capture.pcapng' -g 4" <<<"$out"
fi
out=$(HOME=$T/home XDG_CONFIG_HOME= DISPLAY= "$RDMATRACE" wireshark "$T/acks.pcapng" 2>"$T/ws-stderr")
check "a plain capture file opens as it is" grep -q "^wireshark .* -r '$T/acks.pcapng'" <<<"$out"
check "it says when the capture has no annotations" grep -q 'no rdmatrace annotations' "$T/ws-stderr"
PROF=$T/home/.config/wireshark/profiles/rdmatrace
check "the profile is installed" test -f "$PROF/colorfilters" -a -f "$PROF/preferences" -a -f "$PROF/disabled_protos"
HOME=$T/home tshark -C rdmatrace --color -X lua_script:$LUA -r "$T/acks.pcapng" >"$T/color.txt" 2>"$T/stderr"
check "tshark accepts the profile and its colouring rules" no_lua_errors
check "the profile disables the RPC-over-RDMA heuristic" grep -qx rpcordma "$PROF/disabled_protos"
check "rdmatrace tshark passes arguments through" test "$("$RDMATRACE" tshark "$T/acks.pcapng" -- -Y rdmatrace.rnr_nak -T fields -e frame.number 2>/dev/null | tr '\n' ' ')" = "4 6 "
check_fails "rdmatrace wireshark on a missing run fails" "$RDMATRACE" wireshark "$T/nope"
check_fails "rdmatrace wireshark rejects a bad frame number" "$RDMATRACE" wireshark "$T/run" --frame x
check_fails "rdmatrace tshark wants -- before tshark arguments" "$RDMATRACE" tshark "$T/run" -Y x
mkdir -p "$T/empty"
check_fails "a run without any capture is an error" "$RDMATRACE" tshark "$T/empty"
done_testing
