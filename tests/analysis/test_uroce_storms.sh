#!/usr/bin/env bash
# Storms of reordered packets from Debian's own RDMA programs over uroce,
# each side under `rdmatrace record`, the packets captured on loopback: the
# diagnosis makes one Go-Back-N finding of each retry the senders' engines
# traced, not one of each time a held-back packet passes the capture point
# after the rest of its round.  On six runs of each here, this release made
# 0.98-1.00 Go-Back-N rounds for each engine retry; the previous one
# 1.08-1.11 (ibv_rc_pingpong) and 1.03-1.12 (ib_read_bw).  And each round's
# packets are annotated with the cause its finding states.
# RDMATRACE_STORMS_KEEP=DIR keeps the runs there.
. tests/lib.sh
set -u

LIBDIR=$BUILD/uroce
RT=$BUILD/rdmatrace
need_uroce_programs "reordering storms over uroce"
for prog in ibv_rc_pingpong ib_read_bw ib_atomic_bw; do
	command -v "$prog" >/dev/null || skip_all "reordering storms over uroce" "$prog is not installed (make deps)"
done

TMP=${RDMATRACE_STORMS_KEEP:-$(mktemp -d /tmp/rt-storms.XXXXXX)}
mkdir -p "$TMP"
# perftest's server listens on the wildcard address, so the device takes
# 127.0.0.1: each pair runs in a network namespace of its own, where that is
# free whatever else runs on this host, and its capture sees only its packets
NS=rt-storms-$$-$RANDOM
ip netns add "$NS" 2>/dev/null || skip_all "reordering storms over uroce" "cannot make a network namespace (ip netns add)"
ip -n "$NS" link set lo up
cleanup() {
	ip netns del "$NS" 2>/dev/null
	[ -n "${RDMATRACE_STORMS_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
export UROCE_CM_TIMEOUT_MS=500 UROCE_CM_RETRIES=4

# storm DIR FAULTS SERVER_ARGS... -- CLIENT_ARGS...: the server and the client
# recorded into DIR/server and DIR/client with uroce's FAULTS (the client's
# $STORM_CLIENT_FAULTS when set), each stopped after $STORM_TIMEOUT s
# (default 60), DIR/capture.pcapng (its packets cut to $STORM_SNAPLEN bytes when set)
# of their packets; then correlated and diagnosed into DIR.json.  0 when both
# programs exited 0.  A client that came before its server listened (perftest:
# REJ 8; ibv_rc_pingpong: no TCP connection) is run again, at most twice.
storm() {
	local dir=$1 faults=$2 rc try cpid spid i
	local cfaults=${STORM_CLIENT_FAULTS-$2} limit=${STORM_TIMEOUT:-60}
	shift 2
	local srv=() cli=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	for try in 1 2 3; do
		rc=0
		rm -rf "$dir"
		mkdir -p "$dir"
		ip netns exec "$NS" "$RT" capture -i lo -q --buffer 256 ${STORM_SNAPLEN:+--snaplen "$STORM_SNAPLEN"} \
			-w "$dir/capture.pcapng" >"$dir/capture.log" 2>&1 &
		cpid=$!
		for i in $(seq 1 50); do [ -s "$dir/capture.pcapng" ] && break; sleep 0.1; done
		ip netns exec "$NS" env LD_LIBRARY_PATH="$PWD/$LIBDIR" UROCE_FAULTS="$faults" UROCE_SEED=3 \
			timeout -k 2 "$limit" "$RT" record -o "$dir/server" -- "${srv[@]}" >"$dir/server.out" 2>&1 &
		spid=$!
		for i in $(seq 1 50); do
			ip netns exec "$NS" ss -Hln "( sport = :18515 or sport = :4791 )" 2>/dev/null | grep -q . && break
			sleep 0.1
		done
		sleep 0.5 # from binding the address to listening
		ip netns exec "$NS" env LD_LIBRARY_PATH="$PWD/$LIBDIR" UROCE_FAULTS="$cfaults" UROCE_SEED=3 \
			timeout -k 2 "$limit" "$RT" record -o "$dir/client" -- "${cli[@]}" >"$dir/client.out" 2>&1 || rc=1
		[ $rc -eq 0 ] || kill "$spid" 2>/dev/null
		wait "$spid" || rc=1
		sleep 0.3
		kill -INT "$cpid" 2>/dev/null
		wait "$cpid"
		[ $rc -eq 0 ] && break
		grep -Eq "error: 8|Couldn't connect" "$dir/client.out" || break
		echo "# the client came before the server listened (try $try)"
	done
	if [ $rc -ne 0 ]; then
		echo "# server:" && tail -5 "$dir/server.out" | sed 's/^/#   /'
		echo "# client:" && tail -5 "$dir/client.out" | sed 's/^/#   /'
	fi
	"$RT" correlate --force --quiet "$dir" && "$RT" diagnose --json "$dir" >"$dir.json"
	return $rc
}

# complete_capture DIR NAME: 0 when DIR's capture dropped no packet, else
# skips check NAME (a loaded machine: the packets missing from the capture
# are rounds the diagnosis cannot see)
complete_capture() {
	if grep -q " 0 dropped by kernel" "$1/capture.log"; then
		return 0
	fi
	skip "$2" "the capture dropped packets: $(cat "$1/capture.log")"
	return 1
}

# one_for_each_retry DIR LOW HIGH: between LOW and HIGH Go-Back-N rounds for
# each retry the engines traced (a finding "in N rounds" counts N), at least
# 50 retries (a storm), and all but 1 % of the findings naming a PSN one of
# those retries resent (a sentence names the PSN of the NAK it takes for
# the round's; with the NAKs reordered too, a round took the NAK for the
# PSN before its own in 1 of 2276 findings here, "NAKed PSN 0x...54 ...
# resent 3 packets from PSN 0x...54" for a retry from 0x...55, before a
# round left out handed its NAK on: none in 22 runs since)
one_for_each_retry() {
	python3 - "$1" "$RT" "$2" "$3" <<'PY'
import glob, json, re, subprocess, sys
run, rt, low, high = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
out = subprocess.run([rt, "dump", "--json", "--kind", "retry", *glob.glob(run + "/*/traces/*.rtr")],
                     capture_output=True, text=True, check=True).stdout
retries = [json.loads(l) for l in out.splitlines() if l.strip()]
retries = [r for r in retries if r["cause"] != "rnr"]
d = json.load(open(run + ".json"))
gbn = [f for f in d["findings"] if f["kind"] == "go_back_n"]
rounds = sum(int(m.group(1)) if (m := re.search(r"in (\d+) rounds", f["text"])) else 1 for f in gbn)
def named(f):  # a PSN the finding says went again
    m = re.search(r"(?:from|back to|asked again for|again from) PSN 0x([0-9a-f]+)", f["text"]) or \
        re.search(r"PSN 0x([0-9a-f]+)", f["text"])
    return int(m.group(1), 16)
def resent(p, r):
    return (p - r["first_psn"]) & 0xFFFFFF <= (r["last_psn"] - r["first_psn"]) & 0xFFFFFF
stray = [f["text"] for f in gbn if not any(resent(named(f), r) and abs(r["ns"] - f["t_ns"]) < 50_000_000 for r in retries)]
assert len(retries) >= 50, ("too few retries for a storm", len(retries))
assert len(stray) <= 0.01 * len(gbn), (len(stray), "of", len(gbn), "name no PSN a retry resent", stray[:3])
assert low * len(retries) <= rounds <= high * len(retries), (rounds, "Go-Back-N rounds for", len(retries), "engine retries")
PY
}

# causes_agree DIR: each Go-Back-N finding's first retransmission is
# annotated (annotations.jsonl, the annotated pcapng's comments) with the
# retry cause the finding states: a round whose NAK the capture missed reads
# there as an ACK timer's unless the engine's retry event says otherwise
# (ibv_rc_pingpong's storm: 229 of 249 findings disagreed before)
causes_agree() {
	python3 - "$1" <<'PY'
import json, re, sys
run = sys.argv[1]
ann = {a["frame"]: a for a in map(json.loads, open(run + "/annotations.jsonl"))}
told = 0
for f in json.load(open(run + ".json"))["findings"]:
    t, m = f["text"], re.search(r"first retransmission frame (\d+)", f["evidence"])
    cause = ("nak_seq" if "NAKed PSN" in t or "after NAK PSN sequence error" in t
             else "implied_nak" if "READ response PSN" in t or "after an implied NAK" in t
             else "ack_timeout" if re.search(r"no (ACK|READ response) (came|reached)", t) else None)
    if f["kind"] != "go_back_n" or not cause or not m:
        continue
    told += 1
    got = ann.get(int(m.group(1)), {}).get("retrans_cause")
    assert got == cause, (m.group(1), got, cause, t[:200])
assert told >= 20, ("too few findings with a cause", told)
PY
}

# storm_checks DIR WHAT RC: the checks of one storm (RC: storm's status),
# each named "WHAT: ..."
storm_checks() {
	local dir=$1 what=$2 rc=$3
	check "$what: both sides ran" test "$rc" = 0
	complete_capture "$dir" "$what: one Go-Back-N round for each engine retry" &&
		check "$what: one Go-Back-N round for each engine retry" one_for_each_retry "$dir" 0.93 1.03
	check "$what: each round's packets annotated with its finding's cause" causes_agree "$dir"
}

# (a random 5 %, not every 6th packet: a reordered packet waits for a later
# one of its QP, so every round of 6 or more would hold one, for ever)
storm "$TMP/pingpong" "reorder:prob=0.05" ibv_rc_pingpong -g 0 -n 200 -s 16384 -- \
	ibv_rc_pingpong -g 0 -n 200 -s 16384 127.0.0.1
storm_checks "$TMP/pingpong" "ibv_rc_pingpong, 5% of the packets reordered" $?

storm "$TMP/readbw" "reorder:every=20" ib_read_bw -R -n 100 -s 65536 -- \
	ib_read_bw -R -n 100 -s 65536 127.0.0.1
storm_checks "$TMP/readbw" "ib_read_bw, every 20th packet held back" $?

# WRITEs flat out with every 20th packet held back, on both sides: the
# receiver NAKs faster than the sender takes its NAKs in (here 10 ms behind,
# dozens of NAKs pending), and each round is told by the NAK of its own PSN,
# found among all those pending, as the reordering it was (the NAKs a stream
# kept pending were 8: 1565 of 1930 rounds of a 1000-message run said "a NAK
# the capture does not hold", 337 told the reordering)
# (the headers only: whole packets, CI's loaded machine dropped some)
STORM_SNAPLEN=384 storm "$TMP/writebw" "reorder:every=20" ib_write_bw -n 300 -- ib_write_bw -n 300 127.0.0.1
storm_checks "$TMP/writebw" "ib_write_bw, every 20th packet held back" $?
complete_capture "$TMP/writebw" "ib_write_bw, every 20th packet held back: most rounds told as the reordering" &&
	check "ib_write_bw, every 20th packet held back: most rounds told as the reordering" python3 -c "import json, re, sys
d = json.load(open(sys.argv[1]))
s = [x['text'] for x in d['findings'] if x['kind'] == 'retransmission_storm']
assert len(s) == 1, [x['text'][:200] for x in d['findings'] if x['kind'] != 'go_back_n']
n = int(re.search(r'(\d+) Go-Back-N findings', s[0]).group(1))
held = re.search(r'(\d+) a packet that came after later ones', s[0])
unseen = re.search(r'(\d+) a NAK the capture does not hold', s[0])
assert held and int(held.group(1)) >= 0.6 * n, s[0]
assert not unseen or int(unseen.group(1)) <= 0.3 * n, s[0]" "$TMP/writebw.json"

# atomic_drops NAME FAULTS WHAT CHECK ASSERTS: ib_atomic_bw -n 200 under
# FAULTS into $TMP/NAME; checks that both sides ran and, named "... CHECK",
# that the run has 2 Go-Back-N findings, their texts in f, that pass ASSERTS
# (Python)
atomic_drops() {
	local run=$TMP/$1
	storm "$run" "$2" ib_atomic_bw -n 200 -- ib_atomic_bw -n 200 127.0.0.1
	check "ib_atomic_bw, $3: both sides ran" test $? = 0
	check "... $4" python3 -c "import json, sys
f = [x['text'] for x in json.load(open(sys.argv[1]))['findings'] if x['kind'] == 'go_back_n']
assert len(f) == 2, f
$5" "$run.json"
}

# Not a storm: the responder's engine drops its third atomic ACK, and in the
# round that follows the requester's engine drops its second resend (uroce's
# resend=1 rule): the atomic whose answer (its first send's) showed the
# requester the gap, that answer discarded as the requester waited for the
# PSN it had gone back to.  The round after names the requester's drop, not
# a response lost before the capture point: as a response gap when the
# requester had sent more after it (14 here, on a quiet machine), else as
# an ACK timeout (under load the requester had sent only the one after the
# lost ACK's: "with the request after it", and a round of one resend when
# the second was the one dropped)
atomic_drops atomresend "drop:op=atomic_ack,nth=3;drop:op=atomic,resend=1,nth=2" \
	"an atomic ACK and a resent atomic dropped" "one round names the responder's drop, the other the requester's" '
import re
assert sum("never left the responder: its engine dropped it" in t for t in f) == 1, f
assert sum(bool(re.search(r"(requester|sender)\x27s engine dropped (its resend of the atomic of )?PSN", t)) for t in f) == 1, f
assert not any("lost before the capture point" in t or "the 0 requests" in t or "the 1 requests" in t for t in f), f'

# The same with the responder's engine dropping, as it arrives, the 21st
# atomic it receives: here (18 first sends before the requester goes back)
# in 2 runs of 3 the resend of the atomic two PSNs on, whose first send it
# had answered; else another packet.  Either way each round names the drop
# that started it, none a packet lost before the capture point
atomic_drops atomresendrx "drop:op=atomic_ack,nth=3;drop:dir=rx,op=atomic,nth=21" \
	"an atomic ACK and a received atomic dropped" "each round names the drop that started it" '
assert all("engine dropped" in t and "lost before the capture point" not in t for t in f), f'

# Not a storm: a peer gone.  The server's engine takes no ACK after its
# second (a rule of the server's only), so it resends its third pong while
# the client, which has all it needs, destroys its QP and exits.  With
# UROCE_STRICT_RETRY=1 (the IBTA's 7 retries) the server's SEND fails with
# RETRY_EXC_ERR; without (rxe's reading: retry_cnt 7 is unlimited) it resends
# until it is stopped, here after 3 s.  Either way the rounds name the
# destroy, and the server's end names its peer gone first (and, stopped,
# its SEND's ACK as its engine dropped it: no completion was due).
STORM_CLIENT_FAULTS="" UROCE_STRICT_RETRY=1 storm "$TMP/peergone" "drop:op=ack,dir=rx,after=2" \
	ibv_rc_pingpong -g 0 -n 3 -- ibv_rc_pingpong -g 0 -n 3 127.0.0.1
check "a peer gone, 7 retries: the RETRY_EXC_ERR and its rounds name the peer's destroy" python3 -c "import json, re, sys
d = json.load(open(sys.argv[1]))
e = [x['text'] for x in d['findings'] if x['kind'] == 'error_completion' and 'RETRY_EXC_ERR' in x['text']]
assert len(e) == 1, [x['text'] for x in d['findings']]
assert 'so none of the retries was answered: the peer had destroyed its QP (at ' in e[0], e[0]
assert re.search(r'; its peer QP (had been|was) destroyed at [0-9.]+ s \\(ibv_rc_pingpong, pid [0-9]+: its trace\\)', e[0]), e[0]
p = [x['text'] for x in d['findings'] if x['kind'] == 'process_ended']
assert any(re.search(r'had gone first: ibv_rc_pingpong \\(pid [0-9]+\\) destroyed it [0-9.]+ ms before', t) for t in p), p" "$TMP/peergone.json"
STORM_CLIENT_FAULTS="" STORM_TIMEOUT=3 storm "$TMP/peergone7" "drop:op=ack,dir=rx,after=2" \
	ibv_rc_pingpong -g 0 -n 3 -- ibv_rc_pingpong -g 0 -n 3 127.0.0.1
check "a peer gone, retry_cnt 7 unlimited: the rounds say so and name the peer's destroy" python3 -c "import json, re, sys
d = json.load(open(sys.argv[1]))
g = [x['text'] for x in d['findings'] if x['kind'] == 'go_back_n']
assert len(g) == 1, [x['text'] for x in d['findings']]
assert 'more than a retry_cnt of 7 allows: the sender\'s engine (uroce, which does as the kernel\'s SoftRoCE) takes retry_cnt 7 as unlimited' in g[0], g[0]
assert re.search(r'; its peer QP (had been|was) destroyed at [0-9.]+ s \\(ibv_rc_pingpong, pid [0-9]+: its trace\\)', g[0]), g[0]
p = [x['text'] for x in d['findings'] if x['kind'] == 'process_ended']
assert any('was stopped by SIGTERM' in t and 'had gone first: ibv_rc_pingpong (pid ' in t and
           '1 acknowledged on the wire, the ACK dropped by its engine as it arrived.' in t for t in p), p" "$TMP/peergone7.json"

# The same two runs without their capture: the rounds known only from the
# server's engine retry events say the same (its peer destroyed first; the
# unlimited retry_cnt 7 where it went past 7 retries)
for r in peergone peergone7; do
	rm -rf "$TMP/$r-traces" && mkdir -p "$TMP/$r-traces" && cp -r "$TMP/$r/server" "$TMP/$r/client" "$TMP/$r-traces/"
	"$RT" correlate --force --quiet "$TMP/$r-traces" && "$RT" diagnose --json "$TMP/$r-traces" >"$TMP/$r-traces.json"
done
check "a peer gone, no capture: the engine's retries name the peer's destroy, and 7 as unlimited where it went past" \
	python3 -c "import json, re, sys
for path, unlimited in ((sys.argv[1], False), (sys.argv[2], True)):
    d = json.load(open(path))
    g = [x['text'] for x in d['findings'] if x['kind'] == 'go_back_n']
    assert len(g) == 1, [x['text'] for x in d['findings']]
    assert re.search(r'retries from PSN 0x[0-9a-f]+ after local ACK timeout .*; its peer QP had been destroyed at [0-9.]+ s \\(ibv_rc_pingpong, pid [0-9]+: its trace\\), [0-9.]+ ms before: nothing answers for a destroyed QP', g[0]), g[0]
    assert ('takes retry_cnt 7 as unlimited' in g[0]) == unlimited, g[0]" "$TMP/peergone-traces.json" "$TMP/peergone7-traces.json"


# Not a storm of reordering: READ responses held back (every 40th, 3 ms) and
# nothing lost.  The requester, seeing a later response first, asks again;
# the held one passes the capture point after the answer to that asking
# again, and after other requests for the same PSN the responder left
# unanswered (asked again, it drops what it had left to send).  The rounds
# say the response came late, held back by its engine; at most 10 % of them
# that it was lost before the capture point (rounds asking again in several
# requests while copies are on the way: 5, 7 and 14 of 234-239 in three runs
# here; the previous release: 164-177, when the responses missing before the
# asking again were more than one)
storm "$TMP/readdelay" "delay:op=read_resp,us=3000,every=40" ib_read_bw -n 300 -- ib_read_bw -n 300 127.0.0.1
rc=$?
check "ib_read_bw, READ responses held back: both sides ran" test $rc = 0
check "... the rounds say the responses came late, none lost" python3 -c "import json, sys
f = [x['text'] for x in json.load(open(sys.argv[1]))['findings'] if x['kind'] == 'go_back_n']
late = [t for t in f if 'came late' in t and 'held back by the engine that sent it' in t]
lost = [t for t in f if 'was lost before the capture point' in t]
assert len(f) >= 20 and len(late) >= len(f) // 2, (len(late), 'of', len(f))
assert len(lost) <= 0.10 * len(f), (len(lost), 'of', len(f), lost[:2])" "$TMP/readdelay.json"

# Atomics with 2 % of the packets lost both ways (drop:prob=0.02,dir=any):
# responses dropped as they reach the requester make it go back (an implied
# NAK) while NAKs for PSNs its round is resending anyway come in.  Its engine
# traces each retry right before the round's first resend: the rounds are
# the engine's, one finding for each retry naming its PSN, and a round told
# as a NAK's is a retry after that NAK (the previous release split rounds at
# such NAKs: 4 NAK rounds for 3 NAK retries here; on `ib_atomic_bw -n 300`
# between two addresses, 4 of 13 findings were NAK rounds no retry went
# back to, and 4 retries had no finding)
storm "$TMP/atomloss" "drop:prob=0.02,dir=any" ib_atomic_bw -n 1000 -- ib_atomic_bw -n 1000 127.0.0.1
rc=$?
check "ib_atomic_bw, 2 % loss both ways: both sides ran" test $rc = 0
check "... one finding for each engine retry, naming its PSN" python3 - "$TMP/atomloss" "$RT" <<'PY'
import glob, json, re, subprocess, sys
run, rt = sys.argv[1], sys.argv[2]
out = subprocess.run([rt, "dump", "--json", "--kind", "retry", *glob.glob(run + "/*/traces/*.rtr")],
                     capture_output=True, text=True, check=True).stdout
retries = [json.loads(l) for l in out.splitlines() if l.strip()]
gbn = [f for f in json.load(open(run + ".json"))["findings"] if f["kind"] == "go_back_n"]
rounds = sum(int(m.group(1)) if (m := re.search(r"in (\d+) rounds", f["text"])) else 1 for f in gbn)
texts = " ".join(f["text"] for f in gbn)
unnamed = [r for r in retries if "PSN 0x%06x" % r["first_psn"] not in texts]
assert len(retries) >= 10, ("too few retries", len(retries))
assert abs(rounds - len(retries)) <= max(1, 0.05 * len(retries)), (rounds, "rounds for", len(retries), "engine retries")
assert len(unnamed) <= 0.1 * len(retries), (len(unnamed), "retries named by no finding", unnamed[:3])
# a round told as a NAK's is an engine retry after a NAK from that PSN
naks = {r["first_psn"] for r in retries if r["cause"] == "nak_seq"}
told = [int(m.group(1), 16) for f in gbn if (m := re.search(r"NAKed PSN 0x([0-9a-f]+)", f["text"]))]
assert all(p in naks for p in told), ("NAK rounds no engine retry went back for", [hex(p) for p in told if p not in naks])
PY

done_testing
