#!/usr/bin/env python3
"""Checks the trace of tests/probes/verbs_prog (rdmatrace dump --json on stdin).

Only the probe's records are checked (an engine such as uroce writes its own
records, flagged engine (8), into the same trace; check_psn.py compares the two).

usage: check_trace.py PAIRS [--bad-modify] [--read-len N]
PAIRS is how many QP pairs ran `basic`.  For each sending QP: the eight
sends (every opcode) with their fields and predicted PSN ranges from sq_psn
0xFFFFF0 at path MTU 1024 (wrapping at 2^24); for each receiving QP its
three receives; for both, one completion per WR with the matching wr_id,
opcode and status (the bad-rkey WRITE flagged as an error), and the QP
state transitions with their attributes.  Prints what is wrong and
exits 1, or prints a summary and exits 0.
"""
import json
import sys

SQ = 0xFFFFF0
M = 0xFFFFFF
# opcode, length, PSNs consumed (MTU 1024)
SENDS = [("SEND", 3000, 3), ("RDMA_WRITE", 1024, 1), ("RDMA_WRITE_WITH_IMM", 0, 1),
         ("RDMA_READ", 5000, 5), ("ATOMIC_CMP_AND_SWP", 8, 1), ("ATOMIC_FETCH_AND_ADD", 8, 1),
         ("SEND_WITH_IMM", 1, 1), ("RDMA_WRITE", 10, 1)]
WC_OP = {"SEND": "SEND", "SEND_WITH_IMM": "SEND", "RDMA_WRITE": "RDMA_WRITE",
         "RDMA_WRITE_WITH_IMM": "RDMA_WRITE", "RDMA_READ": "RDMA_READ",
         "ATOMIC_CMP_AND_SWP": "COMP_SWAP", "ATOMIC_FETCH_AND_ADD": "FETCH_ADD"}


def check_transitions(qpn, states, bad_modify, errs):
    trans = [(s["from"], s["to"], s["result"]) for s in states]
    want = []
    if bad_modify:
        want.append(("RESET", "RTS", -22))
    want += [("RESET", "INIT", 0), ("INIT", "RTR", 0), ("RTR", "RTS", 0)]
    # the engine may add its own moves (to ERR after the error); only the probe's calls count
    if trans[:len(want)] != want:
        errs.append("qp %d: transitions %s, expected %s" % (qpn, trans, want))


def main():
    want_pairs = int(sys.argv[1])
    bad_modify = "--bad-modify" in sys.argv
    if "--read-len" in sys.argv:
        rl = int(sys.argv[sys.argv.index("--read-len") + 1])
        SENDS[3] = ("RDMA_READ", rl, max(1, (rl + 1023) // 1024))
    recs = [json.loads(l) for l in sys.stdin if l.strip()]
    errs = []
    by_qp = {}
    for r in recs:
        if r["flags"] & 8:
            continue
        if r["kind"] in ("wr_post", "completion", "qp_state") and r["qpn"]:
            by_qp.setdefault(r["qpn"], []).append(r)
    senders = [q for q, rs in by_qp.items() if any(r.get("queue") == "send" for r in rs)]
    receivers = [q for q, rs in by_qp.items() if any(r.get("queue") == "recv" for r in rs)]
    if len(senders) != want_pairs or len(receivers) != want_pairs or len(by_qp) != 2 * want_pairs:
        errs.append("expected %d sending and %d receiving QPs, found %d and %d (%d QPs)" %
                    (want_pairs, want_pairs, len(senders), len(receivers), len(by_qp)))
    for qpn, rs in sorted(by_qp.items()):
        posts = [r for r in rs if r["kind"] == "wr_post"]
        wcs = [r for r in rs if r["kind"] == "completion"]
        states = [r for r in rs if r["kind"] == "qp_state"]
        check_transitions(qpn, states, bad_modify and qpn in senders, errs)
        if qpn in receivers:
            recvs = [(r["wr_id"], r["len"], r["queue"]) for r in posts]
            if recvs != [(1000, 4096, "recv"), (1001, 4096, "recv"), (1002, 4096, "recv")]:
                errs.append("qp %d: receive WRs wrong: %s" % (qpn, recvs))
        if qpn in senders:
            sends = [r for r in posts if r.get("queue") == "send"]
            if len(sends) != len(SENDS) or len(posts) != len(SENDS):
                errs.append("qp %d: %d WRs, expected %d sends" % (qpn, len(posts), len(SENDS)))
                continue
            psn = SQ
            for i, (op, ln, n) in enumerate(SENDS):
                snd = sends[i]
                wid = i + 1 if i < len(SENDS) - 1 else (1 << 63) | (i + 1)
                first, last = psn, (psn + n - 1) & M
                got = (snd.get("opcode"), snd["len"], snd["wr_id"], snd.get("first_psn"), snd.get("last_psn"))
                if got != (op, ln, wid, first, last):
                    errs.append("qp %d WR %d: got %s, expected %s" % (qpn, i + 1, got, (op, ln, wid, first, last)))
                if not snd.get("signaled"):
                    errs.append("qp %d WR %d: not flagged signaled" % (qpn, i + 1))
                psn = (psn + n) & M
            rts = [x for x in states if x["to"] == "RTS" and x["result"] == 0]
            if rts and (rts[0]["sq_psn"] != SQ or rts[0]["timeout"] != 14 or rts[0]["retry_cnt"] != 7):
                errs.append("qp %d: RTS attributes %s" % (qpn, rts[0]))
        # every WR paired with exactly one completion of the right opcode and status
        posted = {p["wr_id"]: p for p in posts}
        seen = set()
        for w in wcs:
            p = posted.get(w["wr_id"])
            if p is None:
                errs.append("qp %d: completion for unknown wr_id %#x" % (qpn, w["wr_id"]))
                continue
            if w["wr_id"] in seen:
                errs.append("qp %d: two completions for wr_id %#x" % (qpn, w["wr_id"]))
            seen.add(w["wr_id"])
            want_op = ("RECV", "RECV_RDMA_WITH_IMM") if p.get("queue") == "recv" else (WC_OP[p["opcode"]],)
            if w["status"] == "SUCCESS" and w["opcode"] not in want_op:
                errs.append("qp %d wr %#x: completion opcode %s, expected %s" % (qpn, w["wr_id"], w["opcode"], want_op))
            is_err = w["wr_id"] >> 63
            if bool(is_err) != (w["status"] != "SUCCESS") or bool(is_err) != bool(w["flags"] & 4):
                errs.append("qp %d wr %#x: status %s flags %d" % (qpn, w["wr_id"], w["status"], w["flags"]))
        if seen != set(posted):
            errs.append("qp %d: WRs without completion: %s" % (qpn, sorted(set(posted) - seen)))
    for e in errs:
        print("#   " + e)
    if not errs:
        print("# %d QP pairs, %d records checked" % (len(senders), len(recs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
