#!/usr/bin/env bash
# rping between the two SoftRoCE VMs: both exit 0, the client prints the ping
# data, the wire capture holds the RDMA CM handshake and RC SEND, WRITE and
# READ traffic with nothing malformed, and run.json has both sides' statuses
# and clocks.  Nothing of the VMs is left running afterwards.  Then a client
# killed mid-run, which the diagnosis names, one killed with its recorder,
# and one stopped for 4 s.
. tests/lib.sh
. tests/vm/vmlib.sh

R=$VM_TMP/rping
vm_run "$R" --scenario rping --server 'rping -s -a 10.9.0.1 -v -C 5' --client 'rping -c -a 10.9.0.1 -v -C 5'
if [ "$VM_RC" -eq 0 ]; then ok "lab-vm run exits 0"; else not_ok "lab-vm run exited $VM_RC"; sed 's/^/#   /' "$R.stderr"; fi
check "no qemu left running" no_qemu_left "$R"
check_grep "server rping exited 0" '"host": "server", "program": "rping", .*"exit_status": 0,' "$R/run.json"
check_grep "client rping exited 0" '"host": "client", "program": "rping", .*"exit_status": 0,' "$R/run.json"
n=$(grep -c '^ping data: rdma-ping-[0-4]: ' "$R/logs/client-rping.out" 2>/dev/null)
if [ "${n:-0}" -eq 5 ]; then ok "client printed 5 pings"; else not_ok "client printed ${n:-0} pings"; head -5 "$R/logs/client-rping.out" "$R/logs/client-rping.err" 2>&1 | sed 's/^/#   /'; fi
check "run.json parses and lists two hosts" json_ok "$R/run.json"
check_grep "run.json records the server's clocks" '"job_start": \{"realtime_ns": [0-9]{18,}, "monotonic_ns": [0-9]+' "$R/run.json"
check_grep "run.json points to the capture" '"file": "capture.pcapng"' "$R/run.json"
for f in logs/server-console.log logs/client-console.log logs/server-dmesg.log logs/client-dmesg.log \
	logs/server-rping.out logs/client-rping.err logs/server-hw_counters.txt capture.pcapng; do
	if [ -e "$R/$f" ]; then ok "RUNDIR has $f"; else not_ok "RUNDIR lacks $f"; fi
done
check_grep "guest kernel log shows rdma_rxe" 'rdma_rxe' "$R/logs/server-dmesg.log"

C=$R/capture.pcapng
if [ -s "$C" ]; then
	info=$(tsh "$C" -T fields -e _ws.col.Info)
	for want in 'CM: ConnectRequest' 'CM: ConnectReply' 'CM: ReadyToUse' 'RC Send Only' \
		'RC RDMA Write Only' 'RC RDMA Read Request' 'RC RDMA Read Response Only' 'RC Acknowledge'; do
		n=$(printf '%s\n' "$info" | grep -c "^$want")
		if [ "$n" -gt 0 ]; then ok "capture has $want ($n)"; else not_ok "capture has no $want"; fi
	done
	n=$(tcount "$C" '_ws.malformed || _ws.expert.severity >= "Error"')
	if [ "$n" = 0 ]; then ok "no malformed packet"; else not_ok "$n malformed packets"; fi
	# the capture says it dropped nothing (an interface statistics block:
	# qemu's filter-dump writes every frame), and tshark still reads it whole
	check "capture ends with an interface statistics block, every frame read" bash -c \
		"capinfos '$C' | grep -q 'Number of stat entries = 1' && test \$(capinfos -M -c '$C' | sed -n 's/^Number of packets: *//p') = \$(tshark -r '$C' 2>/dev/null | wc -l)"
	# Both directions are on the one dump.
	a=$(tcount "$C" 'infiniband && ip.src == 10.9.0.1')
	b=$(tcount "$C" 'infiniband && ip.src == 10.9.0.2')
	if [ "$a" != error ] && [ "$a" -gt 0 ] && [ "$b" != error ] && [ "$b" -gt 0 ]; then ok "capture holds both directions ($a + $b RoCE packets)"; else not_ok "directions: $a from server, $b from client"; fi
	# Without loss nothing is sent twice, unless the host starved a VM for
	# longer than the 2 s ACK timeout: then the rxe counters show the retry.
	d=$(dup_psns "$C")
	r=$(retry_count "$R")
	if [ "$d" -eq 0 ]; then ok "no retransmission without loss"
	elif [ "$r" -gt 0 ]; then ok "retransmissions without loss ($d), matched by the rxe counters ($r): host too busy"
	else not_ok "$d PSNs sent twice without loss and no rxe retry counted"; fi
else
	not_ok "no capture"
fi
# ---- the client killed mid-run: the kernel disconnects for it ----
# 6 s in, the client's rping gets SIGKILL.  The kernel tears its connection
# down and sends the DREQ the process no longer can; the server's rping sees
# DISCONNECTED and exits 0.  The diagnosis names the kill (from the client's
# `record`, which wrote the wait status into the salvaged trace, with the
# time the VM kernel's process events gave for the exit) and how the server
# learnt of it: its DISCONNECTED, or the error completion that came first
# when one of its requests reached the client's QP while the kernel tore it
# down (seen once, REM_OP_ERR).
REC="$PWD/$RDMATRACE record"
# rping_traced NAME COUNT ACTION: rping -C COUNT between the VMs, each side
# under rdmatrace record, into $VM_TMP/NAME (R); ACTION runs on the client
# beside it
rping_traced() {
	R=$VM_TMP/$1
	vm_run "$R" --scenario "$1" --grace 5 \
		--server "$REC -o $R/srv -- rping -s -a 10.9.0.1 -v -C $2 -S 4096" \
		--client "($3) & $REC -o $R/cli -- rping -c -a 10.9.0.1 -v -C $2 -S 4096" \
		--server-name rping --client-name rping
}
# client_end_told RUN PATTERN...: the diagnosis of RUN has one process_ended
# finding about the client's rping, an error, which matches each PATTERN (a
# Python regular expression) and says how the server learnt of the end
client_end_told() {
	python3 - "$RDMATRACE" "$@" <<'PY'
import json, re, subprocess, sys
rt, run, pats = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
k = [x for x in d["findings"] if x["kind"] == "process_ended" and re.match(r"rping \(pid \d+\) on client ", x["text"])]
assert len(k) == 1 and k[0]["severity"] == "error", [x["text"][:160] for x in d["findings"]]
t = k[0]["text"]
for p in pats + [r"Its peer QP 0x[0-9a-f]{6} on server learnt of it [0-9.]+ ms later: (an RDMA CM DISCONNECTED event|a [A-Z_]+_ERR completion)\."]:
    assert re.search(p, t), (p, t)
print("# " + t[:160])
PY
}
rping_traced rping-killed 100000 "sleep 6; pkill -KILL -x rping"
# (the server's rping exits 255 when one of its requests reached the
# client's QP while the kernel tore it down: NAKed, seen with REM_OP_ERR and
# REM_ACCESS_ERR)
check "killed client: record exits 137, the server's rping 0 (or 255 after an error completion)" python3 -c '
import json, sys
r = sys.argv[1]
assert json.load(open(r + "/cli/run.json"))["exit"].get("signal") == 9
assert json.load(open(r + "/srv/run.json"))["exit"].get("code") in (0, 255)
' "$R"
check "killed client: the kernel sent its DREQ" test "$(tcount "$R/capture.pcapng" 'ip.src == 10.9.0.2 && infiniband.mad.attributeid == 0x0015')" -ge 1
pid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["root_pid"])' "$R/cli/run.json" 2>/dev/null)
check "killed client: the diagnosis names the kill, when the kernel had the process gone, and the server's DISCONNECTED" \
	client_end_told "$R" "^rping \(pid ${pid:-none}\) on client was killed by SIGKILL" \
	"after its last record \(.*\), and was gone [0-9.]+ ms after that record \(the kernel's process events"
# ---- the client killed with its recorder: its trace just stops ----
# SIGKILL to the client's rdmatrace record, then to its rping: no end record
# (nothing was left to write one), but the kernel closes the dead process's
# connection and sends its DREQ, with no rdma_disconnect in the trace.  The
# diagnosis says it vanished, names that DREQ, and the server's DISCONNECTED.
rping_traced rping-cut 100000 "sleep 6; pkill -KILL -f 'rdmatrace record'; pkill -KILL -x rping"
check "client killed with its recorder: it vanished, the kernel's DREQ named, the server's DISCONNECTED" \
	client_end_told "$R" "^rping \(pid \d+\) on client vanished after its last record" \
	"the kernel sent a disconnect request \(DREQ, frame \d+\) for its connection, with no rdma_disconnect in its trace"
# ---- the client stopped 4 s (SIGSTOP), then on ----
# The kernel's transport goes on answering while the program is stopped, but
# the program polls and posts nothing: its trace has no record for 4 s, not
# even its collector's clock notes.  One process_frozen finding names it,
# and nothing else is a problem (but a spurious ACK-timer round of rxe's).
rping_traced rping-frozen 3000 "sleep 5; pkill -STOP -x rping; sleep 4; pkill -CONT -x rping"
check "stopped client: process_frozen names it (the kernel answered meanwhile), nothing else" python3 -c '
import json, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
pid = json.load(open(run + "/cli/run.json"))["root_pid"]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x for x in d["findings"] if x["kind"] == "process_frozen"]
assert len(f) == 1 and f[0]["text"].startswith("rping (pid %d) on client froze for " % pid), [x["text"][:160] for x in d["findings"]]
t = f[0]["text"]
assert 3.5 < float(t.split(" froze for ")[1].split(" s")[0]) < 8, t
assert f[0]["severity"] == "info" or "which the kernel\x27s transport answered, but the program polled no completion" in t, t
# (rxe leaves its ACK timer running when all is acknowledged: a pause longer than its 2.1 s
# timeout may end in a spurious Go-Back-N round, which says so)
assert not [x for x in d["findings"] if x["kind"] != "process_frozen" and x["severity"] != "info" and
            not (x["kind"] == "go_back_n" and "a spurious timeout" in x["text"]) and
            not (x["kind"] == "retransmission_storm" and "went off early with nothing lost" in x["text"])], [x["text"][:400] for x in d["findings"]]
print("# " + t[:160])
' "$R" "$RDMATRACE"
done_testing
