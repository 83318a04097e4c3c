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

