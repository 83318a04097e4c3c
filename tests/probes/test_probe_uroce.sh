#!/usr/bin/env bash
# The probe over uroce (build/uroce/libibverbs.so.1 + librdmacm.so.1), with
# unmodified programs run by `rdmatrace record`: tests/probes/verbs_prog
# built against the system libibverbs (every send opcode, receives, an error
# completion), rping (RDMA CM), ib_send_bw -R (multi-packet sends) and
# ib_read_lat / ib_atomic_lat -R.  uroce traces its own WRs and packets into
# the same trace files (engine flag), so tests/probes/check_engine.py can
# check that each WR is paired with its completion and that every PSN the
# probe predicted is the PSN uroce put on the wire.
. tests/lib.sh
set -u
LIBDIR=$BUILD/uroce
need_uroce_programs "probe over uroce" "sanitizer build: the Debian programs it runs (rping, perftest) are not instrumented, and the sanitizer runtime record preloads for the probe reports their own leaks"
T=$(mktemp -d /tmp/rt-probe-uroce-XXXXXX)
trap 'rm -rf "$T"' EXIT
export LD_LIBRARY_PATH=$PWD/$LIBDIR
export UROCE_CM_TIMEOUT_MS=500 UROCE_CM_RETRIES=4 RDMATRACE_COUNTER_MS=0
A=127.$((100 + RANDOM % 100)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
PORT=$((30000 + RANDOM % 20000))
PROG=$BUILD/tests/probes/verbs_prog_sys

dump() { "$RDMATRACE" dump --json --no-clock "$@"; }

wait_listen() {
	for _ in $(seq 1 50); do
		ss -Hnlu "src $A:4791" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# rpair NAME SERVER_CMD CLIENT_CMD: both under `rdmatrace record` into $T/NAME.s and $T/NAME.c
rpair() {
	local name=$1 scmd0=$2 ccmd0=$3 spid rc attempt
	# perftest's server starts listening for its data connection late, so its
	# client may be rejected (REJ 8, nobody listening) as with the kernel:
	# such a run is repeated, at most twice, on a fresh port.
	for attempt in 1 2 3; do
		rc=0
		PORT=$((PORT + 1))
		local scmd=${scmd0//@P/$PORT} ccmd=${ccmd0//@P/$PORT}
		rm -rf "$T/$name.s" "$T/$name.c"
		timeout -k 2 40 "$RDMATRACE" record -o "$T/$name.s" ${SERVER_RECORD_ARGS:-} -- $scmd >"$T/$name.sout" 2>&1 &
		spid=$!
		wait_listen || echo "server did not come up" >>"$T/$name.sout"
		sleep "$attempt" # perftest sets up its resources before it listens: 1 s, then longer
		timeout -k 2 40 "$RDMATRACE" record -o "$T/$name.c" -- $ccmd >"$T/$name.cout" 2>&1 || rc=1
		if [ $rc -ne 0 ] && grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$T/$name.cout" && [ $attempt -lt 3 ]; then
			echo "# note: $name client was rejected (server not listening yet); again"
			kill "$spid" 2>/dev/null
			wait "$spid" 2>/dev/null
			continue
		fi
		wait "$spid" || rc=1
		break
	done
	# rping's own teardown race, on either side: its CM thread may call
	# rdma_get_cm_event on the channel main has just destroyed (EBADF) and
	# exit(-1) after the test is done
	if [ $rc -ne 0 ] && grep -q 'rdma_get_cm_event: Bad file descriptor' "$T/$name.cout" "$T/$name.sout" &&
	   grep -q 'DISCONNECT EVENT\|^rdmatrace record: process' "$T/$name.cout" &&
	   { ! grep -q 'rdma_get_cm_event: Bad file descriptor' "$T/$name.sout" ||
	     grep -q 'DISCONNECT EVENT\|^rdmatrace record: process' "$T/$name.sout"; }; then
		echo "# note: $name hit rping's teardown race (EBADF on its destroyed CM channel)"
		rc=0
	fi
	if [ $rc -ne 0 ]; then
		echo "#   (exit statuses: see below; 139 = SIGSEGV, 124 = timeout)"
		sed 's/^/#   server: /' "$T/$name.sout" | tail -8
		sed 's/^/#   client: /' "$T/$name.cout" | tail -8
	fi
	return $rc
}

# one_run NAME DIR: rpair NAME's two traces and the server's capture, kept to
# the packets of address $A (a test running beside this one on lo, such as
# the golden runs with their injected bad ICRCs, would be diagnosed with
# them otherwise), as one run directory DIR
one_run() {
	mkdir -p "$2/s" "$2/c"
	tshark -r "$T/$1.s/capture.pcapng" -Y "ip.src == $A || ip.dst == $A" -w "$2/capture.pcapng" 2>/dev/null &&
		cp -r "$T/$1.s/traces" "$2/s/" && cp -r "$T/$1.c/traces" "$2/c/"
}

# check_py DESC SCRIPT ARGS... < json: passes when the checker exits 0; shows its findings
check_py() {
	local desc=$1 out; shift
	if out=$(python3 "$@"); then ok "$desc: ${out#\# }"; else not_ok "$desc"; printf '%s\n' "$out" | head -20; fi
}

# ---- a connection nobody listens for: REJ 8 ----
# without a capture the REJECTED event's status is the reason; with one
# (rping connects to its own address: one address for both sides) the REJ
# is told once, as the passive side's refusal
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record -o "$T/rj" -- rping -c -a "$A" -p "$((PORT - 1))" -C 1 >"$T/rj.out" 2>&1
"$RDMATRACE" diagnose --json "$T/rj" >"$T/rj.json" 2>&1
check "rping to a port nobody listens on, no capture: the REJECTED event's reason told" python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "cm_reject"]
assert len(f) == 1 and "rejected (its rdma_cm reported REJECTED): reason 8 (invalid service ID), nobody listens" in f[0]["text"], f' "$T/rj.json"
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record --capture lo -o "$T/rjc" -- rping -c -a "$A" -p "$((PORT - 2))" -C 1 >"$T/rjc.out" 2>&1
"$RDMATRACE" diagnose --json "$T/rjc" >"$T/rjc.json" 2>&1
# (the capture holds all of lo: findings of other tests' addresses are not ours)
check "the same with a capture: the captured REJ told once, as the passive side's refusal" python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "cm_reject" and "(" + sys.argv[2] + ")" in x["text"]]
assert len(f) == 1 and "rejected the connection request of" in f[0]["text"] and "reason 8" in f[0]["text"], f' "$T/rjc.json" "$A"
# --capture-snaplen 384: the CM messages kept whole (the REJ still told),
# no packet longer than that; --capture-buffer taken
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record --capture lo --capture-snaplen 384 --capture-buffer 8 -o "$T/rjs" -- \
	rping -c -a "$A" -p "$((PORT - 3))" -C 1 >"$T/rjs.out" 2>&1
"$RDMATRACE" diagnose --json "$T/rjs" >"$T/rjs.json" 2>&1
check "the same with --capture-snaplen 384: the REJ told, no packet kept longer than 384 bytes" python3 -c '
import json, struct, subprocess, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "cm_reject" and "(" + sys.argv[2] + ")" in x["text"]]
assert len(f) == 1 and "reason 8" in f[0]["text"], f
lens = [int(l) for l in subprocess.run(["tshark", "-r", sys.argv[3], "-T", "fields", "-e", "frame.cap_len"],
        capture_output=True, text=True).stdout.split()]
assert lens and max(lens) <= 384, lens[:20]
d, off = open(sys.argv[3], "rb").read(65536), 0  # the interface block says the snap length
while off + 16 <= len(d) and struct.unpack_from("<I", d, off)[0] != 1:
    off += struct.unpack_from("<I", d, off + 4)[0]
assert struct.unpack_from("<I", d, off + 12)[0] == 384, "interface block snaplen"' "$T/rjs.json" "$A" "$T/rjs/capture.pcapng"

# ---- calls uroce refuses, explained by the diagnosis ----
UROCE_ADDR=$A "$RDMATRACE" record -o "$T/bs" -- "$PROG" bad-setup >"$T/bs.out" 2>&1
check "verbs_prog bad-setup over uroce exits 0 (every bad call refused)" test $? -eq 0
"$RDMATRACE" diagnose "$T/bs" >"$T/bs.txt" 2>&1
check "a modify without the attributes its transition requires: named" grep -q \
	'ibv_modify_qp on QP 0x[0-9a-f]* on .* to RTR (from INIT) failed with EINVAL: the INIT -> RTR transition of an RC QP requires IBV_QP_MIN_RNR_TIMER and IBV_QP_MAX_DEST_RD_ATOMIC, which the attribute mask (0x101181) lacks' "$T/bs.txt"
check "a complete RTR with an address vector without the GRH: said so" grep -q \
	'ibv_modify_qp on QP 0x[0-9a-f]* on .* to RTR (from INIT) failed with EINVAL: its address vector has ah_attr.is_global 0, and RoCE addresses are GIDs' "$T/bs.txt"
check "an MR asking for remote write without local write: said so" grep -q \
	'ibv_reg_mr of 64 bytes at 0x[0-9a-f]* on .* failed with EINVAL: its access flags (0x2) ask for remote write or atomic access without IBV_ACCESS_LOCAL_WRITE' "$T/bs.txt"
# creates one beyond uroce's limits: the probe records the device's limits
# (ibv_query_device) and what was asked, so the limit is named
check "the device's limits recorded before each refused create" test \
	"$("$RDMATRACE" dump "$T"/bs/traces/*.rtr | grep -c ' device_caps .* max_qp_wr=16384 max_sge=16 max_cqe=65536 max_srq_wr=16384 max_srq_sge=16 ')" -eq 3
check "a CQ beyond max_cqe: named" grep -q \
	"ibv_create_cq on .* failed with EINVAL: cqe 65537 is more than the device's max_cqe (65536)\." "$T/bs.txt"
check "a QP beyond max_qp_wr: named" grep -q \
	"ibv_create_qp of an RC QP on .* failed with EINVAL: max_send_wr 16385 is more than the device's max_qp_wr (16384)\." "$T/bs.txt"
check "an SRQ beyond max_srq_sge: named" grep -q \
	"ibv_create_srq on .* failed with EINVAL: max_sge 17 is more than the device's max_srq_sge (16)\." "$T/bs.txt"
# calls with no object record of their own (RT_EV_VERBS_CALL)
check "an address handle without the GRH: said so" grep -q \
	'ibv_create_ah on .* failed with EINVAL: its ah_attr has is_global 0, and RoCE addresses are GIDs' "$T/bs.txt"
check "multicast on uroce, which has none: the EOPNOTSUPP explained" grep -q \
	'ibv_attach_mcast of QP 0x[0-9a-f]* on .* failed with EOPNOTSUPP: the device does not implement multicast' "$T/bs.txt"
check "an XRC domain on uroce, which has none: the EOPNOTSUPP explained" grep -q \
	'ibv_open_xrcd on .* failed with EOPNOTSUPP: the device does not implement XRC' "$T/bs.txt"
check "the address handle that worked is recorded with its GID, and is no finding" python3 -c '
import json, subprocess, sys
ev = [json.loads(l) for l in subprocess.run([sys.argv[1], "dump", "--json"] + sys.argv[3:], capture_output=True, text=True).stdout.splitlines()]
ah = [e for e in ev if e["kind"] == "verbs_call" and e["call"] == "ibv_create_ah"]
assert len(ah) == 2 and ah[0].get("errno") == "EINVAL" and "errno" not in ah[1], ah
o = [int(x) for x in sys.argv[2].split(".")]
assert ah[1]["is_global"] == 1 and ah[1]["dgid"].endswith(":ffff:%x:%x" % (o[0] << 8 | o[1], o[2] << 8 | o[3])), ah[1]
' "$RDMATRACE" "$A" "$T"/bs/traces/*.rtr
check "each refused call is one finding" test "$(grep -c 'call_failed' "$T/bs.txt")" -ge 9

# ---- a CQ overrun: uroce's IBV_EVENT_CQ_ERR, read by the program ----
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record -o "$T/co" -- "$PROG" cq-overrun >"$T/co.out" 2>&1
check "verbs_prog cq-overrun over uroce: the CQ_ERR came" test $? -eq 0
"$RDMATRACE" diagnose "$T/co" >"$T/co.txt" 2>&1
check "the overrun is one async_error finding: the CQ, its size, its QPs and what it means" bash -c "
	[ \$(grep -c '\[error\] async_error' '$T/co.txt') -eq 1 ] &&
	grep -q 'CQ [0-9]* (cqe [0-9]*), which QPs 0x[0-9a-f]* and 0x[0-9a-f]* complete into, on .* had the asynchronous event CQ_ERR at .* read it with ibv_get_async_event): the CQ overran' '$T/co.txt'"

# ---- verbs_prog over uroce: every opcode (a READ of 5 packets), an error completion ----
UROCE_ADDR=$A "$RDMATRACE" record -o "$T/vp" -- "$PROG" basic >"$T/vp.out" 2>&1
check "verbs_prog over uroce exits 0" test $? -eq 0
dump "$T"/vp/traces/*.rtr >"$T/vp.json"
check_py "verbs_prog: every WR, completion, field and transition" tests/probes/check_trace.py 1 <"$T/vp.json"
check_py "verbs_prog: pairing and predicted PSNs against uroce's wire" tests/probes/check_engine.py --min-wrs 8 <"$T/vp.json"

UROCE_ADDR=$A "$RDMATRACE" record -o "$T/vpt" -- "$PROG" threads 3 >"$T/vpt.out" 2>&1
check "verbs_prog threads over uroce exits 0" test $? -eq 0
dump "$T"/vpt/traces/*.rtr >"$T/vpt.json"
check_py "threads: every QP's records" tests/probes/check_trace.py 3 <"$T/vpt.json"
check_py "threads: pairing and PSNs" tests/probes/check_engine.py --min-wrs 24 <"$T/vpt.json"

# ---- uroce's own transport tests, traced: every opcode and error completion ----
# (UC, UD, RNR, retry exhaustion, a vanished peer, bad rkey flushes, 1% and
#  10% loss with Go-Back-N), compared field by field with uroce's own records.
# Its hundreds of thousands of packet records are left out of the check (the
# wire is compared on the runs above); t_transport's own timing checks are
# uroce's business (tests/uroce/test_uroce.sh), only its trace is checked here.
if [ -x "$BUILD/tests/uroce/t_transport" ]; then
	# big rings: the loss tests put hundreds of thousands of packet events through
	RDMATRACE_RING_KB=16384 "$RDMATRACE" record -o "$T/tt" -- "$BUILD/tests/uroce/t_transport" >"$T/tt.out" 2>&1
	echo "# t_transport exit status $? ($(grep -c '^ok' "$T/tt.out") of its own checks passed)"
	dump --kind wr_post,completion,qp_create,qp_state,lost "$T"/tt/traces/*.rtr >"$T/tt.json"
	check_py "t_transport: fields, pairing and predicted PSNs against uroce's own" \
		tests/probes/check_engine.py --no-wire --min-wrs 100 <"$T/tt.json"
	check "t_transport: error completions recorded (retry exceeded, remote access, flush, RNR)" python3 -c '
import json,sys
st={json.loads(l).get("status") for l in open(sys.argv[1]) if "\"completion\"" in l}
for s in ("RETRY_EXC_ERR","WR_FLUSH_ERR","RNR_RETRY_EXC_ERR","REM_ACCESS_ERR"):
    assert s in st, (s, st)' "$T/tt.json"
	check "t_transport: UC and UD WRs numbered" python3 -c '
import json,sys
ty={}
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["kind"]=="qp_create" and not r["flags"]&1: ty[(r["pid"],r["qpn"])]=r["qp_type"]
n={3:0,4:0}
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["kind"]=="wr_post" and not r["flags"]&8 and "first_psn" in r and ty.get((r["pid"],r["qpn"])) in n: n[ty[(r["pid"],r["qpn"])]]+=1
assert n[3]>0 and n[4]>0, n' "$T/tt.json"
else
	skip "t_transport under record" "uroce's t_transport is not built"
fi

# ---- rping: RDMA CM ----
if SERVER_RECORD_ARGS="--capture lo" rpair rping "rping -s -a $A -p @P -C 10 -V -S 3000" "rping -c -a $A -p @P -C 10 -V -S 3000"; then
	ok "rping -C 10 under record (server and client)"
	dump "$T"/rping.s/traces/*.rtr "$T"/rping.c/traces/*.rtr >"$T/rping.json"
	check_py "rping: pairing and predicted PSNs against the wire" tests/probes/check_engine.py --min-wrs 20 <"$T/rping.json"
	check "rping: CM events with addresses and private data" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
cm=[(r["program"],r["event"],r.get("private_len",0),r["peer"]) for r in ev if r["kind"]=="cm_event" and r["event"]!="unknown"]
names=[c[1] for c in cm]
for n in ("ADDR_RESOLVED","ROUTE_RESOLVED","CONNECT_REQUEST","ESTABLISHED","DISCONNECTED"):
    assert n in names, (n, names)
req=[c for c in cm if c[1]=="CONNECT_REQUEST"][0]
assert req[2]>0 and req[3]!="0.0.0.0", req
' "$T/rping.json"
	# the capture on lo: only packets to or from our own address (other tests share lo)
	dump "$T"/rping.s/traces/*.rtr >"$T/rping.s.json"
	dump "$T"/rping.c/traces/*.rtr >"$T/rping.c.json"
	cip=$(python3 -c 'import json,sys; print([json.loads(l)["local"] for l in open(sys.argv[1]) if "ADDR_RESOLVED" in l][0])' "$T/rping.c.json")
	tshark -r "$T/rping.s/capture.pcapng" -Y "infiniband && (ip.src == $A || ip.dst == $A)" -T fields \
		-e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode >"$T/rping.tsv" 2>/dev/null
	check_py "rping: predicted PSNs against the captured BTH PSNs (record --capture lo)" \
		tests/probes/check_wire.py "$T/rping.tsv" "$A=$T/rping.s.json" "$cip=$T/rping.c.json"
	check "rping: QPs created by librdmacm traced (create, INIT/RTR/RTS)" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
st=[(r["from"],r["to"]) for r in ev if r["kind"]=="qp_state" and not r["flags"]&8]
assert ("INIT","RTR") in st and ("RTR","RTS") in st, st
assert any(r["kind"]=="qp_create" and not r["flags"]&8 for r in ev)
' "$T/rping.json"
	# both sides and the capture in one run directory: a clean run, diagnosed
	# clean (the receive rdma_disconnect flushes is teardown, whatever the
	# engine traced inside that call: the DREQ it sent)
	one_run rping "$T/rp"
	"$RDMATRACE" diagnose --json "$T/rp" >"$T/rp.json" 2>"$T/rp.err"
	check "rping: a clean run is diagnosed clean (exit 0, no finding above info)" python3 -c '
import json,sys
f=[x["kind"]+": "+x["text"] for x in json.load(open(sys.argv[1]))["findings"] if x["severity"]!="info"]
assert sys.argv[2]=="0" and not f, (sys.argv[2], f)
' "$T/rp.json" "$?"
else
	not_ok "rping -C 10 under record"
fi

# ---- a peer killed mid-transfer: the diagnosis ties the RETRY_EXC_ERR to it ----
# rt-lab-bulk's server is killed (SIGKILL) as soon as the client starts to
# WRITE 768 MB to it (about 0.6 s over uroce; retry_cnt 2, ACK timeout 14:
# 67 ms); `record` writes how the server ended into its salvaged trace.
B=$BUILD/lab/rt-lab-bulk
PORT=$((PORT + 1))
"$RDMATRACE" record -o "$T/bk/srv" -- "$B" --server -a "$A" -p "$PORT" --size 768M --count 3072 --timeout-ms 4000 >"$T/bk.sout" 2>&1 &
rpid=$!
for _ in $(seq 100); do grep -q 'lab: server ready' "$T/bk.sout" 2>/dev/null && break; sleep 0.1; done
UROCE_ADDR=127.$((100 + RANDOM % 100)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1)) timeout -k 2 60 "$RDMATRACE" record -o "$T/bk/cli" -- \
	"$B" --client -a "$A" -p "$PORT" --size 768M --count 3072 --retry-cnt 2 --ack-timeout 14 --timeout-ms 10000 >"$T/bk.cout" 2>&1 &
cpid=$!
for _ in $(seq 400); do grep -q 'lab: phase writing' "$T/bk.cout" 2>/dev/null && break; sleep 0.05; done
spid=$(pgrep -P "$rpid" -x rt-lab-bulk | head -1)
[ -n "$spid" ] && kill -KILL "$spid"
wait "$rpid"
wait "$cpid"
check "bulk: the client's WRITE failed with transport retry counter exceeded once its server was killed" \
	grep -q 'transport retry counter exceeded' "$T/bk.cout"
"$RDMATRACE" diagnose --json "$T/bk" >"$T/bk.diag"
check "bulk: the diagnosis names the killed server and how its peer learnt of it; the RETRY_EXC_ERR names the kill" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
k = [x for x in d["findings"] if x["kind"] == "process_ended" and x["severity"] != "info"]
assert len(k) == 1, [x["text"][:120] for x in d["findings"]]
t = k[0]["text"]
# the client gave up with status 1 after its RETRY_EXC_ERR: said, as a consequence (info)
g = [x["text"] for x in d["findings"] if x["kind"] == "process_ended" and x["severity"] == "info"]
assert len(g) == 1 and "exited with status 1 after its last record" in g[0], g
assert "its first error, a RETRY_EXC_ERR completion at " in g[0] and ", is a finding above." in g[0], g[0]
assert t.startswith("rt-lab-bulk (pid %s) on " % sys.argv[2]) and "was killed by SIGKILL" in t, t
assert re.search(r"Its peer QP 0x[0-9a-f]{6} on .* learnt of it [0-9.]+ ms later: a RETRY_EXC_ERR completion\.", t), t
assert k[0]["time_lost_ns"] > 2 * 67e6, k[0]  # at least the two rounds of ACK timeouts
e = [x["text"] for x in d["findings"] if x["kind"] == "error_completion" and "RETRY_EXC_ERR" in x["text"]]
assert len(e) == 1, [x["text"][:120] for x in d["findings"]]
assert "The peer\x27s process, rt-lab-bulk (pid %s) on " % sys.argv[2] in e[0] and "had been killed by SIGKILL (its last record" in e[0], e[0]
print("# " + t[:150])
' "$T/bk.diag" "$spid"

# ---- perftest (RDMA CM): multi-packet SENDs, READs, atomics ----
perftest_ok=1
if ! ib_send_bw -h >"$T/pt.h" 2>&1 && grep -q 'symbol lookup error' "$T/pt.h"; then
	perftest_ok=0 # perftest pulls in providers (libefa ...) that need symbols uroce does not export
fi
for t in "ib_send_bw -n 64 -s 5000 -m 1024" "ib_read_lat -n 64 -s 512" "ib_atomic_lat -n 64"; do
	name=${t%% *}
	if [ $perftest_ok -eq 0 ]; then
		skip "$name -R under record" "perftest does not load over this uroce build: $(head -1 "$T/pt.h")"
		continue
	fi
	if rpair "$name" "env UROCE_ADDR=$A $t -R -F -p @P" "$t -R -F -p @P $A"; then
		dump "$T/$name".s/traces/*.rtr "$T/$name".c/traces/*.rtr >"$T/$name.json"
		check_py "$name -R: pairing and predicted PSNs against the wire" tests/probes/check_engine.py --min-wrs 64 <"$T/$name.json"
	elif grep -q 'librdmacm (uroce): cannot open RDMA device' "$T/$name.sout"; then
		# perftest opens the device itself and through librdmacm; this uroce build
		# refuses the second open with or without the probe
		skip "$name -R under record" "uroce refuses perftest's second device open (fails without the probe too)"
	elif grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$T/$name.cout"; then
		# perftest's client connected in the gap between its server's two
		# listeners for longer than uroce holds such a REQ (docs/uroce-cm.md)
		skip "$name -R under record" "the client was rejected (REJ 8) in all 3 attempts: it connected between perftest's two listeners"
	else
		not_ok "$name -R under record"
	fi
done

# ---- perftest -c UD over its TCP exchange, both processes on this host ----
# no CM names their addresses: the sender's is tied to its process by the
# PSNs its WRs were predicted to carry, the receiver's by the completions
# from the sender's QPN, not its host (both QPs are 0x11 on one host; a
# previous release left the receiver's address untied: "no trace from A")
if [ $perftest_ok -eq 1 ]; then
	UB=${A%.*}.$(( (${A##*.} % 250) + 2 ))
	if SERVER_RECORD_ARGS="--capture lo" rpair ud "env UROCE_ADDR=$A ib_send_bw -c UD -F -n 64 -p @P" \
		"env UROCE_ADDR=$UB ib_send_bw -c UD -F -n 64 -p @P $A"; then
		one_run ud "$T/udrun"
		"$RDMATRACE" diagnose --json "$T/udrun" >"$T/ud.json" 2>"$T/ud.err"
		check_py "ib_send_bw -c UD: both processes' QPs hold their datagrams, no trace missing, no finding" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["findings"], [x["kind"] + ": " + x["text"] for x in d["findings"]]
q = [x for x in d["qps"] if x.get("pid")]
assert len(q) == 2 and len({x["pid"] for x in q}) == 2, q
print("# " + "; ".join("pid %s: %s" % (x["pid"], x.get("ip")) for x in q))
' "$T/ud.json"
	else
		not_ok "ib_send_bw -c UD under record"
	fi
fi
# ---- a recording cut off: rping's server killed with its recorder ----
# SIGKILL to the server's record and rping together (as the OOM killer, or
# a host going down, would end both): its trace just stops, with no end
# record, while its client waits for a message that never comes, until it
# is stopped.  The server "vanished" (its collector, which notes the clock
# every second, wrote nothing more while the run went on), and the client's
# finding says its peer had gone first.  Before, the server was no finding
# and the client's peer "saw no error completion".
CA=${A%.*}.$(( (${A##*.} % 250) + 3 ))
# rping_disturbed NAME PORT COUNT DELAY ACTION: rping -C COUNT on PORT, its
# server on $A recorded in a session of its own, its client on $CA recorded
# with a capture of lo; ACTION is run DELAY s after the client started, with
# $srv_pid (the server's record, and its session), $srv_rping (the server's
# rping) and $cli_pid (the client's record); then both are waited for, the
# capture is cut to $A's packets in $T/NAME and the run diagnosed into
# $T/NAME.json
rping_disturbed() {
	local name=$1 port=$2 count=$3 delay=$4 action=$5
	UROCE_ADDR=$A setsid "$RDMATRACE" record -o "$T/$name/s" -- rping -s -a "$A" -p "$port" -C "$count" \
		>"$T/$name.sout" 2>&1 &
	srv_pid=$!
	wait_listen
	UROCE_ADDR=$CA timeout -k 2 60 "$RDMATRACE" record --capture lo -o "$T/$name/c" -- \
		rping -c -a "$A" -p "$port" -C "$count" >"$T/$name.cout" 2>&1 &
	cli_pid=$!
	sleep "$delay"
	srv_rping=$(pgrep -f "^rping -s -a $A -p $port" | head -1)
	eval "$action"
	wait "$cli_pid" "$srv_pid" 2>/dev/null
	tshark -r "$T/$name/c/capture.pcapng" -Y "ip.src == $A || ip.dst == $A" -w "$T/$name/capture.pcapng" 2>/dev/null
	rm -f "$T/$name/c/capture.pcapng"
	"$RDMATRACE" diagnose --json "$T/$name" >"$T/$name.json" 2>"$T/$name.err"
}
rping_disturbed cut $((PORT + 40)) 1000000 2 \
	'kill -KILL -- "-$srv_pid" 2>/dev/null; sleep 5; kill -TERM "$cli_pid" 2>/dev/null'
# the killed server's tracer segment stays in /dev/shm for `rdmatrace
# salvage` (32 MiB, left there by every run of this test before)
[ -n "$srv_rping" ] && rm -f "/dev/shm/rdmatrace-$(id -u)-$srv_rping"
check "a recording cut off with its program: the server vanished, the client's peer had gone first" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
pe = [x for x in f if x["kind"] == "process_ended"]
gone = [x for x in pe if x["severity"] == "error" and "vanished after its last record" in x["text"] and
        "its recording stops there with no end record, while the run went on" in x["text"] and
        "the program and what recorded it ended at once" in x["text"]]
waits = [x for x in pe if "was stopped by SIGTERM" in x["text"] and "had gone first: rping (pid" in x["text"]]
assert len(gone) == 1 and len(waits) == 1, [x["severity"] + " " + x["kind"] + ": " + x["text"] for x in f]' "$T/cut.json"
# ---- a REQ for a port listened on in another port space ----
# udaddy's server listens on 7174 (its port) in the UDP port space, rping's
# client asks for 7174 in the TCP one: REJ 8 (invalid service ID: a service
# is a port in a port space).  The probe records each cm_id's port space at
# rdma_create_id and rdma_listen, and the finding names both, where it said
# nothing more than "nobody listens" against a listener the trace shows.
PA=${A%.*}.$(( (${A##*.} % 250) + 4 ))
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record -o "$T/ps/s" -- udaddy -b "$A" >"$T/ps.sout" 2>&1 &
ps_pid=$!
wait_listen
UROCE_ADDR=$PA timeout -k 2 30 "$RDMATRACE" record --capture lo -o "$T/ps/c" -- rping -c -a "$A" -p 7174 -C 1 \
	>"$T/ps.cout" 2>&1
pkill -INT -f "^udaddy -b $A\$"
wait "$ps_pid" 2>/dev/null
"$RDMATRACE" dump "$T/ps/s/traces/"*.rtr >"$T/ps.dump" 2>&1
check_grep "rdma_listen's record holds its cm_id's port space (RDMA_PS_UDP), and the backlog of its 0 (the maximum)" \
	"event=call:listen status=0 .* local_port=7174 port_space=0x111 private_len=0 backlog=1024$" "$T/ps.dump"
"$RDMATRACE" diagnose "$T/ps" >"$T/ps.txt" 2>&1
check_grep "a REQ for a port listened on in another port space: the REJ 8 names both port spaces" \
	"reason 8 \(invalid service ID\).*listens on port 7174 in the UDP port space \(RDMA_PS_UDP\) \(rdma_listen at [0-9.]+ s\), and the request asked for port 7174 in the TCP port space \(RDMA_PS_TCP\): a service is a port in a port space" "$T/ps.txt"
"$RDMATRACE" diagnose "$T/ps/s/traces/"*.rtr "$T/ps/c/traces/"*.rtr >"$T/ps-traces.txt" 2>&1
check_grep "... from the traces alone (the REJECTED event): the request's port space is its cm_id's" \
	"rejected \(its rdma_cm reported REJECTED\): reason 8 .*there is no capture to show the REJ; at that address udaddy \(pid [0-9]+\) on [a-z0-9]+ listens on port 7174 in the UDP port space \(RDMA_PS_UDP\) .*asked for port 7174 in the TCP port space" "$T/ps-traces.txt"
# ---- a UD service request for a port listened on in another port space ----
# the other way round: rping's server listens on 7174 in the TCP port space,
# udaddy's client asks for 7174 in the UDP one: the SIDR REP says status 1
# (no such service ID), udaddy gets RDMA_CM_EVENT_UNREACHABLE, and the
# diagnosis, which said nothing of it (only that udaddy exited -22), names
# both port spaces.
UROCE_ADDR=$A timeout -k 2 30 "$RDMATRACE" record -o "$T/ps2/s" -- rping -s -a "$A" -p 7174 -C 1 >"$T/ps2.sout" 2>&1 &
ps2_pid=$!
wait_listen
UROCE_ADDR=$PA timeout -k 2 30 "$RDMATRACE" record --capture lo -o "$T/ps2/c" -- udaddy -s "$A" >"$T/ps2.cout" 2>&1
pkill -f "^rping -s -a $A -p 7174 -C 1\$"
wait "$ps2_pid" 2>/dev/null
tshark -r "$T/ps2/c/capture.pcapng" -Y "ip.src == $A || ip.dst == $A" -w "$T/ps2/capture.pcapng" 2>/dev/null
rm -f "$T/ps2/c/capture.pcapng"
check_grep "udaddy's client to rping's server: unreachable" "RDMA_CM_EVENT_UNREACHABLE" "$T/ps2.cout"
"$RDMATRACE" diagnose "$T/ps2" >"$T/ps2.txt" 2>&1
check_grep "a UD service request refused (SIDR REP status 1): both port spaces named" \
	"refused the UD service request \(SIDR REQ\) of .*: status 1 \(no such service ID: nobody listens for that service \(port\) there\); [0-9.]+ ms after the SIDR REQ; at that address rping \(pid [0-9]+\) on [a-z0-9]+ listens on port 7174 in the TCP port space \(RDMA_PS_TCP\) \(rdma_listen at [0-9.]+ s\), and the request asked for port 7174 in the UDP port space \(RDMA_PS_UDP\): a service is a port in a port space.*The requester's rdma_cm reports RDMA_CM_EVENT_UNREACHABLE for it\." "$T/ps2.txt"
# ---- a process frozen: rping's server stopped 4 s (SIGSTOP), then on ----
# uroce's engine runs in the program, so nothing answers what the client
# sends meanwhile (its ACK timer, 2.1 s, resends a request), and an ACK
# that came for the server's own request waits until it goes on, when its
# timer may go off first.  The server's
# trace has no record for 4 s, not even its collector's clock notes: a
# process_frozen finding, and a Go-Back-N round names the freeze as why no
# ACK came.  Before: such a round alone, "no ACK came ... within the local
# ACK timeout", and nothing about the stop.
rping_disturbed frz $((PORT + 41)) 20000 1 \
	'kill -STOP "$srv_rping" 2>/dev/null; sleep 4; kill -CONT "$srv_rping" 2>/dev/null'
frz_rping=$srv_rping
check "a process stopped 4 s: process_frozen names it, and an ACK-timer round the freeze" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
fz = [x for x in f if x["kind"] == "process_frozen" and x["text"].startswith("rping (pid " + sys.argv[2] + ") on ") and
      " froze for " in x["text"] and "not even its collector" in x["text"] and
      (x["severity"] == "info" or "so it stopped too: its QPs were sent " in x["text"])]
assert len(fz) == 1 and 3.5 < float(fz[0]["text"].split(" froze for ")[1].split(" s")[0]) < 6, [x["kind"] + ": " + x["text"] for x in f]
# (whether the client had a request outstanding when the server stopped is up to timing)
# (a resend of the client while the server was stopped, or one of the server once it went on: its
# timer went off before it took in the ACK or the READ response that had come meanwhile)
assert all(x["kind"] in ("process_frozen", "retransmission_storm") or (x["kind"] == "go_back_n" and ("the receiver'"'"'s process, which runs its engine (uroce), was frozen from" in x["text"] or
           "the sender'"'"'s process, which runs its engine (uroce), was frozen (from" in x["text"] or
           "the requester'"'"'s process, which runs its engine (uroce), was frozen (from" in x["text"]))
           for x in f if x["severity"] != "info"), [x["kind"] + ": " + x["text"] for x in f]' "$T/frz.json" "$frz_rping"
# ---- connection requests beyond a listener's backlog ----
# tests/probes/cm_crowd: the client asks for 3 connections at once, the
# server listens with backlog B and takes its first request 1.5 s later.
# uroce's RDMA CM, as the kernel's, drops a REQ while the listener holds B
# requests its program has not taken (no answer: the client's CM sends it
# again after its timeout).  The probe records the backlog at rdma_listen;
# the diagnosis replays the requests: with B = 1 two connections had their
# first copies dropped for the backlog, and the first one was held, taken
# late; with B = 3 all three were held (nothing dropped).  crowd NAME B
# PORT_OFFSET [SERVER_ARGS...]
crowd() {
	local name=$1 backlog=$2 cport=$((PORT + 50 + $3))
	shift 3
	UROCE_ADDR=$A timeout -k 2 40 "$RDMATRACE" record -o "$T/$name/s" -- "$BUILD/tests/probes/cm_crowd" --server \
		-a "$A" -p "$cport" --conns 3 --backlog "$backlog" --hold 1500 "$@" >"$T/$name.sout" 2>&1 &
	local spid=$!
	wait_listen
	UROCE_ADDR=$CA timeout -k 2 40 "$RDMATRACE" record --capture lo -o "$T/$name/c" -- \
		"$BUILD/tests/probes/cm_crowd" --client -a "$A" -p "$cport" --conns 3 >"$T/$name.cout" 2>&1
	wait "$spid"
	tshark -r "$T/$name/c/capture.pcapng" -Y "ip.src == $A || ip.dst == $A" -w "$T/$name/capture.pcapng" 2>/dev/null
	rm -f "$T/$name/c/capture.pcapng"
	"$RDMATRACE" dump "$T/$name/s/traces/"*.rtr >"$T/$name.dump" 2>&1
	"$RDMATRACE" diagnose --json "$T/$name" >"$T/$name.json" 2>"$T/$name.err"
}
crowd crowd1 1 1
check_grep "three connections to a listener of backlog 1 are all made in the end" \
	"client: 3 connections established and disconnected" "$T/crowd1.cout"
check_grep "rdma_listen's record holds the backlog" "event=call:listen status=0 .* backlog=1$" "$T/crowd1.dump"
check "backlog 1: two REQs dropped for the backlog, the held one taken late" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
lost = [x for x in f if x["kind"] == "cm_lost"]
full = [x for x in lost if "came, the listener it asked for (cm_crowd (pid " in x["text"] and
        ") already held 1 connection request its program had not taken with rdma_get_cm_event, as many as its backlog (1): "
        "an RDMA CM (the kernel'"'"'s) drops a request that comes then, without an answer" in x["text"] and
        "(the program took the first waiting request " in x["text"]]
late = [x for x in lost if "; the first copy arrived, and the listener it asked for (cm_crowd (pid " in x["text"] and
        ", backlog 1) held it until its program took it with rdma_get_cm_event " in x["text"]]
assert len(full) == 2 and len(late) == 1 and len(lost) == 3, [x["kind"] + ": " + x["text"] for x in f]' "$T/crowd1.json"
# The same with a second listener on the same port of [::], for IPv6 only
# (RDMA_OPTION_ID_AFONLY), backlog 5, made after the first: the IPv4
# requests go to the first (uroce's RDMA CM, as the kernel's, lets the two
# share the port since each takes its own family only), and the replay
# counts them against its backlog of 1, not the IPv6 one's 5.
crowd crowd1v6 1 3 --v6-listener 5
check_grep "an IPv4 and an IPv6-only listener share the port" "listening on :: port [0-9]* for IPv6 only, backlog 5" \
	"$T/crowd1v6.sout"
check "backlog 1 beside an IPv6-only listener: the two REQs dropped for the IPv4 listener's backlog, the held one its" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
lost = [x for x in f if x["kind"] == "cm_lost"]
full = [x for x in lost if "as many as its backlog (1): " in x["text"]]
late = [x for x in lost if ", backlog 1) held it until its program took it with rdma_get_cm_event " in x["text"]]
assert len(full) == 2 and len(late) == 1 and len(lost) == 3, [x["kind"] + ": " + x["text"] for x in f]' "$T/crowd1v6.json"
crowd crowd3 3 2
check_grep "backlog 3: the three connections are made" "client: 3 connections established and disconnected" \
	"$T/crowd3.cout"
check "backlog 3: nothing dropped, every REQ held until the program took it" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
lost = [x for x in f if x["kind"] == "cm_lost"]
assert not [x for x in f if "as many as its backlog" in x["text"]], [x["text"] for x in f]
assert len(lost) == 3 and all(", backlog 3) held it until its program took it" in x["text"] and
                              "The connection set-up waited " in x["text"] and ", from the first copy to the answer (REP) at frame " in x["text"]
                              for x in lost), [x["kind"] + ": " + x["text"] for x in f]' "$T/crowd3.json"
# rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT) where it takes no effect, as
# on the kernel (tests/vm/test_probe_vm.sh): on the listening id (an accepted
# connection's QP takes its REQ's timeout) and once the connection is up (the
# option is applied as the QP moves to RTS).  The client sends one message a
# connection, and the first one's ACK is dropped as it arrives: its QP waits
# for the ACK timer it has (19: 2147 ms), not for the 15 asked (134 ms).
# Then the option asked for before rdma_resolve_route: the client's QP gets
# it, and its REQ carries the ACK timeout of that route (16), which the
# server's QP takes; nothing to tell.  Nor when the server asks for it on
# the accepted id before rdma_accept.  (The programs print each QP's ACK
# timeout and traffic class, from ibv_query_qp.)
options() {
	local name=$1 sargs=$2 cargs=$3 faults=$4 oport=$((PORT + 60 + $5))
	UROCE_ADDR=$A timeout -k 2 40 "$RDMATRACE" record -o "$T/$name/s" -- "$BUILD/tests/probes/cm_crowd" --server \
		-a "$A" -p "$oport" $sargs >"$T/$name.sout" 2>&1 &
	local spid=$!
	wait_listen
	UROCE_ADDR=$CA UROCE_FAULTS=$faults timeout -k 2 40 "$RDMATRACE" record --capture lo -o "$T/$name/c" -- \
		"$BUILD/tests/probes/cm_crowd" --client -a "$A" -p "$oport" $cargs >"$T/$name.cout" 2>&1
	wait "$spid"
	tshark -r "$T/$name/c/capture.pcapng" -Y "ip.src == $A || ip.dst == $A" -w "$T/$name/capture.pcapng" 2>/dev/null
	rm -f "$T/$name/c/capture.pcapng"
	"$RDMATRACE" dump "$T/$name/s/traces/"*.rtr "$T/$name/c/traces/"*.rtr >"$T/$name.dump" 2>&1
	"$RDMATRACE" diagnose --json "$T/$name" >"$T/$name.json" 2>"$T/$name.err"
}
options opt-ignored "--conns 2 --sends 1 --ack-timeout 14 --on-listener" "--conns 2 --sends 1 --ack-timeout 15 --late" \
	"drop:op=ack,dir=rx,count=1" 1
check "ACK timeout on the listener and after RTS: each QP kept 19, as on the kernel" python3 -c '
import re, sys
out = open(sys.argv[1]).read() + open(sys.argv[2]).read()
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout (\d+)", out)
assert sorted(got) == [("client", "19")] * 2 + [("server", "19")] * 2, out' "$T/opt-ignored.sout" "$T/opt-ignored.cout"
check_grep "the probe records rdma_set_option" \
	"event=call:set_option status=0 cm_id=[0-9]* .* option=RDMA_OPTION_ID_ACK_TIMEOUT value=14 optlen=1$" "$T/opt-ignored.dump"
check "the two ignored options told: the listener's for both connections, the late ones once, with the ACK timer's cost" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
opt = [x for x in f if x["kind"] == "qp_setup"]
lis = [x for x in opt if x["text"].startswith("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT, 14: 67.108 ms) on the listening id of cm_crowd (pid ") and
       "did not reach the 2 connections it accepted: an RDMA CM gives an accepted connection" in x["text"] and " got 19 (2147.483 ms), and the others alike." in x["text"]]
late = [x for x in opt if x["text"].startswith("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT, 15: 134.217 ms) by cm_crowd (pid ") and
        "had its ACK timeout (modify to RTS at " in x["text"] and "so the QP kept 19." in x["text"] and
        " 1 Go-Back-N round of QP 0x" in x["text"] and "waited for its ACK timer (2147.483 ms each), where the timeout asked for would have waited 134.217 ms." in x["text"] and
        "The same for 1 more of its ids" in x["text"] and abs(x["time_lost_ns"] - 2013266000) < 1e6]
gbn = [x for x in f if x["kind"] == "go_back_n" and "within the local ACK timeout (timeout=19" in x["text"]]
assert len(lis) == 1 and len(late) == 1 and len(opt) == 2 and len(gbn) == 1, [x["kind"] + ": " + x["text"] for x in f]' "$T/opt-ignored.json"
options opt-early "--conns 1" "--conns 1 --ack-timeout 15 --early" "" 2
check "ACK timeout before rdma_resolve_route: the client's QP 15, the server's the REQ's 16, as on the kernel" python3 -c '
import re, sys
out = open(sys.argv[1]).read() + open(sys.argv[2]).read()
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout (\d+)", out)
assert sorted(got) == [("client", "15"), ("server", "16")], out' "$T/opt-early.sout" "$T/opt-early.cout"
options opt-conn "--conns 1 --sends 1 --ack-timeout 14" "--conns 1 --sends 1" "" 3
check "ACK timeout on the accepted id before rdma_accept: the server's QP 14" python3 -c '
import re, sys
out = open(sys.argv[1]).read() + open(sys.argv[2]).read()
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout (\d+)", out)
assert sorted(got) == [("client", "19"), ("server", "14")], out' "$T/opt-conn.sout" "$T/opt-conn.cout"
# rdma_set_option(RDMA_OPTION_ID_TOS), which fixes a connection's traffic
# class when the connecting side resolves its route, and reaches the
# accepting side only through the REQ (the kernel's rules, seen on the VM
# lab): asked for on the listener and after rdma_resolve_route, both
# unused (every QP has 0), both told; asked for before rdma_resolve_route,
# both QPs have it (the server's own changes nothing then): nothing to tell.
options tos-ignored "--conns 2 --tos 2 --on-listener" "--conns 2 --tos 2" "" 4
check "TOS on the listener and after rdma_resolve_route: every QP has traffic class 0, as on the kernel" python3 -c '
import re, sys
out = open(sys.argv[1]).read() + open(sys.argv[2]).read()
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout \d+ traffic class (\d+)", out)
assert sorted(got) == [("client", "0")] * 2 + [("server", "0")] * 2, out' "$T/tos-ignored.sout" "$T/tos-ignored.cout"
check "the two unused TOS options told: the listener's with the REQ that set the connections', the late one once" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
opt = [x for x in f if x["kind"] == "qp_setup"]
lis = [x for x in opt if x["text"].startswith("rdma_set_option(RDMA_OPTION_ID_TOS, 2 (DSCP 0, ECT(0))) on the listening id of cm_crowd (pid ") and
       "did not reach the 2 connections it accepted: an RDMA CM gives an accepted connection the traffic class of its connection request (REQ)" in x["text"] and
       " got its REQ" in x["text"] and ": 0 (DSCP 0, not ECN-capable), and the others alike." in x["text"]]
late = [x for x in opt if x["text"].startswith("rdma_set_option(RDMA_OPTION_ID_TOS, 2 (DSCP 0, ECT(0))) by cm_crowd (pid ") and
        "came after the rdma_resolve_route of its id" in x["text"] and "which fixed the connection" in x["text"] and
        "The same for 1 more of its ids" in x["text"]]
assert len(lis) == 1 and len(late) == 1 and len(opt) == 2, [x["kind"] + ": " + x["text"] for x in f]' "$T/tos-ignored.json"
options tos-early "--conns 1 --tos 2" "--conns 1 --tos 2 --early" "" 5
check "TOS before rdma_resolve_route: both QPs have traffic class 2" python3 -c '
import re, sys
out = open(sys.argv[1]).read() + open(sys.argv[2]).read()
got = re.findall(r"(server|client): QP 0x[0-9a-f]+ ACK timeout \d+ traffic class (\d+)", out)
assert sorted(got) == [("client", "2"), ("server", "2")], out' "$T/tos-early.sout" "$T/tos-early.cout"
# ... and uroce's packets carry it in their IP header, as the kernel's do
# (the VM lab's capture): both sides' data packets, ACKs and CM MADs ECT(0)
# where it was asked for before the route, not ECN-capable where it was unused
tos_ecn() { # "SRC ECN" of each side's packets, once each
	tshark -r "$1" -Y infiniband -T fields -e ip.src -e ip.dsfield.ecn 2>/dev/null | sort -u | tr '\n\t' '  '
}
check "TOS before rdma_resolve_route: every packet of both sides ECT(0) on the wire, the CM's too" \
	test "$(tos_ecn "$T/tos-early/capture.pcapng")" = "$A 2 $CA 2 "
check "TOS unused: no packet ECN-capable on the wire" \
	test "$(tos_ecn "$T/tos-ignored/capture.pcapng")" = "$A 0 $CA 0 "
# An IPv4 request to a listener on [::] that asked for IPv6 only
# (RDMA_OPTION_ID_AFONLY): the RDMA CM matches it to no listener, and, as
# the kernel's (seen on the VM lab), refuses it with REJ 28, since a
# listener holds the port; the diagnosis names the listener and its option.
# (The server waits for its connection in vain: it is stopped once the
# client has been refused, as a user would.)
AP=$((PORT + 66))
UROCE_ADDR=$A timeout -k 2 40 "$RDMATRACE" record -o "$T/afonly/s" -- "$BUILD/tests/probes/cm_crowd" --server \
	-a :: -p "$AP" --conns 1 --afonly >"$T/afonly.sout" 2>&1 &
spid=$!
wait_listen
UROCE_ADDR=$CA timeout -k 2 40 "$RDMATRACE" record --capture lo -o "$T/afonly/c" -- "$BUILD/tests/probes/cm_crowd" \
	--client -a "$A" -p "$AP" --conns 1 >"$T/afonly.cout" 2>&1
kill -TERM "$spid" 2>/dev/null
wait "$spid"
check_grep "the client is refused with REJ 28" "RDMA_CM_EVENT_REJECTED .status 28." "$T/afonly.cout"
"$RDMATRACE" diagnose --json "$T/afonly" >"$T/afonly.json" 2>"$T/afonly.err"
check "IPv4 to an IPv6-only listener: REJ 28, and the finding names the listener and AFONLY" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
rej = [x for x in f if x["kind"] == "cm_reject" and ": reason 28 (consumer defined); " in x["text"] and
       " listens on port " in x["text"] and " of [::] for IPv6 only (rdma_set_option(RDMA_OPTION_ID_AFONLY, 1) before it bound its id; rdma_listen at " in x["text"] and
       "and the request came over IPv4: the RDMA CM matched it to no listener and refused it" in x["text"]]
assert len(rej) == 1, [x["kind"] + ": " + x["text"] for x in f]' "$T/afonly.json"
for o in opt-early opt-conn tos-early; do
	check "$o: an option that took effect: no finding" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert not f, [x["kind"] + ": " + x["text"] for x in f]' "$T/$o.json"
done
done_testing
