"""What the golden checks read from a run directory: the engines' trace
events of one kind (`rdmatrace dump --json --kind KIND` of every trace) and
the diagnosis (`rdmatrace diagnose --json`)."""
import glob
import json
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
