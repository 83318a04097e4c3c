"""What the golden checks read from a run directory: the engines' trace
events of one kind (`rdmatrace dump --json --kind KIND` of every trace) and
the diagnosis (`rdmatrace diagnose --json`)."""
import glob
import json
import re
import subprocess


def trace_events(run, rt, kind):
    """Every event of kind in the run's traces, as dump --json gives it."""
    out = []
    for f in sorted(glob.glob(run + "/traces/*.rtr")):
        lines = subprocess.run([rt, "dump", "--json", "--kind", kind, f], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        out.extend(json.loads(l) for l in lines)
    return out


def diagnosis(run, rt):
    """The run's diagnose --json (its exit status says whether it found problems)."""
    return json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)


def held_sends(run, rt):
    """The packets the run's engines traced as held back by a delay or
    reorder rule (sent with held=1)."""
    return [e for e in trace_events(run, rt, "packet") if e.get("held") and e["dir"] == "tx"]


def without_held_back(run, rt, findings):
    """findings without the held_back ones (packets an engine held back that
    reordered nothing), after checking that each names, by PSN, a packet the
    run's engines traced as held back."""
    held = set(e["psn"] for e in held_sends(run, rt))
    out = []
    for x in findings:
        if x["kind"] != "held_back":
            out.append(x)
            continue
        m = re.search(r"of PSN 0x([0-9a-f]+) \(frame", x["text"])
        assert m and int(m.group(1), 16) in held, ("held_back names no held packet", x["text"], sorted(held))
    return out



def without_storms(findings):
    """findings without the retransmission_storm ones, after checking that
    each sums up the go_back_n findings of its QP (as many as it counts, at
    least 10, their time lost and bytes, its causes adding up to them), and
    that every QP with 10 or more go_back_n findings has one."""
    def qp_of(text, lead):
        m = re.match(lead + r" on (QP 0x[0-9a-f]{6} on [^:]*):", text)
        assert m, ("no QP in", text)
        return m.group(1)
    rounds = {}
    for x in findings:
        if x["kind"] == "go_back_n":
            rounds.setdefault(qp_of(x["text"], "Go-Back-N"), []).append(x)
    storms = {}
    for x in findings:
        if x["kind"] != "retransmission_storm":
            continue
        qp = qp_of(x["text"], "Retransmission storm")
        assert qp not in storms, ("two storms on", qp)
        storms[qp] = x
        mine = rounds.get(qp, [])
        n = int(re.search(r": (\d+) Go-Back-N findings", x["text"]).group(1))
        causes = re.search(r"What started them: (.*?)(;|\. Each)", x["text"]).group(1)
        assert n == len(mine) >= 10, (n, len(mine), x["text"])
        assert x["time_lost_ns"] == sum(r["time_lost_ns"] for r in mine), x["text"]
        assert x["bytes"] == sum(r["bytes"] for r in mine), x["text"]
        assert sum(int(c) for c in re.findall(r"(?:^|, )(\d+) ", causes)) == n, causes
    for qp, mine in rounds.items():
        assert len(mine) < 10 or qp in storms, ("no storm for the %d rounds on" % len(mine), qp)
    return [x for x in findings if x["kind"] != "retransmission_storm"]
