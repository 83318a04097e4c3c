#!/usr/bin/env python3
"""Checks a trace recorded over an engine that traces itself (uroce).

usage: rdmatrace dump --json --no-clock TRACES... | check_engine.py [--min-wrs N] [--no-wire]

--no-wire: the dump holds no packet records (dump --kind without packet, for
long runs); the PSNs are then checked against the engine's WR records only.

The probe's records (flags without engine, 8) are checked against the
engine's own (flags with 8) in the same traces:
  * pairing: on every QP, each completion matches the next posted WR of its
    queue (FIFO, as RC queues complete), every signaled send WR and every
    receive WR has exactly one completion, and no completion is left over
    (the engine's flushed WRs included);
  * fields: every send WR the probe recorded has the engine's wr_id, opcode,
    length, SGE count, remote address, rkey, immediate and signaled flag,
    and every completion it recorded is one the engine generated (wr_id,
    status, and for successes opcode, byte count and immediate);
  * PSNs: the probe's predicted first..last PSN of every send WR equals the
    engine's own record of that WR (when the engine numbers it), and the
    PSNs the engine put on the wire (first transmission of each request PSN:
    one per MTU for SEND/WRITE, the READ or atomic request's first PSN; a
    READ re-requested from the middle after a loss is a retry) are exactly
    the predicted ones; a READ that completed successfully had a response
    packet for every PSN of its predicted range.
  * WRs still outstanding when the program destroyed their QP are abandoned,
    not missed (their completion, if any, was never polled);
  * a WR the provider refused (a later record with POST_FAILED) is not
    expected to complete or to reach the wire.
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


WR_FIELDS = ("wr_id", "queue", "opcode", "len", "num_sge", "remote_addr", "rkey", "imm", "signaled")


def wc_fields(r):
    # opcode and length are undefined in error completions
    ok = r["status"] == "SUCCESS"
    return (r["wr_id"], r["status"], r["opcode"] if ok else None, r["byte_len"] if ok else None,
            r.get("imm") if ok else None)


def main():
    no_wire = "--no-wire" in sys.argv
    min_wrs = int(sys.argv[sys.argv.index("--min-wrs") + 1]) if "--min-wrs" in sys.argv else 1
    recs = [json.loads(l) for l in sys.stdin if l.strip()]
    errs = []
    # key: (pid, qpn) -- QP numbers are per process (per device)
    probe_posts = collections.defaultdict(list)
    probe_wcs = collections.defaultdict(list)
    eng_wcs = collections.defaultdict(collections.Counter)
    destroyed = set()
    eng_wc_fields = collections.defaultdict(collections.Counter)
    eng_posts = collections.defaultdict(list)
    tx = collections.defaultdict(list)
    rx_read = collections.defaultdict(list)
    lost = sum(r.get("count", 0) for r in recs if r["kind"] == "lost")
    if lost:
        errs.append("%d events were lost (rings too small for this run): the comparison would be unfair" % lost)
    for r in recs:
        key = (r["pid"], r["qpn"])
        eng = r["flags"] & 8
        if r["kind"] == "wr_post":
            lst = (eng_posts if eng else probe_posts)[key]
            if r.get("wr_flags", 0) & 0x80:
                # the provider refused it: the earlier record of that WR never went out
                for i in range(len(lst) - 1, -1, -1):
                    if lst[i]["wr_id"] == r["wr_id"] and lst[i].get("queue") == r.get("queue"):
                        del lst[i]
                        break
            else:
                lst.append(r)
        elif r["kind"] == "completion":
            if eng:
                eng_wcs[key][r["wr_id"]] += 1
                eng_wc_fields[key][wc_fields(r)] += 1
            else:
                probe_wcs[key].append(r)
        elif r["kind"] == "qp_create" and r["flags"] & 1 and not eng:
            destroyed.add(key)
        elif r["kind"] == "packet" and eng:
            tr, rest = req_kind(r["opcode"])
            if r["dir"] == "tx" and not r.get("retrans") and rest.startswith(REQ):
                tx[key].append((r["psn"], rest))
            elif r["dir"] == "rx" and "RDMA_READ_RESPONSE" in rest and not r.get("duplicate"):
                rx_read[key].append(r["psn"])
    nwr = npk = abandoned = unpolled = 0
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
        efs = eng_wc_fields[key].copy()
        for w in probe_wcs.get(key, []):
            f = wc_fields(w)
            if efs[f] <= 0:
                errs.append("%s: completion %s not among the engine's" % (key, f))
            efs[f] -= 1
        left = [p["wr_id"] for p in sq if p.get("signaled")] + [p["wr_id"] for p in rq]
        # Outstanding when the program destroyed the QP: abandoned, not missed
        # (the engine may have queued a completion the program never polled).
        missed = [] if key in destroyed else left
        abandoned += len(left) - len(missed)
        unpolled += sum(1 for x in left if key in destroyed and eng_wcs[key][x] > 0)
        if missed:
            errs.append("%s: WRs without completion: %s" % (key, [hex(x) for x in missed[:8]]))
        # PSNs
        sends = [p for p in posts if p["queue"] == "send" and "first_psn" in p]
        engs = [p for p in eng_posts.get(key, []) if p.get("queue") == "send"]
        if len(engs) == len(sends):
            for p, e in zip(sends, engs):
                pf = tuple(p.get(f) for f in WR_FIELDS)
                ef = tuple(e.get(f) for f in WR_FIELDS)
                if pf != ef:
                    errs.append("%s: WR fields differ: probe %s, engine %s" % (key, pf, ef))
                if "first_psn" not in e:
                    continue  # the engine does not number this one itself (UD)
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
        inside_read = set()
        for rd in reads:
            n = (rd["last_psn"] - rd["first_psn"]) & M
            inside_read |= {(rd["first_psn"] + i) & M for i in range(1, n + 1)}
        got, first_seen = [], set()
        for psn, rest in tx.get(key, []):
            if psn in first_seen:
                continue  # sent again (Go-Back-N) without the engine calling it a retransmission
            if rest.startswith("RDMA_READ_REQUEST") and psn in inside_read:
                continue  # a READ re-requested from the middle after a lost response
            first_seen.add(psn)
            got.append(psn)
        if not no_wire and sorted(want) != sorted(got):
            miss = collections.Counter(want) - collections.Counter(got)
            extra = collections.Counter(got) - collections.Counter(want)
            errs.append("%s: wire PSNs differ from predictions: predicted not sent %s, sent not predicted %s" % (
                key, sorted(miss)[:8], sorted(extra)[:8]))
        ok_ids = {w["wr_id"] for w in probe_wcs.get(key, []) if w["status"] == "SUCCESS"}
        for rd in reads if not no_wire else []:
            if rd["wr_id"] not in ok_ids or not rd.get("signaled"):
                continue
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
        print("# %d send WRs%s, 0 mismatches%s" % (
            nwr, ": predicted PSNs equal the engine's" if no_wire else
            ", %d request packets: predicted PSNs equal the wire" % npk, "; %d WRs abandoned with their QP (%d completed by the engine, never polled)" % (
                abandoned, unpolled) if abandoned else ""))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
