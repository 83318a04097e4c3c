#!/usr/bin/env python3
"""Checks a trace recorded over an engine that traces itself (uroce).

usage: rdmatrace dump --json --no-clock TRACES... | check_engine.py [--min-wrs N]

The probe's records (flags without engine, 8) are checked against the
engine's own (flags with 8) in the same traces:
  * pairing: on every QP, each completion matches the next posted WR of its
    queue (FIFO, as RC queues complete), every signaled send WR and every
    receive WR has exactly one completion, and no completion is left over
    (the engine's flushed WRs included);
  * PSNs: the probe's predicted first..last PSN of every send WR equals the
    engine's own record of that WR, and the PSNs the engine put on the wire
    (first transmissions of request packets: one per MTU for SEND/WRITE,
    the READ or atomic request's first PSN) are exactly the predicted ones,
    with READ response packets inside the READ's predicted range.
Prints the mismatches and exits 1, or a summary and exits 0.
"""
import collections
import json
import sys

REQ = ("SEND", "RDMA_WRITE", "RDMA_READ_REQUEST", "COMPARE_SWAP", "FETCH_ADD")
M = 0xFFFFFF


def req_kind(opcode):
    # "RC_SEND_FIRST" -> ("RC", "SEND_FIRST")
    tr, _, rest = opcode.partition("_")
    return tr, rest


def main():
    min_wrs = int(sys.argv[sys.argv.index("--min-wrs") + 1]) if "--min-wrs" in sys.argv else 1
    recs = [json.loads(l) for l in sys.stdin if l.strip()]
    errs = []
    # key: (pid, qpn) -- QP numbers are per process (per device)
    probe_posts = collections.defaultdict(list)
    probe_wcs = collections.defaultdict(list)
    eng_posts = collections.defaultdict(list)
    tx = collections.defaultdict(list)
    rx_read = collections.defaultdict(list)
    for r in recs:
        key = (r["pid"], r["qpn"])
        eng = r["flags"] & 8
        if r["kind"] == "wr_post" and not r.get("wr_flags", 0) & 0x80:
            (eng_posts if eng else probe_posts)[key].append(r)
        elif r["kind"] == "completion" and not eng:
            probe_wcs[key].append(r)
        elif r["kind"] == "packet" and eng:
            tr, rest = req_kind(r["opcode"])
            if r["dir"] == "tx" and not r.get("retrans") and rest.startswith(REQ):
                tx[key].append(r["psn"])
            elif r["dir"] == "rx" and "RDMA_READ_RESPONSE" in rest and not r.get("duplicate"):
                rx_read[key].append(r["psn"])
    nwr = npk = 0
    for key in sorted(set(probe_posts) | set(probe_wcs)):
        posts = probe_posts.get(key, [])
        sq = collections.deque(p for p in posts if p["queue"] == "send")
        rq = collections.deque(p for p in posts if p["queue"] != "send")
        # pairing, FIFO per queue; unsignaled sends complete silently before a signaled one
        for w in probe_wcs.get(key, []):
            ok = False
            recv_like = w["opcode"].startswith("RECV") or w["status"] != "SUCCESS"
            if recv_like and rq and rq[0]["wr_id"] == w["wr_id"]:
                rq.popleft()
                ok = True
            elif not (w["opcode"].startswith("RECV") and w["status"] == "SUCCESS"):
                # unsignaled sends before it completed silently
                skip = 0
                while skip < len(sq) and sq[skip]["wr_id"] != w["wr_id"] and not sq[skip].get("signaled"):
                    skip += 1
                if skip < len(sq) and sq[skip]["wr_id"] == w["wr_id"]:
                    for _ in range(skip + 1):
                        sq.popleft()
                    ok = True
            if not ok:
                errs.append("%s: completion wr_id %#x (%s %s) matches no pending WR" % (
                    key, w["wr_id"], w["opcode"], w["status"]))
        left = [p["wr_id"] for p in sq if p.get("signaled")] + [p["wr_id"] for p in rq]
        if left:
            errs.append("%s: WRs without completion: %s" % (key, [hex(x) for x in left[:8]]))
        # PSNs
        sends = [p for p in posts if p["queue"] == "send" and "first_psn" in p]
        engs = [p for p in eng_posts.get(key, []) if p.get("queue") == "send"]
        if len(engs) == len(sends):
            for p, e in zip(sends, engs):
                if (p["wr_id"], p["first_psn"], p["last_psn"]) != (e["wr_id"], e.get("first_psn"), e.get("last_psn")):
                    errs.append("%s: WR %#x predicted %s..%s, engine %s..%s" % (
                        key, p["wr_id"], p["first_psn"], p["last_psn"], e.get("first_psn"), e.get("last_psn")))
        else:
            errs.append("%s: %d send WRs from the probe, %d from the engine" % (key, len(sends), len(engs)))
        want = []
        reads = []
        for p in sends:
            if p["opcode"] in ("RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD", "ATOMIC_WRITE"):
                want.append(p["first_psn"])
                if p["opcode"] == "RDMA_READ":
                    reads.append(p)
            else:
                n = (p["last_psn"] - p["first_psn"]) & M
                want += [(p["first_psn"] + i) & M for i in range(n + 1)]
        got = tx.get(key, [])
        if sorted(want) != sorted(got):
            miss = collections.Counter(want) - collections.Counter(got)
            extra = collections.Counter(got) - collections.Counter(want)
            errs.append("%s: wire PSNs differ from predictions: predicted not sent %s, sent not predicted %s" % (
                key, sorted(miss)[:8], sorted(extra)[:8]))
        for rd in reads:
            rng = {(rd["first_psn"] + i) & M for i in range(((rd["last_psn"] - rd["first_psn"]) & M) + 1)}
            if not rng <= set(rx_read.get(key, [])):
                errs.append("%s: READ %#x responses %s not all seen" % (key, rd["wr_id"], sorted(rng)))
        nwr += len(sends)
        npk += len(got)
    if nwr < min_wrs:
        errs.append("only %d send WRs with predicted PSNs (want at least %d)" % (nwr, min_wrs))
    for e in errs[:30]:
        print("#   " + e)
    if not errs:
        print("# %d send WRs, %d request packets: predicted PSNs equal the wire, 0 mismatches" % (nwr, npk))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
