#!/usr/bin/env python3
"""Checks a correlated run with UD traffic (the ud or herd lab):

every captured UD datagram (not a CM MAD) is linked to the send WR that sent
it; as many datagrams are linked to a receive WR as the receivers completed
receives successfully; every host's clock is bounded (UD has no ACK, so the
datagrams' send WRs and receive completions are what bound it).  With
--one-way (datagrams in one direction only, as perftest's), the clocks are
not checked: a sender's posts bound its clock from one side only, a
receiver's completions from the other.

usage: check_ud_links.py RUNDIR RDMATRACE [--one-way]
"""
import json
import subprocess
import sys

run, rt = sys.argv[1], sys.argv[2]
one_way = sys.argv[3:] == ["--one-way"]
out = subprocess.run([rt, "export", run, "--format", "jsonl", "-o", "-"], capture_output=True, text=True, check=True)
rows = [json.loads(l) for l in out.stdout.splitlines()]
ud = [r for r in rows if r["kind"] == "packet" and r["host"] == "capture" and "UD Send" in r["summary"]
      and r.get("peer_qpn", 0) != 1]
assert ud, "no UD datagrams captured"


def types(r):
    return {l["type"] for l in r.get("links", [])}


nowr = [r["frame"] for r in ud if "wr" not in types(r)]
assert not nowr, ("datagrams without their send WR", nowr)
recv_ok = sum(1 for r in rows if r["kind"] == "completion" and "opcode=RECV" in r["summary"]
              and "status=SUCCESS" in r["summary"])
consumed = sum(1 for r in ud if "recv_wr" in types(r))
assert consumed == recv_ok, ("successful receive completions", recv_ok, "datagrams paired with a receive", consumed)
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
assert one_way or all(h["uncertainty_ns"] is not None for h in d["hosts"]), d["hosts"]
