#!/usr/bin/env bash
# correlate / diagnose / export from the command line: exit codes, staleness,
# JSON output, the export formats, and clear errors for bad run directories.
. tests/lib.sh
GEN=$BUILD/bench/correlate_gen
tmp=$(mktemp -d /tmp/rdmatrace-analysis-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

check "generate a clean run" "$GEN" "$tmp/clean" 3000
check "generate a run with a lost packet" "$GEN" "$tmp/loss" 3000 loss
check "generate a run with an RNR stall" "$GEN" "$tmp/rnr" 3000 rnr0
check "generate a run with a bad rkey" "$GEN" "$tmp/rkey" 3000 rkey

check "correlate builds the timeline" "$RDMATRACE" correlate "$tmp/clean"
check "timeline file exists" test -s "$tmp/clean/timeline.rtl"
check "annotated capture exists" test -s "$tmp/clean/annotated.pcapng"
check "annotations sidecar is JSON Lines" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/clean/annotations.jsonl"
check "no temporary file is left beside the timeline" bash -c '! ls "$1"/*.tmp.* 2>/dev/null' _ "$tmp/clean"
out=$("$RDMATRACE" correlate "$tmp/clean")
check "correlate again is a no-op" grep -q 'up to date' <<<"$out"
# the file the build prepares for the save is removed when the save fails
"$GEN" "$tmp/nosave" 3000 >/dev/null && mkdir -p "$tmp/nosave/timeline.rtl/x"
out=$("$RDMATRACE" correlate --force "$tmp/nosave" 2>&1); rc=$?
check "a timeline that cannot be written: exit 2 with the reason" test "$rc" = 2 -a -n "$(grep -i 'cannot write' <<<"$out")"
check "a failed save leaves no temporary file" bash -c '! ls "$1"/*.tmp.* 2>/dev/null' _ "$tmp/nosave"
touch "$tmp/clean/capture.pcap"
out=$("$RDMATRACE" correlate "$tmp/clean")
check "a newer input makes it stale" grep -q 'rows' <<<"$out"

"$RDMATRACE" diagnose "$tmp/clean" >"$tmp/clean.txt"; rc=$?
check "diagnose: clean run exits 0" test "$rc" = 0
check_grep "diagnose prints per-QP statistics" '^0x000011 ' "$tmp/clean.txt"
check_grep "diagnose prints latency percentiles" '^RDMA_WRITE ' "$tmp/clean.txt"
# each WR's stages are in causal order (post, wire, ACK, completion), so on a
# clean run where every WRITE has all three their medians are in that order
check "diagnose --json: WRITE latency to the wire, to the ACK and to the completion, in that order" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "diagnose", "--json", sys.argv[2]], capture_output=True).stdout)
w = [l for l in d["latency"] if l["opcode"] == "RDMA_WRITE"][0]
assert w["wire_count"] == w["ack_count"] == w["count"] > 0, w
assert 0 <= w["wire_p50_ns"] <= w["ack_p50_ns"] <= w["p50_ns"], w
assert w["wire_p99_ns"] >= w["wire_p50_ns"] and w["ack_p99_ns"] >= w["ack_p50_ns"], w
' "$RDMATRACE" "$tmp/clean"

"$RDMATRACE" diagnose "$tmp/loss" >"$tmp/loss.txt"; rc=$?
check "diagnose: lost packet exits 1" test "$rc" = 1
check_grep "diagnose names the Go-Back-N" 'F1 \[warning\] go_back_n' "$tmp/loss.txt"
check_grep "with frame evidence" 'evidence: first retransmission frame [0-9]+' "$tmp/loss.txt"

# a packet with a bad ICRC: acknowledged and never sent again, only the
# capture's copy was damaged (info); a damaged copy followed by a good one of
# the same PSN, the receiver dropped it (warning)
"$GEN" "$tmp/icrc" 3000 >/dev/null
for mode in copy link qpn psn; do
	mkdir -p "$tmp/icrc-$mode" && cp -r "$tmp/icrc/traces" "$tmp/icrc-$mode/"
	python3 tests/analysis/corrupt_capture.py "$tmp/icrc/capture.pcap" "$tmp/icrc-$mode/capture.pcap" 21 $mode
	"$RDMATRACE" diagnose --json "$tmp/icrc-$mode" >"$tmp/icrc-$mode.json"
	echo $? >"$tmp/icrc-$mode.rc"
done
check "bad ICRC on the capture's copy only: info, acknowledged and never sent again, exit 0" python3 - "$tmp/icrc-copy.json" "$(cat "$tmp/icrc-copy.rc")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "bad_icrc"]
assert sys.argv[2] == "0" and len(f) == 1 and f[0]["severity"] == "info", (sys.argv[2], d["findings"])
assert "frame 21 (RC Send Only, PSN 0x" in f[0]["text"] and "acknowledged at frame 22 and never sent again" in f[0]["text"], f
assert "only the capture's copy is damaged" in f[0]["text"], f
assert [x for x in d["findings"] if x["severity"] != "info"] == [], d["findings"]
PY
check "bad ICRC followed by a good copy: the receiver dropped it (warning, exit 1)" python3 - "$tmp/icrc-link.json" "$(cat "$tmp/icrc-link.rc")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "bad_icrc"]
assert sys.argv[2] == "1" and len(f) == 1 and f[0]["severity"] == "warning", (sys.argv[2], d["findings"])
assert "sent again at frame 22" in f[0]["text"] and "its receiver dropped it" in f[0]["text"], f
g = [x for x in d["findings"] if x["kind"] == "go_back_n"]
assert g and "the transmission it repeats (frame 21) had a bad ICRC" in g[0]["text"], d["findings"]
PY
check "bad ICRC in a damaged header: the packet makes no QP of the QPN it seems to name" python3 - "$tmp/icrc-qpn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [x for x in d["findings"] if x["kind"] == "bad_icrc"], d["findings"]
assert sorted({q["qpn"] for q in d["qps"]}) == [0x11, 0x12], [(hex(q["qpn"]), q["host"]) for q in d["qps"]]
PY
# a damaged PSN (or QPN) leaves the packet out of its stream, and the gap it
# leaves there, which nothing resent, is no capture drop: only the bad ICRC
# (info: the receiver took it intact), no Go-Back-N, no PSN gap
for mode in psn qpn; do
	check "bad ICRC in a damaged $mode: the packet stands in its stream's gap, nothing else (info, exit 0)" \
		python3 - "$tmp/icrc-$mode.json" "$(cat "$tmp/icrc-$mode.rc")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0" and [x["kind"] for x in d["findings"]] == ["bad_icrc"], (sys.argv[2], d["findings"])
f = d["findings"][0]
assert f["severity"] == "info" and "frame 21 (RC Send Only" in f["text"], f
assert "its headers damaged too (it stands in a gap of its stream's PSNs that nothing resent)" in f["text"], f
assert "its receiver took it intact" in f["text"], f
PY
done
# the first packet of a stream, damaged: its PSN is a traced WR's, so it
# starts its stream as an intact one would
first=$(tshark -r "$tmp/icrc/capture.pcap" -Y "infiniband.bth.destqp != 1" -T fields -e frame.number 2>/dev/null | head -1)
for mode in copy link; do
	mkdir -p "$tmp/first-$mode" && cp -r "$tmp/icrc/traces" "$tmp/first-$mode/"
	python3 tests/analysis/corrupt_capture.py "$tmp/icrc/capture.pcap" "$tmp/first-$mode/capture.pcap" "$first" $mode
	"$RDMATRACE" diagnose --json "$tmp/first-$mode" >"$tmp/first-$mode.json"
done
check "the stream's first packet damaged in the capture's copy: acknowledged, never sent again (info)" \
	python3 - "$tmp/first-copy.json" "$first" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [(x["kind"], x["severity"]) for x in d["findings"]] == [("bad_icrc", "info")], d["findings"]
assert "frame %s (" % sys.argv[2] in d["findings"][0]["text"] and "never sent again" in d["findings"][0]["text"], d["findings"]
PY
check "the stream's first packet damaged on the link: its receiver dropped it, the Go-Back-N names it" \
	python3 - "$tmp/first-link.json" "$first" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["kind"]: x["text"] for x in d["findings"]}
assert sorted(f) == ["bad_icrc", "go_back_n"], d["findings"]
assert "its receiver dropped it" in f["bad_icrc"], f
assert "the transmission it repeats (frame %s) had a bad ICRC" % sys.argv[2] in f["go_back_n"], f
PY
# a request answered by an RNR NAK was read intact by its receiver, though
# the RNR NAK makes the sender send it again
frame=$(tshark -r "$tmp/rnr/capture.pcap" -Y "infiniband.aeth.syndrome >= 0x20 && infiniband.aeth.syndrome < 0x40" \
	-T fields -e frame.number 2>/dev/null | head -1)
mkdir -p "$tmp/rnr-icrc" && cp -r "$tmp/rnr/traces" "$tmp/rnr-icrc/"
python3 tests/analysis/corrupt_capture.py "$tmp/rnr/capture.pcap" "$tmp/rnr-icrc/capture.pcap" $((frame - 1)) copy
"$RDMATRACE" diagnose --json "$tmp/rnr-icrc" >"$tmp/rnr-icrc.json"
check "bad ICRC on a request answered by an RNR NAK: its receiver read it intact (info), the RNR stall stays" \
	python3 - "$tmp/rnr-icrc.json" "$frame" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "bad_icrc"]
assert len(f) == 1 and f[0]["severity"] == "info", d["findings"]
assert "answered at frame %s by an RNR NAK" % sys.argv[2] in f[0]["text"] and "took it intact" in f[0]["text"], f
assert [x["kind"] for x in d["findings"] if x["severity"] != "info"] == ["rnr_stall"], d["findings"]
PY

"$RDMATRACE" diagnose --json "$tmp/rnr" >"$tmp/rnr.json"; rc=$?
check "diagnose --json: RNR exits 1" test "$rc" = 1
check "diagnose --json is JSON with the RNR finding and the 655.36 ms pitfall" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
f=[x for x in d["findings"] if x["kind"]=="rnr_stall"]
assert len(f)==1 and "655.36" in f[0]["text"] and f[0]["frames"], f
assert d["problems"] is True and len(d["qps"])>=2
' "$tmp/rnr.json"

"$RDMATRACE" diagnose "$tmp/rkey" >"$tmp/rkey.txt"; rc=$?
check "diagnose: bad rkey exits 1" test "$rc" = 1
check_grep "remote access error explained" 'refused rkey 0xbad' "$tmp/rkey.txt"

check "export perfetto parses" bash -c "'$RDMATRACE' export '$tmp/loss' --format perfetto | python3 -m json.tool >/dev/null"
check "export jsonl parses" bash -c "'$RDMATRACE' export '$tmp/loss' --format jsonl | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'"
check "export pcapng to a file" "$RDMATRACE" export "$tmp/loss" --format pcapng -o "$tmp/loss-annotated.pcapng"
if command -v tshark >/dev/null 2>&1; then
	tshark -r "$tmp/loss-annotated.pcapng" -T fields -e frame.comment 2>/dev/null >"$tmp/comments.txt"
	check_grep "tshark reads the retransmission comments" 'retrans=1 retrans_cause=nak_seq' "$tmp/comments.txt"
	check_grep "and the English line" 'retransmission #1 of PSN 0x' "$tmp/comments.txt"
else
	skip "tshark reads the comments" "tshark not installed"
	skip "and the English line" "tshark not installed"
fi

check_fails "export needs a known format" "$RDMATRACE" export "$tmp/loss" --format xml
mkdir -p "$tmp/empty"
"$RDMATRACE" diagnose "$tmp/empty" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "diagnose: empty run directory exits 2" test "$rc" = 2
check_grep "and says what is missing" 'no trace files' "$tmp/err.txt"
"$RDMATRACE" diagnose "$tmp/does-not-exist" >/dev/null 2>&1; rc=$?
check "diagnose: missing run directory exits 2" test "$rc" = 2
# nothing readable (a trace and a capture that are not ones): each is named with why
mkdir -p "$tmp/unreadable/traces"
printf "not a trace %.0s" $(seq 200) >"$tmp/unreadable/traces/a.rtr"
printf "not a capture %.0s" $(seq 200) >"$tmp/unreadable/capture.pcap"
"$RDMATRACE" correlate "$tmp/unreadable" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "correlate: nothing readable exits 2 and names the trace and the capture with why" bash -c "test $rc = 2 &&
	grep -q 'no readable input: trace .*/a.rtr unreadable: .*not an rdmatrace trace file.*; capture .*/capture.pcap unreadable: .*unknown file format' '$tmp/err.txt'"
# one host's trace missing: the capture shows its address, the diagnosis says so
"$GEN" "$tmp/onehost" 3000 >/dev/null && rm "$tmp"/onehost/traces/hostB-*.rtr
"$RDMATRACE" diagnose "$tmp/onehost" >"$tmp/onehost.txt"; rc=$?
check "one trace missing: diagnose exits 0 (nothing went wrong in the run)" test "$rc" = 0
check_grep "and names the untraced peer's address" 'no trace from 10\.9\.0\.1, which exchanged 3000 RoCE packets with hostA' "$tmp/onehost.txt"
"$RDMATRACE" diagnose "$tmp/clean" >"$tmp/clean2.txt"
check "with both traces there is no such note" bash -c '! grep -q "no trace from" "$1"' _ "$tmp/clean2.txt"
printf 'garbage' >"$tmp/clean/timeline.rtl"
check "a damaged timeline is rebuilt" "$RDMATRACE" diagnose "$tmp/clean"

# A bulk lab run under 5% loss on a loaded machine (the first 1500 frames;
# the CM exchange whole, the rest cut to its headers): the sender paused
# 9.9 ms in the middle of a Go-Back-N round and then went on with it, and it
# acted on the NAK for 0x05732f (frame 1280) only 9.1 ms later, at frame
# 1367 (more than half its 16.78 ms ACK timeout).  The engine traced 10
# retries in these frames, all after a NAK; the capture alone must give the
# same 10 rounds: the pause is no new round, and the late round is the NAK's
# (only that NAK told the sender 0x05732e had arrived, so it got it).
mkdir -p "$tmp/latenak" && cp tests/analysis/data/late-nak.pcapng "$tmp/latenak/capture.pcapng"
check "late NAK and paused round: the rounds the engine traced, from the capture alone" \
	python3 tests/analysis/check_rounds.py "$tmp/latenak" "$RDMATRACE" 357023:nak_seq:260 357055:nak_seq:394 \
	357073:nak_seq:538 357074:nak_seq:664 357088:nak_seq:790 357099:nak_seq:931 357120:nak_seq:1052 \
	357135:nak_seq:1191 357167:nak_seq:1367 357178:nak_seq:1492
# An imm lab run under 4% loss (the first 430 frames, cut the same way): the
# NAK for 0x8ce4a8 (frame 422) made the sender resend it at once, that resend
# was lost before the capture point, and the ACK timer (2147.48 ms) sent it
# again (frame 423): an ACK-timeout round, though the sender had the NAK.
# The engine traced 17 rounds here.
mkdir -p "$tmp/nakresend" && cp tests/analysis/data/nak-resend-lost.pcapng "$tmp/nakresend/capture.pcapng"
check "a NAK's resend lost, then the timer: the rounds the engine traced, from the capture alone" \
	python3 tests/analysis/check_rounds.py "$tmp/nakresend" "$RDMATRACE" 9233294:ack_timeout:17 9233310:nak_seq:41 \
	9233330:ack_timeout:70 9233342:ack_timeout:88 9233350:nak_seq:102 9233359:nak_seq:116 \
	9233359:ack_timeout:118 9233363:nak_seq:126 9233382:ack_timeout:154 9233398:ack_timeout:177 \
	9233410:ack_timeout:195 9233426:nak_seq:219 9233530:nak_seq:353 9233542:ack_timeout:372 \
	9233551:nak_seq:386 9233570:ack_timeout:414 9233576:ack_timeout:423
# ib_write_bw (no -R) on the kernel's SoftRoCE under 2% loss, the first 700
# frames cut to 96 bytes, with the client's trace (its ACK timeout, 14, and its
# device, rxe0).  The NAKs in frames 195 and 315 each came while the resend
# before them (frames 165, 313) was not yet acknowledged: rxe starts no second
# retry then (rxe_comp.c, comp.started_retry), so its ACK timer resent 90-118
# ms later.  Those rounds are the timer's, and the finding says why the NAK
# went unanswered, not that its resend was lost.
mkdir -p "$tmp/rxeretry/traces" && cp tests/analysis/data/rxe-nak-in-retry.pcapng "$tmp/rxeretry/capture.pcapng"
gzip -dc tests/analysis/data/rxe-nak-in-retry.rtr.gz >"$tmp/rxeretry/traces/client-155-ib_write_bw.rtr"
check "rxe ignores a NAK during its retry: the timer's rounds" \
	python3 tests/analysis/check_rounds.py "$tmp/rxeretry" "$RDMATRACE" 12076889:ack_timeout:165 \
	12076911:ack_timeout:313 12076912:ack_timeout:440 12076975:nak_seq:567
"$RDMATRACE" diagnose "$tmp/rxeretry" >"$tmp/rxeretry.txt" 2>&1
check "rxe ignores a NAK during its retry: said so for both NAKs" \
	bash -c "grep -q 'NAK in frame 195 .* came while the resend from frame 165 was not yet acknowledged, and the sender.s SoftRoCE (rxe) starts no second retry' '$tmp/rxeretry.txt' &&
		 grep -q 'NAK in frame 315 .* came while the resend from frame 313 was not yet acknowledged' '$tmp/rxeretry.txt'"
# ib_read_bw (no -R) on the kernel's SoftRoCE under 2% loss, frames
# 17000-18400 cut to 80 bytes: several READs outstanding, each of 64
# responses.  The requester takes responses in PSN order, so while an older
# READ misses one it drops a later READ's responses: those do not count as
# received, and the response gap of the later READ (PSN 0xd7de4b after
# 0xd7de49, frame 965) is what it asked again for at frame 1045, 8 ms later
# (not "no READ response ... before the local ACK timeout", 32 ms after the
# READ: a timeout that cannot have expired).
mkdir -p "$tmp/readpipe" && cp tests/analysis/data/rxe-read-pipeline.pcapng "$tmp/readpipe/capture.pcapng"
check "READs in flight: a later READ's responses dropped while an older one misses a response" \
	python3 tests/analysis/check_rounds.py "$tmp/readpipe" "$RDMATRACE" 14147146:implied_nak:1045 \
	14146899:implied_nak:224 14147024:implied_nak:717 14146946:implied_nak:445 14147004:implied_nak:576
# the same run's findings repeat on one QP: a summary line per kind and QP
# follows them (in --json, "summary"), with their count and what they cost
"$RDMATRACE" diagnose "$tmp/readpipe" >"$tmp/readpipe.txt" 2>&1
check "repeated findings: summary by kind and QP, counts and time lost as the findings' own" python3 -c '
import json, re, subprocess, sys
d = json.loads(subprocess.run([sys.argv[2], "diagnose", "--json", sys.argv[1]], capture_output=True, text=True).stdout)
s, f = d["summary"], d["findings"]
assert sum(g["count"] for g in s) == len(f) and len(f) > len(s), (s, len(f))
for g in s:
    mine = [x for x in f if x["kind"] == g["kind"]]
    assert g["count"] <= len(mine) and g["time_lost_ns"] <= sum(x["time_lost_ns"] for x in mine), g
big = max(s, key=lambda g: g["count"])
assert big["count"] >= 5 and big["kind"] == "go_back_n", s
text = open(sys.argv[3]).read()
m = re.search(r"^Summary of the findings \(by kind and QP, most time lost first\):\n  (\d+) go_back_n \[warning\] on QP 0x%06x on .*: ([0-9.]+) ms lost, \d+ bytes resent \(F\d+ first\)$" % big["qpn"], text, re.M)
assert m and int(m.group(1)) == big["count"] and abs(float(m.group(2)) * 1e6 - big["time_lost_ns"]) < 1e3, text[:800]
' "$tmp/readpipe" "$RDMATRACE" "$tmp/readpipe.txt"
check "findings that do not repeat: no summary" bash -c "! grep -q '^Summary' '$tmp/loss.txt' '$tmp/rkey.txt'"
# --limit N: the first N findings, then a line saying how many more of each
# kind; the summary, the exit status and --json's "summary" still count them all
"$RDMATRACE" diagnose --limit 2 "$tmp/readpipe" >"$tmp/readpipe-2.txt" 2>&1; rc=$?
check "diagnose --limit 2: two findings, the rest counted by kind, the summary whole, exit 1" python3 -c '
import json, re, subprocess, sys
rt, run, text, rc = sys.argv[1], sys.argv[2], open(sys.argv[3]).read(), sys.argv[4]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
assert rc == "1" and re.findall(r"^F(\d+) ", text, re.M) == ["1", "2"], text[:600]
rest = {}
for x in d["findings"][2:]:
    rest[x["kind"]] = rest.get(x["kind"], 0) + 1
m = re.search(r"^\.\.\. (\d+) more findings not shown \((.*)\); --limit 0 shows them all$", text, re.M)
assert m and int(m.group(1)) == len(d["findings"]) - 2, text[:900]
assert dict((k, int(n)) for n, k in re.findall(r"(\d+) ([a-z_]+)", m.group(2))) == rest, (m.group(2), rest)
assert text.count("\n  ") - 2 * 2 >= len(d["summary"]) and "Summary of the findings" in text
j = json.loads(subprocess.run([rt, "diagnose", "--json", "--limit", "2", run], capture_output=True, text=True).stdout)
assert len(j["findings"]) == 2 and j["findings_left_out"] == len(d["findings"]) - 2 and j["summary"] == d["summary"], j
' "$RDMATRACE" "$tmp/readpipe" "$tmp/readpipe-2.txt" "$rc"
check_fails "diagnose --limit needs a number" "$RDMATRACE" diagnose --limit many "$tmp/readpipe"
# ib_write_lat (no -R) on the kernel's SoftRoCE with no loss at all, cut to
# 96 bytes, with both recordings: the server went back 0.8-5 ms after a send
# four times (its rxe counted 4 retries) with no NAK: rxe's ACK timer, armed
# for an earlier packet, fired early.  The capture has no statistics, so both
# readings are given; with a statistics block that says it dropped nothing,
# only the timer.
mkdir -p "$tmp/early" && cp tests/analysis/data/rxe-early-timer.pcapng "$tmp/early/capture.pcapng"
tar -C "$tmp/early" -xzf tests/analysis/data/rxe-early-timer-traces.tar.gz
"$RDMATRACE" diagnose "$tmp/early" >"$tmp/early.txt" 2>&1
check "early round, capture without statistics: both readings, four times" \
	test "$(grep -c 'a NAK the capture does not hold made it do so, or its ACK timer went off early' "$tmp/early.txt")" = 4
python3 - "$tmp/early/capture.pcapng" <<'PY'
import struct, sys
# an interface statistics block for interface 0: isb_ifdrop 0, isb_osdrop 0
opts = struct.pack("<HHQ", 5, 8, 0) + struct.pack("<HHQ", 7, 8, 0) + struct.pack("<HH", 0, 0)
body = struct.pack("<III", 0, 0, 0) + opts
open(sys.argv[1], "ab").write(struct.pack("<II", 5, len(body) + 12) + body + struct.pack("<I", len(body) + 12))
PY
"$RDMATRACE" diagnose "$tmp/early" >"$tmp/early2.txt" 2>&1
check "early round, capture that dropped nothing: the early ACK timer, four times" \
	test "$(grep -c 'with no NAK in the capture that asked for it, which dropped nothing: its ACK timer (timeout=14, 67.11 ms) went off early' "$tmp/early2.txt")" = 4
# ib_send_bw -c UC (no -R) on the kernel's SoftRoCE, both recordings: UC
# sends go one way and nothing comes back, so only the receiving wire QP
# exists; the client's QP is its dest_qpn at the address the sends came from.
mkdir -p "$tmp/uc" && cp tests/analysis/data/rxe-uc-oneway.pcapng "$tmp/uc/capture.pcapng"
tar -C "$tmp/uc" -xzf tests/analysis/data/rxe-uc-oneway-traces.tar.gz
check "UC one way: the sender's traced QP has its 100 packets, the receiver's QP its address" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[2], "diagnose", "--json", sys.argv[1]], capture_output=True, text=True).stdout)
q = {x["host"]: x for x in d["qps"]}
assert set(q) == {"client", "server"}, sorted(q)
assert q["client"]["packets_tx"] == 100 and q["client"]["wrs_send"] == 100, q["client"]
assert q["server"]["ip"] == "10.9.0.1" and q["server"]["wrs_recv"] == 100, q["server"]
' "$tmp/uc" "$RDMATRACE"
# ib_send_bw -r 2 (no -R) on the kernel's SoftRoCE, the first 460 frames at 96
# bytes with the client's trace (timeout 14, 67 ms): three RNR NAKs, the second
# (frame 240) acted on 35.9 ms late, 35.7 ms after the NAK that followed it
# restarted the ACK timer: three RNR stalls, no ACK-timeout round.
mkdir -p "$tmp/rnrlate/traces" && cp tests/analysis/data/rxe-rnr-late.pcapng "$tmp/rnrlate/capture.pcapng"
gzip -dc tests/analysis/data/rxe-rnr-late.rtr.gz >"$tmp/rnrlate/traces/client-154-ib_send_bw.rtr"
check "an RNR NAK acted on late is the RNR stall's round, not an ACK timeout" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[2], "diagnose", "--json", sys.argv[1]], capture_output=True, text=True).stdout)
kinds = sorted(f["kind"] for f in d["findings"] if f["severity"] != "info")
assert kinds == ["rnr_stall"] * 3, [(f["kind"], f["text"][:200]) for f in d["findings"]]
' "$tmp/rnrlate" "$RDMATRACE"
# ib_write_bw -R -q 2 on the kernel's SoftRoCE, the CM MADs only, with both
# recordings: the client disconnects first (DREQs out, DREPs back) and the
# server sends a DREQ for a third connection the client no longer traces.  A
# DISCONNECTED event is the DREQ's or DREP's for the QP it names, not the next
# one in order: matched in order, the server's DREQ bounded the client's first
# DISCONNECTED (from a DREP 58 ms earlier) and the clocks contradicted.
mkdir -p "$tmp/disc" && tar -C "$tmp/disc" -xzf tests/analysis/data/rxe-cm-disconnect.tar.gz
check "DREQ and DREP meet the DISCONNECTED of their QP: clocks consistent" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[2], "diagnose", "--json", sys.argv[1]], capture_output=True, text=True).stdout)
assert not [f for f in d["findings"] if f["kind"] == "clock"], [f["text"] for f in d["findings"]]
h = {x["name"]: x for x in d["hosts"]}
assert h["client"]["uncertainty_ns"] is not None and h["client"]["uncertainty_ns"] < 5e6, h["client"]
' "$tmp/disc" "$RDMATRACE"
# diagnose_fixture NAME ARCHIVE: a VM-lab fixture from tests/analysis/data
# unpacked into $tmp/NAME, its diagnosis in $tmp/NAME.txt, its exit status
diagnose_fixture() {
	mkdir -p "$tmp/$1" && tar -C "$tmp/$1" -xzf "tests/analysis/data/$2" &&
		"$RDMATRACE" diagnose "$tmp/$1" >"$tmp/$1.txt" 2>&1
}
# rping's client connecting to a port nobody listens on (the VM lab, both
# traces): the server's rdma_cm answers REJ (invalid service ID), and
# librdmacm moves the client's QP to ERROR while it takes the REJECTED event,
# flushing the receive rping had posted.  That flush is the rejection's
# consequence (info), not a QP error of unknown cause (a warning before).
diagnose_fixture rej rxe-cm-reject.tar.gz; rc=$?
check "a rejected connection: one error, its QP's flush explained by the REJECTED event" bash -c "test $rc = 1 &&
	grep -q '^F1 .error. cm_reject' '$tmp/rej.txt' &&
	grep -q '^F2 .info. qp_error' '$tmp/rej.txt' &&
	grep -q 'QP 0x000011 on client was moved to the ERROR state and 1 outstanding WR was flushed (WR_FLUSH_ERR) because its RDMA CM connection failed: librdmacm moves the QP to ERROR when it takes the REJECTED event (status 8)' '$tmp/rej.txt' &&
	test \$(grep -c '^F[0-9]' '$tmp/rej.txt') = 2"
check_grep "... the client asked for port 7999 while the traced server listens on 7174: the wrong port, with the rdma_listen named" \
	"at that address rping \\(pid 158\\) on server listens on port 7174 \\(rdma_listen at [0-9.]+ s\\), not on 7999: the connection asked for the wrong port\\." "$tmp/rej.txt"
# A single file instead of a run directory, correlated on its own: the
# capture gives what a run directory holding only it gives, a trace file
# its own findings, the saved timeline the run's; the annotated copy of a
# capture goes beside it; anything else is refused, naming what it is not
mkdir -p "$tmp/rejcap" && cp "$tmp/rej/capture.pcapng" "$tmp/rejcap/" && gzip -c "$tmp/rej/capture.pcapng" >"$tmp/rejcap.pcapng.gz"
"$RDMATRACE" diagnose --json "$tmp/rejcap" | python3 -c 'import json,sys; print(json.dumps([(f["kind"], f["text"]) for f in json.load(sys.stdin)["findings"] if f["kind"] != "missing_input"]))' >"$tmp/rejcap.dir.json"
"$RDMATRACE" diagnose --json "$tmp/rejcap.pcapng.gz" | python3 -c 'import json,sys; print(json.dumps([(f["kind"], f["text"]) for f in json.load(sys.stdin)["findings"] if f["kind"] != "missing_input"]))' >"$tmp/rejcap.file.json"
check "diagnose on a capture file: the findings of a run directory holding only it" bash -c \
	"grep -q cm_reject '$tmp/rejcap.dir.json' && diff '$tmp/rejcap.dir.json' '$tmp/rejcap.file.json'"
"$RDMATRACE" diagnose "$tmp/rej/cli/traces/client-154-rping.rtr" >"$tmp/rejtrace.txt" 2>&1; rc=$?
check "diagnose on a trace file: its REJECTED event told from the trace alone" bash -c \
	"test $rc = 1 && grep -q 'rping (pid 154) on client had its connection .* rejected (its rdma_cm reported REJECTED): reason 8' '$tmp/rejtrace.txt'"
"$RDMATRACE" diagnose "$tmp/rej/timeline.rtl" >"$tmp/rejtl.txt" 2>&1
check "diagnose on a saved timeline: the run's findings" bash -c \
	"grep -v '^Run ' '$tmp/rej.txt' >'$tmp/a' && grep -v '^Run ' '$tmp/rejtl.txt' >'$tmp/b' && diff '$tmp/a' '$tmp/b'"
"$RDMATRACE" export "$tmp/rejcap.pcapng.gz" --format pcapng
check "export --format pcapng of a capture file: the annotated copy beside it" \
	bash -c "tshark -r '$tmp/rejcap.annotated.pcapng' -T fields -e frame.comment 2>/dev/null | grep -q 'rdmatrace: '"
"$RDMATRACE" diagnose tests/analysis/test_analysis_cli.sh >/dev/null 2>"$tmp/err.txt"; rc=$?
check "diagnose on a file that is none of them: exit 2, saying what it is not" bash -c \
	"test $rc = 2 && grep -q 'test_analysis_cli.sh: not a run directory, timeline, trace file or capture' '$tmp/err.txt'"
# Several files (each host's trace and the capture, as copied from the
# hosts): the findings of the run directory; a second capture, or a
# directory among them, refused
"$RDMATRACE" diagnose --json "$tmp/rej/cli/traces/client-154-rping.rtr" "$tmp/rej/capture.pcapng" \
	"$tmp/rej/srv/traces/server-158-rping.rtr" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["findings"]))' >"$tmp/loose.json"
"$RDMATRACE" diagnose --json "$tmp/rej" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["findings"]))' >"$tmp/rejdir.json"
check "diagnose on each host's trace and the capture: the findings of their run directory" bash -c \
	"grep -q 'the connection asked for the wrong port' '$tmp/loose.json' && diff '$tmp/rejdir.json' '$tmp/loose.json'"
"$RDMATRACE" diagnose "$tmp/rej/capture.pcapng" "$tmp/rejcap.pcapng.gz" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "diagnose on two captures: exit 2, one is correlated with the traces" bash -c \
	"test $rc = 2 && grep -q 'a second capture (one is correlated with the traces: ' '$tmp/err.txt'"
"$RDMATRACE" diagnose "$tmp/rej/capture.pcapng" "$tmp/rej" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "diagnose on a capture and a directory: exit 2, several files are a capture and traces" bash -c \
	"test $rc = 2 && grep -q 'not a regular file (several files: a capture and trace files)' '$tmp/err.txt'"
# Each host's own run directory with its capture (`record -o RUNDIR/NAME
# --capture IF` on each host, copied side by side): with none at the top,
# a host's capture is the run's; with captures in two hosts' directories
# (or run directories side by side) none is taken, and a note names each
# with how to correlate it; of several at the top, the first (capture.pcapng
# before others, then by path) and a note naming each other one
findings_of() { # RUNDIR: its findings' kinds and texts, notes left out
	"$RDMATRACE" diagnose --json "$1" | python3 -c 'import json,sys; print(json.dumps([(f["kind"], f["text"]) for f in json.load(sys.stdin)["findings"] if f["kind"] != "missing_input"]))'
}
mkdir -p "$tmp/subcap" && cp -r "$tmp/rej/cli" "$tmp/rej/srv" "$tmp/subcap/" && cp "$tmp/rej/capture.pcapng" "$tmp/subcap/srv/"
findings_of "$tmp/rej" >"$tmp/rej.kt.json"
findings_of "$tmp/subcap" >"$tmp/subcap.kt.json"
check "a capture in a host's run directory inside the run: correlated as the run's" bash -c \
	"grep -q cm_reject '$tmp/subcap.kt.json' && diff '$tmp/rej.kt.json' '$tmp/subcap.kt.json' &&
	 \"$RDMATRACE\" diagnose '$tmp/subcap' | grep -q 'wrong port' && ! \"$RDMATRACE\" diagnose '$tmp/subcap' | grep -q 'not used'"
cp "$tmp/rej/capture.pcapng" "$tmp/subcap/cli/"
"$RDMATRACE" diagnose "$tmp/subcap" >"$tmp/subcap2.txt"
check "... one in each host's: none taken, a note naming each and how to correlate it" bash -c \
	"grep -q '^  note: no capture' '$tmp/subcap2.txt' &&
	 grep -q '^  note: capture $tmp/subcap/cli/capture.pcapng not used: a timeline has one capture point, and the directories in this one hold several captures; to correlate one, name it with the trace files (rdmatrace diagnose $tmp/subcap/cli/capture.pcapng TRACE.rtr ...)' '$tmp/subcap2.txt' &&
	 grep -q '^  note: capture $tmp/subcap/srv/capture.pcapng not used' '$tmp/subcap2.txt'"
cp "$tmp/rej/capture.pcapng" "$tmp/subcap/z.pcapng" && cp "$tmp/rej/capture.pcapng" "$tmp/subcap/y.pcapng"
"$RDMATRACE" diagnose "$tmp/subcap" >"$tmp/subcap3.txt"
check "... two more at the top: the top's first by name, the three others named" bash -c \
	"test \$(grep -c '^  note: capture .* not used: a timeline has one capture point ($tmp/subcap/y.pcapng)' '$tmp/subcap3.txt') = 3 &&
	 grep -q 'capture $tmp/subcap/z.pcapng not used' '$tmp/subcap3.txt' && grep -q 'wrong port' '$tmp/subcap3.txt'"
# The lab's imm on the VM lab under netem "delay 1ms reorder 20% 50%" (both
# traces): the kernel's SoftRoCE numbers its datagrams in the order it sends
# them (IPv4 identification), so a request numbered below one captured before
# it was held back on the way, not resent.  Nothing was lost; told by the
# packets' order alone, four rounds said a resend was "lost before the
# capture point".
diagnose_fixture reorder rxe-imm-reorder.tar.gz
check "reordering on the kernel's SoftRoCE, told by the IPv4 identifications: held back, nothing lost before the capture point" bash -c \
	"! grep -q 'lost before the capture point' '$tmp/reorder.txt' && grep -q 'psn_gap' '$tmp/reorder.txt' &&
	 test \$(grep -c 'came after later PSNs: it was held back on the way (reordered)' '$tmp/reorder.txt') -ge 2"
# ib_write_bw -n 30 -s 65536 on uroce under "dup:prob=0.02;delay:prob=0.02,us=500"
# (UROCE_SEED=3; the capture cut to 96 bytes a packet): a NAKed packet the
# capture holds before the NAK, which the receiver's engine took while it
# still waited for a packet held back before it, is told so though a copy of
# a later packet came between (a previous release took the copy for a round
# going back), or a round going back to earlier PSNs, after an earlier NAK,
# came between (and the NAK was held back too: the receiver waited for the
# held request all the same); each was "lost before the capture point" or
# "reached it late".  An ACK of resent packets captured after the NAK came
# too late to spare them (not "lost after the capture point, on its way to
# the sender": the NAK had made the sender go back)
diagnose_fixture dupdelay uroce-dup-delay.tar.gz
check "held back and copied packets: NAKed packets taken while the receiver waited, ACKs after the NAK too late" bash -c \
	"! grep -q 'lost before the capture point' '$tmp/dupdelay.txt' &&
	 grep -q 'NAKed PSN 0xbc7402 (PSN sequence error) because that packet (frame 1052) reached the receiver, as its engine traced, while it still waited for PSN 0xbc7401 (frame 1180, after it: held back by the engine that sent it' '$tmp/dupdelay.txt' &&
	 grep -q 'NAKed PSN 0xbc744f (PSN sequence error) because that packet (frame 1323) reached the receiver, as its engine traced, while it still waited for PSN 0xbc744e (frame 1374, after it: held back by the engine that sent it' '$tmp/dupdelay.txt' &&
	 test \$(grep -c 'came after the NAK, too late to spare them' '$tmp/dupdelay.txt') -ge 4"
# Captures that missed frames of a run with RNR NAKs (the lab's sendrecv on
# uroce: injected RNR NAKs of timer 0.01 ms, and one whose receiver fell
# behind, RNR NAKs of code 0, 655.36 ms): 6 frames cut at every 4th place.
# The clock still aligns: where the cut took the ACK that completed WRs (a
# round going back past PSNs no captured ACK covered, or a round's resends
# skipping or repeating PSNs that no held-back copy explains), a later ACK
# no longer bounds their completions (it came
# 1.7 ms, or with the code 0 waits 1992 ms, after them); a DREP no longer
# takes the other process's DISCONNECTED when the DREQ was cut (their QPs
# of the same number on one host).  (The captures keep 320 bytes of each
# packet: the MADs whole.)  Before, 14 of these cuts made a clock
# finding (the VM lab's test_uroce_golden.sh met it once: "contradict each
# other by 1964.716 ms").
for fx in uroce-sendrecv-rnr uroce-sendrecv-rnr0; do
	mkdir -p "$tmp/$fx" && tar -C "$tmp/$fx" -xzf "tests/analysis/data/$fx.tar.gz"
	n=$(tshark -r "$tmp/$fx/capture.pcapng" 2>/dev/null | wc -l)
	bad=
	for a in $(seq 2 4 $((n - 3))) 60 178 188 212 214 236 246; do
		[ "$a" -le $((n - 3)) ] || continue
		rm -rf "$tmp/cut" && mkdir -p "$tmp/cut" && cp -r "$tmp/$fx/traces" "$tmp/cut/"
		editcap -r "$tmp/$fx/capture.pcapng" "$tmp/cut/capture.pcapng" 1-$((a - 1)) $((a + 6))-100000 2>/dev/null
		"$RDMATRACE" diagnose --json "$tmp/cut" >"$tmp/cut.json" 2>/dev/null
		grep -q '"kind": *"clock"' "$tmp/cut.json" && bad="$bad $a"
	done
	check "$fx, 6 frames cut from its capture at each place: the clock still aligns (no clock finding)" test -z "$bad" -a "$n" -gt 200
	[ -z "$bad" ] || echo "# cut at frames:$bad"
done
# The same lab under netem "delay 2ms 2ms": every round comes shuffled, the
# receiver never gets its PSNs in order, and the programs give up.  Rounds
# whose first resend came after later PSNs of the round (an identification
# below theirs) say so, not that it was lost before the capture point.
diagnose_fixture jitter rxe-imm-jitter.tar.gz
check "a shuffled round's first resend, held back on the way, is not called lost" bash -c \
	"! grep -q 'lost before the capture point' '$tmp/jitter.txt' &&
	 test \$(grep -c \"the sender's resend of it came after later PSNs (frame [0-9]*): held back on the way\" '$tmp/jitter.txt') -ge 3"
# Two perftest runs on the VM lab, one after the other on the same port
# (the capture cut to the CM's MADs): ib_send_bw -c UD -R (a connection, then
# a UD id's SIDR_REQ/SIDR_REP), then ib_write_bw -q 4 -R (five connections).
# Each CONNECT_REQUEST meets the request that carries its peer port in the
# RDMA CM header, the SIDR_REQ among them.  Paired in order, the UD id's
# CONNECT_REQUEST took the second run's first REQ, 5.4 s later, and both
# hosts' clocks came out inconsistent by seconds.
diagnose_fixture tworuns rxe-cm-two-runs.tar.gz; rc=$?
check "two runs on one port, a SIDR among them: every CONNECT_REQUEST meets the request from its peer port, clocks consistent" python3 -c '
import json, re, subprocess, sys
rt, run, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
port_of = {}
for line in subprocess.run([rt, "packets", run + "/capture.pcapng"], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"(\d+) .* CM (SIDR_)?REQ .* ip 10\.9\.0\.2:(\d+) > ", line)
    if m:
        port_of[int(m.group(1))] = int(m.group(3))
rows = [json.loads(l) for l in subprocess.run([rt, "export", run, "--format", "jsonl"], capture_output=True, text=True).stdout.splitlines()]
by = {r["row"]: r for r in rows}
n = 0
for r in rows:
    m = re.search(r"event=CONNECT_REQUEST .* peer_port=(\d+)", r["summary"]) if r["kind"] == "cm_event" else None
    if not m:
        continue
    frames = [by[l["row"]].get("frame") for l in r.get("links", []) if l["type"] == "cm_packet"]
    assert any(port_of.get(f) == int(m.group(1)) for f in frames), (r["summary"], frames, port_of)
    n += 1
assert n == 7 and len(port_of) == 7, (n, port_of)
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
# the capture holds only the CM: said once, as an input note
notes = [f for f in d["findings"] if f["kind"] == "missing_input" and f["severity"] == "info" and
         f["text"].startswith("Input: the capture holds no packet of QP ")]
assert rc == 0 and len(notes) == 1 and len(d["findings"]) == 1, [f["text"][:150] for f in d["findings"]]
assert all(h["reference"] or (h["uncertainty_ns"] is not None and abs(h["offset_ns"]) < 1e9) for h in d["hosts"]), d["hosts"]
' "$RDMATRACE" "$tmp/tworuns" "$rc"
# rping on the VM lab with the server's first REP dropped on its way out
# (a tc filter in the guest on the MAD attribute 0x0013): the server's CM
# sent the REP again after its response timeout (the REQ's local CM response
# timeout, 20: 4.3 s), and the connection came up 4.3 s late.  Before, the
# diagnosis said "no problems".
diagnose_fixture replost rxe-cm-rep-lost.tar.gz; rc=$?
check "a lost REP: the CM's retry found, with the 4.3 s it cost" bash -c "test $rc = 1 &&
	grep -q '^F1 .warning. cm_lost, 429[0-9].[0-9]* ms lost' '$tmp/replost.txt' &&
	grep -q 'server (10.9.0.1) sent its reply (REP) to client (10.9.0.2) 2 times (the first never reached the capture: rdma_accept came 4.2[0-9]* s before the first copy in it)' '$tmp/replost.txt' &&
	grep -q 'evidence: REP frames 16, rdma_accept at .*, answer frame 17' '$tmp/replost.txt' &&
	test \$(grep -c '^F[0-9]' '$tmp/replost.txt') = 1"
# The client's RTU dropped instead: the REP had arrived (the client's
# ESTABLISHED came 17 ms after it), so it was the RTU that was lost, and the
# server sent its REP again 4.2 s later.
diagnose_fixture rtulost rxe-cm-rtu-lost.tar.gz
check "a lost RTU: the REP sent twice, the first arrived, so the RTU was lost" bash -c "
	grep -q '^F1 .warning. cm_lost, 419[0-9].[0-9]* ms lost' '$tmp/rtulost.txt' &&
	grep -q 'server (10.9.0.1) sent its reply (REP) to client (10.9.0.2) 2 times: .*the first copy arrived (client had its ESTABLISHED event [0-9.]* ms after it), so its RTU was lost or came too late' '$tmp/rtulost.txt' &&
	test \$(grep -c '^F[0-9]' '$tmp/rtulost.txt') = 1"
# The client's DREQ dropped (every copy: its VM ended soon after): the
# server's rping waited for a DISCONNECTED that never came, until it was
# killed.  Before, "no problems".  The kill is told too, as info: the
# server's recording stops with no end record, its collector having noted
# the clock for 6.5 s after the program's last record (it waited), and its
# kernel's DREQ follows, with no rdma_disconnect in its trace.
diagnose_fixture dreqlost rxe-cm-dreq-lost.tar.gz
check "a lost DREQ: rdma_disconnect without a DREQ, the peer never disconnected" bash -c "
	grep -q '^F1 .warning. cm_lost' '$tmp/dreqlost.txt' &&
	grep -q 'client called rdma_disconnect on QP 0x000011, but no disconnect request (DREQ) from it reached the capture in the [0-9.]* s it ran on: every copy the CM sent was lost before the capture point; server, its peer, never had a DISCONNECTED event for QP 0x000011 after it' '$tmp/dreqlost.txt' &&
	test \$(grep -c '^F[0-9]* .\(warning\|error\)' '$tmp/dreqlost.txt') = 1 &&
	grep -q '^F2 .info. process_ended' '$tmp/dreqlost.txt' &&
	grep -q 'rping (pid 162) on server vanished after its last record (completion at [0-9.]* s): its collector went on noting the clock for 6.5[0-9]* s (the program waiting, with nothing to record), then its recording stops with no end record, and [0-9.]* ms later the kernel sent a disconnect request (DREQ, frame 53)' '$tmp/dreqlost.txt'"
# udaddy (rdma_cm over UD) under 2% loss on the VM lab: its rdma_connect
# sends a SIDR REQ, not a REQ, so no CM message is missing; the one datagram
# lost is the only finding.
diagnose_fixture udaddy rxe-udaddy-loss.tar.gz
check "udaddy: a SIDR exchange is not a lost REQ" bash -c "
	grep -q '^F1 .warning. unreliable_loss' '$tmp/udaddy.txt' && test \$(grep -c '^F[0-9]' '$tmp/udaddy.txt') = 1"
# The same run captured with a snap length of 66 bytes (editcap -s 66, as
# tcpdump -s 66 would): no CM message can be read and no ICRC checked, and
# the diagnosis says so instead of "no problems" alone.
mkdir -p "$tmp/snap" && tar -C "$tmp/snap" -xzf tests/analysis/data/rxe-cm-rtu-lost.tar.gz
editcap -s 66 "$tmp/snap/capture.pcapng" "$tmp/snap/cut.pcapng" && mv "$tmp/snap/cut.pcapng" "$tmp/snap/capture.pcapng"
"$RDMATRACE" diagnose "$tmp/snap" >"$tmp/snap.txt" 2>&1
check "a capture cut by its snap length: said so, with the CM messages it hides" bash -c "
	grep -q 'capture .* cut 27 RoCE packets short (its snap length: 66 bytes kept of a packet): their ICRCs could not be checked, and 6 CM messages (MADs on QP 1) could not be read whole' '$tmp/snap.txt' &&
	! grep -q 'cm_lost' '$tmp/snap.txt'"
# udaddy with every SIDR REP of the server dropped: the client's CM sent its
# SIDR REQ 7 times, 4.3 s apart, and never learnt the server's UD QP.
diagnose_fixture sidr rxe-cm-sidr-rep-never.tar.gz
check "every SIDR REP lost: the SIDR REQ sent 7 times, the server's accept named" bash -c "
	grep -q '^F1 .warning. cm_lost, 2589[0-9].[0-9]* ms lost' '$tmp/sidr.txt' &&
	grep -q 'client (10.9.0.2) sent its UD service request (SIDR REQ) to server (10.9.0.1) 7 times: .* (4.316 s here)' '$tmp/sidr.txt' &&
	grep -q 'server (10.9.0.1) called rdma_accept 0.0[0-9]* s after the first copy, but none of its SIDR REPs reached the capture' '$tmp/sidr.txt' &&
	grep -q 'No answer to the last copy reached the capture: the UD address resolution waited 25.896 s and more' '$tmp/sidr.txt'"
# rdmatrace lab overflow on the VM lab (the kernel's SoftRoCE), the capture
# cut to 96 bytes a frame: the client asked for max_send_wr 8, rxe made the
# queue 15 deep, and 17 WRITEs in one ibv_post_send had the last 2 refused
# with ENOMEM.  The finding says the queue was full at 15 and why it is not 8.
diagnose_fixture overflow rxe-send-queue-overflow.tar.gz; rc=$?
check "a full send queue on rxe: refused with ENOMEM, full at 15, created for 8" bash -c "test $rc = 1 &&
	grep -q 'ibv_post_send on QP 0x000011 on client refused 2 WRs, the first wr_id 16 (RDMA_WRITE) with ENOMEM: its send queue was full: 15 WRs were posted and not yet completed (polled), and it holds 15 (it was created with max_send_wr 8, which the provider rounded up)' '$tmp/overflow.txt' &&
	test \$(grep -Ec '^F[0-9]+ .(warning|error)' '$tmp/overflow.txt') = 1"
# The same with every REP dropped: the client sent its REQ 5 times, 6.4 s
# apart, and both sides gave up (REJ).  The server's clock, bounded only by
# its CONNECT_REQUEST after the first REQ and its REJ 30 s later, stays where
# its wall clock had it (offset 0, in the interval) instead of moving 15 s to
# the interval's middle, which put its CONNECT_REQUEST after the third REQ.
diagnose_fixture repnever rxe-cm-rep-never.tar.gz
check "every REP lost: 5 REQs, the server's accept named, the REJs after" bash -c "
	grep -q '^F1 .warning. cm_lost, 2560[0-9].[0-9]* ms lost' '$tmp/repnever.txt' &&
	grep -q 'client (10.9.0.2) sent its connection request (REQ) to server (10.9.0.1) 5 times: .* (6.400 s here)' '$tmp/repnever.txt' &&
	grep -q 'server (10.9.0.1) called rdma_accept 0.0[0-9]* s after the first copy, but none of its REPs reached the capture' '$tmp/repnever.txt' &&
	grep -q '^F2 .error. cm_reject' '$tmp/repnever.txt' && grep -q '^F3 .error. cm_reject' '$tmp/repnever.txt'"
check "a clock bounded only 30 s wide keeps its wall clock: CONNECT_REQUEST right after the first REQ" python3 -c '
import json, subprocess, sys
rows = [json.loads(l) for l in subprocess.run([sys.argv[2], "export", sys.argv[1], "--format", "jsonl", "-o", "-"], capture_output=True, text=True).stdout.splitlines() if l.strip()]
def t(pred):
    return next(r["t_ns"] for r in rows if pred(r))
req1 = t(lambda r: r.get("frame") == 13)
req2 = t(lambda r: r.get("frame") == 16)
cr = t(lambda r: r["kind"] == "cm_event" and "event=CONNECT_REQUEST" in r["summary"])
assert req1 < cr < req2, (req1, cr, req2)
' "$tmp/repnever" "$RDMATRACE"
# ib_write_bw (retry_cnt 7) between the kernel's SoftRoCE VMs with every ACK
# of the server dropped on its way out, the capture's first 1100 frames at
# 80 bytes: the client resent round after round (410 in the whole run, as
# rxe's completer_retry_err counted) and never failed with RETRY_EXC_ERR,
# because rxe does not decrement a retry_cnt of 7.  Said so.
mkdir -p "$tmp/retry7" && tar -C "$tmp/retry7" -xzf tests/analysis/data/rxe-retry-unlimited.tar.gz
check "rxe's unlimited retry_cnt 7: more rounds than 7 without an error, explained" \
	python3 tests/analysis/check_round_total.py "$RDMATRACE" "$tmp/retry7" 13 \
	"1:in 13 rounds, more than a retry_cnt of 7 allows: the sender.s SoftRoCE \(rxe\) takes retry_cnt 7 as unlimited"
# ib_read_lat (no -R) on the kernel's SoftRoCE under 3% loss, the first 440
# frames at 96 bytes with the client's trace (device rxe0, timeout 14): when a
# READ response is lost and the next response of the same READ arrives, rxe
# drops it and asks again only when its ACK timer goes off, 65-72 ms later.
# Those rounds are the timer's and say why the gap did not make it ask at once.
mkdir -p "$tmp/readgap/traces" && cp tests/analysis/data/rxe-read-gap.pcapng "$tmp/readgap/capture.pcapng"
gzip -dc tests/analysis/data/rxe-read-gap.rtr.gz >"$tmp/readgap/traces/client-155-ib_read_lat.rtr"
"$RDMATRACE" diagnose "$tmp/readgap" >"$tmp/readgap.txt" 2>&1
check "rxe waits for its timer after a READ response gap within the READ: said so, 9 times" \
	test "$(grep -c "the sender's SoftRoCE (rxe) drops a READ response out of sequence within the READ" "$tmp/readgap.txt")" = 9
# ib_atomic_bw (no -R) on the kernel's SoftRoCE under 3% loss, the first 260
# frames at 96 bytes with the client's trace: the atomic ACKs for 0x15e314 and
# 0x15e319 were lost and the next ones (frames 119, 215) were out of
# sequence: an implied NAK, each answered 6-12 ms later by resending the atomic
# and the ones after it (not "went back long before the timeout: a NAK the
# capture does not hold").
mkdir -p "$tmp/atomic/traces" && cp tests/analysis/data/rxe-atomic-ack-lost.pcapng "$tmp/atomic/capture.pcapng"
gzip -dc tests/analysis/data/rxe-atomic-ack-lost.rtr.gz >"$tmp/atomic/traces/client-155-ib_atomic_bw.rtr"
check "a lost atomic ACK: the next ACK is an implied NAK" \
	python3 tests/analysis/check_rounds.py "$tmp/atomic" "$RDMATRACE" 1434388:implied_nak:150 1434393:implied_nak:225
# ibv_rc_pingpong (no CM: the timeout comes from the server's trace) on the
# kernel's SoftRoCE under 2% loss, frames 1700-1900 at 96 bytes: two of the
# server's rounds went back 44.7 and 60.0 ms after the packet they resend,
# with a 67.11 ms timeout.  rxe starts its ACK timer only when it is not
# running, so it was running for an earlier packet: said so, not "no ACK
# within the timeout".
mkdir -p "$tmp/running/traces" && cp tests/analysis/data/rxe-timer-running.pcapng "$tmp/running/capture.pcapng"
gzip -dc tests/analysis/data/rxe-timer-running.rtr.gz >"$tmp/running/traces/server-159-ibv_rc_pingpong.rtr"
"$RDMATRACE" diagnose "$tmp/running" >"$tmp/running.txt" 2>&1
check "a timer round less than the timeout after its packet: the timer ran for an earlier one" bash -c "
	test \$(grep -c 'before the sender.s ACK timer (timeout=14, 67.11 ms) went off, [0-9.]* ms after it was sent: the timer was started for an earlier packet and still running (the kernel.s SoftRoCE' '$tmp/running.txt') = 2 &&
	grep -q 'PSN 0x58972c before the sender.s ACK timer (timeout=14, 67.11 ms) went off, 44.706 ms after' '$tmp/running.txt' &&
	! grep -q 'within the local ACK timeout (timeout=14, 67.11 ms) ([1-5][0-9].[0-9]* ms after' '$tmp/running.txt'"

# ibv_ud_pingpong on the kernel's SoftRoCE under 2% loss, with the server's
# trace: the server's 11th datagram never reached the capture (rxe counted
# 11 sends at the server, 10 receives at the client) and the pingpong waited
# forever.  No later packet shows a PSN gap for it: the send WR that
# completed after the QP's last captured datagram, with none of its own.
mkdir -p "$tmp/udtail/traces" && cp tests/analysis/data/rxe-ud-tail-loss.pcapng "$tmp/udtail/capture.pcapng"
gzip -dc tests/analysis/data/rxe-ud-tail-loss.rtr.gz >"$tmp/udtail/traces/server-159-ibv_ud_pingpong.rtr"
# the ring the recorder salvaged when the lab stopped the hung program: the same process, not a copy
gzip -dc tests/analysis/data/rxe-ud-tail-loss.salvage.rtr.gz >"$tmp/udtail/traces/server-159-ibv_ud_pingpong.salvage.rtr"
"$RDMATRACE" diagnose "$tmp/udtail" >"$tmp/udtail.txt" 2>&1; rc=$?
check "a UD datagram lost after the last captured one: found, exit 1" bash -c "test $rc = 1 &&
	grep -q 'UD datagrams lost before the capture point: QP 0x000011 on server completed 1 send WR (wr_id 2, PSN 0x0b1685) after its last datagram in the capture (frame 44)' '$tmp/udtail.txt' &&
	test \$(grep -c '^F[0-9]* .warning' '$tmp/udtail.txt') = 1"
# ibv_uc_pingpong the same way, with both traces: the first packet of
# its first 4-packet SEND was lost before the capture (rxe: 4 sent, 3
# received, no receive completed), so the server dropped the message and the
# pingpong hung.  No earlier packet makes it a PSN gap.
mkdir -p "$tmp/uctail" && cp tests/analysis/data/rxe-uc-tail-loss.pcapng "$tmp/uctail/capture.pcapng"
tar -C "$tmp/uctail" -xzf tests/analysis/data/rxe-uc-tail-loss-traces.tar.gz
"$RDMATRACE" diagnose "$tmp/uctail" >"$tmp/uctail.txt" 2>&1; rc=$?
check "a UC message without its first packet, the last of its stream: found, exit 1" bash -c "test $rc = 1 &&
	grep -q 'UC messages lost before the capture point: QP 0x000011 on client completed 1 send WR (wr_id 2, PSN 0xf044b4), and the capture lacks the first packet of its message' '$tmp/uctail.txt' &&
	test \$(grep -c '^F[0-9]* .warning' '$tmp/uctail.txt') = 1"
# ib_send_bw -c UC and -c UD between the kernel's SoftRoCE VMs, both traces,
# the client's first data packet dropped on its way out (a tc filter sends
# the first SEND First / the first UD SEND Only to a netem qdisc that loses
# everything; rxe cannot tell, as with any netem loss): the stream went on,
# so no PSN gap shows the loss, and the receiver completed 49 of 50.
for tr in uc ud; do
	mkdir -p "$tmp/${tr}head" && cp tests/analysis/data/rxe-$tr-head-loss.pcapng "$tmp/${tr}head/capture.pcapng"
	tar -C "$tmp/${tr}head" -xzf tests/analysis/data/rxe-$tr-head-loss-traces.tar.gz
done
"$RDMATRACE" diagnose "$tmp/uchead" >"$tmp/uchead.txt" 2>&1; rc=$?
check "a UC message without its first packet at the start of a stream that goes on: found, exit 1" bash -c "test $rc = 1 &&
	grep -q 'UC messages lost before the capture point: QP 0x000011 on client completed 1 send WR (wr_id 0, PSN 0x0b3b25) whose later packets begin its stream in the capture (frame 36), and the capture lacks the first packet of its message. The stream went on after it' '$tmp/uchead.txt' &&
	test \$(grep -c '^F[0-9]* .warning' '$tmp/uchead.txt') = 1"
"$RDMATRACE" diagnose "$tmp/udhead" >"$tmp/udhead.txt" 2>&1; rc=$?
check "a UD datagram lost at the start of a stream that goes on: found, exit 1" bash -c "test $rc = 1 &&
	grep -q 'UD datagrams lost before the capture point: QP 0x000011 on client completed 1 send WR (wr_id 0, PSN 0xf10e74) before its first packet in the capture (frame 38), and none of its packets reached the capture' '$tmp/udhead.txt' &&
	test \$(grep -c '^F[0-9]* .warning' '$tmp/udhead.txt') = 1"
# the same capture from its first RoCE frame on: it may have started after
# the first datagram left, so that is no loss
editcap -r tests/analysis/data/rxe-ud-head-loss.pcapng "$tmp/udhead/capture.pcapng" 38-96 2>/dev/null
"$RDMATRACE" diagnose "$tmp/udhead" >"$tmp/udhead-late.txt" 2>&1; rc=$?
check "a datagram sent before the capture's first frame is not called lost" bash -c "test $rc = 0 &&
	grep -q '(no problems)' '$tmp/udhead-late.txt' && ! grep -Eq '^F[0-9]+ .(warning|error)' '$tmp/udhead-late.txt'"
# ib_read_lat -s 4096 between the kernel's SoftRoCE VMs under 3% loss, both
# traces: rxe counted 34 retries (completer_retry_err).  Four READ requests
# lost before the capture point, one at a time, show only as their ACK
# timer's resend, 66-68 ms after the WR was posted (no later request makes a
# PSN gap); one READ waited two timeouts, its first resend lost too.  Every
# round is counted: 34.
mkdir -p "$tmp/readlat" && cp tests/analysis/data/rxe-read-lat.pcapng "$tmp/readlat/capture.pcapng"
tar -C "$tmp/readlat" -xzf tests/analysis/data/rxe-read-lat-traces.tar.gz
check "READ requests lost one at a time: 34 rounds as rxe counted, 4 of them seen only as the resend" \
	python3 tests/analysis/check_round_total.py "$RDMATRACE" "$tmp/readlat" 34 \
	"4:ms after it was posted; that packet was lost before the capture point" \
	"after it was posted; that packet was lost.* first retransmission frame 596," \
	"after it was posted; that packet was lost.* first retransmission frame 727," \
	"after it was posted; that packet was lost.* first retransmission frame 1060," \
	"after it was posted; that packet was lost.* first retransmission frame 1070," \
	"1:137.017 ms after it was sent: 2 ACK timeouts, the sender.s resend after the first lost before the capture point.* in 2 rounds"
# those resends are the WRs' retransmissions in the links too (the WR's link
# to a packet its first transmission never left as was "packet" before)
check "a resend whose first transmission was never captured: its WR links it as a retransmission" python3 - "$tmp/readlat" "$RDMATRACE" <<'PY'
import json, subprocess, sys
rows = [json.loads(l) for l in subprocess.run([sys.argv[2], "export", sys.argv[1], "--format", "jsonl"],
                                              capture_output=True, text=True, check=True).stdout.splitlines()]
by = {r["row"]: r for r in rows}
kinds = []
for r in rows:
    links = r.get("links", [])
    if r["kind"] != "packet" or "retrans" not in r.get("flags", []) or "request" not in r.get("flags", []):
        continue
    if any(l["type"] == "original" for l in links):
        continue
    wr = next(l["row"] for l in links if l["type"] == "wr")
    kinds += [l["type"] for l in by[wr]["links"] if l["row"] == r["row"]]
assert kinds and set(kinds) == {"retransmission"}, kinds
PY
# rping -S 8192 over a VLAN (802.1Q id 10 on eth0 in both VMs, rping's
# addresses on it) under 3% loss, both traces: rxe counted 10 retries at the
# server.  One READ waited two ACK timeouts after a response gap rxe ignores,
# its first resend lost before the capture too.
mkdir -p "$tmp/vlan" && cp tests/analysis/data/rxe-vlan-rping.pcapng "$tmp/vlan/capture.pcapng"
tar -C "$tmp/vlan" -xzf tests/analysis/data/rxe-vlan-rping-traces.tar.gz
check "VLAN-tagged RoCE: 10 rounds as rxe counted" \
	python3 tests/analysis/check_round_total.py "$RDMATRACE" "$tmp/vlan" 10 \
	"1:4597.994 ms after it was sent: 2 ACK timeouts, .* in 2 rounds"
check "VLAN-tagged RoCE: every RoCE packet decoded, with its VLAN" bash -c "'$RDMATRACE' packets '$tmp/vlan/capture.pcapng' | grep -c ' vlan 10 ' | grep -qx 547"
check "VLAN-tagged RoCE: both hosts' clocks bounded by causal order" bash -c "'$RDMATRACE' diagnose '$tmp/vlan' | grep -q 'clock: client offset .* +- ' && '$RDMATRACE' diagnose '$tmp/vlan' | grep -q 'clock: server offset .* +- '"
check "a trace and the ring salvaged from the same process are both read" bash -c "! grep -q 'is a copy of' '$tmp/udtail.txt'"

# ibv_srq_pingpong -q 4 on the kernel's SoftRoCE under 2% loss, both traces:
# four RC QPs a side take their receives from one shared receive queue.
# Each message's packet is linked to the SRQ receive WR it consumed: a QP's
# SRQ WRs in the order its receive completions came, paired with the peer's
# SEND WRs in order.  Before, no SRQ receive was linked at all.
mkdir -p "$tmp/srq" && cp tests/analysis/data/rxe-srq.pcapng "$tmp/srq/capture.pcapng"
tar -C "$tmp/srq" -xzf tests/analysis/data/rxe-srq-traces.tar.gz
check "SRQ: every successful receive completion's WR consumed by one captured message of its QP" \
	python3 tests/analysis/check_srq_links.py "$RDMATRACE" "$tmp/srq" 201
# ib_send_bw -c UD --use-srq -q 2 the same way: two UD QPs a side on one SRQ,
# 2 of the 100 datagrams lost before the capture.  Each datagram is linked to
# the SRQ WR of the receive completion that took it (before: none).
mkdir -p "$tmp/udsrq" && cp tests/analysis/data/rxe-ud-srq.pcapng "$tmp/udsrq/capture.pcapng"
tar -C "$tmp/udsrq" -xzf tests/analysis/data/rxe-ud-srq-traces.tar.gz
check "UD on an SRQ: every successful receive completion's WR consumed by one captured datagram of its QP" \
	python3 tests/analysis/check_srq_links.py "$RDMATRACE" "$tmp/udsrq" 98

# The lost-packet run with its traces also in a host's run directory
# (RUNDIR/host/traces): each read once, the same findings.
mkdir -p "$tmp/twice/traces" "$tmp/twice/host/traces"
cp "$tmp/loss/capture.pcap" "$tmp/twice/"
cp "$tmp/loss/traces/"*.rtr "$tmp/twice/traces/"
cp "$tmp/loss/traces/"*.rtr "$tmp/twice/host/traces/"
"$RDMATRACE" diagnose --json "$tmp/loss" >"$tmp/once.json"
"$RDMATRACE" diagnose --json "$tmp/twice" >"$tmp/twice.json"
check "a trace in traces/ and in a host's run is read once, with a note" test \
	"$("$RDMATRACE" diagnose "$tmp/twice" | grep -c '^  note: trace .* is a copy of .* read once')" = "$(ls "$tmp/loss/traces" | wc -l)"
check "read once: the same findings and statistics" python3 -c '
import json,sys
a,b=(json.load(open(f)) for f in sys.argv[1:])
strip=lambda d:[f for f in d["findings"] if f["kind"]!="missing_input"]
assert strip(a)==strip(b), (strip(a), strip(b))
assert a["qps"]==b["qps"]
' "$tmp/once.json" "$tmp/twice.json"

# The NAK-during-retry capture above held twice, as on two interfaces of one
# host (frame k becomes frames 2k-1 and 2k, 1 us apart).  rxe's resends are
# byte for byte the first transmissions (IP ID 0, and the 96-byte snap length
# cuts the ICRC away), so only the interface tells a copy from a resend: the
# same four rounds, at their new frame numbers, and no more.
mkdir -p "$tmp/copies/traces" && cp "$tmp/rxeretry/traces/"*.rtr "$tmp/copies/traces/"
check "a capture on two interfaces is made" \
	python3 tests/analysis/copy_capture.py tests/analysis/data/rxe-nak-in-retry.pcapng "$tmp/copies/capture.pcapng"
check "copies from a second interface are not retransmissions: the same rounds" \
	python3 tests/analysis/check_rounds.py "$tmp/copies" "$RDMATRACE" 12076889:ack_timeout:329 \
	12076911:ack_timeout:625 12076912:ack_timeout:879 12076975:nak_seq:1133
"$RDMATRACE" correlate --force "$tmp/copies" >"$tmp/copies.txt" 2>&1
nroce=$("$RDMATRACE" packets tests/analysis/data/rxe-nak-in-retry.pcapng 2>&1 >/dev/null | sed -n 's/^# [0-9]* frames: \([0-9]*\) RoCE.*/\1/p')
check "copies: the note counts every RoCE frame's copy" \
	grep -q "holds $nroce frames again that it captured on another interface (the first: frame [0-9]*, the same packet as frame [0-9]*)" "$tmp/copies.txt"
check "copies: each is commented copy_of in the annotated capture" \
	test "$(tshark -r "$tmp/copies/annotated.pcapng" -Y 'frame.comment contains "copy_of="' 2>/dev/null | wc -l)" = "$nroce"
check "copies: the sidecar names the frame kept" \
	grep -q '^{"frame":390,"copy_of":389}$' "$tmp/copies/annotations.jsonl"
"$RDMATRACE" packets --stats "$tmp/copies/capture.pcapng" >"$tmp/copies-stats.txt" 2>&1
"$RDMATRACE" packets --stats tests/analysis/data/rxe-nak-in-retry.pcapng >"$tmp/orig-stats.txt" 2>&1
check "packets --stats: the flows of the copied capture are the original's" \
	diff <(head -n -1 "$tmp/orig-stats.txt") <(head -n -1 "$tmp/copies-stats.txt")
check_grep "packets --stats: the copies are counted apart" "$nroce copies of a packet captured on another interface left out" \
	"$tmp/copies-stats.txt"
# The same run with its capture gzip-compressed (capture.pcapng.gz, as
# captures are often kept): found in the run directory, read as the same
# capture, the same diagnosis; the annotated capture made from it; a
# correlate that finds the timeline current but the annotated capture
# gone makes it again (wireshark RUNDIR asks for it); a damaged gzip says so.
mkdir -p "$tmp/gz/traces" && gzip -c tests/analysis/data/rxe-timer-running.pcapng >"$tmp/gz/capture.pcapng.gz"
cp "$tmp/running/traces/"*.rtr "$tmp/gz/traces/"
"$RDMATRACE" diagnose "$tmp/gz" >"$tmp/gz.txt" 2>&1
check "a gzip-compressed capture: the same diagnosis as uncompressed" \
	diff <(sed "s|$tmp/running|RUN|g" "$tmp/running.txt") <(sed "s|$tmp/gz|RUN|g; s|capture.pcapng.gz|capture.pcapng|g" "$tmp/gz.txt")
check "... and its annotated capture holds every frame" \
	test "$(tshark -r "$tmp/gz/annotated.pcapng" 2>/dev/null | wc -l)" = "$(tshark -r tests/analysis/data/rxe-timer-running.pcapng 2>/dev/null | wc -l)"
rm -f "$tmp/gz/annotated.pcapng"
"$RDMATRACE" correlate "$tmp/gz" >"$tmp/gz-again.txt" 2>&1
check "correlate makes a missing annotated capture again, though the timeline is current" \
	bash -c "test -s '$tmp/gz/annotated.pcapng' && ! grep -q 'up to date' '$tmp/gz-again.txt'"
"$RDMATRACE" correlate "$tmp/gz" >"$tmp/gz-again.txt" 2>&1
check_grep "... and then finds it all current" "timeline.rtl is up to date" "$tmp/gz-again.txt"
check "packets: a gzip-compressed capture reads as the same packets" \
	diff <("$RDMATRACE" packets tests/analysis/data/rxe-timer-running.pcapng 2>&1) <("$RDMATRACE" packets "$tmp/gz/capture.pcapng.gz" 2>&1)
# compressed by zstd (capture.pcapng.zst): found, and the same diagnosis
mkdir -p "$tmp/zst/traces" && zstd -q -c tests/analysis/data/rxe-timer-running.pcapng >"$tmp/zst/capture.pcapng.zst"
cp "$tmp/running/traces/"*.rtr "$tmp/zst/traces/"
"$RDMATRACE" diagnose "$tmp/zst" >"$tmp/zst.txt" 2>&1
check "a zstd-compressed capture: the same diagnosis as uncompressed" \
	diff <(sed "s|$tmp/running|RUN|g" "$tmp/running.txt") <(sed "s|$tmp/zst|RUN|g; s|capture.pcapng.zst|capture.pcapng|g" "$tmp/zst.txt")
head -c $(($(stat -c %s "$tmp/gz/capture.pcapng.gz") / 2)) "$tmp/gz/capture.pcapng.gz" >"$tmp/cut.pcapng.gz"
"$RDMATRACE" packets "$tmp/cut.pcapng.gz" >"$tmp/cut.txt" 2>&1; rc=$?
check "packets: a gzip capture cut short reads up to the cut, then says so (exit 1)" bash -c "test $rc = 1 &&
	grep -q 'cut.pcapng.gz: after frame [0-9]*: gzip: compressed data cut short' '$tmp/cut.txt' &&
	grep -q '^# [1-9][0-9]* frames' '$tmp/cut.txt'"
done_testing
