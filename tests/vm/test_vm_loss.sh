#!/usr/bin/env bash
# rping under netem loss between the two SoftRoCE VMs: the requester
# retransmits (the same PSN crosses the wire twice) and rping still completes.
# Then perftest under loss, UC under loss, a peer that goes silent
# (RETRY_EXC_ERR), a peer killed mid-transfer and ECN marks, each diagnosed
# and checked against the capture and rxe's counters.
#
# Why these numbers: a message of 32 KiB is 32 packets at path MTU 1024, and
# almost any lost packet of it is retransmitted with packets that already
# crossed the wire (go-back-N), which the capture shows as repeated PSNs.
# 5 iterations put about 185 RoCE packets on each VM's egress; 3 % loss on
# both gives about 11 losses, so the chance of no repeated PSN is about 1e-5,
# while each loss costs the kernel's 2 s ACK timeout at worst (~20-30 s total).
# ARP cannot be lost: the lab pins the peer's neighbour entry.
. tests/lib.sh
. tests/vm/vmlib.sh

R=$VM_TMP/loss
vm_run "$R" --scenario rping-loss --loss 3 \
	--server 'rping -s -a 10.9.0.1 -v -C 5 -S 32768' --client 'rping -c -a 10.9.0.1 -v -C 5 -S 32768'
if [ "$VM_RC" -eq 0 ]; then ok "rping completes under 3% loss"; else not_ok "lab-vm run exited $VM_RC"; sed 's/^/#   /' "$R.stderr"; fi
check "no qemu left running" no_qemu_left "$R"
n=$(grep -c '^ping data: rdma-ping-[0-4]: ' "$R/logs/client-rping.out" 2>/dev/null)
if [ "${n:-0}" -eq 5 ]; then ok "client printed 5 pings"; else not_ok "client printed ${n:-0} pings"; fi
check_grep "netem was applied in the server VM" 'netem .*loss 3%' "$R/logs/server-setup.log"
check_grep "netem was applied in the client VM" 'netem .*loss 3%' "$R/logs/client-setup.log"
check_grep "the CM's MADs (UDP 4791, BTH destination QP 1) pass netem by" 'u32 match ip dport 4791 0xffff match u32 0x00000001 0x00ffffff at 32 flowid 1:2' "$R/logs/client-setup.log"
check_grep "run.json records the netem options" '"netem": \{"options": "loss 3%", "applied_on": "both", "cm_mads": "exempt"\}' "$R/run.json"
C=$R/capture.pcapng
d=$(dup_psns "$C")
if [ "$d" -gt 0 ]; then ok "retransmitted PSNs on the wire ($d)"; else not_ok "no PSN was sent twice"; fi
n=$(tcount "$C" '_ws.malformed || _ws.expert.severity >= "Error"')
if [ "$n" = 0 ]; then ok "no malformed packet"; else not_ok "$n malformed packets"; fi
# The kernel counted the recovery too (requester retries or responder duplicates).
r=$(retry_count "$R")
if [ "$r" -gt 0 ]; then ok "rxe counters show retries ($r)"; else not_ok "rxe retry counters are zero"; fi
# perftest under 2% loss, under `rdmatrace record` in both VMs: the Go-Back-N
# rounds the diagnosis finds on the wire are the retries the client's rxe
# counted (completer_retry_err), within 2% (a resend lost whole before the
# capture point is a round the wire cannot show).  WRITEs: NAKs that come
# during a retry, which rxe ignores; READs: several in flight, whose
# responses the requester takes in PSN order.  -F: perftest's CPU frequency
# check fails on TCG.
for t in "ib_write_bw -n 120 -s 65536" "ib_read_bw -n 120 -s 65536"; do
	name=${t%% *}
	P=$VM_TMP/loss-$name
	perftest_run "$P" "$t -d rxe0 -F" --loss 2
	out=$(python3 tests/analysis/check_retries_counter.py "$P" "$RDMATRACE" client --tolerance 2 2>&1)
	if [ $? -eq 0 ]; then ok "$name: Go-Back-N rounds on the wire match rxe's retry counter ${out#\# }"; else not_ok "$name: Go-Back-N rounds against rxe's retry counter"; printf '%s\n' "$out" | sed 's/^/#   /'; fi
done
# UC under 3% loss: a lost packet drops its message, and a lost end of a
# message whose first packet arrived makes rxe refuse the next message too,
# though it arrived whole.  The diagnosis counts the whole messages the
# capture saw against the receives the server completed: what it says must
# agree with the capture (whole messages, and those right after a message
# that lost its end) and with rxe's own count of receives (rdma_recvs).  The
# server waits for the messages it never got until perftest gives up and
# exits; the probe reads rdma_recvs a last time then, so the diagnosis counts
# every whole message the capture saw.
P=$VM_TMP/uc
vm_run "$P" --scenario uc-loss --loss 3 --grace 3 \
	--server "$PWD/$RDMATRACE record -o $P/srv -- ib_send_bw -d rxe0 -F -c UC -n 300 -s 2048" \
	--client "$PWD/$RDMATRACE record -o $P/cli -- ib_send_bw -d rxe0 -F -c UC -n 300 -s 2048 10.9.0.1" \
	--server-name ib_send_bw --client-name ib_send_bw
tsh "$P/capture.pcapng" -Y 'infiniband && ip.src == 10.9.0.2 && infiniband.bth.destqp != 1' -T fields \
	-e infiniband.bth.opcode -e infiniband.bth.psn >"$P/uc.tsv"
check "UC under loss: the whole messages the capture saw against the receives completed, and those rxe refused after a lost message end" python3 -c '
import json, re, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(run + "/uc.tsv") if l.strip()]
assert rows, "no UC packet captured"
FIRST, LAST = 32, 34  # UC SEND First / Last: 2048 bytes are two packets at MTU 1024
got = {(int(op), int(psn)) for op, psn in rows}
start = min(psn if op == FIRST else psn - 1 for op, psn in got)  # the first message'"'"'s FIRST
whole, after_broken, broken = 0, 0, False
for m in range(300):
    f, l = (FIRST, start + 2 * m) in got, (LAST, start + 2 * m + 1) in got
    if f and l:
        whole += 1
        after_broken += broken
    broken = (f and not l) or (broken and not f)
recvs = int(dict(l.split() for l in open(run + "/logs/server-hw_counters.txt") if len(l.split()) == 2)["rdma_recvs"])
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["text"].startswith("UC messages dropped at the receiver")]
# the diagnosis counts the whole messages captured more than 100 ms before
# rdma_recvs was read at the server exit (without that reading, before the
# last receive completion or a periodic reading: it may count fewer)
if whole > recvs:
    assert len(f) == 1, (whole, recvs, f)
if f:
    m = re.search(r"completed (\d+) receives?, but the capture saw (\d+) messages arrive whole .*: (\d+) w", f[0])
    assert m, f[0]
    R, W, dropped = (int(x) for x in m.groups())
    assert R == recvs and recvs < W <= whole and dropped == W - R, (recvs, whole, f[0])
    assert W == whole or "when the program exited" not in f[0], (whole, f[0])
    assert after_broken >= dropped and "Each came right after a message whose first packet arrived" in f[0], (after_broken, f[0])
else:
    assert whole <= recvs, (whole, recvs)
print(f"# {len(rows)} UC packets, {whole} whole messages, {recvs} received (rxe), {after_broken} right after a lost message end")
' "$P" "$RDMATRACE"
# A peer that goes silent: once the server has received 20000 packets of
# the 96 MB (about a fifth; mid-transfer however fast the VMs run) its egress
# drops everything, so the client's WRITEs (retry_cnt 2, ACK timeout 14: 67 ms) are
# never acknowledged again and fail with RETRY_EXC_ERR.  The diagnosis names
# the PSN, the rounds (rxe's completer_retry_err and retry_exceeded_err agree),
# and that nothing came from the server since.
P=$VM_TMP/retry-exceeded
B="$PWD/$BUILD/lab/rt-lab-bulk"
vm_run "$P" --scenario retry-exceeded --grace 5 \
	--server "($(rxe_after_pkts 20000); tc qdisc add dev eth0 root netem loss 100%) & $PWD/$RDMATRACE record -o $P/srv -- $B --server -a 10.9.0.1 -p 7471 --size 96M --count 384 --timeout-ms 4000" \
	--client "$PWD/$RDMATRACE record -o $P/cli -- $B --client -a 10.9.0.1 -p 7471 --size 96M --count 384 --retry-cnt 2 --ack-timeout 14 --timeout-ms 10000" \
	--server-name bulk --client-name bulk
check "the client's WRITE failed with transport retry counter exceeded" grep -q 'transport retry counter exceeded' "$P/logs/client-bulk.err"
check "RETRY_EXC_ERR explained: the PSN, rxe's retry count of rounds at the ACK timeout, the peer silent since" python3 -c '
import json, re, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
c = dict(l.split() for l in open(run + "/logs/client-hw_counters.txt") if len(l.split()) == 2)
assert c["retry_exceeded_err"] == "1", c
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["kind"] == "error_completion" and "RETRY_EXC_ERR" in x["text"]]
assert len(f) == 1, [x["text"][:200] for x in d["findings"]]
rounds = int(c["completer_retry_err"])
assert re.search(r"PSN 0x[0-9a-f]{6} was never acknowledged after %d retransmission rounds? with local ACK timeout 14 \(67.11 ms each\) and retry_cnt 2" % rounds, f[0]), (rounds, f[0])
assert "Nothing came from server (10.9.0.1) after frame" in f[0] and "the peer went silent" in f[0], f[0]
print("# " + f[0][:160])
' "$P" "$RDMATRACE"
# A peer that is killed: once the server has received 20000 packets, its
# program gets SIGKILL.
# The kernel then tears down what the process had: when its MRs go before
# its QP, the client's next WRITE is NAKed with a remote access error
# (REM_ACCESS_ERR, what this kernel's rxe does), else its WRITEs (retry_cnt
# 2, ACK timeout 14) go unanswered until RETRY_EXC_ERR.  The server's
# `rdmatrace record` writes how its program ended into the trace it
# salvages; the diagnosis names the kill, how long the client took to learn
# of it, and ties the client's error to it.
P=$VM_TMP/killed-peer
vm_run "$P" --scenario killed-peer --grace 5 \
	--server "($(rxe_after_pkts 20000); pkill -KILL -x rt-lab-bulk) & $PWD/$RDMATRACE record -o $P/srv -- $B --server -a 10.9.0.1 -p 7471 --size 96M --count 384 --timeout-ms 4000" \
	--client "$PWD/$RDMATRACE record -o $P/cli -- $B --client -a 10.9.0.1 -p 7471 --size 96M --count 384 --retry-cnt 2 --ack-timeout 14 --timeout-ms 10000" \
	--server-name bulk --client-name bulk
check "killed peer: the client's WRITE failed (remote access error or transport retry counter exceeded)" \
	grep -q 'remote access error\|transport retry counter exceeded' "$P/logs/client-bulk.err"
check "killed peer: the diagnosis names the kill, when the client learnt of it, and ties its error to it" python3 -c '
import json, re, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
srv = json.load(open(run + "/srv/run.json"))
assert srv["exit"].get("signal") == 9, srv["exit"]
pid = srv["root_pid"]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
k = [x for x in d["findings"] if x["kind"] == "process_ended" and x["severity"] != "info"]
assert len(k) == 1, [x["text"][:120] for x in d["findings"]]
t = k[0]["text"]
assert t.startswith("rt-lab-bulk (pid %d) on server was killed by SIGKILL" % pid), t
# the client gave up (status 1) after its error: info, the error named
g = [x["text"] for x in d["findings"] if x["kind"] == "process_ended" and x["severity"] == "info"]
assert len(g) == 1 and "on client exited with status 1 after its last record" in g[0] and "its first error, " in g[0], g
m = re.search(r"Its peer QP 0x[0-9a-f]{6} on client learnt of it [0-9.]+ ms later: a (REM_ACCESS_ERR|RETRY_EXC_ERR) completion\.", t)
assert m, t
st = m.group(1)
why = "The peer\x27s process, rt-lab-bulk (pid %d) on server, had been killed by SIGKILL" % pid
e = [x["text"] for x in d["findings"] if x["kind"] in ("nak_error", "error_completion") and st in x["text"]]
assert len(e) == 1 and why in e[0], (st, [x["text"][:200] for x in d["findings"]])
if st == "REM_ACCESS_ERR":
    assert "deregisters a dead process\x27s memory regions" in e[0], e[0]
print("# " + st + ": " + t[:140])
' "$P" "$RDMATRACE"
# ECN marks instead of loss: netem's ecn option marks an ECN-capable packet
# Congestion Experienced where it would drop it.  rt-lab-bulk --tos 2 gives
# its RDMA CM connection the type of service ECT(0) (RDMA_OPTION_ID_TOS),
# which rxe puts in the IP header of both sides' packets.  The diagnosis
# counts every mark the capture has, per direction, and says no CNP
# answered them (rxe has no DCQCN notification point).
# netem drops what is not ECN-capable, and the CM's MADs are not, so each VM
# sends its MADs (RoCE to QP 1: UDP port 4791, the BTH's destination QP at
# byte 32 of the IP packet) past netem, through a prio qdisc whose other band
# is netem.  (This test used perftest -R -T 2 before: Debian's perftest
# 4.5-0.17 connects twice, its client's second REQ is rejected when it comes
# before the server listens again (3 rounds in 8 under TCG), or a MAD is
# lost, and its retry then reuses the RDMA CM ids it has just destroyed and
# may crash with SIGSEGV in rdma_resolve_addr: perftest's bug, fixed
# upstream in its commit 3d9d8d0.)
P=$VM_TMP/ecn
ECN_TC="tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc qdisc add dev eth0 parent 1:1 handle 10: netem loss 10% ecn &&
	tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 4791 0xffff match u32 0x00000001 0x00ffffff at 32 flowid 1:2"
rec="$PWD/$RDMATRACE record"
vm_run "$P" --scenario bulk-ecn \
	--server "$ECN_TC && $rec -o $P/srv -- $B --server -a 10.9.0.1 -p 7471 --size 4M --count 32 --tos 2" \
	--client "$ECN_TC && $rec -o $P/cli -- $B --client -a 10.9.0.1 -p 7471 --size 4M --count 32 --tos 2" \
	--server-name bulk --client-name bulk
if [ "$VM_RC" -eq 0 ]; then ok "rt-lab-bulk --tos 2 under netem loss 10% ecn (MADs exempt) exits 0"; else not_ok "rt-lab-bulk --tos 2 under netem ecn: lab-vm exited $VM_RC"; sed 's/^/#   /' "$P.stderr" | tail -20; fi
check "both sides' RoCE packets are ECN-capable; the CM's MADs were left alone (one REQ, REP, RTU)" python3 -c '
import collections, subprocess, sys
def fields(flt, *f):
    args = ["tshark", "-r", sys.argv[1], "--disable-protocol", "rpcordma", "-Y", flt, "-T", "fields"]
    for x in f:
        args += ["-e", x]
    return collections.Counter(tuple(l.split()) for l in subprocess.run(args, capture_output=True, text=True).stdout.splitlines() if l.strip())
ecn = fields("infiniband && infiniband.bth.destqp != 1", "ip.src", "ip.dsfield.ecn")
for src in ("10.9.0.1", "10.9.0.2"):
    assert sum(n for (s, e), n in ecn.items() if s == src and e in ("2", "3")) > 0, ecn
    assert sum(n for (s, e), n in ecn.items() if s == src and e not in ("2", "3")) == 0, ecn
mads = fields("infiniband.bth.destqp == 1", "infiniband.mad.attributeid")
assert mads[("0x0010",)] == mads[("0x0013",)] == mads[("0x0014",)] == 1 and not mads[("0x0012",)], mads
' "$P/capture.pcapng"
tsh "$P/capture.pcapng" -Y 'infiniband && ip.dsfield.ecn == 3' -T fields -e ip.src -e ip.dst >"$P/marked.tsv"
check "ECN marks on the wire, each counted by the diagnosis per direction, none answered by a CNP" python3 -c '
import collections, json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
marked = collections.Counter(tuple(l.split()) for l in open(run + "/marked.tsv") if l.strip())
assert sum(marked.values()) > 0, "no ECN mark on the wire: the test did not test"
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["kind"] == "congestion"]
assert len(f) == 1, f
t = f[0]
assert f"Congestion: {sum(marked.values())} ECN-marked packet" in t, (t, marked)
host = {"10.9.0.1": "server", "10.9.0.2": "client"}
for (src, dst), n in marked.items():
    assert f"{n} from {host[src]} ({src}) to {host[dst]} ({dst})" in t, (t, marked)
assert "No CNP came back for the marks" in t and "CNP (" not in t, t
for (src, dst) in marked:
    assert f"from {host[src]} ({src}) to {host[dst]} ({dst}), so" in t or f"from {host[src]} ({src}) to {host[dst]} ({dst}), from" in t, t
print(f"# {dict(marked)}")
' "$P" "$RDMATRACE"
# Frames copied on the way (netem duplicate 3% on the client's egress): the
# kernel's SoftRoCE gives each packet a new IPv4 identification, so a copy is
# the same datagram twice.  Counted here from tshark's fields alone, each
# copy must be one the diagnosis calls a copy (duplicate findings, dup=1 in
# the annotations), none a retransmission.  A Go-Back-N may still come from
# a responder TCG makes slower than the 67 ms ACK timeout.
P=$VM_TMP/dup-write
perftest_run "$P" "ib_write_bw -d rxe0 -F -n 100 -s 65536" --netem "duplicate 3%" --netem-on client
tsh "$P/capture.pcapng" -Y 'infiniband && infiniband.bth.destqp != 1 && ip.src == 10.9.0.2' \
	-T fields -e frame.number -e ip.id -e infiniband.bth.psn >"$P/requests.tsv"
check "frames copied on the way: each a duplicate, counted exactly, none taken for a retransmission" python3 -c '
import collections, json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
seen, copies = {}, []
for l in open(run + "/requests.tsv"):
    f = l.split()
    if len(f) == 3:
        if (f[1], f[2]) in seen:
            copies.append(int(f[0]))
        seen[(f[1], f[2])] = int(f[0])
assert copies, "no frame copied on the wire: the test did not test"
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
dup = [x["text"] for x in d["findings"] if x["kind"] == "duplicate"]
n = sum(int(t.split()[0]) for t in dup)
assert n == len(copies), (n, len(copies), dup)
assert all("the same IPv4 datagram" in t for t in dup), dup
other = [x["kind"] + ": " + x["text"][:160] for x in d["findings"] if x["kind"] not in ("duplicate", "go_back_n", "retransmission_storm") and x["severity"] != "info"]
assert not other, other
ann = {}
for l in open(run + "/annotations.jsonl"):
    a = json.loads(l)
    ann[a["frame"]] = a
bad = [c for c in copies if ann.get(c, {}).get("dup") != 1 or ann.get(c, {}).get("retrans", 0)]
assert not bad, [ann.get(c) for c in bad[:3]]
print(f"# {len(copies)} copies")
' "$P" "$RDMATRACE"
# ---- READ responses reordered on the way: netem's jitter ----
# ib_read_lat under netem delay 5ms 3ms on the server: its READ responses
# (4 packets each) leave out of order, and the client's rxe drops a response
# that comes before the one it waits for, then asks again when its ACK timer
# goes off.  Nothing is lost: the rounds say which response came early,
# before the one sent before it (their IPv4 identifications: 9 in 10 at
# least, a guest timer on TCG may go off early), and none calls a packet lost.
J=$VM_TMP/jitter
perftest_run "$J" "ib_read_lat -d rxe0 -F -n 100 -s 4096" --netem "delay 5ms 3ms" --netem-on server
check "READ responses reordered by jitter: each round says which came early, none calls a response lost" python3 -c '
import json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
g = [x["text"] for x in d["findings"] if x["kind"] == "go_back_n"]
assert g, "no round: the test did not test"
told = [t for t in g if "which was sent before it (as their IPv4 identifications show): reordered on the way" in t]
assert len(told) * 10 >= len(g) * 9, (len(told), len(g), [t[:300] for t in g if t not in told][:3])
bad = [t[:300] for t in g if "lost before the capture point" in t or "lost after the capture point" in t]
assert not bad, bad
print(f"# {len(told)} of {len(g)} rounds told as reordering")
' "$J" "$RDMATRACE"
done_testing
