#!/usr/bin/env bash
# The lab on the real kernel: minimal, rnr, loss, herd, sendrecv under netem
# duplicate, overflow and a refused connection run by `rdmatrace lab
# --backend vm` between two SoftRoCE VMs with Debian's rdma-core, the
# programs traced inside the guests by the probe.  Each scenario checks its
# own results (data verified; RNR NAKs on the wire; retransmissions found by
# correlation), and the run must be correlated across the two guests' clocks.
. tests/lib.sh
. tests/vm/vmlib.sh

for s in minimal rnr loss herd; do
	R=$VM_TMP/lab-$s
	if timeout 600 "$RDMATRACE" lab "$s" --backend vm -o "$R" >"$R.out" 2>&1; then
		ok "lab $s on the kernel's SoftRoCE: every expectation met"
	else
		not_ok "lab $s on the kernel's SoftRoCE"
		# which expectation failed, then the end of the output
		sed -n '/^== results/,/^== diagnosis/p' "$R.out" | sed 's/^/#   /'
		sed 's/^/#   /' "$R.out" | tail -30
	fi
	check "lab $s: no qemu left running" no_qemu_left "$R/.vm"
	check "lab $s: a trace from each guest" test "$(ls "$R"/traces/*.rtr 2>/dev/null | wc -l)" -ge 2
	check "lab $s: both guests' clocks aligned to the capture" \
		bash -c "grep -q 'clock: client offset .* +- ' '$R/logs/diagnose.txt' && grep -q 'clock: server offset .* +- ' '$R/logs/diagnose.txt'"
done
# The minimal lab is one RDMA WRITE and one READ: without its capture only
# the RDMA CM handshake in the two traces orders the guests' clocks.  The
# server's offset from the client must be bounded, and agree with what the
# capture gave (the two intervals overlap).
mkdir -p "$VM_TMP/nocap" && cp -r "$VM_TMP/lab-minimal/traces" "$VM_TMP/nocap/"
"$RDMATRACE" diagnose --json "$VM_TMP/lab-minimal" >"$VM_TMP/cap.json" 2>/dev/null
"$RDMATRACE" diagnose --json "$VM_TMP/nocap" >"$VM_TMP/nocap.json" 2>/dev/null
check "lab minimal without its capture: the CM handshake aligns the guests as the capture did" \
	python3 - "$VM_TMP/cap.json" "$VM_TMP/nocap.json" <<'PY'
import json, sys
cap = {h["name"]: h for h in json.load(open(sys.argv[1]))["hosts"]}
nocap = {h["name"]: h for h in json.load(open(sys.argv[2]))["hosts"]}
s = nocap["server"]
assert nocap["client"]["reference"] and s["uncertainty_ns"] is not None, nocap
with_cap = cap["server"]["offset_ns"] - cap["client"]["offset_ns"]
slack = s["uncertainty_ns"] + cap["server"]["uncertainty_ns"] + cap["client"]["uncertainty_ns"]
assert abs(s["offset_ns"] - with_cap) <= slack, (s, with_cap, slack)
PY
# UD has no ACK: the datagrams align the guests, each linked to its send WR
# and to the receive WR it filled (herd's replies are UD datagrams; the ud
# lab itself is not run here: on the kernel a request datagram the capture
# saw now and then never reaches the server's program, and the lab, which
# does not send it again, fails)
check "lab herd: every captured datagram has its send WR, the received ones their receive WR" \
	python3 tests/analysis/check_ud_links.py "$VM_TMP/lab-herd" "$RDMATRACE"
check "lab rnr: the kernel's RNR NAK carries timer code 0 (655.36 ms)" grep -q 'RNR NAK 655.36 ms' "$VM_TMP/lab-rnr/logs/packets.txt"
check "lab rnr: diagnosis explains the stall" grep -q 'rnr_stall' "$VM_TMP/lab-rnr/logs/diagnose.txt"
check "lab loss: diagnosis finds Go-Back-N" grep -q 'go_back_n' "$VM_TMP/lab-loss/logs/diagnose.txt"
# netem's duplicate (5%) on both guests' egress, on sendrecv (RNR NAKs with
# a 0.01 ms timer, so copies pass while an RNR NAK is pending, and the
# resend after the wait is copied too): rxe gives each packet a new IPv4
# identification, so every copy is told as one, none taken for the resend an
# RNR NAK asked for nor for a packet held back, and nothing was lost (the
# stalls each end at their resend; before, copies made 'its resend ... is not
# in the capture (lost before the capture point ...)' and spurious ACK-timer
# rounds)
R=$VM_TMP/lab-dup
if timeout 600 "$RDMATRACE" lab sendrecv --backend vm --netem "duplicate 5%" -o "$R" >"$R.out" 2>&1; then
	ok "lab sendrecv under netem duplicate: every expectation met"
else
	not_ok "lab sendrecv under netem duplicate"
	sed 's/^/#   /' "$R.out" | tail -30
fi
check "lab sendrecv under netem duplicate: run.json records the netem options" \
	grep -q '"netem": {"options": "duplicate 5%"' "$R/.vm/run.json"
check "lab sendrecv under netem duplicate: the copies are told as such" \
	grep -q 'were on the wire twice: .*the copy is the same IPv4 datagram' "$R/logs/diagnose.txt"
# (the findings that say so are printed when some do).  One thing is let
# pass: a round of rxe's ACK timer that went off while the ACK covering the
# resent PSN was on its way, less than 1 ms past the capture point, which the
# round's own sentence tells as possible ("or was still on its way when the
# timer went off"): two CI rehearsals had such rounds (18.5 ms each), five
# runs here none; what set the timer off there is not known yet.  Nor a
# round of rxe's ACK timer that the round's sentence tells as rxe's spurious
# timeout (armed for an earlier packet and still running: rxe starts it only
# when it is not running and never stops it), which a CI rehearsal had once
# (4.8 ms after the PSN was sent, nothing lost): a real resend, of the
# kernel's making, not a copy taken for one
check "lab sendrecv under netem duplicate: nothing called lost, reordered or resent by a timer" python3 -c '
import json, re, subprocess, sys
rt, run = sys.argv[1:3]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
bad = re.compile(r"lost before the capture point|not in the capture|lost after the capture point")
wrong = []
for f in d["findings"]:
    if f["kind"] == "go_back_n" and ("or was still on its way when the timer went off" in f["text"] or
                                     "a spurious timeout)" in f["text"]) and \
       not re.search(r"lost before the capture point|not in the capture", f["text"]):
        print("# let pass: " + f["text"][:400])
        continue
    if f["kind"] in ("go_back_n", "psn_gap") or bad.search(f["text"]) or bad.search(f["evidence"]):
        wrong.append(f["kind"] + ": " + f["text"][:600] + " | " + f["evidence"][:300])
assert not wrong, wrong
' "$RDMATRACE" "$R"
# A server that posts its receives 60 s late: its client gives up after 3 s
# of no completion and exits 1; the VM lab stops the server once its grace
# after the client's end (20 s) is over, and the diagnosis of the server's
# end says so (the VM lab's run.json, kept in the lab's as "vm")
R=$VM_TMP/lab-grace
timeout 600 "$RDMATRACE" lab sendrecv --backend vm -o "$R" -- --post-delay-ms 60000 --timeout-ms 3000 >"$R.out" 2>&1
check "lab sendrecv with a server that never posts in time: the VM lab's stop is told in its end" python3 -c '
import json, subprocess, sys
rt, run = sys.argv[1:3]
sides = json.load(open(run + "/run.json"))["sides"]
assert sides["client"]["exit_status"] == 1 and sides["server"]["exit_status"] == 143, sides
pid = sides["server"]["record"]["processes"][0]["pid"]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["kind"] == "process_ended" and x["text"].startswith("rt-lab-sendrecv (pid %d) " % pid)]
assert len(f) == 1 and " was stopped by SIGTERM " in f[0] and " The VM lab stopped it: it went on after the other side had ended, " \
    "for longer than the lab\x27s --grace (run.json: result \"stopped\")." in f[0], [x["text"] for x in d["findings"]]
' "$RDMATRACE" "$R"
# More WRs in one post than the send queue holds: the client asks for 6, rxe
# makes 7 (2^n - 1), and the probe records what the provider granted, so the
# diagnosis judges the queue full at 7 (it recorded the 6 asked for before)
R=$VM_TMP/lab-overflow
if timeout 600 "$RDMATRACE" lab overflow --backend vm -o "$R" >"$R.out" 2>&1; then
	ok "lab overflow on the kernel's SoftRoCE: the WR after the queue's 7 refused with ENOMEM"
else
	not_ok "lab overflow on the kernel's SoftRoCE"
	sed 's/^/#   /' "$R.out" | tail -30
fi
check "lab overflow: the queue rxe granted recorded, and found full at it" bash -c \
	"'$RDMATRACE' dump '$R'/traces/client-*.rtr | grep -m1 qp_create | grep -q ' max_send_wr=7 ' &&
	 grep -q 'its send queue was full: 7 WRs were posted and not yet completed (polled), and it holds 7 (max_send_wr)' '$R/logs/diagnose.txt'"
# The server refuses the connection with rdma_reject and a text (--reject,
# an argument with a space that must reach the guests whole): the kernel's
# REJ carries it, reason 28, and the diagnosis says it with the call
R=$VM_TMP/lab-reject
timeout 600 "$RDMATRACE" lab minimal --backend vm -o "$R" -- --reject "server full" >"$R.out" 2>&1
check "lab minimal --reject on the kernel's SoftRoCE: the REJ's text said with the rdma_reject call" python3 -c '
import json, subprocess, sys
rt, run = sys.argv[1:3]
sides = json.load(open(run + "/run.json"))["sides"]
assert sides["client"]["exit_status"] == 1 and sides["server"]["exit_status"] == 1, sides
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
w = [x for x in d["findings"] if x["severity"] != "info"]
assert len(w) == 1 and w[0]["kind"] == "cm_reject", [x["kind"] + ": " + x["text"] for x in w]
t = w[0]["text"]
assert "reason 28 (consumer defined), the application refused the connection: it called rdma_reject" in t, t
assert "; the private data it gave rdma_reject (carried by the REJ): \"server full\" (11 bytes)" in t, t
' "$RDMATRACE" "$R"
done_testing
