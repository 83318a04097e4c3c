#!/usr/bin/env bash
# Golden runs on the real uroce engine (scripts/lab-run, backend uroce) with
# injected faults: diagnosis must find exactly the injected fault kind and
# nothing else at warning level or above; clean runs must come out clean.
. tests/lib.sh
if [ ! -e "$BUILD/uroce/libibverbs.so.1" ] || [ ! -x "$BUILD/lab/rt-lab-minimal" ] || [ ! -x scripts/lab-run ]; then
	skip "uroce golden runs" "uroce engine or lab programs not built"
	done_testing
	exit 0
fi
tmp=$(mktemp -d /tmp/rdmatrace-uroce-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export RDMATRACE_BUILD=$BUILD

# run SCENARIO DIR ARGS...: a lab run; the lab's own verdict is not ours to judge here
run() {
	local name=$1 dir=$2; shift 2
	scripts/lab-run "$name" -o "$dir" --timeout 60 "$@" >"$dir.log" 2>&1
	"$RDMATRACE" correlate --force --quiet "$dir" && "$RDMATRACE" diagnose --json "$dir" >"$dir.json"
	echo $?
}

# expect FILE KIND MIN TEXT [KIND...]: at least MIN findings of KIND containing
# TEXT, no warning+ findings of other kinds than the ones listed after it
# (injected loss hits CM messages too: cm_lost is then no false finding)
expect() {
	python3 - "$@" <<'PY'
import json, sys
sys.path.insert(0, "tests/analysis")
from run_records import without_storms
d = json.load(open(sys.argv[1])); kind, n, text = sys.argv[2], int(sys.argv[3]), sys.argv[4]
d["findings"] = without_storms(d["findings"])
allowed = {kind, *sys.argv[5:]}
f = [x for x in d["findings"] if x["kind"] == kind and text in x["text"]]
other = [x for x in d["findings"] if x["kind"] not in allowed and x["severity"] != "info"]
bad = [h for h in d["hosts"] if h["uncertainty_ns"] is not None and h["uncertainty_ns"] > 50_000_000]
assert len(f) >= n, f"expected {n} {kind} with {text!r}: {[x['kind'] + ': ' + x['text'] for x in d['findings']]}"
assert not other, [x["kind"] + ": " + x["text"] for x in other]
assert not bad, bad
PY
}

# exactly FILE KIND=TEXT...: one finding of each KIND named, containing each
# TEXT given for it, and no other finding at warning level or above
exactly() {
	RDMATRACE="$RDMATRACE" python3 - "$@" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/analysis")
from run_records import without_held_back, without_storms
d = json.load(open(sys.argv[1]))
d["findings"] = without_storms(d["findings"])
want = {}
for a in sys.argv[2:]:
    k, t = a.split("=", 1)
    want.setdefault(k, []).append(t)
f = {}
for x in without_held_back(sys.argv[1][:-len(".json")], os.environ["RDMATRACE"], d["findings"]):
    f.setdefault(x["kind"], []).append(x["text"])
    assert x["kind"] in want or x["severity"] == "info", x["kind"] + ": " + x["text"]
for k, texts in want.items():
    assert len(f.get(k, [])) == 1, (k, f)
    for t in texts:
        assert t in f[k][0], (k, t, f[k][0])
PY
}

# retries_match RUN MIN_RETRIES MATCHED EXTRA: a run with reordering, whose
# capture dropped nothing: its engine's NAK retries (at least MIN_RETRIES,
# all NAK sequence errors) are Go-Back-N findings with their PSN and cause,
# at least the fraction MATCHED of them, with at most the fraction EXTRA
# more; one reordering finding and nothing else (no copy)
retries_match() {
	python3 - "$1" "$RDMATRACE" "$2" "$3" "$4" <<'PY'
import collections, re, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events, without_held_back, without_storms
run, rt = sys.argv[1], sys.argv[2]
least, matched_min, extra_max = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
want = collections.Counter((e["first_psn"], e["cause"]) for e in trace_events(run, rt, "retry"))
d = diagnosis(run, rt)
d["findings"] = without_storms(d["findings"])
assert not [n for n in d["notes"] if "says it dropped" in n], d["notes"]
f = without_held_back(run, rt, [x for x in d["findings"] if x["severity"] != "info"])
assert all(x["kind"] in ("go_back_n", "psn_gap", "cm_lost") for x in f), [x["kind"] + ": " + x["text"] for x in f]
assert sum(x["kind"] == "psn_gap" for x in f) == 1
got = collections.Counter()
for x in f:
    if x["kind"] == "go_back_n":
        cause = "nak_seq" if "NAKed PSN" in x["text"] or "after NAK PSN sequence error" in x["text"] else "ack_timeout"
        got[(int(re.search(r"PSN 0x([0-9a-f]+)", x["text"]).group(1), 16), cause)] += 1
n, matched, extra = sum(want.values()), sum((want & got).values()), sum((got - want).values())
assert n >= least and set(c for _, c in want) == {"nak_seq"}, want
assert matched >= matched_min * n and extra <= extra_max * n, ("engine retries", want, "findings", got)
PY
}

# clock_within FILE NS: no clock finding (one telling the wall clock was set
# during the run aside), and every host's clock aligned
# within NS of the capture's with an uncertainty under NS (uroce runs on one
# machine: the true offset is 0)
clock_within() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d, ns = json.load(open(sys.argv[1])), int(sys.argv[2])
# (a wall clock set during the run is told, and no reason for another clock finding)
bad = [x["text"] for x in d["findings"] if x["kind"] == "clock" and "wall clock of" not in x["text"]]
assert not bad, bad
assert all(h["uncertainty_ns"] is not None and h["uncertainty_ns"] < ns and abs(h["offset_ns"]) < ns
           for h in d["hosts"]), d["hosts"]
PY
}

rc=$(run minimal "$tmp/minimal")
check "clean uroce run: diagnose exits 0" test "$rc" = 0
# uroce and the probe both record each WR, completion, QP and CM event; the
# timeline shows the application's copy once (the engine's is kept as an event)
check "uroce + probe: each WR post and completion is one row, none of them the engine's copy" python3 - "$tmp/minimal" "$RDMATRACE" <<'PY'
import collections, json, subprocess, sys
rows = [json.loads(l) for l in subprocess.run([sys.argv[2], "export", "--format", "jsonl", sys.argv[1]],
                                              capture_output=True, text=True, check=True).stdout.splitlines()]
app = [r for r in rows if r["kind"] in ("wr_post", "completion", "qp_state", "device") and "engine" not in r.get("flags", [])]
eng = [r for r in rows if r["kind"] in ("wr_post", "completion", "qp_state", "device") and "engine" in r.get("flags", [])]
assert app and not eng, (len(app), [r["summary"] for r in eng][:5])
ids = collections.Counter((r["pid"], r["kind"], r.get("wr_id")) for r in app if r["kind"] in ("wr_post", "completion"))
assert all(v == 1 for v in ids.values()), ids
PY
rc=$(run error "$tmp/error")
check "bad rkey: diagnose exits 1" test "$rc" = 1
check "bad rkey: one remote access NAK with the rkey, nothing else" expect "$tmp/error.json" nak_error 1 "refused rkey 0x"
check "bad rkey: the server's MRs say the rkey was none of theirs" expect "$tmp/error.json" nak_error 1 \
	"no MR that rt-lab-error (pid "
# the same, its NAK dropped by the responder's engine as it left (the
# responder's first ACK-class packet), the QP of the responder in ERROR: the
# requester resends until its retry count runs out (a short timeout, 2
# retries); the NAK comes from the responder's engine's trace, with the
# rkey, and the RETRY_EXC_ERR names the peer's move to ERROR
rc=$(UROCE_FAULTS="drop:op=ack,nth=1" run error "$tmp/naklost" -- --ack-timeout 14 --retry-cnt 2)
check "bad rkey, its NAK dropped as sent: the NAK from the responder's trace, the retries it left unanswered, nothing else" \
	exactly "$tmp/naklost.json" "nak_error=refused rkey 0x" "nak_error=dropped that NAK as it sent it" \
	"error_completion=RETRY_EXC_ERR" "error_completion=peer QP had moved to the ERROR state"
# without a capture, the requester's engine traced receiving it: the same rkey analysis
rc=$(run error "$tmp/errnc" --no-capture)
check "bad rkey, no capture: the NAK from the requester's trace, with the server's MRs" \
	exactly "$tmp/errnc.json" "nak_error=no MR that rt-lab-error (pid " "nak_error=REM_ACCESS_ERR"
rc=$(run error "$tmp/bounds" -- --mode bounds)
check "WRITE past the MR's end: diagnose exits 1" test "$rc" = 1
check "WRITE past the MR's end: the NAK names the range and the MR's end, nothing else" expect "$tmp/bounds.json" nak_error 1 \
	"and length 4096 reach outside the MR with rkey 0x"
rc=$(run overflow "$tmp/overflow")
check "send queue overflow: diagnose exits 1" test "$rc" = 1
check "send queue overflow: the refused post, the full queue and its size, nothing else" expect "$tmp/overflow.json" post_failed 1 \
	"refused 2 WRs, the first wr_id 9 (RDMA_WRITE) with ENOMEM: its send queue was full: 8 WRs were posted and not yet completed (polled), and it holds 8 (max_send_wr)"
# the lab disconnects after the refused post: its 8 WRs are flushed while
# their ACK is still on its way, so that ACK passes the capture point after
# the flush completions, which it did not produce (they bound nothing; a
# previous release had the clock 0.5-0.9 ms off, "could not be aligned")
check "send queue overflow: the flushed WRs do not throw the clock off" clock_within "$tmp/overflow.json" 500000
rc=$(run rnr "$tmp/rnr" --count 8)
check "late receiver: diagnose exits 1" test "$rc" = 1
check "late receiver: RNR stalls with the min_rnr_timer 0 pitfall, nothing else" expect "$tmp/rnr.json" rnr_stall 1 "655.36 ms"
rc=$(run loss "$tmp/loss" --size 1M --count 8 --loss 5)
check "5% loss: diagnose exits 1" test "$rc" = 1
check "5% loss: Go-Back-N retransmissions, nothing else (but lost CM messages)" expect "$tmp/loss.json" go_back_n 1 "resent" cm_lost
check "5% loss: the annotated capture names the retransmissions" bash -c "grep -q '\"retrans_cause\"' '$tmp/loss/annotations.jsonl'"
# fits RUNDIR KIND: the time lost by the KIND findings adds up to no more than the capture spans
fits() {
	local span
	span=$("$RDMATRACE" packets "$1/capture.pcapng" 2>/dev/null | awk 'NF > 2 { t = $2 } END { printf "%.0f", t * 1e9 }')
	python3 - "$1.json" "$2" "$span" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); span = int(sys.argv[3])
lost = sum(f["time_lost_ns"] for f in d["findings"] if f["kind"] == sys.argv[2])
assert 0 < lost <= span, f"{lost} ns lost in a {span} ns capture"
PY
}
check "5% loss: time lost to Go-Back-N counted once (fits in the capture)" fits "$tmp/loss" go_back_n
# a WRITE and a READ back under loss: NAKed rounds inside another round's timeout
run minimal "$tmp/rdloss" --size 262144 --loss 5 --seed 5 >/dev/null
check "WRITE + READ under loss: time lost to Go-Back-N counted once (fits in the capture)" fits "$tmp/rdloss" go_back_n
# a WRITE packet damaged on the way (uroce's "corrupt" fault: a wrong ICRC):
# the receiver drops it, NAKs the next one, and the sender goes back to it
rc=$(UROCE_FAULTS="corrupt:op=write,nth=5" run minimal "$tmp/icrc")
check "damaged WRITE packet: diagnose exits 1" test "$rc" = 1
check "damaged WRITE packet: the bad ICRC, dropped by its receiver, and the Go-Back-N it caused, nothing else" \
	exactly "$tmp/icrc.json" "bad_icrc=1 packet had a bad ICRC" "bad_icrc=its receiver dropped it" \
	"bad_icrc=(injected corruption: the sending engine damaged the ICRC on purpose, a fault rule)" "go_back_n=had a bad ICRC and the receiver dropped it"
# the same without a capture: the receiving engine traced the drop and why
rc=$(UROCE_FAULTS="corrupt:op=write,nth=5" run minimal "$tmp/icrcnc" --no-capture)
check "damaged WRITE packet, no capture: the receiver's engine traced the drop with its reason" \
	bash -c "'$RDMATRACE' dump '$tmp'/icrcnc/traces/*.rtr | grep -q 'dir=rx .*dropped=1 drop_reason=bad_icrc'"
check "damaged WRITE packet, no capture: the bad ICRC from the receiver's trace, and the Go-Back-N it caused, nothing else" \
	exactly "$tmp/icrcnc.json" "bad_icrc=1 packet arrived with a bad ICRC and was dropped by its receiver's engine" \
	"bad_icrc=: injected corruption, the sending engine damaged the ICRC on purpose (a fault rule); a receiver drops" \
	"go_back_n=its ICRC was bad"
# an ACK damaged on the way: the requester drops it, its ACK timer goes off
# and it resends what the responder had already received
UROCE_FAULTS="corrupt:op=ack,nth=3" run imm "$tmp/ackicrc" >/dev/null
check "damaged ACK: the bad ICRC dropped on arrival, and the ACK-timeout Go-Back-N it caused names it, nothing else" \
	exactly "$tmp/ackicrc.json" "bad_icrc=(RC Acknowledge" "bad_icrc=dropped on arrival (its receiver's trace)" \
	"bad_icrc=(injected corruption: the sending engine damaged the ICRC on purpose, a fault rule)" \
	"go_back_n=within the local ACK timeout" "go_back_n=had a bad ICRC and the requester dropped it"
# WRITE packets marked Congestion Experienced on the way (uroce's "ecn" fault,
# as a filling queue marks an ECN-capable packet; the lab's --tos 2 makes
# every packet ECT(0)): every 8th of the 32 WRITE packets, 4 marks from the
# client, and no CNP back (uroce, as SoftRoCE, has no notification point);
# without --tos no packet is ECN-capable, so nothing is marked
congestion_count() { # the CE-marked packets in a capture
	tshark -r "$1" -Y "ip.dsfield.ecn == 3" 2>/dev/null | wc -l
}
UROCE_FAULTS="ecn:op=write,every=8" run imm "$tmp/ecn" -- --tos 2 >/dev/null
check "ECN marks on the way: 4 CE-marked WRITE packets in the capture" test "$(congestion_count "$tmp/ecn/capture.pcapng")" = 4
check "... each traced by its sender's engine as the ecn rule's mark (injected=ce)" \
	test "$("$RDMATRACE" dump "$tmp"/ecn/traces/*.rtr | grep -c 'dir=tx .*injected=ce')" = 4
check "ECN marks on the way: one congestion finding with the 4 marks and no CNP back, nothing else" \
	exactly "$tmp/ecn.json" "congestion=Congestion: 4 ECN-marked packets (Congestion Experienced" \
	"congestion=(Congestion Experienced, marked on purpose by the sending engine: injected, a fault rule" \
	"congestion=No CNP came back for the marks from vm"
UROCE_FAULTS="ecn:op=write,every=8" run imm "$tmp/ecnoff" >/dev/null
check "the ecn fault without --tos: no packet ECN-capable, none marked, no congestion finding" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert not [x for x in f if x["kind"] == "congestion"], f' "$tmp/ecnoff.json"
check "the ecn fault without --tos: no CE mark in the capture" test "$(congestion_count "$tmp/ecnoff/capture.pcapng")" = 0
# a WRITE packet the network sends twice (uroce's "dup" fault on the third of
# the second 4-packet WRITE_WITH_IMM, the first one acknowledged): a copy
# made on the way, not a retransmission
UROCE_FAULTS="dup:op=write,nth=7" run imm "$tmp/wiredup" >/dev/null
check "the sender's engine traced the copy as the dup rule's (injected=copy), once" \
	test "$("$RDMATRACE" dump "$tmp"/wiredup/traces/*.rtr | grep -c 'dir=tx .*injected=copy')" = 1
check "a WRITE packet sent twice on the way: one duplicate finding, no Go-Back-N, nothing else" \
	exactly "$tmp/wiredup.json" "duplicate=1 packet from QP" "duplicate=was on the wire twice" \
	"duplicate=an older one was still outstanding" "duplicate=The sender's engine made the copy on purpose (injected duplicate: a fault rule); the receiver discards"
# an atomic and a READ request copied right after the original, both within
# the first milliseconds of their QP: no ACK timer (2.1 s here) could have
# gone off, and no NAK came: copies, not retransmissions
UROCE_FAULTS="dup:op=atomic,nth=3" run atomics "$tmp/atomicdup" >/dev/null
check "an atomic sent twice on the way: one duplicate finding, told by the ACK timer, nothing else" \
	exactly "$tmp/atomicdup.json" "duplicate=RC Fetch Add" "duplicate=no ACK timer could have gone off yet" \
	"duplicate=it may answer again" "duplicate=The sender's engine made the copy on purpose (injected duplicate: a fault rule); the receiver discards"
UROCE_FAULTS="dup:op=read,nth=1" run minimal "$tmp/readdup" >/dev/null
check "a READ request sent twice on the way: one duplicate finding, nothing else" \
	exactly "$tmp/readdup.json" "duplicate=RC RDMA Read Request" "duplicate=no ACK timer could have gone off yet" \
	"duplicate=The sender's engine made the copy on purpose (injected duplicate: a fault rule); the receiver discards"
# responses copied on the way: no request came again between the two, so
# the responder had no reason to answer twice (requests copied above make
# it answer again: those runs have no response copy)
UROCE_FAULTS="dup:op=read_resp,nth=3" run minimal "$tmp/readrespdup" --size 65536 >/dev/null
check "a READ response sent twice on the way: one duplicate finding, nothing else" \
	exactly "$tmp/readrespdup.json" "duplicate=1 response from QP" "duplicate=RC RDMA Read Response Middle" \
	"duplicate=asks for those PSNs again" "duplicate=The responder's engine made the copy on purpose (injected duplicate: a fault rule); the requester drops"
UROCE_FAULTS="dup:op=ack,nth=2" run imm "$tmp/ackdup" >/dev/null
check "an ACK sent twice on the way: one duplicate finding, nothing else" \
	exactly "$tmp/ackdup.json" "duplicate=1 response from QP" "duplicate=(RC Acknowledge, PSN" \
	"duplicate=the request comes again" "duplicate=The responder's engine made the copy on purpose (injected duplicate: a fault rule); the requester drops"
UROCE_FAULTS="dup:op=atomic_ack,nth=2" run atomics "$tmp/atomicackdup" >/dev/null
check "an atomic ACK sent twice on the way: one duplicate finding, nothing else" \
	exactly "$tmp/atomicackdup.json" "duplicate=1 response from QP" "duplicate=RC Atomic Acknowledge" \
	"duplicate=The responder's engine made the copy on purpose (injected duplicate: a fault rule); the requester drops"
# a WRITE packet held back 5 ms before the capture point (uroce's "delay"
# fault): the receiver NAKs the gap, the sender resends, and the packet
# itself comes late, after its resend: one Go-Back-N that says so and one
# late request (reordering), no spurious ACK timer; the engine traced it as
# it left, held back, and the findings say who held it
UROCE_FAULTS="delay:us=5000,op=write,nth=3" run imm "$tmp/late" >/dev/null
check "a WRITE packet held back by its engine: the Go-Back-N names it late, one reordering finding, nothing else" \
	exactly "$tmp/late.json" \
	"go_back_n=because that packet came late: held back by the engine that sent it (injected delay or reordering)" \
	"psn_gap=came out of sequence" "psn_gap=and after its own resend" \
	"psn_gap=its sender's engine held it back (injected delay or reordering)"
# the first WRITE of the error lab held back 2 ms: its resend (after the
# NAK of the gap it left) reaches the responder first and is refused (the
# lab's bad rkey), and the original comes after the QP went to ERROR. The
# engine traced it as it left, so it is matched to its own packet: the late
# original (a previous release paired the engine's record of it with the
# resend's packet: "lost before the capture point", the late copy
# "retransmission #2 after local ACK timeout", and the clock inconsistent
# by 5.5 ms)
UROCE_FAULTS="delay:us=2000,op=write,nth=1" run error "$tmp/heldfirst" >/dev/null
check "the first WRITE held back past its resend and the QP's error: a late original, the clock consistent" \
	python3 - "$tmp/heldfirst" "$RDMATRACE" <<'PY'
import json, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
held = [e for e in trace_events(run, rt, "packet") if e.get("held")]
assert len(held) == 1 and held[0]["dir"] == "tx" and not held[0].get("retrans"), held
d = diagnosis(run, rt)
f = {}
for x in d["findings"]:
    if x["severity"] != "info" or x["kind"] == "clock":
        f.setdefault(x["kind"], []).append(x["text"])
assert sorted(f) == ["go_back_n", "nak_error", "psn_gap"], f
assert len(f["go_back_n"]) == 1 and "PSN 0x%06x" % held[0]["psn"] in f["go_back_n"][0], f
assert "came late: held back by the engine that sent it" in f["go_back_n"][0], f["go_back_n"]
assert "its sender's engine held it back" in f["psn_gap"][0], f["psn_gap"]
late = [a for a in map(json.loads, open(run + "/annotations.jsonl")) if "held back by the sender's engine" in a.get("text", "")]
assert len(late) == 1 and late[0]["retrans"] == 0 and late[0].get("dup") == 1, late
PY
# every 10th packet sent after the next one: each gap NAKed, each late
# packet named, never a resend without a cause
UROCE_FAULTS="reorder:every=10" run imm "$tmp/reorder" >/dev/null
check "reordered WRITE packets: Go-Back-N rounds after NAKs that name the late packets, one reordering finding" \
	python3 - "$tmp/reorder" "$RDMATRACE" <<'PY'
import sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, without_held_back
d = diagnosis(sys.argv[1], sys.argv[2])
f = without_held_back(sys.argv[1], sys.argv[2], [x for x in d["findings"] if x["severity"] != "info"])
gbn = [x for x in f if x["kind"] == "go_back_n"]
late = [x for x in f if x["kind"] == "psn_gap"]
assert gbn and len(late) == 1 and len(gbn) + len(late) == len(f), [x["kind"] + ": " + x["text"] for x in f]
assert all("NAKed PSN" in x["text"] and ("came late" in x["text"] or "came after later PSNs" in x["text"]) for x in gbn), \
    [x["text"] for x in gbn]
PY
# a storm of overlapping rounds: every 50th packet of a bulk transfer held
# back, so each round has a late packet of its own and the sender, busy
# sending, acts on its NAKs several behind; each engine retry is a Go-Back-N
# finding with its PSN and cause, nearly all (the previous release matched a
# quarter and made twice as many more, most of them ACK timers going off
# early). 4 MiB: a capture that drops packets (a loaded machine) hides the
# reordering, and this much fits its buffer
UROCE_FAULTS="reorder:every=50" run bulk "$tmp/storm" --seed 3 --size 4M >/dev/null
# (the timing of a loaded machine makes the storm differ from run to run:
# 81-100 % matched and 2-25 % more seen here)
check "reordering in a bulk transfer: the engine's NAK retries are the Go-Back-N findings, one reordering finding, no copy" \
	retries_match "$tmp/storm" 20 0.7 0.4
# every 4th packet sent after the next one, on both sides: a message's first
# packet passes the capture point after the rest of it, and the round its NAK
# asked for goes the same way; a "round" that began before the sender's
# engine retried is its held-back first packet (a previous release made an
# ACK-timer round of each: 13 findings for 9 retries)
UROCE_FAULTS="reorder:every=4" run imm "$tmp/reorder4" >/dev/null
check "every 4th packet held back: the engine's NAK retries are the Go-Back-N findings, one reordering finding, nothing else" \
	retries_match "$tmp/reorder4" 4 0.85 0.15
# every 5th WRITE packet held back 2 ms (uroce's delay fault), resends too:
# each arrives after the round the NAK for it made, below the PSN that NAK
# named, so it is late, not a round of its own (the previous release called
# each an ACK timer going off early)
UROCE_FAULTS="delay:us=2000,op=write,every=5" run imm "$tmp/wrdelay" >/dev/null
check "WRITE packets held back: the engine's NAK retries are the Go-Back-N findings, one reordering finding" \
	retries_match "$tmp/wrdelay" 4 0.75 0.25
# the 12th READ response sent after the next one: the requester sees the gap
# and asks again from the late response, whether that came before its
# re-request or after it: the gap's round, never a spurious ACK timer
UROCE_FAULTS="reorder:every=12,op=read_resp" run minimal "$tmp/readlate" >/dev/null
check "a READ response held back: the READ asked again after the gap it made, nothing else" \
	exactly "$tmp/readlate.json" "go_back_n=was out of sequence and the requester asked again from PSN"
# every 5th READ response sent after the next one, re-requested ones too:
# the capture holds every response, so no round says one was lost before
# it (one discarded by the requester may be "lost after the capture point
# or arrived late"), and the responses a requester discarded because they
# came before the one they follow (held back by the responder's engine, its
# trace says) are named so (a previous release: "lost before the capture
# point" for those)
# (whether the requester takes a response before the held one is a race:
# up to 3 runs, until one has such a response; every run is checked)
readreorder() {
	local k rc=3
	for k in 1 2 3; do
		UROCE_FAULTS="reorder:every=5,op=read_resp" run minimal "$tmp/readreorder$k" >/dev/null
		python3 - "$tmp/readreorder$k" "$RDMATRACE" <<'PY'
import sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, without_held_back
w = without_held_back(sys.argv[1], sys.argv[2], [x for x in diagnosis(sys.argv[1], sys.argv[2])["findings"] if x["severity"] != "info"])
assert w and all(x["kind"] == "go_back_n" for x in w), [x["kind"] + ": " + x["text"] for x in w]
assert not [x for x in w if "lost before the capture point" in x["text"]], [x["text"] for x in w]
early = [x for x in w if "came before the one of PSN" in x["text"]]
assert all("held back by the engine that sent it" in x["text"] and "discarded it as out of sequence" in x["text"]
           for x in early), [x["text"] for x in w]
sys.exit(0 if early else 3)
PY
		rc=$?
		[ "$rc" = 3 ] || return "$rc"
		echo "# run $k: no response came before the held one; again"
	done
	return "$rc"
}
check "every 5th READ response held back: none lost before the capture point, those that came before the held one named" \
	readreorder
# held_once RUN KIND [MIN_MS]: a held_back finding for each packet its engine traced
# as held back (of opcode class KIND, one per process: each applies the rule
# on its own), and nothing else of warning or more; each names its packet
# by PSN and a hold of 5 ms (the rule's), within 4.9-500 ms at the capture
# point (it includes what the engine took to make the packet, and a loaded
# machine wakes the engine's timer late: 5.0-5.4 ms seen here, 100.7 ms once
# in a CI run beside the other tests; a hold told from the wrong packets
# would be off by an ACK timeout, seconds)
held_once() {
	python3 - "$1" "$RDMATRACE" "$2" "${3:-4.9}" <<'PY'
import re, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, held_sends
run, rt, kind, low = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
held = held_sends(run, rt)
assert held and all(kind in e["opcode"] for e in held), held
f = [x for x in diagnosis(run, rt)["findings"] if x["severity"] != "info"]
assert len(f) == len(held) and all(x["kind"] == "held_back" for x in f), [x["kind"] + ": " + x["text"] for x in f]
for x in f:
    m = re.search(r"of PSN 0x([0-9a-f]+) \(frame \d+\) passed the capture point ([0-9.]+) ms after", x["text"])
    assert m and int(m.group(1), 16) in [e["psn"] for e in held] and low <= float(m.group(2)) <= 500, x["text"]
    assert low * 1e6 <= x["time_lost_ns"] <= 500e6, x
PY
}
# one packet held back 5 ms that reorders nothing (the ACK of the minimal
# lab's WRITE, its READ request, an atomic ACK, a UD datagram): no ordering
# finding can tell of it, yet its WR waited that long (a previous release
# found nothing)
UROCE_FAULTS="delay:us=5000,op=ack,nth=1" run minimal "$tmp/ackheld" >/dev/null
check "an ACK held back 5 ms: one held_back finding naming it, nothing else" held_once "$tmp/ackheld" ACKNOWLEDGE
UROCE_FAULTS="delay:us=5000,op=read,nth=1" run minimal "$tmp/readheld" >/dev/null
check "a READ request held back 5 ms: one held_back finding naming it, nothing else" held_once "$tmp/readheld" READ_REQUEST
UROCE_FAULTS="delay:us=5000,op=atomic_ack,nth=2" run atomics "$tmp/atomackheld" >/dev/null
check "an atomic ACK held back 5 ms: one held_back finding naming it, nothing else" held_once "$tmp/atomackheld" ATOMIC_ACK
# a reorder rule on a packet that nothing of its QP follows (one atomic at a
# time: the next waits for its answer): it leaves alone 2 ms later, late, not
# reordered (it used to leave at once, as if the rule had not fired)
UROCE_FAULTS="reorder:op=atomic,after=5,count=1" run atomics "$tmp/atomlate" >/dev/null
check "an atomic a reorder rule holds, nothing of its QP after it: 2 ms late, one held_back finding, nothing else" \
	held_once "$tmp/atomlate" RC_ 1.9
UROCE_FAULTS="delay:us=5000,nth=3" run ud "$tmp/udheld" >/dev/null
check "a UD datagram held back 5 ms: one held_back finding naming it, nothing else" held_once "$tmp/udheld" UD_SEND
# the 2nd READ response dropped by the requesting engine on arrival, after
# the capture point: the next response was out of sequence (an implied NAK,
# the engine's retry cause), not an ACK timer going off early; the requester's
# trace holds the drop, so the finding says where it was lost
UROCE_FAULTS="drop:dir=rx,op=read_resp,nth=2" run minimal "$tmp/readrx" >/dev/null
check "a READ response lost after the capture point: the READ asked again after the gap, nothing else" \
	exactly "$tmp/readrx.json" "go_back_n=reached the requester, whose engine dropped it as it arrived (injected loss), so the next response"
# every 6th SEND held back 1.5 ms, resends too: a storm of Go-Back-N rounds
# whose held-back copies, and resends of PSNs already acknowledged, pass the
# capture point after their WRs completed; the completions did not wait for
# them, so they bound none, and the engines' clock (the capture's own: one
# machine) comes out within microseconds (a previous release had it 1.5-4.7
# ms off, +-4.6-14 ms, "could not be aligned consistently")
UROCE_FAULTS="delay:us=1500,op=send,every=6" run sendrecv "$tmp/senddelay" >/dev/null
# The held-back copies of a round pass the capture point after it, going back
# again as a round would: a round the sender's engine made no retry for is
# none (a previous release made 1.27-1.39 findings of each engine retry here,
# this one 1.06-1.13)
check "SENDs held back 1.5 ms in a storm of resends: Go-Back-N rounds, at most 1.2 for each engine retry" python3 -c '
import json, subprocess, sys, glob
d = json.load(open(sys.argv[1]))
n = sum(x["kind"] == "go_back_n" for x in d["findings"])
r = sum(json.loads(l)["cause"] != "rnr" for l in subprocess.run([sys.argv[2], "dump", "--json", "--kind", "retry", *glob.glob(sys.argv[3] + "/traces/*.rtr")],
        capture_output=True, text=True, check=True).stdout.splitlines() if l.strip())
lost = [json.loads(l) for l in subprocess.run([sys.argv[2], "dump", "--json", "--kind", "lost", *glob.glob(sys.argv[3] + "/traces/*.rtr")],
        capture_output=True, text=True, check=True).stdout.splitlines() if l.strip()]
assert n >= 5 and n <= 1.2 * r, (n, "go_back_n findings for", r, "engine retries", sum(x["count"] for x in lost), "events lost")' \
	"$tmp/senddelay.json" "$RDMATRACE" "$tmp/senddelay"
# In that storm the receiving engine tells what came of a NAKed packet the
# capture holds before its NAK: arrived after the engine sent the NAK (it
# was still queued), or arrived before it and was discarded, the receiver
# still waiting for an earlier PSN (a previous release: "lost after the
# capture point or arrived late" for 30-60 % of those rounds). Each such
# sentence is checked against the receiving engine's records: the gap
# between its NAK and the packet's arrival, and the order of the two
check "SENDs held back 1.5 ms: what the receiving engine traced of a NAKed packet, checked against its records" \
	python3 - "$tmp/senddelay" "$RDMATRACE" <<'PY'
import re, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
ev = trace_events(run, rt, "packet")
naks = {}  # PSN -> the responder's NAK sends (ns)
rx = {}    # PSN -> the responder's arrivals of requests neither dropped nor duplicates (ns)
for e in ev:
    if e["dir"] == "tx" and e["opcode"] == "RC_ACKNOWLEDGE" and e.get("syndrome", 0) >> 5 == 3:
        naks.setdefault(e["psn"], []).append(e["ns"])
    elif e["dir"] == "rx" and e["opcode"].startswith("RC_SEND") and not e.get("duplicate") and not e.get("dropped"):
        rx.setdefault(e["psn"], []).append(e["ns"])
told = late = 0
for x in diagnosis(run, rt)["findings"]:
    m = re.search(r"NAKed PSN 0x([0-9a-f]+) .*arrived late: the receiver's engine traced it arriving ([0-9.]+) ms after it sent the NAK", x["text"])
    if m:
        psn, gap = int(m.group(1), 16), float(m.group(2)) * 1e6
        assert any(abs((r - n) - gap) <= 1000 for r in rx.get(psn, []) for n in naks.get(psn, [])), (x["text"], rx.get(psn), naks.get(psn))
        late += 1
    m = re.search(r"NAKed PSN 0x([0-9a-f]+) .*\(frame (\d+)\) reached the receiver, as its engine traced, while it still waited for PSN 0x([0-9a-f]+) \(frame (\d+), after it", x["text"])
    if m:
        psn, f1, wait, f2 = int(m.group(1), 16), int(m.group(2)), int(m.group(3), 16), int(m.group(4))
        assert 0 < (psn - wait) % (1 << 24) < 1 << 23 and f2 > f1, x["text"]
        assert any(r < n for r in rx.get(psn, []) for n in naks.get(psn, [])), (x["text"], rx.get(psn), naks.get(psn))
        told += 1
assert told + late > 0, "no NAKed packet told by the receiving engine's records"
PY
# The same run with a hole in the sending engine's trace, 200 events lost as
# a full ring loses them (tests/analysis/lose_events): the rounds away from
# the hole are judged by the engine as before (a previous release judged
# none of that process's rounds by its engine once it lost any event, and
# made 1.1-1.3 times as many findings), those near it by the capture alone.
# Away in time and in PSNs: a PSN sent in the hole has fewer sends in the
# trace than on the wire, so none of its sends is matched by occurrence (a
# held-back resend of it 11 ms later is then judged by the capture alone);
# and 10 ms either side, as a round is judged by the requests after it too
# (up to 16 of them), which in this storm reach 6-9 ms into a hole (with 5
# ms, 2 runs in 24 differed, each in one round).  Even so, a round judged by
# a held-back resend whose PSN's other sends fell in the hole, 11-14 ms on,
# can differ: 3 runs in 30 differed in one or two rounds
check "SENDs held back 1.5 ms, 200 engine events lost mid-run: the same rounds away from the hole" \
	python3 - "$tmp/senddelay" "$tmp/senddelay-hole" "$RDMATRACE" "$BUILD/tests/analysis/lose_events" <<'PY'
import collections, glob, json, os, re, shutil, subprocess, sys
run, hole, rt, tool = sys.argv[1:5]
def dump(d, *kind):
    out = subprocess.run([rt, "dump", "--json", *kind, *glob.glob(d + "/traces/*.rtr")], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]
ev = dump(run)
# the thread that traced the most retries: the sending engine's
retries = collections.Counter((e["file"], e["tid"]) for e in ev if e["kind"] == "retry")
(path, tid), _ = retries.most_common(1)[0]
seqs = sorted(e["seq"] for e in ev if (e["file"], e["tid"]) == (path, tid) and e["kind"] in ("packet", "retry"))
first = seqs[len(seqs) // 2]
shutil.copytree(run, hole, ignore=shutil.ignore_patterns("timeline.rtl", "annotated.pcapng", "annotations.jsonl"))
subprocess.run([tool, path, os.path.join(hole, "traces", os.path.basename(path)), str(tid), str(first), "200"], check=True)
subprocess.run([rt, "correlate", "--force", "--quiet", hole], check=True)
d = json.loads(subprocess.run([rt, "diagnose", "--json", hole], capture_output=True, text=True).stdout)
assert [x for x in d["findings"] if x["kind"] == "lost_events" and "lost 200 events" in x["text"]], [x["text"] for x in d["findings"]]
# the hole, in time: from the thread's record before the lost ones (the
# earliest of that number: a probe's and an engine's tracer number apart)
# to the LOST record
lost = [e for e in dump(hole, "--kind", "lost") if e["tid"] == tid and e["first_seq"] == first]
assert len(lost) == 1, lost
end, margin = lost[0]["ns"], 10_000_000
start = min(e["ns"] for e in ev if (e["file"], e["tid"]) == (path, tid) and e["seq"] == first - 1 and e["ns"] <= end)
hole_psns = {e["psn"] for e in ev if (e["file"], e["tid"]) == (path, tid) and first <= e["seq"] < first + 200 and
             e["kind"] == "packet"}
def psn(text):  # the round's PSN: the first its sentence names
    m = re.search(r"PSN 0x([0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None
def rounds(findings):  # when each round began (a sentence may count copies differently), its PSN sent away from the hole
    return {x["t_ns"] for x in findings if x["kind"] == "go_back_n" and not start - margin <= x["t_ns"] <= end + margin
            and psn(x["text"]) not in hole_psns}
before, after = rounds(json.load(open(run + ".json"))["findings"]), rounds(d["findings"])
assert len(before) >= 20, ("too few rounds away from the hole to tell", len(before))
# (at most 3 rounds may differ, of the 37-66 compared; the previous release
# that judged none of the process's rounds by its engine made 10-30 % more)
assert len(before ^ after) <= 3, ("away from the hole", sorted(before - after)[:3], "became", sorted(after - before)[:3],
                                  len(before), len(after))
PY
check "SENDs held back 1.5 ms in a storm of resends: the clock aligns within 0.1 ms, no clock finding" \
	clock_within "$tmp/senddelay.json" 100000
# every 4th READ response held back 1 ms: a round whose response came late,
# before the requester asked again or after it (the capture holding two
# copies of it after that request, one more than asked for), says so and
# names the copies, one of them the response the responder's engine held
# back (its trace records a held-back packet as it leaves, held=1: the copy
# captured right after that record); the copies that pass the capture point
# after the READ completed do not throw the clock off, and no round reads as
# an early ACK timer (the requester asks twice within microseconds when it
# takes responses captured before its first asking only after it)
UROCE_FAULTS="delay:us=1000,op=read_resp,every=4" run minimal "$tmp/readdelay" >/dev/null
check "READ responses held back 1 ms: named late with their copies, no early ACK timer" \
	python3 - "$tmp/readdelay" "$tmp/readdelay.json" "$RDMATRACE" <<'PY'
import glob, json, re, subprocess, sys
sys.path.insert(0, "tests/analysis")
from run_records import without_held_back
run, d, rdmatrace = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
assert all(x["kind"] == "go_back_n" for x in without_held_back(run, rdmatrace, d["findings"]) if x["severity"] != "info"), d["findings"]
assert not [x for x in d["findings"] if "went off early" in x["text"]], [x["text"] for x in d["findings"]]
rows = subprocess.run(["tshark", "-r", run + "/capture.pcapng", "-Y", "infiniband", "-T", "fields", "-e", "frame.number",
                       "-e", "frame.time_epoch", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn"],
                      capture_output=True, text=True, check=True).stdout.split("\n")
fr = {int(r.split("\t")[0]): r.split("\t") for r in rows if r}
# the responder engine's held-back READ responses, as they left: PSN -> wall clock (ns)
held = {}
dump = subprocess.run([rdmatrace, "dump", "--json", "--kind", "packet"] + glob.glob(run + "/traces/*.rtr"),
                      capture_output=True, text=True, check=True).stdout
for line in dump.split("\n"):
    if line:
        e = json.loads(line)
        if e.get("dir") == "tx" and e.get("opcode", "").startswith("RC_RDMA_READ_RESPONSE") and e.get("held"):
            held.setdefault(e["psn"], []).append(e["ns"])
late = [x for x in d["findings"] if re.search(r"response PSN 0x[0-9a-f]+ came late", x["text"])]
assert late, [x["text"] for x in d["findings"]]
for x in late:
    psn = int(re.search(r"response PSN 0x([0-9a-f]+)", x["text"]).group(1), 16)
    gap = int(re.search(r"response gap frame (\d+)", x["evidence"]).group(1))
    m = re.search(r"late and resent response frames (\d+) and (\d+)", x["evidence"])
    copies = [int(n) for n in m.groups()] if m else [int(re.search(r"late response frame (\d+)", x["evidence"]).group(1))]
    assert all(int(fr[n][2]) in (13, 14, 15, 16) and int(fr[n][3]) == psn for n in copies), (x["text"], copies)
    # (one that came before the asking again may be the answer to an earlier request, overtaken by a held-back
    # copy of a later PSN: that copy showed the gap)
    # one of the copies is the held-back one, captured as it left: within 0.5 ms after its engine's record
    if m:
        assert any(-10e3 <= float(fr[n][1]) * 1e9 - t < 0.5e6 for n in copies for t in held.get(psn, [])), \
            (x["text"], copies, held.get(psn))
        assert "held back by the engine that sent it" in x["text"], x["text"]
PY
check "READ responses held back 1 ms: the clock aligns within 0.2 ms, no clock finding" \
	clock_within "$tmp/readdelay.json" 200000
# the ACK of a WRITE dropped by the requesting engine on arrival, after the
# capture point: the ACK timeout's Go-Back-N names that ACK and the drop the
# requester's trace holds
UROCE_FAULTS="drop:dir=rx,op=ack,nth=2" run imm "$tmp/acklost" >/dev/null
check "an ACK lost after the capture point: the ACK-timeout Go-Back-N names it, nothing else" \
	exactly "$tmp/acklost.json" "go_back_n=no ACK reached the sender" "go_back_n=reached the sender, whose engine dropped it as it arrived (injected loss)"
# the first WRITE packet dropped as it was sent, the receiver NAKs, and the
# resend's last packet (the one asking for an ACK) dropped too: its engine
# traced that drop as it queued it, before the resend's first packet passed
# the capture point; the ACK timeout's Go-Back-N names it
UROCE_FAULTS="drop:op=write,nth=1;drop:op=write,nth=7" run imm "$tmp/resenddrop" -- --ack-timeout 14 >/dev/null
check "a NAKed resend's last packet dropped: the ACK-timeout Go-Back-N names the drop" \
	expect "$tmp/resenddrop.json" go_back_n 1 "the sender's engine dropped PSN"
check "... in the ACK timeout's finding" python3 -c '
import json, sys
f = [x["text"] for x in json.load(open(sys.argv[1]))["findings"] if "the sender\x27s engine dropped PSN" in x["text"]]
assert f and all("within the local ACK timeout (timeout=14" in t for t in f), f' "$tmp/resenddrop.json"
# a READ response dropped by the responder's engine, and the requester's
# engine drops its asking again for it (uroce's resend=1 rule; uroce traces
# a READ request from a PSN inside the READ as a resend): the ACK timeout's
# round names both
UROCE_FAULTS="drop:op=read_resp,nth=2;drop:op=read,resend=1,nth=1" run minimal "$tmp/rereqdrop" --size 65536 -- --ack-timeout 14 >/dev/null
check "a READ response and the asking again for it dropped: the ACK-timeout round names both" \
	exactly "$tmp/rereqdrop.json" "go_back_n=skipped it, dropped by the responder's engine as it sent it (injected loss)" \
	"go_back_n=that request is not in the capture: the requester's engine dropped it as it sent it (injected loss)"
# the same, the READ response dropped again in the round that asked for it
# (a gap while that round was not yet acknowledged), and that asking again
# dropped: uroce acts on such a gap at once (rxe does not), and the ACK
# timeout's round says so
UROCE_FAULTS="drop:op=read_resp,nth=2;drop:op=read_resp,nth=16;drop:op=read,resend=1,nth=2" run minimal "$tmp/inretrydrop" --size 65536 -- --ack-timeout 14 >/dev/null
check "a response gap during a round not yet acknowledged, its asking again dropped: the timeout's round names both drops" \
	expect "$tmp/inretrydrop.json" go_back_n 1 "was not yet acknowledged; the responder's engine had dropped the response of PSN"
check "... and that the requester acted on the gap" \
	expect "$tmp/inretrydrop.json" go_back_n 1 "the requester acted on the response gap, asking again at once, and its engine dropped that request as it sent it (injected loss)"
# a one-packet WRITE dropped by the receiver's engine as it arrived, its
# first resend by the sender's engine as it sent it: two ACK timeouts, the
# unseen resend told as the engine's drop, not as lost before the capture
UROCE_FAULTS="drop:dir=rx,op=write,nth=1;drop:op=write,resend=1,nth=1" run imm "$tmp/unseendrop" --size 4096 -- --ack-timeout 14 >/dev/null
check "an ACK timeout whose resend the sender's engine dropped: the unseen round told as that drop" \
	exactly "$tmp/unseendrop.json" "go_back_n=2 ACK timeouts, the sender's resend after the first never reaching the capture point: dropped by its engine); the sender's engine dropped PSN"
# each side's first CM message sent twice on the way (uroce's "dup" fault on
# QP 1): the REQ and the REP copied 0.05 ms apart; the passive side may also
# answer the REQ's copy with its REP again, which is no lost message either
UROCE_FAULTS="dup:qp=1,nth=1" run minimal "$tmp/cmdup" >/dev/null
check "the REQ (and the REP) on the wire twice: duplicate findings, no lost CM message" \
	expect "$tmp/cmdup.json" duplicate 1 "sent its connection request (REQ) to"
check "... and its sending engine made the copy (injected)" \
	expect "$tmp/cmdup.json" duplicate 1 "so its sending engine made the copy on purpose (injected duplicate: a fault rule)"
# the REQ's copy held back 2 ms (moved on in the same capture with editcap and
# mergecap, as a loaded machine can capture it): still the same datagram,
# with the same PSN, so a copy made on the way, not the CM sending its REQ
# again (a CM's resend is a new send on its QP 1, with the next PSN)
cap="$tmp/cmdup/capture.pcapng"
copy=$(tshark -r "$cap" -Y "infiniband.mad.attributeid == 0x0010" -T fields -e frame.number 2>/dev/null | sed -n 2p)
editcap -r "$cap" "$tmp/reqcopy.pcapng" "$copy" && editcap -t 0.002 "$tmp/reqcopy.pcapng" "$tmp/reqlate.pcapng" &&
	editcap "$cap" "$tmp/others.pcapng" "$copy" && mergecap -w "$cap" "$tmp/others.pcapng" "$tmp/reqlate.pcapng"
"$RDMATRACE" correlate --force --quiet "$tmp/cmdup" && "$RDMATRACE" diagnose --json "$tmp/cmdup" >"$tmp/cmlate.json"
check "the REQ's copy 2 ms after it: a duplicate by its PSN, no lost CM message" \
	expect "$tmp/cmlate.json" duplicate 1 "every copy with the same PSN"
# UD does not resend: a datagram damaged on the way is lost, and the
# receiving engine's trace says it dropped it on arrival
UROCE_FAULTS="corrupt:op=send,nth=3" run ud "$tmp/udicrc" -- --timeout-ms 1500 >/dev/null
check "UD datagram damaged on the way: the bad ICRC dropped on arrival, and the datagram lost" \
	exactly "$tmp/udicrc.json" "bad_icrc=dropped on arrival (its receiver's trace)" "bad_icrc=(injected corruption: the sending engine damaged the ICRC on purpose, a fault rule)" \
	"unreliable_loss=dropped it on arrival for a bad ICRC"
UROCE_FAULTS="drop:dir=rx,op=send,nth=2" run ud "$tmp/udrx" -- --timeout-ms 1500 >/dev/null
check "UD datagram dropped by its receiver: the loss, from the receiving engine's trace" \
	expect "$tmp/udrx.json" unreliable_loss 1 "dropped it on arrival (injected loss)"
# a UD datagram sent twice on the way (each side's third SEND): no duplicate
# detection in UD, the copy took a receive WR of its own (the lab's client and
# server then see every later message shifted by one, and fail; a side that
# posted no receive for the last one dropped it, which is found too)
UROCE_FAULTS="dup:op=send,nth=3" run ud "$tmp/uddup" -- --timeout-ms 1500 >/dev/null
check "UD datagram sent twice on the way: each copy a duplicate that took a receive WR, nothing else" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
dup = [x for x in w if x["kind"] == "duplicate" and "UD datagram" in x["text"] and "took a receive WR" in x["text"] and
       "The sender\x27s engine made the copy on purpose (injected duplicate: a fault rule)." in x["text"]]
assert len(dup) == 2 and all(x in dup or (x["kind"] == "unreliable_loss" and "dropped at the receiver" in x["text"])
                             for x in w), [x["kind"] + ": " + x["text"] for x in w]' "$tmp/uddup.json"
# each side's second CM message dropped as it left: the client's RTU (it
# had its ESTABLISHED; the server never does and gives up before its CM
# sends the REP again) and the server's DREP (the client's DREQ sent
# again); the server's rdma_disconnect after the client's DREQ sends no DREQ
# of its own (both processes use QP 0x000011 on one host: a previous release
# took the client's REQ for the server's and called its DREQ lost)
UROCE_FAULTS="drop:qp=1,nth=2" run minimal "$tmp/rtulost" >/dev/null
check "the RTU dropped as it left: the server never had its ESTABLISHED, its DREP dropped as it left, nothing else" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
assert all(x["kind"] == "cm_lost" for x in w), [x["kind"] + ": " + x["text"] for x in w]
assert sum("no ready-to-use (RTU)" in x["text"] and "never reported ESTABLISHED" in x["text"] for x in w) == 1, [x["text"] for x in w]
assert sum("but no DREP came: " in x["text"] and "its engine dropped the CM message it sent after the first copy as it left (injected loss)" in x["text"]
          and "and its CM with it" in x["text"] for x in w) == 1 and len(w) == 2, [x["text"] for x in w]' "$tmp/rtulost.json"
# each side's first CM message (the REQ, then the REP) dropped by its engine
# as it left: both resends say so (a previous release: "lost between the
# sender and the capture point"); the client gives up before the REP's
# resend, then the server: each destroys its cm_id, and its CM library sends
# a REJ (reason 4, then 28), which the cm_reject findings say (a previous
# release: "the application refused the connection (rdma_reject), or its CM
# library did")
UROCE_FAULTS="drop:qp=1,nth=1" run minimal "$tmp/cmfirst" -- --timeout-ms 8000 >/dev/null
check "the REQ and the REP dropped as they left: both resends name the engine's drop" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
lost = [x for x in w if x["kind"] == "cm_lost"]
assert all(x["kind"] in ("cm_lost", "cm_reject") for x in w), [x["kind"] + ": " + x["text"] for x in w]
assert len(lost) == 2 and all("the copy before it was dropped by the sender'"'"'s engine as it sent it (injected loss)" in x["text"]
                              for x in lost), [x["text"] for x in lost]
assert sum("connection request (REQ)" in x["text"] for x in lost) == 1, [x["text"] for x in lost]
rj = [x["text"] for x in w if x["kind"] == "cm_reject"]
assert len(rj) == 2 and all("destroyed its cm_id (rdma_destroy_id" in x and "its CM library sent the REJ" in x for x in rj), rj' "$tmp/cmfirst.json"
# the server refuses the connection (rdma_reject with a text, --reject):
# the REJ's private data is said with the rdma_reject call, nothing else
# is an error or a warning
run minimal "$tmp/reject" -- --reject "server full" >/dev/null
check "a connection refused by rdma_reject with private data: the REJ's text is said" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
assert len(w) == 1 and w[0]["kind"] == "cm_reject", [x["kind"] + ": " + x["text"] for x in w]
t = w[0]["text"]
assert "reason 28 (consumer defined), the application refused the connection: it called rdma_reject" in t, t
assert "; the private data it gave rdma_reject (carried by the REJ): \"server full\" (11 bytes)" in t, t' "$tmp/reject.json"
# a run whose connection failed has no WR and no QP packet to align its
# clocks by, only the CM's datagrams: the engines' records of them, matched
# to the capture by PSN, bound the clock (a previous release: +-6145 ms).
# How tight depends on the machine: each datagram bounds it by the time from
# its sender's record to its receiver's (0.05-0.9 ms seen on loopback), so
# the check takes the tightest of those from the traces
check "the REQ and the REP dropped as they left: the CM datagrams align the clock within their send-to-receive time" \
	python3 - "$tmp/cmfirst" "$RDMATRACE" <<'PY'
import sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
tx, rx = {}, {}
for e in trace_events(run, rt, "packet"):
    if e["qpn"] == 1 and not e.get("dropped"):
        (tx if e["dir"] == "tx" else rx).setdefault(e["psn"], []).append(e["ns"])
spans = [rx[p][0] - tx[p][0] for p in tx if len(tx[p]) == 1 and len(rx.get(p, [])) == 1]
assert spans and 0 < min(spans) < 20e6, (tx, rx)
d = diagnosis(run, rt)
assert not [x for x in d["findings"] if x["kind"] == "clock"], d["findings"]
bound = min(spans) + 20000
assert all(h["uncertainty_ns"] is not None and h["uncertainty_ns"] <= bound and abs(h["offset_ns"]) <= bound
           for h in d["hosts"]), (d["hosts"], spans)
PY
# the same drops on HERD, whose server accepts its UC connection on a cm_id
# made by rdma_create_ep without an event channel: rdma_accept waits inside
# librdmacm for the RTU, and the client gives up first (its SIDR exchange,
# which the waiting server does not answer).  The client's ESTABLISHED is
# only in its engine's trace (no event channel: the probe never sees it);
# the failed rdma_accept is told with the DISCONNECTED that ended it; the
# client's SIDR REQ, which the server's UD listener held untaken, is refused
# (SIDR REP status 2) when the server, giving up, destroys that listener
UROCE_FAULTS="drop:qp=1,nth=2" run herd "$tmp/herdrtu" -- --timeout-ms 1500 >/dev/null
check "a synchronous rdma_accept waiting for a lost RTU: the RTU, the failed accept and the UD request its teardown refused told, nothing else" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
rtu = [x for x in w if x["kind"] == "cm_lost" and "no ready-to-use (RTU)" in x["text"] and
       "rdma_accept, waiting for that RTU, failed with EINVAL" in x["text"]]
acc = [x for x in w if x["kind"] == "call_failed" and "it waited for the connection of QP" in x["text"] and
       "its DISCONNECTED event came" in x["text"]]
ud = [x for x in w if x["kind"] == "cm_reject" and "refused the UD service request (SIDR REQ) of " in x["text"] and
      "status 2 (rejected: " in x["text"] and "; its program destroyed the listener (port " in x["text"] and
      ") before it took the request with rdma_get_cm_event (rdma_destroy_id " in x["text"]]
assert len(rtu) == 1 and len(acc) == 1 and len(ud) == 1 and len(w) == 3, [x["kind"] + ": " + x["text"] for x in w]' "$tmp/herdrtu.json"
# an atomic request, then an atomic ACK, dropped by the receiving engine on
# arrival: the ACK-timeout rounds name the captured packet and the drop
UROCE_FAULTS="drop:op=atomic,dir=rx,nth=3" run atomics "$tmp/atomrx" >/dev/null
check "an atomic request dropped on arrival: the ACK-timeout round names it, nothing else" \
	exactly "$tmp/atomrx.json" "go_back_n=the transmission it repeats (frame" "go_back_n=reached the receiver, whose engine dropped it as it arrived (injected loss)"
UROCE_FAULTS="drop:op=atomic_ack,dir=rx,nth=3" run atomics "$tmp/atomackrx" >/dev/null
check "an atomic ACK dropped on arrival: the ACK-timeout round names it, nothing else" \
	exactly "$tmp/atomackrx.json" "go_back_n=that atomic ACK (frame" "go_back_n=reached the requester, whose engine dropped it as it arrived (injected loss)"
# the first RNR NAK dropped as it reached the sender's engine: the sender never
# waits on that RNR timer, its ACK timer resends; both findings say the
# engine dropped it (a previous release: "lost before the capture point, or
# the NAK was lost on its way back", and the RNR stall counted 655 ms waited)
UROCE_FAULTS="drop:op=ack,dir=rx,nth=1" run rnr "$tmp/rnrdrop" >/dev/null
check "an RNR NAK dropped on arrival: the ACK-timeout round and the stall both say so" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["findings"] if x["severity"] != "info"]
gbn = [x for x in w if x["kind"] == "go_back_n"]
assert len(gbn) == 1 and "the sender'"'"'s engine dropped that NAK as it arrived (injected loss)" in gbn[0]["text"], [x["text"] for x in gbn]
st = [x for x in w if x["kind"] == "rnr_stall" and "dropped its RNR NAK (frame" in x["text"]]
assert len(st) == 1 and "the sender waited" not in st[0]["text"], [x["text"] for x in w if x["kind"] == "rnr_stall"]
assert all(x["kind"] in ("go_back_n", "rnr_stall") for x in w), [x["kind"] + ": " + x["text"] for x in w]' "$tmp/rnrdrop.json"
# SENDs on the wire twice (every 9th) while the receiver posts its receives
# slowly: RNR NAKs, and a sender busy with the copies' NAKs resends after an
# RNR timer of 0.01 ms a millisecond late, which the capture alone takes for
# the ACK timeout's round; its engine traced an RNR retry, so no stall says
# that resend never reached the capture (a previous release: 3 of 8 stalls
# in one run)
UROCE_FAULTS="dup:every=9" run sendrecv "$tmp/rnrslow" >/dev/null
check "RNR resends a busy sender made late: no stall says they never reached the capture" \
	python3 - "$tmp/rnrslow" "$RDMATRACE" <<'PY'
import re, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
rnr = set(e["first_psn"] for e in trace_events(run, rt, "retry") if e["cause"] == "rnr")
st = [x for x in diagnosis(run, rt)["findings"] if x["kind"] == "rnr_stall"]
for x in st:
    m = re.search(r"its resend of PSN 0x([0-9a-f]+) after the timer is not in the capture", x["text"])
    assert not m or int(m.group(1), 16) not in rnr, ("its engine traced that RNR retry", x["text"])
PY
# the last packet of a WRITE dropped by the sender's engine as it sent it,
# then the receiver's ACK of the resend dropped by its engine as it sent it:
# two ACK timeouts, one Go-Back-N finding that names both drops and their
# PSNs, from the engines' traces (a previous release said only "no ACK came")
UROCE_FAULTS="drop:op=write,nth=4;drop:op=ack,nth=1" run imm "$tmp/txdrops" >/dev/null
check "a request, then the ACK of its resend, dropped as sent: the ACK-timeout rounds name both, nothing else" \
	python3 - "$tmp/txdrops" "$RDMATRACE" <<'PY'
import sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
drops = sorted((e["ns"], e["opcode"], e["psn"]) for e in trace_events(run, rt, "packet")
               if e.get("dropped") and e["dir"] == "tx")
assert [o for _, o, _ in drops] == ["RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RC_ACKNOWLEDGE"], drops
d = diagnosis(run, rt)
w = [x for x in d["findings"] if x["severity"] != "info"]
assert len(w) == 1 and w[0]["kind"] == "go_back_n", [x["kind"] + ": " + x["text"] for x in w]
t = w[0]["text"]
assert "in 2 rounds" in t, t
assert "the sender's engine dropped PSN 0x%06x as it sent it (injected loss)" % drops[0][2] in t, t
assert "then the receiver's engine dropped its ACK of PSN 0x%06x as it sent it (injected loss)" % drops[1][2] in t, t
PY
# a WRITE packet, then a READ response, dropped by its sender's engine as it
# sent it: the NAKed round and the READ response gap name the drop (a
# previous release: "lost before the capture point")
UROCE_FAULTS="drop:op=write,nth=2" run imm "$tmp/writetx" >/dev/null
check "a WRITE packet dropped as sent: the NAKed round says it never left the sender, nothing else" \
	exactly "$tmp/writetx.json" "go_back_n=because that packet never left the sender: its engine dropped it as it sent it (injected loss)"
UROCE_FAULTS="drop:op=read_resp,nth=1" run minimal "$tmp/readtx" >/dev/null
check "a READ response dropped as sent: the response gap says it never left the responder, nothing else" \
	exactly "$tmp/readtx.json" "go_back_n=never left the responder: its engine dropped it as it sent it (injected loss)"
# the same drop from an engine that holds its READ responses back 3 ms: it
# traces the drop at once and the responses around it as they leave, 3 ms
# later, so the drop is found by its order in the engine's trace, not by its
# time, and the response of that PSN after the gap is the answer to the
# asking again, not the dropped one come late (a previous release: "came
# late (frame 38), after later responses and after the requester asked for
# it again: held back by the engine that sent it")
UROCE_FAULTS="drop:op=read_resp,nth=3;delay:op=read_resp,us=3000" run minimal "$tmp/readtxheld" >/dev/null
check "a READ response dropped as sent by an engine holding its responses back: never left the responder" \
	exactly "$tmp/readtxheld.json" "go_back_n=never left the responder: its engine dropped it as it sent it (injected loss)"
# the first run again, its capture without the responses after the dropped
# one (as a capture that drops packets itself has it): no response gap in
# the capture, so the round is told from the requester's engine's retry
# (after an implied NAK), with the responder's drop that made the gap (a
# previous release named no drop)
check "a READ response dropped as sent, the gap not in the capture: the engine's implied NAK and the responder's drop" \
	python3 - "$tmp/readtx" "$tmp/readtxhole" "$RDMATRACE" <<'PY'
import json, shutil, subprocess, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
src, run, rt = sys.argv[1:4]
shutil.rmtree(run, ignore_errors=True)
shutil.copytree(src, run)
drops = [e for e in trace_events(run, rt, "packet") if e.get("dropped") and e["dir"] == "tx"]
assert len(drops) == 1, drops
x = drops[0]["psn"]
rows = subprocess.run(["tshark", "-r", run + "/capture.pcapng", "-T", "fields", "-e", "frame.number",
                       "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn"],
                      capture_output=True, text=True, check=True).stdout.splitlines()
cut = []
for r in rows:
    f = r.split("\t")
    if len(f) < 3 or not f[2]:
        continue
    n, op, psn = int(f[0]), int(f[1]), int(f[2])
    if op == 12 and psn == x and cut:  # the READ asked again from the dropped PSN
        break
    if 13 <= op <= 16 and 0 < (psn - x) % (1 << 24) < (1 << 23):  # a READ response past it
        cut.append(str(n))
assert cut, "no response after the dropped one in the capture"
subprocess.run(["editcap", run + "/capture.pcapng", run + "/cut.pcapng"] + cut, check=True)
shutil.move(run + "/cut.pcapng", run + "/capture.pcapng")
w = [f for f in diagnosis(run, rt)["findings"] if f["severity"] != "info"]
assert len(w) == 1 and w[0]["kind"] == "go_back_n", [f["kind"] + ": " + f["text"] for f in w]
t = w[0]["text"]
assert "its engine traced that retry after an implied NAK; the responder's engine had dropped its READ response " \
       "of PSN 0x%06x as it sent it (injected loss): the requester never got it" % x in t, t
PY
# an RNR NAK made up by the receiving engine's fault rule while 16 receives
# were posted: its stall says so, with the receive queue's depth (a previous
# release said "had no receive WR posted"); the scenario's own RNR stalls
# (its receiver reposts behind the sender) stay as they are
UROCE_FAULTS="rnr:count=1" run sendrecv "$tmp/rnrinj" >/dev/null
check "an injected RNR NAK: its stall says the fault rule made it up, with the receives posted" \
	python3 - "$tmp/rnrinj" "$RDMATRACE" <<'PY'
import re, sys
sys.path.insert(0, "tests/analysis")
from run_records import diagnosis, trace_events
run, rt = sys.argv[1], sys.argv[2]
inj = [e["psn"] for e in trace_events(run, rt, "rnr") if e["dir"] == "tx" and e.get("injected")]
assert len(inj) == 1, inj
d = diagnosis(run, rt)
w = [x for x in d["findings"] if x["severity"] != "info"]
assert all(x["kind"] == "rnr_stall" for x in w), [x["kind"] + ": " + x["text"] for x in w]
made = [x for x in w if "fault injection made up" in x["text"]]
assert len(made) == 1 and "PSN 0x%06x" % inj[0] in made[0]["text"], [x["text"] for x in w]
assert re.search(r"had (\d+) receive WRs? posted for PSN", made[0]["text"]), made[0]["text"]
assert all("had no receive WR posted" in x["text"] and "PSN 0x%06x " % inj[0] not in x["text"]
           for x in w if x is not made[0]), [x["text"] for x in w]
PY
# READs followed by WRITEs: a READ's responses take ceil(length/MTU) PSNs, so
# the next request's PSN is no gap
rc=$(run minimal "$tmp/rdclean" --count 3)
check "WRITE, READ, WRITE ... without loss: no finding at all" python3 - "$tmp/rdclean.json" "$rc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0" and not d["findings"], [f["kind"] + ": " + f["text"] for f in d["findings"]]
PY
# Every retry a requesting engine traced (PSN and cause) must be a Go-Back-N
# finding for that PSN and cause, found from the capture alone (a retry whose
# resend the engine itself dropped never reached the capture and is excused),
# and there must be no other finding at warning level but RNR stalls and
# CM messages lost (the injected loss hits them too: a DREQ lost twice is one).
cat >"$tmp/retries.py" <<'PY'
import glob, json, re, subprocess, sys
run, rt, need = sys.argv[1], sys.argv[2], sys.argv[3]
extra_max = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # findings no engine retry has (PSN, cause) of
want, unseen = set(), set()
for f in glob.glob(run + "/traces/*.rtr"):
    pending = {}  # PSN -> the retry whose resend of it is the next packet with that PSN
    for l in subprocess.run([rt, "dump", "--json", f], capture_output=True, text=True, check=True).stdout.splitlines():
        e = json.loads(l)
        if e.get("kind") == "retry" and e["cause"] != "rnr":
            want.add((e["first_psn"], e["cause"]))
            pending[e["first_psn"]] = e["cause"]
        elif e.get("kind") == "packet" and e.get("dir") == "tx" and e["psn"] in pending and "RESPONSE" not in e["opcode"]:
            cause = pending.pop(e["psn"])
            if e.get("dropped"):
                unseen.add((e["psn"], cause))  # that round never reached the capture
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
got = set()
sys.path.insert(0, "tests/analysis")
from run_records import without_storms
for f in without_storms(d["findings"]):
    assert f["kind"] in ("go_back_n", "rnr_stall", "cm_lost") or f["severity"] == "info", f["kind"] + ": " + f["text"]
    assert "PSN gap" not in f["text"], f["text"]
    if f["kind"] == "go_back_n":
        # a round well before the ACK timeout whose NAK the capture missed counts as the NAK's
        # (the engine's retry events speak for what the capture missed: "N retries from PSN ... after CAUSE")
        cause = ("nak_seq" if "NAKed PSN" in f["text"] or "the NAK that made it" in f["text"] or
                 "after NAK PSN sequence error" in f["text"]
                 else "implied_nak" if "READ response PSN" in f["text"] or "after an implied NAK" in f["text"]
                 else "ack_timeout")
        got.add((int(re.search(r"PSN 0x([0-9a-f]+)", f["text"]).group(1), 16), cause))
assert any(c == need for _, c in want), ("no %s retry in this run" % need, want)
assert len(got - want) <= extra_max and not want - got - unseen, ("missing", sorted(want - got - unseen), "extra", sorted(got - want))
PY
# READ responses lost: the requester asks again from inside the READ's PSN
# range (an implied NAK)
run minimal "$tmp/rdgap" --count 4 --loss 10 --seed 7 >/dev/null
check "READ responses lost: each engine retry is a finding with its PSN and cause, nothing else (but lost CM messages)" \
	python3 "$tmp/retries.py" "$tmp/rdgap" "$RDMATRACE" implied_nak
# SEND/RECV under loss: NAKs, ACK timeouts after resends lost before the
# capture, RNR NAKs whose resend never came
run sendrecv "$tmp/srloss" --loss 5 --seed 7 >/dev/null
check "SEND/RECV, 5% loss: each engine retry is a finding with its PSN and cause, nothing else but RNR stalls and lost CM messages" \
	python3 "$tmp/retries.py" "$tmp/srloss" "$RDMATRACE" nak_seq
# the 5% loss run's capture (ACK timeout 16.8 ms) started late (cut with editcap -A after its first
# engine retries): the retries before it come from the engine's retry events, and the
# rdma_connect before it lost no REQ; one finding whose cause the capture
# alone tells otherwise is let pass (a round at the capture's first packets:
# seen once in seven runs)
mkdir -p "$tmp/losslate/traces" && cp "$tmp"/loss/traces/*.rtr "$tmp/losslate/traces/"
# quiet_time FIRST|LAST: a time between two of the loss run's engine retries
# (not an RNR NAK's) 10 to 500 ms apart, the first or last such pair, as
# editcap takes it: a cut there splits no round, and leaves the capture more
# than an ACK timer's resend (in a 2 s wait for one, the capture holds little
# else and its clock is bounded only to +-2 s: which retries came before it
# cannot be told).  uroce runs on one machine: the engines' clock is the
# capture's
quiet_time() {
	"$RDMATRACE" dump --json --kind retry "$tmp"/loss/traces/*.rtr | python3 -c '
import datetime, json, sys
t = sorted(e["ns"] for e in map(json.loads, filter(str.strip, sys.stdin)) if e["cause"] != "rnr")
gaps = [(a + b) / 2e9 for a, b in zip(t, t[1:]) if 10_000_000 <= b - a <= 500_000_000]
if gaps:
    x = gaps[0] if sys.argv[1] == "first" else gaps[-1]
    print(datetime.datetime.utcfromtimestamp(x).strftime("%Y-%m-%d %H:%M:%S.%f"))' "$1"
}
cut_at=$(quiet_time first)
if [ -n "$cut_at" ] && TZ=UTC editcap -A "$cut_at" "$tmp/loss/capture.pcapng" "$tmp/losslate/capture.pcapng" 2>/dev/null; then
	"$RDMATRACE" correlate --quiet "$tmp/losslate" >/dev/null
	check "5% loss, the capture started late: each engine retry is a finding with its PSN and cause, no lost REQ" \
		bash -c "python3 '$tmp/retries.py' '$tmp/losslate' '$RDMATRACE' nak_seq 1 &&
			\"$RDMATRACE\" diagnose '$tmp/losslate' | grep -q 'the capture had not started yet' &&
			! \"$RDMATRACE\" diagnose '$tmp/losslate' | grep -q '^F[0-9]* .*cm_lost'"
else
	skip "capture started late" "no editcap, or no 10-500 ms between two retries"
fi
# and stopped early, before its last retries
mkdir -p "$tmp/lossearly/traces" && cp "$tmp"/loss/traces/*.rtr "$tmp/lossearly/traces/"
cut_at=$(quiet_time last)
if [ -n "$cut_at" ] && TZ=UTC editcap -B "$cut_at" "$tmp/loss/capture.pcapng" "$tmp/lossearly/capture.pcapng" 2>/dev/null; then
	"$RDMATRACE" correlate --quiet "$tmp/lossearly" >/dev/null
	check "5% loss, the capture stopped early: each engine retry is a finding with its PSN and cause" \
		bash -c "python3 '$tmp/retries.py' '$tmp/lossearly' '$RDMATRACE' nak_seq 1 &&
			\"$RDMATRACE\" diagnose '$tmp/lossearly' | grep -q 'the capture had ended'"
else
	skip "capture stopped early" "no editcap, or no 10-500 ms between two retries"
fi
# a capture that missed whole messages: receives pair with the traced sender's
# WRs, not with the captured messages in order, so the clock still aligns
run sendrecv "$tmp/sr" --count 64 >/dev/null
mkdir -p "$tmp/srgap/traces" && cp "$tmp"/sr/traces/*.rtr "$tmp/srgap/traces/"
if command -v editcap >/dev/null && editcap -r "$tmp/sr/capture.pcapng" "$tmp/srgap/capture.pcapng" 1-29 36-100000 2>/dev/null; then
	"$RDMATRACE" correlate --quiet "$tmp/srgap" && "$RDMATRACE" diagnose --json "$tmp/srgap" >"$tmp/srgap.json"
	check "capture missing 6 frames: the clock still aligns (no clock finding, uncertainty under 1 ms)" python3 - "$tmp/srgap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f["text"] for f in d["findings"] if f["kind"] == "clock" and "wall clock of" not in f["text"]]
assert not bad, bad  # (a wall clock set during the run is told, and no reason for another)
traced = [h for h in d["hosts"] if h["uncertainty_ns"] is not None and h["name"] != "capture"]
assert traced and all(h["uncertainty_ns"] < 1_000_000 for h in traced), d["hosts"]
PY
else
	skip "capture missing frames" "no editcap"
fi
# a capture that missed the run (another interface, a filter, another time):
# said so, and the engines' retry events stand in for its rounds
mkdir -p "$tmp/lossnocap/traces" && cp "$tmp"/loss/traces/*.rtr "$tmp/lossnocap/traces/"
if command -v editcap >/dev/null && editcap -A "2037-01-01 00:00:00" "$tmp/loss/capture.pcapng" "$tmp/lossnocap/capture.pcapng" 2>/dev/null; then
	"$RDMATRACE" correlate --quiet "$tmp/lossnocap" && "$RDMATRACE" diagnose --json "$tmp/lossnocap" >"$tmp/lossnocap.json"
	check "capture without the run's packets: said so, and each engine retry (QP, PSN, cause) is a Go-Back-N finding" \
		python3 - "$tmp/lossnocap.json" "$RDMATRACE" "$tmp"/loss/traces/*.rtr <<'PY'
import json, re, subprocess, sys
sys.path.insert(0, "tests/analysis")
from run_records import without_storms
d, rt = json.load(open(sys.argv[1])), sys.argv[2]
d["findings"] = without_storms(d["findings"])
want = set()
for f in sys.argv[3:]:
    for l in subprocess.run([rt, "dump", "--json", "--kind", "retry", f], capture_output=True, text=True, check=True).stdout.splitlines():
        e = json.loads(l)
        want.add((e["qpn"], e["first_psn"], e["cause"]))
assert want, "the loss run retried nothing"
miss = [x for x in d["findings"] if x["kind"] == "missing_input" and "holds no packet of QP" in x["text"]]
assert len(miss) == 1 and miss[0]["severity"] == "info", [x["text"] for x in d["findings"]]
causes = {"NAK PSN sequence error": "nak_seq", "local ACK timeout": "ack_timeout", "an implied NAK": "implied_nak"}
got = set()
for x in d["findings"]:
    if x["kind"] == "go_back_n":
        m = re.search(r"QP 0x([0-9a-f]+) .*retr(?:y|ies) from PSN 0x([0-9a-f]+) after (NAK PSN sequence error|local ACK timeout|an implied NAK)", x["text"])
        assert m, x["text"]
        got.add((int(m.group(1), 16), int(m.group(2), 16), causes[m.group(3)]))
    else:
        assert x["kind"] in ("missing_input", "rnr_stall") or x["severity"] == "info", x["kind"] + ": " + x["text"]
assert got == want, (sorted(want), sorted(got))
PY
else
	skip "capture without the run's packets" "no editcap"
fi
# UD and UC never retransmit: an injected drop is data lost, found from the engine's trace
run ud "$tmp/ud" --loss 20 --seed 1 -- --timeout-ms 1500 >/dev/null
check "UD with loss: the dropped datagrams, nothing else (but lost CM messages)" expect "$tmp/ud.json" unreliable_loss 1 "(UD) lost" cm_lost
# the ud lab does not resend (that is its lesson): a side stopped by a lost
# datagram passes its check because the diagnosis found the loss
check "UD with loss: the lab counts a side stopped by a lost datagram as shown, the loss being found" \
	grep -Eq '^  ok    (client|server): fail .*: under --loss a lost datagram stops the exchange' "$tmp/ud.log"
# each captured datagram is linked to the send WR that sent it (by PSN) and,
# when a receive completion took it, to that receive WR; the datagrams bound
# the host's clock from both sides (the post before the capture, the capture
# before the receive completion) without any ACK
run ud "$tmp/ud4" --loss 10 --seed 4 -- --timeout-ms 1500 >/dev/null
check "UD: every captured datagram has its send WR, the received ones their receive WR, the clock is bounded" \
	python3 tests/analysis/check_ud_links.py "$tmp/ud4" "$RDMATRACE"
run herd "$tmp/herd" --loss 10 --seed 3 -- --timeout-ms 1500 >/dev/null
check "HERD with loss: the dropped UC requests and UD replies, nothing else (but lost CM messages)" expect "$tmp/herd.json" unreliable_loss 2 ") lost " cm_lost
check "HERD with loss: the capture holds its UD datagrams, so no note says it holds none of its QPs' packets" \
	bash -c "! grep -q 'the capture holds no packet of QP' '$tmp/herd.json'"
# the lab recovers as HERD does (the client reissues, the server answers a
# reissue of the request it answered last again), so every loss the
# diagnosis found is one recovery the programs counted
check "HERD with loss: runs to the end, one reissue per request or reply found lost, one reply resent per reply found lost" \
	python3 - "$tmp/herd" <<'PY'
import json, re, sys
run = sys.argv[1]
cli = open(run + "/logs/client-rt-lab-herd.out").read()
srv = open(run + "/logs/server-rt-lab-herd.out").read()
assert "RESULT herd client ok" in cli and "RESULT herd server ok" in srv, (cli[-300:], srv[-300:])
reissued = int(re.search(r"reissued=(\d+)", cli).group(1))
resent = int(re.search(r"replies_resent=(\d+)", srv).group(1))
d = json.load(open(run + ".json"))
lost = {m.group(1): int(m.group(2)) for f in d["findings"] for m in [re.search(r"\((UC|UD)\) lost (\d+) packet", f["text"])] if m}
uc, ud = lost.get("UC", 0), lost.get("UD", 0)
# the client's last WRITE (one slot past the requests: "done") may be one of the UC losses
assert resent == ud and uc + ud - 1 <= reissued <= uc + ud and reissued > 0, (reissued, resent, lost)
print(f"# {reissued} reissued for {uc} UC requests and {ud} UD replies lost, {resent} replies resent")
PY
# no capture: the engines' retry events, timed from the engine's first
# transmission of the PSN each round went back to
run loss "$tmp/nocap" --size 1M --count 8 --loss 5 --no-capture >/dev/null
check "5% loss, no capture: Go-Back-N from the retry events, each with its time lost" python3 - "$tmp/nocap.json" <<'PY'
import json, sys
sys.path.insert(0, "tests/analysis")
from run_records import without_storms
d = json.load(open(sys.argv[1]))
d["findings"] = without_storms(d["findings"])
g = [f for f in d["findings"] if f["kind"] == "go_back_n"]
assert g and all("after that PSN was first sent" in f["text"] and f["time_lost_ns"] > 0 for f in g), [f["text"] for f in g]
other = [f["kind"] for f in d["findings"] if f["kind"] != "go_back_n" and f["severity"] != "info"]
assert not other, other
notes = " ".join(d.get("notes", []))
assert "no capture" in notes and "traced engines" in notes, notes
PY
# every run above correlated and diagnosed again under AddressSanitizer: the
# detectors' paths that only lost, damaged or refused traffic takes
if sanitizer_build; then
	skip "golden runs under ASan" "this run is already a sanitizer build"
elif asan_build "$tmp/asan-build.log"; then
	for d in "$tmp"/*/; do
		ASAN_OPTIONS=log_path=$tmp/asan.log build-address/rdmatrace correlate --force --quiet "$d" >/dev/null 2>&1
		ASAN_OPTIONS=log_path=$tmp/asan.log build-address/rdmatrace diagnose --json "$d" >/dev/null 2>&1
	done
	if ls "$tmp"/asan.log.* >/dev/null 2>&1; then
		not_ok "golden runs under ASan: no errors"; head -30 "$tmp"/asan.log.* | sed 's/^/#   /'
	else
		ok "golden runs under ASan: no errors ($(ls -d "$tmp"/*/ | wc -l) runs)"
	fi
else
	skip "golden runs under ASan" "could not build build-address/rdmatrace within 240 s: $(tail -1 "$tmp/asan-build.log")"
fi
done_testing
