#!/usr/bin/env python3
"""Checks the links of every UD datagram of a run with several senders:
each is linked to a send WR of one process and a receive WR of another,
the process behind a source address is always the same one (and behind
a destination address too), no receive WR is consumed twice, a client's
n-th request (PSN n) is its WR n, and each sender has the expected count.

usage: check_ud_senders.py RUNDIR RDMATRACE SERVER_ADDR CLIENTS REQUESTS
"""
import collections
import json
import subprocess
import sys

run, rt, server, nclients, nreq = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rows = {}
for line in subprocess.run([rt, "export", run, "--format", "jsonl"], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    r = json.loads(line)
    rows[r["row"]] = r
wire = {}
for line in subprocess.run([rt, "packets", "--json", run + "/capture.pcapng"], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    p = json.loads(line)
    if p.get("op") == "UD_SEND_ONLY" and p["qp"] != 1:
        wire[p["frame"]] = p
assert len(wire) == 2 * nclients * nreq, ("UD datagrams on the wire", len(wire))

proc_of = {}            # address -> pid, from the links
consumed = collections.Counter()
per_sender = collections.Counter()
for r in rows.values():
    if r["kind"] != "packet" or r.get("frame") not in wire:
        continue
    p = wire[r["frame"]]
    links = {l["type"]: rows[l["row"]] for l in r.get("links", [])}
    assert "wr" in links and "recv_wr" in links, ("frame", r["frame"], "links", list(links))
    send, recv = links["wr"], links["recv_wr"]
    assert send["pid"] != recv["pid"], ("frame", r["frame"], "sent and received by one process")
    for addr, pid in ((p["src"], send["pid"]), (p["dst"], recv["pid"])):
        assert proc_of.setdefault(addr, pid) == pid, ("address", addr, "is pid", proc_of[addr], "and", pid)
    consumed[(recv["pid"], recv["t_ns"], recv["wr_id"])] += 1 # one post, even if read twice
    per_sender[p["src"]] += 1
    if p["dst"] == server:
        assert send["wr_id"] == p["psn"], ("frame", r["frame"], "PSN", p["psn"], "linked to wr_id", send["wr_id"])
assert len(proc_of) == nclients + 1 and len(set(proc_of.values())) == nclients + 1, proc_of
assert max(consumed.values()) == 1, "a receive WR consumed twice"
assert per_sender[server] == nclients * nreq and all(
    per_sender[a] == nreq for a in proc_of if a != server), per_sender
print("ok: %d datagrams, %d processes" % (len(wire), len(proc_of)))
