#!/usr/bin/env python3
"""Checks a run's Go-Back-N findings against a retry counter (rxe's
completer_retry_err): the rounds they count, one per finding or "in N
rounds", add up to COUNT, and no finding but those is above info level.

usage: check_round_total.py RDMATRACE RUNDIR COUNT [[N:]REGEX...]
  each REGEX must match the text and evidence ("TEXT | EVIDENCE") of some
  Go-Back-N finding, of exactly N of them with the N: prefix."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_records import without_storms


def main():
    rt, run, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
    d["findings"] = without_storms(d["findings"])
    gbn = [f["text"] + " | " + f["evidence"] for f in d["findings"] if f["kind"] == "go_back_n"]
    others = [f["kind"] + ": " + f["text"] for f in d["findings"] if f["kind"] != "go_back_n" and f["severity"] != "info"]
    rounds = sum(int(m.group(1)) if m else 1 for m in (re.search(r" in (\d+) rounds", g) for g in gbn))
    if rounds != count or others:
        sys.exit("%d rounds (want %d); other findings: %s" % (rounds, count, others))
    for arg in sys.argv[4:]:
        m = re.match(r"(\d+):(.*)", arg, re.S)
        want, pattern = (int(m.group(1)), m.group(2)) if m else (None, arg)
        n = sum(1 for g in gbn if re.search(pattern, g))
        if (want is None and n == 0) or (want is not None and n != want):
            sys.exit("%d findings match %r (want %s)" % (n, pattern, want if want is not None else "some"))


if __name__ == "__main__":
    main()
