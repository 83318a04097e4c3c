#!/usr/bin/env bash
# The probe on real rdma-core over the kernel's SoftRoCE (the VM lab, run by
# CI): rping server and client, each under `rdmatrace record` inside its VM.
# Every completion is matched to a WR, and the predicted PSN range of every
# send WR agrees with the BTH PSNs of the packets on the virtual wire
# (tests/probes/check_wire.py: zero mismatches).  Then tests/probes/verbs_prog
# (every send opcode, a 5000-byte READ over 5 response packets, an error
# completion) in the client VM: every WR, completion and PSN range checked
# (its two QPs share one rxe device, so its packets never reach the wire), and
# its bad-setup mode: calls rxe refuses, each explained, its cq-overrun
# mode (rxe's CQ_ERR), its mw mode (memory windows: each remote access
# error through a window explained from its bind), and ibv_xsrq_pingpong,
# which stops at XRC (rxe has none).  Then rping over
# IPv6 addresses (RoCEv2 with IPv6 GIDs) and on a VLAN (802.1Q-tagged
# frames), traced and correlated; rstream (rsockets) with no problem
# found, mckey's UD multicast linked to the group member's receives, and
# last, connection requests the kernel dropped for a listener's backlog,
# and ones it held for a program slow to take them.
. tests/lib.sh
. tests/vm/vmlib.sh

R=$VM_TMP/probe
REC="$PWD/$RDMATRACE record"
vm_run "$R" --scenario probe-rping \
	--server "$REC -o $R/srv -- rping -s -a 10.9.0.1 -v -C 10 -S 3000" \
	--client "$REC -o $R/cli -- rping -c -a 10.9.0.1 -v -C 10 -S 3000" \
	--server-name rping --client-name rping
if [ "$VM_RC" -eq 0 ]; then ok "lab-vm run with rdmatrace record on both sides exits 0"; else not_ok "lab-vm run exited $VM_RC"; sed 's/^/#   /' "$R.stderr" | tail -20; fi
check "no qemu left running" no_qemu_left "$R"
for side in srv cli; do
	n=$(ls "$R/$side/traces/"*.rtr 2>/dev/null | wc -l)
	if [ "$n" -ge 1 ]; then ok "$side: trace written inside the VM"; else not_ok "$side: no trace"; ls -R "$R/$side" 2>&1 | sed 's/^/#   /' | head; fi
	check "$side: run.json valid, exit 0" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["exit"]["code"]==0, j["exit"]' "$R/$side/run.json"
	"$RDMATRACE" dump --json --no-clock "$R/$side"/traces/*.rtr >"$R/$side.json" 2>/dev/null
	check "$side: counters from the kernel's rxe sysfs recorded" grep -q '"kind":"counter"' "$R/$side.json"
done
C=$R/capture.pcapng
if [ -s "$C" ]; then
	tsh "$C" -Y infiniband -T fields -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.bth.opcode >"$R/wire.tsv"
	out=$(python3 tests/probes/check_wire.py "$R/wire.tsv" 10.9.0.1="$R/srv.json" 10.9.0.2="$R/cli.json")
	if [ $? -eq 0 ]; then ok "predicted PSNs agree with the wire: ${out#\# }"; else not_ok "predicted PSNs against the wire"; printf '%s\n' "$out"; fi
else
	not_ok "no capture"
fi

# ---- verbs_prog on kernel rxe: every opcode, multi-packet READ, error completion ----
R2=$VM_TMP/vp
# Then bad-setup: a modify, an MR and three creates (a CQ, a QP and an SRQ one
# beyond the device's limits) that rxe must all refuse, each explained with
# the limit rxe reported.
VP="$PWD/$BUILD/tests/probes/verbs_prog_sys"
vm_run "$R2" --scenario probe-verbs --ready true --server 'sleep 2' \
	--client "$REC -o $R2/vp -- $VP basic && $REC -o $R2/bs -- $VP bad-setup && { $REC -o $R2/xs -- ibv_xsrq_pingpong -d rxe0 -g 1; [ \$? -eq 1 ]; } && $REC -o $R2/co -- $VP cq-overrun && $REC -o $R2/mw -- $VP mw" \
	--client-name verbs_prog
if [ "$VM_RC" -eq 0 ]; then ok "verbs_prog basic, bad-setup, cq-overrun and mw in the VM exit 0, ibv_xsrq_pingpong 1"; else not_ok "lab-vm run (verbs_prog) exited $VM_RC"; sed 's/^/#   /' "$R2.stderr" | tail -20; fi
"$RDMATRACE" dump --json --no-clock "$R2"/vp/traces/*.rtr >"$R2/vp.json" 2>/dev/null
out=$(python3 tests/probes/check_trace.py 1 <"$R2/vp.json")
if [ $? -eq 0 ]; then ok "verbs_prog on rxe: every WR, completion, PSN range and transition: ${out#\# }"; else not_ok "verbs_prog trace on rxe"; printf '%s\n' "$out"; fi
"$RDMATRACE" diagnose "$R2/bs" >"$R2/bs.txt" 2>&1
for want in 'ibv_modify_qp on QP 0x[0-9a-f]* on .* to RTR \(from INIT\) failed with EINVAL: the INIT -> RTR transition of an RC QP requires IBV_QP_MIN_RNR_TIMER and IBV_QP_MAX_DEST_RD_ATOMIC' \
	'ibv_reg_mr of 64 bytes at 0x[0-9a-f]* on .* failed with EINVAL: its access flags \(0x2\) ask for remote write' \
	"ibv_create_cq on .* failed with EINVAL: cqe ([0-9]+) is more than the device's max_cqe \(([0-9]+)\)\." \
	"ibv_create_qp of an RC QP on .* failed with EINVAL: max_send_wr ([0-9]+) is more than the device's max_qp_wr \(([0-9]+)\)\." \
	"ibv_create_srq on .* failed with EINVAL: max_sge ([0-9]+) is more than the device's max_srq_sge \(([0-9]+)\)\." \
	'ibv_modify_qp on QP 0x[0-9a-f]* on .* to RTR \(from INIT\) failed with EINVAL: its address vector has ah_attr.is_global 0, and RoCE addresses are GIDs' \
	'ibv_create_ah on .* failed with EINVAL: its ah_attr has is_global 0, and RoCE addresses are GIDs' \
	'ibv_attach_mcast of QP 0x[0-9a-f]+ on .* failed with EINVAL: only UD QPs join multicast groups, and this one is an RC QP' \
	'ibv_open_xrcd on .* failed with EOPNOTSUPP: the device does not implement XRC'; do
	line=$(grep -E -o "$want" "$R2/bs.txt" | head -1)
	# the limit is rxe's own, and the request one beyond it
	asked=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) is more than .*\(([0-9]+)\)\.$/\1 \2/')
	if [ -n "$line" ] && { [ "$asked" = "$line" ] || [ $((${asked% *} - ${asked#* })) -eq 1 ]; }; then
		ok "bad-setup on rxe: ${line%%:*}"
	else
		not_ok "bad-setup on rxe: no finding like: $want"
		sed 's/^/#   /' "$R2/bs.txt" | head -30
	fi
done
check "bad-setup on rxe: the address handle to the port's own GID was made, and recorded" bash -c \
	"'$RDMATRACE' dump '$R2'/bs/traces/*.rtr | grep ' verbs_call ' | grep 'call=ibv_create_ah' | grep 'is_global=1' | grep -vq errno="
# ibv_xsrq_pingpong stops at ibv_open_xrcd (rxe has no XRC) and returns 1
# from main: both said, the exit as the refused call's consequence
"$RDMATRACE" diagnose --json "$R2/xs" >"$R2/xs.json" 2>&1
check "ibv_xsrq_pingpong on rxe: diagnose exits 1" test $? -eq 1
check "ibv_xsrq_pingpong on rxe: the refused ibv_open_xrcd, and the exit with status 1 after it" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [f["text"] for f in d["findings"] if f["kind"] == "call_failed"]
assert len(c) == 1 and c[0].startswith("ibv_open_xrcd on client failed with EOPNOTSUPP: the device does not implement XRC"), c
e = [f for f in d["findings"] if f["kind"] == "process_ended"]
assert len(e) == 1 and e[0]["severity"] == "info", e
assert e[0]["text"].startswith("ibv_xsrq_pingpong (pid ") and "exited with status 1 after its last record" in e[0]["text"], e[0]
assert "its first error, a refused ibv_open_xrcd at " in e[0]["text"], e[0]
# and what the program said on its stderr, which record kept apart
assert " Its stderr (logs/client-ibv_xsrq_pingpong.err) ends with " in e[0]["text"], e[0]
assert e[0]["text"].endswith("\"Couldn\x27t Open the XRC Domain 95\"."), e[0]
' "$R2/xs.json"

# a CQ overrun: rxe's IBV_EVENT_CQ_ERR, read by the program, explained
"$RDMATRACE" diagnose "$R2/co" >"$R2/co.txt" 2>&1
check "cq-overrun on rxe: the CQ_ERR is an async_error finding with the CQ's size and its QPs" grep -q \
	'CQ [0-9]* (cqe [0-9]*), which QPs 0x[0-9a-f]* and 0x[0-9a-f]* complete into, on client had the asynchronous event CQ_ERR at .*: the CQ overran' "$R2/co.txt"

# memory windows (no capture: the QPs share one device): a type 2 window's
# bind WR and a type 1 window's ibv_bind_mw traced with the window's rkey,
# range and rights; each refused access explained from them
"$RDMATRACE" dump "$R2"/mw/traces/*.rtr >"$R2/mw.dump" 2>&1
check "mw on rxe: the type 2 binds (BIND_MW WRs) and the type 1 bind (ibv_bind_mw) traced with rkey, range and rights" \
	test "$(grep -c 'opcode=BIND_MW wr_id=0x64 len=[0-9]* num_sge=0 .*remote_addr=0x[0-9a-f]* rkey=0x[0-9a-f]* mw_access=0x[24]' "$R2/mw.dump")" = 3
check "mw on rxe: the LOCAL_INV traced with the rkey it invalidates" grep -q 'opcode=LOCAL_INV .*rkey=0x[0-9a-f]' "$R2/mw.dump"
"$RDMATRACE" diagnose "$R2/mw" >"$R2/mw.txt" 2>&1
check "mw on rxe: a READ through a window bound for writes only: its bind's rights told" grep -Eq \
	'RDMA_READ, 1024 bytes.*failed with REM_ACCESS_ERR: the responder refused rkey 0x[0-9a-f]* for address 0x[0-9a-f]* length 1024: the memory window with rkey 0x[0-9a-f]* \(0x[0-9a-f]*, 4096 bytes\) on client was bound without IBV_ACCESS_REMOTE_READ \(its access flags: 0x2\)' "$R2/mw.txt"
check "mw on rxe: a WRITE through an invalidated window: the LOCAL_INV told" grep -Eq \
	'RDMA_WRITE, 8192 bytes.*failed with REM_ACCESS_ERR: .*the memory window with rkey 0x[0-9a-f]* \(0x[0-9a-f]*, 16384 bytes\) that verbs_prog_sys \(pid [0-9]*\) on client bound had been withdrawn [0-9.]* ms before: verbs_prog_sys \(pid [0-9]*\) invalidated it \(LOCAL_INV\)' "$R2/mw.txt"
check "mw on rxe: a WRITE through a type 1 window bound for reads: its ibv_bind_mw's rights told" grep -Eq \
	'RDMA_WRITE, 8192 bytes.*failed with REM_ACCESS_ERR: .*the memory window with rkey 0x[0-9a-f]* \(0x[0-9a-f]*, 16384 bytes\) on client was bound without IBV_ACCESS_REMOTE_WRITE \(its access flags: 0x4\)' "$R2/mw.txt"

# ---- perftest without RDMA CM: the run's two recordings found and matched ----
# ib_write_bw exchanges its QPNs and PSNs over TCP, so the wire's QPs are told
# apart (both are QPN 17 on rxe) only by the PSNs each side's QP state set:
# the client's sends start at its sq_psn, the server receives from its rq_psn.
R3=$VM_TMP/ptw
perftest_run "$R3" "ib_write_bw -d rxe0 -F -n 100 -s 65536"
"$RDMATRACE" diagnose --json "$R3" >"$R3.json" 2>"$R3.err"
check "ib_write_bw: both recordings in the run's timeline, each QP matched to its wire packets, client clock bounded" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
qps = {q["host"]: q for q in j["qps"]}
assert set(qps) == {"client", "server"}, sorted(qps)
c, s = qps["client"], qps["server"]
assert c["wrs_send"] == 100 and c["packets_tx"] >= 100 * 64 and c["bytes_tx"] == 100 * 65536, c
assert s["packets_tx"] >= 1 and s["ip"] == "10.9.0.1" and c["ip"] == "10.9.0.2", (s, c)
h = {x["name"]: x for x in j["hosts"]}
assert h["client"]["uncertainty_ns"] is not None and h["client"]["uncertainty_ns"] < 50e6, h["client"]
' "$R3.json"
# ---- perftest UD without RDMA CM: datagrams linked by PSN and completions ----
# No CM exchange names the addresses: the sender's is the host whose UD QP's
# WRs were predicted to carry the datagrams' PSNs, the receiver's the host
# whose UD QP completed receives from their source QPN.
R4=$VM_TMP/ptud
perftest_run "$R4" "ib_send_bw -d rxe0 -F -c UD -n 100 -s 1024"
check "ib_send_bw -c UD: every datagram linked to its send WR, each successful receive to a datagram" \
	python3 tests/analysis/check_ud_links.py "$R4" "$RDMATRACE" --one-way
# ---- perftest RNR: a receiver with 2 receives posted ----
# ib_send_bw -r 2: the server reposts one receive per completion, the client
# outruns it and gets RNR NAKs.  Every RNR NAK the server's rxe sent
# (send_rnr_err) is in an RNR stall, none an ACK timeout (rxe acts on some 30 ms late on
# TCG) unless the resend came after the ACK timeout and no resend after the
# RNR NAK's timer is on the wire, and the clocks agree with every constraint: a message resent after
# the receiver had it is not what consumed its receive.
R5=$VM_TMP/ptrnr
perftest_run "$R5" "ib_send_bw -d rxe0 -F -n 200 -s 4096 -r 2"
check "ib_send_bw -r 2: every RNR NAK the server sent in an RNR stall with no receive for it, no ACK timeout, consistent clocks" python3 -c '
import json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
c = dict(l.split() for l in open(run + "/logs/server-hw_counters.txt") if len(l.split()) == 2)
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
stalls = sum(int(__import__("re").search(r"answered (\d+) RNR NAK", f["text"]).group(1)) for f in d["findings"] if f["kind"] == "rnr_stall")
assert int(c["send_rnr_err"]) > 0, "no RNR NAK: the test did not test"
assert stalls == int(c["send_rnr_err"]), ("RNR NAKs in stalls", stalls, "send_rnr_err", c["send_rnr_err"])
# the receiver had no receive for the request (receives posted within its
# clock uncertainty of the arrival are named apart, not counted)
for f in d["findings"]:
    if f["kind"] == "rnr_stall" and "receive queue depth" in f["evidence"]:
        assert "receive queue depth when the request arrived: 0" in f["evidence"], f["evidence"]
# an ACK timeout only where it was one: rxe (rarely) resends after a NAK
# sequence error that follows the RNR NAK only when its ACK timer fires,
# which the finding must then say, with the resend the RNR NAK asked for missing.
# rxe arms its timer in jiffies (4 ms at HZ=250): a 67.11 ms timeout goes
# off 64 to 68 ms after it was armed, so "after the ACK timeout" is the
# timeout less a tenth, as the detector has it (tl_link.c before_timeout)
re = __import__("re")
for f in d["findings"]:
    if "no ACK came" not in f["text"]:
        continue
    m = re.search(r"within the local ACK timeout \(timeout=\d+, ([0-9.]+) ms\) \(([0-9.]+) ms after it was sent\); the RNR NAK in frame \d+ \(([0-9.]+) ms before\) asked for a resend after [0-9.]+ ms that is not in the capture", f["text"])
    assert m and float(m.group(2)) >= 0.9 * float(m.group(1)) and float(m.group(3)) > 40, f["text"][:400]
bad = [f["text"] for f in d["findings"] if f["kind"] == "clock" and "wall clock of" not in f["text"]]
assert not bad, bad  # (a wall clock set during the run is told, and no reason for another)
h = {x["name"]: x for x in d["hosts"]}
assert h["client"]["uncertainty_ns"] is not None and h["server"]["uncertainty_ns"] is not None, h
' "$R5" "$RDMATRACE"
# ---- perftest RNR from a receiver stopped 4 s (SIGSTOP) ----
# The server of ib_send_bw -D 14 is stopped mid-run (once its rxe had 15000
# packets, some 2 s into the transfer): its rxe answers the
# client's SENDs with RNR NAKs once its posted receives are used up, and its
# program reposts none until it goes on.  The server's freeze is a finding of
# its own, and the RNR stall says the receiver was frozen.
R6=$VM_TMP/ptfrz
PERFTEST_SERVER_PRE="($(rxe_after_pkts 15000); pkill -STOP -x ib_send_bw; sleep 4; pkill -CONT -x ib_send_bw) & " \
	perftest_run "$R6" "ib_send_bw -d rxe0 -F -D 14 -s 4096"
check "ib_send_bw with its server stopped 4 s: the freeze found, and named in the RNR stall it caused" python3 -c '
import json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
c = dict(l.split() for l in open(run + "/logs/server-hw_counters.txt") if len(l.split()) == 2)
assert int(c["send_rnr_err"]) > 0, "no RNR NAK: the test did not test"
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
fz = [f for f in d["findings"] if f["kind"] == "process_frozen"]
assert len(fz) == 1 and fz[0]["text"].startswith("ib_send_bw (pid ") and " on server froze for " in fz[0]["text"], [f["text"][:200] for f in d["findings"]]
assert "which the kernel\x27s transport answered, but the program polled no completion" in fz[0]["text"], fz[0]["text"]
told = [f for f in d["findings"] if f["kind"] == "rnr_stall" and "while its process was frozen from " in f["text"]]
# (when not, what the stall and the freeze were: their times, the evidence of the stall, the clocks)
why = [(f["kind"], f["t_ns"], f["time_lost_ns"], f["text"][:300], f["evidence"][:400]) for f in d["findings"]] + [d["hosts"]]
assert told and all("the program posted no receive in that time" in f["text"] for f in told), why
' "$R6" "$RDMATRACE"
# clean_rping RUNDIR CLIENT_IP SERVER_IP: diagnose finds no problem in an
# rping run, each side's QP has its address and sent WRs and packets, and
# both guests' clocks are bounded.
clean_rping() {
	python3 -c '
import json, subprocess, sys
rt, run, cip, sip = sys.argv[1:5]
p = subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True)
d = json.loads(p.stdout)
assert p.returncode == 0 and not [f for f in d["findings"] if f["severity"] != "info"], [f["text"][:200] for f in d["findings"]]
qps = {q["host"]: q for q in d["qps"] if q["qpn"] != 1}
assert qps["client"]["ip"] == cip and qps["server"]["ip"] == sip, qps
assert all(q["packets_tx"] > 0 and q["wrs_send"] > 0 for q in qps.values()), qps
h = {x["name"]: x for x in d["hosts"]}
assert h["client"]["uncertainty_ns"] is not None and h["server"]["uncertainty_ns"] is not None, h
' "$RDMATRACE" "$@"
}
# traced_rping RUNDIR WHAT SERVER_SETUP CLIENT_SETUP SERVER_IP [LAB-VM OPTIONS]: rping
# with 5 pings under record in both VMs after each one's set-up command,
# and an ok / not ok line for its exit
# rping's CM thread may ask for an event after main() destroyed the event
# channel (rdma_get_cm_event: Bad file descriptor, exit status 255): rping
# racing with itself, as tests/uroce/binaries_test.sh notes; such a run is
# repeated once (the first stays in RUNDIR.first).  A failing run prints
# both sides' last lines of output.
traced_rping() {
	local dir=$1 what=$2 ssetup=$3 csetup=$4 sip=$5
	shift 5
	vm_run_once_more "$dir" 'rdma_get_cm_event: Bad file descriptor' "rping $what: a CM thread outlived its event channel" \
		--scenario rping "$@" \
		--server "$ssetup && sleep 1 && $REC -o $dir/srv -- rping -s -a $sip -v -C 5" \
		--client "$csetup && sleep 2 && $REC -o $dir/cli -- rping -c -a $sip -v -C 5" \
		--server-name rping --client-name rping
	if [ "$VM_RC" -eq 0 ]; then ok "rping $what under record in both VMs exits 0$VM_AGAIN"; else
		not_ok "lab-vm run (rping $what) exited $VM_RC$VM_AGAIN"; sed 's/^/#   /' "$dir.stderr" | tail -20
		tail -n 5 "$dir"/logs/*-rping.err "$dir"/logs/*-rping.out 2>/dev/null | sed 's/^/#   /'
	fi
}
# rping_wire RUNDIR PATTERN: the run's packets include a CM REQ line matching
# PATTERN, and every ICRC is good
rping_wire() {
	"$RDMATRACE" packets "$1/capture.pcapng" >"$1/packets.txt" && grep -Eq "$2 UD Send Only QP 0x000001 .* CM REQ" "$1/packets.txt" &&
		! grep -q 'icrc bad' "$1/packets.txt"
}
# ---- RoCEv2 over IPv6: rping between two ULA addresses ----
# rxe makes a RoCEv2 GID of each IPv6 address the interface gets; the CM
# exchange, the QPs' addresses, the clocks and the links all go by IPv6.
R6=$VM_TMP/rping6
traced_rping "$R6" "over IPv6" "ip -6 addr add fd09::1/64 dev eth0 nodad" "ip -6 addr add fd09::2/64 dev eth0 nodad" fd09::1
check "rping over IPv6: the CM REQ from fd09::2 to fd09::1 on the wire, every ICRC good" rping_wire "$R6" 'fd09::2 > fd09::1'
check "rping over IPv6: each QP has its IPv6 address and its WRs' packets, clocks bounded, no problem found" \
	clean_rping "$R6" fd09::2 fd09::1
# ---- RoCEv2 on a VLAN: rping between addresses of eth0.7 ----
# the frames carry an 802.1Q tag (the GIDs of a VLAN interface are rxe0's
# too): decoded, correlated and checked like untagged ones
R7=$VM_TMP/rping-vlan
vlan() { echo "ip link add link eth0 name eth0.7 type vlan id 7 && ip addr add 10.7.0.$1/24 dev eth0.7 && ip link set eth0.7 up"; }
traced_rping "$R7" "on VLAN 7" "$(vlan 1)" "$(vlan 2)" 10.7.0.1 --modules 8021q
check "rping on a VLAN: tagged RoCE frames decoded, the CM REQ from 10.7.0.2, every ICRC good" rping_wire "$R7" '10.7.0.2 > 10.7.0.1 vlan 7'
check "rping on a VLAN: each QP has its address and its WRs' packets, clocks bounded, no problem found" \
	clean_rping "$R7" 10.7.0.2 10.7.0.1
# ---- rsockets: rstream streams 200 messages of 64 KB ----
# rsockets' ids have non-blocking event channels: the client's rdma_connect
# returns EAGAIN and ESTABLISHED comes later (no failed call); the data go
# as WRITE_WITH_IMM into the peer's buffer, each consuming a receive
RS=$VM_TMP/rstream
vm_run "$RS" --scenario rstream \
	--server "$REC -o $RS/srv -- rstream -b 10.9.0.1 -S 65536 -C 200" \
	--client "$REC -o $RS/cli -- rstream -s 10.9.0.1 -S 65536 -C 200" \
	--server-name rstream --client-name rstream
if [ "$VM_RC" -eq 0 ]; then ok "rstream under record in both VMs exits 0"; else not_ok "lab-vm run (rstream) exited $VM_RC"; sed 's/^/#   /' "$RS.stderr" | tail -20; fi
check "rstream: each QP has its address and its WRs' packets, clocks bounded, no problem found" \
	clean_rping "$RS" 10.9.0.2 10.9.0.1
check "rstream: the client's rdma_connect returned EAGAIN (non-blocking id), then ESTABLISHED" bash -c \
	"'$RDMATRACE' dump '$RS'/cli/traces/*.rtr | grep -A1000 'event=call:connect status=-11' | grep -q 'event=ESTABLISHED'"
# A WR still outstanding when rstream closed (its last credit update, say) has
# packets but no completion the program polled, and may have no ACK: each
# QP's WRs without a completion must come after its last completed one.
check "rstream: every completed WRITE_WITH_IMM linked to its packets and its ACK; the rest outstanding at close" python3 -c '
import json, subprocess, sys
rt, run = sys.argv[1:3]
rows = [json.loads(l) for l in subprocess.run([rt, "export", run, "--format", "jsonl"], capture_output=True, text=True).stdout.splitlines()]
wrs = [r for r in rows if r["kind"] == "wr_post" and "opcode=RDMA_WRITE_WITH_IMM " in r["summary"]]
types = lambda r: {l["type"] for l in r.get("links", [])}
done = [r for r in wrs if "completion" in types(r)]
assert len(done) >= 400, len(done)
bad = [r["summary"] for r in done if not {"packet", "ack"} <= types(r)]
assert not bad, bad[:3]
last_done = {}
for r in done:
    k = (r["host"], r["qpn"])
    last_done[k] = max(last_done.get(k, -1), r["row"])
open_ = [r for r in wrs if "completion" not in types(r)]
early = [r["summary"] for r in open_ if r["row"] < last_done.get((r["host"], r["qpn"]), -1)]
assert not early and len(open_) <= 8, (len(open_), early[:3])
' "$RDMATRACE" "$RS"
# ---- a SEND longer than the receive it meets: ibv_rc_pingpong -s 8192 against -s 4096 ----
# rxe refuses the message past the receive's 4096 bytes: NAK remote
# operational error to the client, LOC_QP_OP_ERR (opcode SEND) for the
# server's receive; both programs print why on stderr and exit 1
LE=$VM_TMP/lenerr
pingpong_run "$LE" rc-pingpong-len "-g 1 -s 4096" "-g 1 -s 8192"
check "a SEND longer than its receive: both sides say the message did not fit, with both WRs; each exit quotes its stderr" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = lambda k: [f["text"] for f in d["findings"] if f["kind"] == k]
n = t("nak_error")
assert len(n) == 1 and "of wr_id 2 (SEND, 8192 bytes): the message (8192 bytes) is longer than the receive WR it met on the responder (receive wr_id 1 (4096 bytes) on QP 0x" in n[0], n
e = t("error_completion")
assert len(e) == 1 and e[0].startswith("receive wr_id 1 (4096 bytes) on QP 0x") and "on server failed with " in e[0] and \
    ": the message that consumed it, wr_id 2 (SEND, 8192 bytes) from QP 0x" in e[0], e
p = t("process_ended")
assert len(p) == 2 and all(" Its stderr (logs/" in x and "Failed status" in x for x in p), p
' "$LE.json"
# ---- address vectors that cannot work (the probe's qp_av records) ----
# ibv_rc_pingpong -m 4096 on rxe, whose port's active MTU is 1024: rxe takes
# the RTR, and the 4096-byte SEND never reaches the wire; both programs wait
# until they are stopped (record forwards the SIGTERM)
MT=$VM_TMP/mtu4k
pingpong_run "$MT" rc-pingpong-mtu "-g 1 -m 4096" "-g 1 -m 4096" "timeout 8"
check "path MTU 4096 above the port's 1024: a qp_setup error names both MTUs and the SEND that never reached the wire" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "qp_setup" and " on client was moved to RTR " in x["text"]]
assert len(f) == 1 and f[0]["severity"] == "error", d["findings"]
assert "its path MTU 4096 is above port 1\x27s active MTU 1024" in f[0]["text"], f[0]
assert "The send WR posted on it never reached the capture and never completed: wr_id 2 (SEND, 4096 bytes)." in f[0]["text"], f[0]
# (both waited until `timeout 8` stopped them: their ends say so)
p = [x["text"] for x in d["findings"] if x["kind"] == "process_ended"]
assert len(p) == 2 and all(" Its command ran under `timeout 8` in the VM lab, which stopped it when that time ran out "
                           "(run.json: exit status 124)." in x for x in p), p
' "$MT.json"
# the server on GID index 0 (rxe: the IPv6 link-local address), the client on
# its IPv4 one: the server's RTR is refused
GM=$VM_TMP/gidmix
pingpong_run "$GM" rc-pingpong-gid "-g 0" "-g 1"
check "an IPv6 source GID for an IPv4 destination: the refused RTR says so, with both GIDs" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x["text"] for x in d["findings"] if x["kind"] == "call_failed"]
assert len(f) == 1 and f[0].startswith("ibv_modify_qp on QP 0x") and " on server to RTR (from INIT) failed with " in f[0], f
assert "its source GID (index 0 of port 1: fe80::" in f[0] and ") is an IPv6 address and its destination GID (::ffff:10.9.0.2) an IPv4 one" in f[0], f[0]
' "$GM.json"
# the same for a UD address handle: the server on its IPv4 GID, the client on
# the IPv6 link-local one; the server's ibv_create_ah is refused
UG=$VM_TMP/udgid
pingpong_run "$UG" ud-pingpong-gid "-g 1" "-g 0" "" ibv_ud_pingpong
check "an IPv4 source GID for an IPv6 destination: the refused ibv_create_ah says so, with both GIDs" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x["text"] for x in d["findings"] if x["kind"] == "call_failed"]
assert len(f) == 1 and f[0].startswith("ibv_create_ah on server failed with "), f
assert "its source GID (index 1 of port 1: ::ffff:10.9.0.1) is an IPv4 address and its destination GID (fe80::" in f[0] and ") an IPv6 one" in f[0], f[0]
' "$UG.json"
# ---- UD multicast: mckey sends 20 datagrams to 239.1.1.1, which the server joined ----
MK=$VM_TMP/mckey
vm_run "$MK" --scenario mckey --ready "sleep 3; true" \
	--server "$REC -o $MK/srv -- mckey -m 239.1.1.1 -b 10.9.0.1 -C 20" \
	--client "$REC -o $MK/cli -- mckey -m 239.1.1.1 -b 10.9.0.2 -s -C 20" \
	--server-name mckey --client-name mckey
if [ "$VM_RC" -eq 0 ]; then ok "mckey under record in both VMs exits 0"; else not_ok "lab-vm run (mckey) exited $VM_RC"; sed 's/^/#   /' "$MK.stderr" | tail -20; fi
check "mckey: every datagram to the group linked to its send WR and to the receive it filled on the server; the group is no untraced peer" python3 -c '
import json, subprocess, sys
rt, run = sys.argv[1:3]
rows = [json.loads(l) for l in subprocess.run([rt, "export", run, "--format", "jsonl"], capture_output=True, text=True).stdout.splitlines()]
by = {r["row"]: r for r in rows}
mc = [r for r in rows if r["kind"] == "packet" and r.get("peer_qpn") == 0xFFFFFF]
assert len(mc) == 20, len(mc)
for r in mc:
    t = {l["type"]: by[l["row"]] for l in r.get("links", [])}
    assert "wr" in t and t["wr"]["host"] == "client", r
    assert "recv_wr" in t and t["recv_wr"]["host"] == "server", r
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
assert not d["findings"] and not [n for n in d["notes"] if "239.1.1.1" in n], (d["findings"], d["notes"])
' "$RDMATRACE" "$MK"
# ---- connection requests beyond the listener's backlog (the kernel's rdma_ucm) ----
# tests/probes/cm_crowd: three connections at once to a listener of backlog
# 1 that takes its first request 4 s after it listens (the client VM starts
# once the listener shows, and its requests come 1-3 s later under TCG; with
# 1.5 s the server sometimes took the first before the third came).  The
# kernel drops the two REQs that come while it holds one (no answer), the
# client's CM sends them again after its response timeout (about 6.3 s),
# and the diagnosis, from the listen record's backlog and the requests it
# replays, says so.
CROWD="$PWD/$BUILD/tests/probes/cm_crowd"
# A cm_crowd run on the VM lab (both sides under rdmatrace record, port
# 7990): its run directory dir, server and client arguments, what an exit 0
# shows; then diagnose --json into dir.json.
crowd_run() {
	local dir=$1 scenario=$2 sargs=$3 cargs=$4 what=$5
	vm_run "$dir" --scenario "$scenario" \
		--server "$REC -o $dir/srv -- $CROWD --server -a 10.9.0.1 -p 7990 $sargs" \
		--client "$REC -o $dir/cli -- $CROWD --client -a 10.9.0.1 -p 7990 $cargs" \
		--server-name cm_crowd --client-name cm_crowd
	if [ "$VM_RC" -eq 0 ]; then ok "$what"; else not_ok "lab-vm run ($scenario) exited $VM_RC"; sed 's/^/#   /' "$dir.stderr" | tail -20; fi
	"$RDMATRACE" diagnose --json "$dir" >"$dir.json" 2>"$dir.err"
}
CR=$VM_TMP/crowd
crowd_run "$CR" crowd "--conns 3 --backlog 1 --hold 4000" "--conns 3" \
	"cm_crowd: three connections to a listener of backlog 1 all made in the end"
check "cm_crowd on the kernel: the two REQs beyond the backlog told as dropped for it" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
full = [x for x in f if x["kind"] == "cm_lost" and "the listener it asked for (cm_crowd (pid " in x["text"] and
        ") already held 1 connection request its program had not taken with rdma_get_cm_event, as many as its backlog (1): " in x["text"]]
assert len(full) == 2, [x["kind"] + ": " + x["text"] for x in f]
assert all("when the first copy came" in x["text"] or "when the first 2 copies came" in x["text"] for x in full), [x["text"] for x in full]
' "$CR.json"
# ... and a listener of backlog 3 that takes its first request only after
# 14 s: the client's CM sends each REQ again after its response timeout, the
# kernel answers the copy of a request it holds with an MRA (wait longer),
# and the diagnosis says the program was slow to take them.
CH=$VM_TMP/crowd-held
crowd_run "$CH" crowd-held "--conns 2 --backlog 3 --hold 14000" "--conns 2" \
	"cm_crowd: two connections to a listener that takes them after 14 s"
check "cm_crowd on the kernel: both REQs held until the program took them, the MRA that answered each copy named" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
held = [x for x in f if x["kind"] == "cm_lost" and "; the first copy arrived, and the listener it asked for (cm_crowd (pid " in x["text"] and
        ", backlog 3) held it until its program took it with rdma_get_cm_event " in x["text"] and
        "; the listener'"'"'s CM answered the copy that came again with an MRA (frame " in x["text"] and
        ", from the first copy to the answer (REP) at frame " in x["text"] and x["time_lost_ns"] > 10e9]
assert len(held) == 2 and len(f) == 2, [x["kind"] + ": " + x["text"] for x in f]
' "$CH.json"
# ... and the backlog-1 listener with a second one on the same port of [::]
# for IPv6 only (RDMA_OPTION_ID_AFONLY), backlog 5, made after it: the
# kernel lets the two share the port (each takes its own family only) and
# gives the IPv4 requests to the first; the replay counts them against its
# backlog of 1, not the IPv6 one's 5.
CV=$VM_TMP/crowd-v6
crowd_run "$CV" crowd-v6 "--conns 3 --backlog 1 --hold 4000 --v6-listener 5" "--conns 3" \
	"cm_crowd: an IPv4 listener of backlog 1 and an IPv6-only one on the same port, three connections made"
check "cm_crowd on the kernel beside an IPv6-only listener: the two REQs dropped for the IPv4 listener's backlog of 1" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
full = [x for x in f if x["kind"] == "cm_lost" and "as many as its backlog (1): " in x["text"]]
assert len(full) == 2 and not [x for x in f if "backlog 5" in x["text"]], [x["kind"] + ": " + x["text"] for x in f]
' "$CV.json"
# ---- rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT) where the kernel ignores it ----
# On the listening id the accepted connections' QPs do not take it (they
# take the REQ's ACK timeout, 19), and once a connection is established it
# changes nothing (the option is applied as the QP moves to RTS); the probe
# records the calls, the diagnosis tells both.  Asked for before
# rdma_resolve_route, the client's QP has it and its REQ carries the route's
# ACK timeout (16 for 15), which the server's QP takes: nothing to tell.
OI=$VM_TMP/opt-ignored
crowd_run "$OI" opt-ignored "--conns 2 --sends 1 --ack-timeout 14 --on-listener" \
	"--conns 2 --sends 1 --ack-timeout 15 --late" "cm_crowd with ACK timeout options on the listener and late"
check "the kernel ignores both options: every QP has 19, and both are told" python3 -c '
import json, re, sys, glob
out = "".join(open(p).read() for p in glob.glob(sys.argv[2] + "/logs/*.out"))
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout (\d+)", out)
assert sorted(got) == [("client", "19")] * 2 + [("server", "19")] * 2, out
f = json.load(open(sys.argv[1]))["findings"]
lis = [x for x in f if x["kind"] == "qp_setup" and "on the listening id of cm_crowd (pid " in x["text"] and
       "did not reach the 2 connections it accepted" in x["text"]]
late = [x for x in f if x["kind"] == "qp_setup" and "came after the QP of its id" in x["text"] and
        "so the QP kept 19." in x["text"] and "The same for 1 more of its ids" in x["text"]]
assert len(lis) == 1 and len(late) == 1 and len(f) == 2, [x["kind"] + ": " + x["text"] for x in f]
' "$OI.json" "$OI"
OE=$VM_TMP/opt-early
crowd_run "$OE" opt-early "--conns 1" "--conns 1 --ack-timeout 15 --early" \
	"cm_crowd with the ACK timeout asked for before rdma_resolve_route"
check "the option took effect (client 15, server the REQ's 16): no finding" python3 -c '
import json, re, sys, glob
out = "".join(open(p).read() for p in glob.glob(sys.argv[2] + "/logs/*.out"))
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout (\d+)", out)
assert sorted(got) == [("client", "15"), ("server", "16")], out
f = json.load(open(sys.argv[1]))["findings"]
assert not f, [x["kind"] + ": " + x["text"] for x in f]
' "$OE.json" "$OE"
# ---- rdma_set_option(RDMA_OPTION_ID_TOS) where the kernel does not use it ----
# A connection's traffic class is fixed by the connecting side's
# rdma_resolve_route (the TOS asked for by then) and reaches the accepting
# side in the REQ: a TOS on the listener, or asked for after the route, is
# unused (every packet not ECN-capable), and both are told; asked for before
# the route, both sides' packets carry it (ECT(0)), and nothing is told.
tos_ecn() { # the ECN field of each side's RoCE packets (not the CM's), "SRC ECN COUNT" lines
	tsh "$1" -Y "infiniband && infiniband.bth.destqp != 1" -T fields -e ip.src -e ip.dsfield.ecn | sort | uniq -c | awk '{print $2, $3}'
}
TI=$VM_TMP/tos-ignored
crowd_run "$TI" tos-ignored "--conns 2 --sends 2 --tos 2 --on-listener" "--conns 2 --sends 2 --tos 2" \
	"cm_crowd with TOS on the listener and after rdma_resolve_route"
check "TOS unused by the kernel: no packet ECN-capable, both options told" python3 -c '
import json, sys
ecn = sys.argv[2].split()
assert ecn == ["10.9.0.1", "0", "10.9.0.2", "0"], ecn
f = json.load(open(sys.argv[1]))["findings"]
lis = [x for x in f if x["kind"] == "qp_setup" and "RDMA_OPTION_ID_TOS, 2 (DSCP 0, ECT(0))) on the listening id of cm_crowd (pid " in x["text"] and
       "did not reach the 2 connections it accepted" in x["text"]]
late = [x for x in f if x["kind"] == "qp_setup" and "came after the rdma_resolve_route of its id" in x["text"] and
        "The same for 1 more of its ids" in x["text"]]
assert len(lis) == 1 and len(late) == 1 and len(f) == 2, [x["kind"] + ": " + x["text"] for x in f]
' "$TI.json" "$(tos_ecn "$TI/capture.pcapng")"
TE=$VM_TMP/tos-early
crowd_run "$TE" tos-early "--conns 1 --sends 2" "--conns 1 --sends 2 --tos 2 --early" \
	"cm_crowd with TOS before rdma_resolve_route"
check "TOS before rdma_resolve_route: both sides ECT(0), no finding" python3 -c '
import json, sys
ecn = sys.argv[2].split()
assert ecn == ["10.9.0.1", "2", "10.9.0.2", "2"], ecn
f = json.load(open(sys.argv[1]))["findings"]
assert not f, [x["kind"] + ": " + x["text"] for x in f]
' "$TE.json" "$(tos_ecn "$TE/capture.pcapng")"
# ---- an IPv4 request to a listener on [::] for IPv6 only ----
# cm_crowd's server asks for RDMA_OPTION_ID_AFONLY before it binds [::];
# the kernel's RDMA CM matches the client's IPv4 REQ to no listener and
# refuses it with REJ 28 (its ib_cm holds the port); the lab stops the
# server, which waits in vain, 3 s after the client ended.
V6=$VM_TMP/v6only
vm_run "$V6" --scenario v6only --grace 3 \
	--server "$REC -o $V6/srv -- $CROWD --server -a :: -p 7990 --conns 1 --afonly" \
	--client "$REC -o $V6/cli -- $CROWD --client -a 10.9.0.1 -p 7990 --conns 1" \
	--server-name cm_crowd --client-name cm_crowd
check_grep "the kernel refuses an IPv4 request to an IPv6-only listener with REJ 28" \
	"RDMA_CM_EVENT_REJECTED .status 28." "$V6"/logs/client-cm_crowd.err
"$RDMATRACE" diagnose --json "$V6" >"$V6.json" 2>"$V6.err"
check "the REJ names the IPv6-only listener and its option" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
rej = [x for x in f if x["kind"] == "cm_reject" and ": reason 28 (consumer defined); " in x["text"] and
       "at that address cm_crowd (pid " in x["text"] and " listens on port 7990 of [::] for IPv6 only (rdma_set_option(RDMA_OPTION_ID_AFONLY, 1)" in x["text"] and
       "the request came over IPv4" in x["text"]]
assert len(rej) == 1, [x["kind"] + ": " + x["text"] for x in f]
' "$V6.json"
done_testing
