#!/usr/bin/env python3
"""Compares the probe's predicted PSNs with the BTH PSNs of a packet capture.

usage: check_wire.py WIRE.tsv IP=TRACE.json [IP=TRACE.json ...]

WIRE.tsv: tshark -T fields -e ip.src -e infiniband.bth.destqp
          -e infiniband.bth.psn -e infiniband.bth.opcode (one packet a line)
TRACE.json: rdmatrace dump --json --no-clock of the traces of the host whose
          RoCE address is IP.

For every QP of a host, the requests it put on the wire (packets from IP to
the QP's destination QP number, learnt from its RTR transition; SEND and
WRITE packets, READ requests and atomics, first transmission of each PSN)
must carry exactly the PSNs the probe predicted for its send WRs: one per
MTU for SEND/WRITE, the first PSN for READ and atomics.  Every completion
must match a WR of its QP.  Prints the mismatches (exit 1) or a summary.
"""
import collections
import json
import sys

M = 0xFFFFFF
REQUEST_OPS = set(range(0, 13)) | {19, 20, 21, 22, 23}  # RC/UC/UD send, write, read req, atomics
ONE_PSN = ("RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD", "ATOMIC_WRITE")


def main():
    wire = collections.defaultdict(list)  # (ip, destqp) -> [psn]
    seen = set()
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if len(f) < 4 or not all(f[:4]):
            continue
        ip, dq, psn, op = f[0], int(f[1], 0), int(f[2], 0), int(f[3], 0)
        if dq == 1 or (op & 0x1f) not in REQUEST_OPS:
            continue
        if (ip, dq, psn) in seen:
            continue  # a retransmission
        seen.add((ip, dq, psn))
        wire[(ip, dq)].append(psn)
    errs = []
    nwr = npk = 0
    for arg in sys.argv[2:]:
        ip, _, path = arg.partition("=")
        recs = [json.loads(l) for l in open(path) if l.strip()]
        dest = {}
        posts = collections.defaultdict(list)
        wcs = collections.defaultdict(list)
        for r in recs:
            if r["flags"] & 8:
                continue
            key = (r["pid"], r["qpn"])
            if r["kind"] == "qp_state" and r["to"] == "RTR" and r["result"] == 0:
                dest[key] = r["dest_qpn"]
            elif r["kind"] == "wr_post" and not r.get("wr_flags", 0) & 0x80:
                posts[key].append(r)
            elif r["kind"] == "completion":
                wcs[key].append(r)
        for key, ps in posts.items():
            ids = collections.Counter(p["wr_id"] for p in ps)
            for w in wcs.get(key, []):
                if ids[w["wr_id"]] <= 0:
                    errs.append("%s %s: completion for wr_id %#x with no WR" % (ip, key, w["wr_id"]))
                ids[w["wr_id"]] -= 1
            sends = [p for p in ps if p["queue"] == "send" and "first_psn" in p]
            if not sends:
                continue
            if key not in dest:
                errs.append("%s %s: send WRs but no RTR transition seen" % (ip, key))
                continue
            want = []
            for p in sends:
                if p["opcode"] in ONE_PSN:
                    want.append(p["first_psn"])
                else:
                    want += [(p["first_psn"] + i) & M for i in range(((p["last_psn"] - p["first_psn"]) & M) + 1)]
            got = wire.get((ip, dest[key]), [])
            if sorted(want) != sorted(got):
                miss = collections.Counter(want) - collections.Counter(got)
                extra = collections.Counter(got) - collections.Counter(want)
                errs.append("%s QP %d -> %d: predicted but not on the wire %s; on the wire but not predicted %s" % (
                    ip, key[1], dest[key], sorted(miss)[:8], sorted(extra)[:8]))
            nwr += len(sends)
            npk += len(got)
    if nwr == 0:
        errs.append("no send WR with predicted PSNs")
    for e in errs[:30]:
        print("#   " + e)
    if not errs:
        print("# %d send WRs, %d request packets on the wire: every predicted PSN agrees with the BTH PSN, 0 mismatches" % (nwr, npk))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
