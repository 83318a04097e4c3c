#!/usr/bin/env bash
# `rdmatrace packets` and `rdmatrace capture` end to end: line counts and
# filters against tshark, JSON validity, damaged files, and a live capture
# on lo ended by SIGINT / SIGTERM / -c, read back complete.
. tests/lib.sh

GEN=$BUILD/tests/captures/synth_gen
tmp=$(mktemp -d /tmp/rt-cli-captures.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
shared=
for d in ../shared/captures ../../shared/captures; do [ -d "$d" ] && { shared=$d; break; }; done
have_tshark=; tshark -v >/dev/null 2>&1 && have_tshark=1
TS="--disable-protocol rpcordma --disable-protocol infiniband.eoib"

"$GEN" coverage "$tmp/cov.pcap" 2>/dev/null
n=$("$RDMATRACE" packets "$tmp/cov.pcap" 2>"$tmp/err" | wc -l)
check "coverage capture: one line per packet (1868)" test "$n" -eq 1868
check_grep "skipped frames are counted on stderr" '^# 1868 frames: 1868 RoCE packets' "$tmp/err"

# count_vs_tshark DESC FILE "our options" "tshark display filter"
count_vs_tshark() {
	local ours theirs
	ours=$("$RDMATRACE" packets "$2" $3 2>/dev/null | wc -l)
	theirs=$(tshark -r "$2" $TS -Y "$4" 2>/dev/null | wc -l)
	if [ "$ours" -eq "$theirs" ] && [ "$ours" -gt 0 ]; then ok "$1 ($ours packets)"
	else not_ok "$1: ours $ours, tshark $theirs"; fi
}
if [ -n "$have_tshark" ]; then
	count_vs_tshark "--naks equals tshark's NAK + RNR NAK count" "$tmp/cov.pcap" --naks \
		'infiniband.aeth.syndrome.opcode == 1 || infiniband.aeth.syndrome.opcode == 3'
	count_vs_tshark "--opcode cm equals tshark's CM MADs" "$tmp/cov.pcap" "--opcode cm" 'infiniband.mad.mgmtclass == 0x07'
	count_vs_tshark "--opcode write equals tshark's RDMA WRITEs" "$tmp/cov.pcap" "--opcode write" \
		'(infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11) || (infiniband.bth.opcode >= 38 && infiniband.bth.opcode <= 43)'
	if [ -n "$shared" ]; then
		for f in "$shared"/*/wire.pcap; do
			count_vs_tshark "$(basename "$(dirname "$f")"): all RoCE packets" "$f" "" infiniband
			count_vs_tshark "$(basename "$(dirname "$f")"): --qp 0x11" "$f" "--qp 0x11" 'infiniband.bth.destqp == 0x11'
		done
	else
		skip "real captures" "../shared/captures not present"
	fi
else
	skip "counts against tshark" "tshark not installed"
fi

out=$("$RDMATRACE" packets "$tmp/cov.pcap" --naks 2>/dev/null)
check "RNR NAK shown with its timer" grep -q 'RNR NAK 655.36 ms MSN' <<<"$out"
check "NAK shown with its code" grep -q 'NAK PSN sequence error MSN' <<<"$out"
check "NAK remote access error" grep -q 'NAK remote access error' <<<"$out"
out=$("$RDMATRACE" packets "$tmp/cov.pcap" --opcode cm 2>/dev/null)
check "CM REQ line has QPN, PSN and the TCP port" grep -Eq 'CM REQ lcid 0x[0-9a-f]{8} qpn 0x[0-9a-f]{6} psn [0-9]+ svc TCP:[0-9]+' <<<"$out"
check "CM REJ line has its reason" grep -Eq 'CM REJ .* reason [0-9]+' <<<"$out"
out=$("$RDMATRACE" packets "$tmp/cov.pcap" --opcode cnp 2>/dev/null)
check "CNP lines (opcode 0x81) with BECN" grep -q '^.* CNP QP 0x[0-9a-f]* PSN 0 .*BECN' <<<"$out"

if command -v python3 >/dev/null; then
	check "--json: every line is a JSON object" python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    o = json.loads(line); n += 1
    assert "psn" in o and "icrc" in o
assert n == 1868, n' <("$RDMATRACE" packets "$tmp/cov.pcap" --json)
	check "--stats --json: one object per QP" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) > 100 and all("psn_repeats" in r and "requests" in r and "responses" in r for r in rows)' <("$RDMATRACE" packets "$tmp/cov.pcap" --stats --json)
else
	skip "--json validity" "python3 not installed"
fi

# --stats: requests and responses are separate PSN sequences
"$GEN" traffic "$tmp/t.pcap" 64
"$RDMATRACE" packets "$tmp/t.pcap" --stats >"$tmp/stats" 2>&1
check_grep "--stats: header" 'packets +bytes +payload +request PSNs +repeats +go-backs +response PSNs +dup-rsp' "$tmp/stats"
check_grep "--stats: request flow with 32 PSNs and no repeats" '^10\.9\.0\.1 +10\.9\.0\.2 +0x[0-9a-f]{6} +32 .* 1000\.\.1031 +0 +0 +- +0 ' "$tmp/stats"
check_grep "--stats: its responses (ACKs, NAK, RNR NAK, READ responses) in their own sequence" \
	'^10\.9\.0\.2 +10\.9\.0\.1 +0x[0-9a-f]{6} +32 .* - +0 +0 +1000\.\.1031 +0 +22 +1 +1 ' "$tmp/stats"
# duplicate the first SEND (frame 1) at the end: one repeat, one go-back
if command -v python3 >/dev/null; then
	python3 - "$tmp/t.pcap" "$tmp/retx.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
incl = struct.unpack("<I", d[24 + 8:24 + 12])[0]
open(sys.argv[2], "wb").write(d + d[24:24 + 16 + incl])
PY
	"$RDMATRACE" packets "$tmp/retx.pcap" --stats >"$tmp/stats2" 2>&1
	check_grep "--stats counts a repeated request PSN" ' 1000\.\.1031 +1 +1 +- +0 ' "$tmp/stats2"
else
	skip "--stats retransmission count" "python3 not installed"
fi
# known retransmissions (synth_gen.c retrans() says what each flow holds)
"$GEN" retrans "$tmp/rt.pcap"
"$RDMATRACE" packets "$tmp/rt.pcap" --stats >"$tmp/stats3" 2>&1
stat_row() { # DESC SRC DST QP "rest of the row as a regex"
	check_grep "$1" "^$2 +$3 +$4 +$5" "$tmp/stats3"
}
stat_row "--stats: Go-Back-N 10..20 then 15..20: 6 repeats, 1 go-back" 10.9.0.1 10.9.0.2 0x000012 \
	'17 +[0-9]+ +[0-9]+ 10\.\.20 +6 +1 +- +0 +0 +0 +0 +0 +0$'
stat_row "--stats: the NAK and the ACKs are responses 14..20, not repeats" 10.9.0.2 10.9.0.1 0x000034 \
	'3 +[0-9]+ +0 +- +0 +0 +14\.\.20 +0 +2 +1 +0 +0 +0$'
stat_row "--stats: across the PSN wrap, a READ takes its responses' PSNs, a resent READ is a repeat" \
	10.9.0.1 10.9.0.2 0x000022 '7 +[0-9]+ +[0-9]+ 16777214\.\.6 +1 +1 +- +0 '
stat_row "--stats: READ responses and a duplicate ACK" 10.9.0.2 10.9.0.1 0x000044 \
	'7 +[0-9]+ +[0-9]+ +- +0 +0 +1\.\.6 +1 +3 '
stat_row "--stats: UD flows are told apart by their source QP" 10.9.0.1 10.9.0.2 '0x000001<0x000200' \
	'2 +[0-9]+ +[0-9]+ 50\.\.51 +0 +0 '
check "--stats: 6 flows" test "$(grep -c '^10\.' "$tmp/stats3")" -eq 6
# the real rxe captures have no retransmission at all
if [ -n "$shared" ]; then
	for f in "$shared"/*/wire.pcap; do
		"$RDMATRACE" packets "$f" --stats >"$tmp/real.stats" 2>&1
		check "$(basename "$(dirname "$f")"): --stats finds no repeat, go-back or duplicate response" \
			awk 'NF == 16 && NR > 1 { rows++; if ($8 != 0 || $9 != 0 || $11 != 0) bad++ }
			     END { exit !(rows >= 2 && !bad) }' "$tmp/real.stats"
	done
fi
# a lossy uroce lab run: --stats repeats equal the retransmissions correlate
# annotates, but for the resends only the engine's trace reveals (a PSN whose
# earlier sends were all dropped before the capture point, with no later packet
# showing the gap: on the wire it is the highest PSN so far, not a repeat)
if command -v python3 >/dev/null && timeout 120 "$RDMATRACE" lab loss -o "$tmp/loss" >"$tmp/loss.out" 2>&1 &&
	[ -f "$tmp/loss/annotations.jsonl" ]; then
	ann=$(grep -c '"retrans":[1-9]' "$tmp/loss/annotations.jsonl")
	ours=$("$RDMATRACE" packets "$tmp/loss/capture.pcapng" --stats --json | python3 -c '
import json, sys
print(sum(json.loads(l)["requests"]["repeats"] for l in sys.stdin))')
	"$RDMATRACE" packets "$tmp/loss/capture.pcapng" --json >"$tmp/loss.pkts"
	engine_only=$(python3 - "$tmp/loss.pkts" "$tmp/loss/annotations.jsonl" <<'PY'
import json, sys
retrans = {a["frame"] for a in map(json.loads, open(sys.argv[2])) if a.get("retrans", 0) >= 1}
top, n = {}, 0
for p in map(json.loads, open(sys.argv[1])):
    op = p.get("op", "")
    if not op.startswith("RC_") or "ACKNOWLEDGE" in op or "RESPONSE" in op:
        continue
    key = (p["dst"], p["qp"])
    d = (p["psn"] - top[key] + (1 << 23)) % (1 << 24) - (1 << 23) if key in top else 1
    if d > 0:
        top[key] = p["psn"]
        n += p["frame"] in retrans
print(n)
PY
)
	check "lab loss: --stats repeats ($ours) equal correlate's retransmissions ($ann) but the $engine_only only the engine reveals" \
		test "$ours" -eq "$((ann - engine_only))" -a "$ann" -gt 0
else
	skip "lab loss: --stats against correlate" "python3 or the uroce lab unavailable"
fi

# bad ICRC: flip one payload byte of frame 1
python3 - "$tmp/t.pcap" "$tmp/bad.pcap" <<'PY' 2>/dev/null
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[24 + 16 + 14 + 20 + 8 + 12 + 5] ^= 0x01
open(sys.argv[2], "wb").write(d)
PY
if [ -f "$tmp/bad.pcap" ]; then
	out=$("$RDMATRACE" packets "$tmp/bad.pcap" --bad-icrc 2>/dev/null)
	check "--bad-icrc shows exactly the damaged packet" test "$(wc -l <<<"$out")" -eq 1 -a "${out%% *}" = 1
	check "bad ICRC shows wire and expected values" grep -Eq 'icrc BAD \(0x[0-9a-f]{8} expected 0x[0-9a-f]{8}\)' <<<"$out"
fi

# damaged files: truncated in the middle of a record
size=$(stat -c %s "$tmp/t.pcap")
head -c $((size - 30)) "$tmp/t.pcap" >"$tmp/cut.pcap"
for be in "" --libpcap; do
	"$RDMATRACE" packets "$tmp/cut.pcap" $be >"$tmp/cut.out" 2>"$tmp/cut.err"; rc=$?
	check "truncated file ${be:-mmap}: exit status 1" test "$rc" -eq 1
	check "truncated file ${be:-mmap}: the 63 whole packets are printed" test "$(wc -l <"$tmp/cut.out")" -eq 63
	check_grep "truncated file ${be:-mmap}: the error says so" 'truncated' "$tmp/cut.err"
done
printf 'garbage, not a capture\n' >"$tmp/junk.pcap"
check_fails "a file that is not a capture is an error" "$RDMATRACE" packets "$tmp/junk.pcap"
"$RDMATRACE" packets /nonexistent.pcap 2>"$tmp/e"; rc=$?
check "a missing file: status 1 and its name" test "$rc" -eq 1 -a -n "$(grep nonexistent.pcap "$tmp/e")"
"$RDMATRACE" packets "$tmp/t.pcap" --opcode bogus 2>/dev/null; rc=$?
check "unknown opcode class is a usage error (2)" test "$rc" -eq 2
"$RDMATRACE" packets 2>/dev/null; rc=$?
check "no file is a usage error (2)" test "$rc" -eq 2

# live capture on lo, filtered on our own addresses
a=$((100 + $$ % 100)); b=$((($$ >> 7) % 250 + 1))
src=127.$a.$b.1 dst=127.$a.$b.2
if "$RDMATRACE" capture -i lo -q --duration 0.1 >/dev/null 2>&1; then
	for sig in INT TERM; do
		"$RDMATRACE" capture -i lo -w "$tmp/live-$sig.pcapng" --filter "src host $src and dst host $dst" \
			--comment "sig $sig" 2>"$tmp/live-$sig.err" &
		pid=$!
		for _ in $(seq 50); do grep -q listening "$tmp/live-$sig.err" 2>/dev/null && break; sleep 0.05; done
		"$GEN" send "$src" "$dst" 5
		sleep 0.4
		kill -$sig $pid
		wait $pid; rc=$?
		check "capture ended by SIG$sig exits 0" test "$rc" -eq 0
		check_grep "SIG$sig: drop count reported" '5 packets captured, .* dropped by kernel' "$tmp/live-$sig.err"
		n=$("$RDMATRACE" packets "$tmp/live-$sig.pcapng" 2>/dev/null | grep -c 'icrc good')
		check "SIG$sig: the file holds the 5 packets, ICRC good" test "$n" -eq 5
		if [ -n "$have_tshark" ]; then
			check "SIG$sig: tshark reads the file" test "$(tshark -r "$tmp/live-$sig.pcapng" 2>/dev/null | wc -l)" -eq 5
			check "SIG$sig: statistics block present (capinfos)" bash -c \
				"capinfos '$tmp/live-$sig.pcapng' | grep -q 'Number of stat entries = 1'"
		fi
	done
	"$RDMATRACE" capture -i lo -c 3 --duration 10 --filter "src host $src and dst host $dst" >"$tmp/c3.out" 2>"$tmp/c3.err" &
	pid=$!
	for _ in $(seq 50); do grep -q listening "$tmp/c3.err" 2>/dev/null && break; sleep 0.05; done
	"$GEN" send "$src" "$dst" 4
	wait $pid; rc=$?
	check "capture -c 3 stops by itself after 3 packets" test "$rc" -eq 0 -a "$(grep -c 'RC Send Only' "$tmp/c3.out")" -eq 3
	check_fails "capture on a missing interface fails" "$RDMATRACE" capture -i no-such-if0 --duration 0.1
else
	skip "live capture" "cannot capture on lo here"
fi
check_fails "capture without -i is a usage error" "$RDMATRACE" capture --duration 1
check "capture --buffer 0 is a usage error that names the range" bash -c \
	"'$RDMATRACE' capture -i lo --buffer 0 --duration 0.1 2>&1 >/dev/null | grep -q '1..1024 MiB' && test \${PIPESTATUS[0]} = 2"
# A named pipe, read once as a stream (by our reader, or by libpcap through
# a FILE of ours): the same packets as the file, and the file compressed by
# gzip, zstd and lz4 (Wireshark reads the three) the same packets too, with
# either backend, from the file and from standard input
mkfifo "$tmp/pipe"
"$RDMATRACE" packets "$tmp/cov.pcap" >"$tmp/file.txt" 2>&1
for be in "" --libpcap; do
	(cat "$tmp/cov.pcap" >"$tmp/pipe" &)
	timeout 20 "$RDMATRACE" packets $be "$tmp/pipe" >"$tmp/pipe.txt" 2>&1
	check "packets ${be:-(default)} on a named pipe: the file's packets" diff "$tmp/file.txt" "$tmp/pipe.txt"
	for z in gzip zstd lz4; do
		$z -q -c "$tmp/cov.pcap" >"$tmp/cov.pcap.z"
		"$RDMATRACE" packets $be "$tmp/cov.pcap.z" >"$tmp/z.txt" 2>&1
		check "packets ${be:-(default)} on the file compressed by $z: the same packets" diff "$tmp/file.txt" "$tmp/z.txt"
		$z -q -c "$tmp/cov.pcap" | "$RDMATRACE" packets $be - >"$tmp/z.txt" 2>&1
		check "packets ${be:-(default)} on standard input compressed by $z: the same packets" diff "$tmp/file.txt" "$tmp/z.txt"
	done
done
# A capture still being written, plain or gzip (flushed after its first ten
# records, as `tcpdump -U -w - | gzip` would send them): their packets (less
# than a buffer of output) are shown while the writer waits for them (up to
# 10 s), not at its end
for z in plain gzip; do
	python3 - "$tmp/cov.pcap" "$z" "$tmp/live.txt" <<'PY' | "$RDMATRACE" packets - >"$tmp/live.txt" 2>/dev/null
import os, sys, time, zlib
data, mode, out = open(sys.argv[1], "rb").read(), sys.argv[2], sys.argv[3]
half = 24
for _ in range(10):
    half += 16 + int.from_bytes(data[half + 8:half + 12], "little")
w = sys.stdout.buffer
c = zlib.compressobj(6, zlib.DEFLATED, 31) if mode == "gzip" else None
w.write(c.compress(data[:half]) + c.flush(zlib.Z_SYNC_FLUSH) if c else data[:half]); w.flush()
for _ in range(200):
    if os.path.exists(out) and os.path.getsize(out) > 0:
        break
    time.sleep(0.05)
sys.stderr.write("shown before the rest: %d bytes\n" % (os.path.getsize(out) if os.path.exists(out) else 0))
open(out + ".early", "w").write(str(os.path.getsize(out) if os.path.exists(out) else 0))
w.write(c.compress(data[half:]) + c.flush() if c else data[half:]); w.flush()
PY
	check "packets on a $z capture still being written: its first packets shown before the rest came" \
		test "$(cat "$tmp/live.txt.early")" -gt 0
	check "packets on a $z capture still being written: then all of them" diff <(grep -v '^#' "$tmp/file.txt") "$tmp/live.txt"
done
done_testing
