#!/usr/bin/env python3
"""Checks the Go-Back-N rounds of a VM-lab run against the kernel's own count:
the rounds the diagnosis finds on the wire (each go_back_n finding is one
round, or "in N rounds" / "in N requests") must equal the requester's
rxe counter completer_retry_err (every retry it started, after a NAK, a READ
response gap or its ACK timer), read from RUNDIR/logs/HOST-hw_counters.txt.

With --tolerance PCT the two may differ by that many percent (at least one
round): a resend whose every packet was lost before the capture point is a
round the wire cannot show.

usage: check_retries_counter.py RUNDIR RDMATRACE HOST [--tolerance PCT]
"""
import json
import re
import subprocess
import sys

run, rt, host = sys.argv[1:4]
tol = float(sys.argv[5]) if sys.argv[4:5] == ["--tolerance"] else 0.0
counters = dict(l.split() for l in open(f"{run}/logs/{host}-hw_counters.txt") if len(l.split()) == 2)
want = int(counters["completer_retry_err"])
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
rounds = 0
for f in d["findings"]:
    if f["kind"] == "go_back_n":
        m = re.search(r" in (\d+) (rounds|requests)", f["text"])
        rounds += int(m.group(1)) if m else 1
assert want > 0, "no retries: the loss did not hit"
slack = max(1, int(want * tol / 100)) if tol else 0
assert abs(rounds - want) <= slack, ("rounds found on the wire", rounds, "completer_retry_err", want, "allowed", slack)
print(f"# {rounds} rounds, completer_retry_err {want}")
