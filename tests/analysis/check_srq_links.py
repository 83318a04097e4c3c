#!/usr/bin/env python3
"""Receives from a shared receive queue, linked to the packets that consumed
them (tests/analysis/test_analysis_cli.sh).

usage: check_srq_links.py RDMATRACE RUNDIR COUNT

Every successful RECV completion's WR is an SRQ WR consumed by exactly one
captured packet, COUNT of them in all; the packet went to the completion's QP
from another process, and for UD from the completion's source QP.  Exits 1
with the first mismatch."""
import collections
import json
import subprocess
import sys


def main():
    rdmatrace, rundir, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    out = subprocess.run([rdmatrace, "export", rundir, "--format", "jsonl"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        r = json.loads(line)
        rows[r["row"]] = r
    comps = [r for r in rows.values() if r["kind"] == "completion"
             and "opcode=RECV" in r["summary"] and "status=SUCCESS" in r["summary"]]
    used = collections.Counter()
    for r in rows.values():
        if r["kind"] != "packet":
            continue
        for link in r.get("links", []):
            if link["type"] != "recv_wr":
                continue
            w = rows[link["row"]]
            if "queue=srq_recv" not in w["summary"]:
                sys.exit("not an SRQ WR: %s" % w["summary"])
            used[link["row"]] += 1
            comp = [rows[x["row"]] for x in w.get("links", []) if x["type"] == "completion"]
            dqp = int(r["summary"].split("dqp=")[1].split()[0], 16)
            if w["pid"] == r["pid"] or not comp or comp[0]["qpn"] != dqp:
                sys.exit("packet %s -> WR %s, completion %s" % (r["summary"], w["summary"], comp))
            src = comp[0]["summary"].split("src_qp=")
            if " UD " in r["summary"] and (len(src) < 2 or int(src[1].split()[0]) != r["qpn"]):
                sys.exit("UD packet %s from another QP than its completion's %s" % (r["summary"], comp[0]["summary"]))
    if len(comps) != count or len(used) != count or max(used.values(), default=0) != 1:
        sys.exit("%d receive completions, %d WRs consumed (most by one WR: %d), expected %d" %
                 (len(comps), len(used), max(used.values(), default=0), count))


if __name__ == "__main__":
    main()
