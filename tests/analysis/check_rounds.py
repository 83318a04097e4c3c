#!/usr/bin/env python3
"""Checks the Go-Back-N findings of a run against the rounds its engines
traced: exactly the expected (PSN, cause, first retransmission frame)
rounds, and no other finding at warning level or above.

usage: check_rounds.py RUNDIR RDMATRACE PSN:CAUSE:FRAME...
  CAUSE is nak_seq, ack_timeout or implied_nak
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_records import without_storms

run, rt = sys.argv[1], sys.argv[2]
want = sorted((int(p), c, int(f)) for p, c, f in (x.split(":") for x in sys.argv[3:]))
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
got = []
for f in without_storms(d["findings"]):
    if f["kind"] != "go_back_n":
        assert f["severity"] == "info", f["kind"] + ": " + f["text"]
        continue
    cause = ("nak_seq" if "NAKed PSN" in f["text"] else "implied_nak" if "READ response PSN" in f["text"] or "atomic ACK for PSN" in f["text"]
             else "ack_timeout")
    got.append((int(re.search(r"PSN 0x([0-9a-f]+)", f["text"]).group(1), 16), cause,
                int(re.search(r"first retransmission frame (\d+)", f["evidence"]).group(1))))
assert sorted(got) == want, ("got", sorted(got), "want", want)
