#!/usr/bin/env bash
# End-to-end tests of the probe and `rdmatrace record` with an ordinary
# verbs program (tests/probes/verbs_prog.c) over a stand-in libibverbs
# (tests/probes/fakeverbs.c): the run directory, every WR and completion
# with its fields and predicted PSNs, fork, exec, threads, libibverbs loaded
# by a plugin dlopen()ed with RTLD_LOCAL, a program killed
# mid-run (trace salvaged), signal forwarding, exit status, and the
# untraced fallback.  Over uroce: tests/probes/test_probe_uroce.sh.
. tests/lib.sh
PROG=$BUILD/tests/probes/verbs_prog
PROBE=$BUILD/librdmatrace-probe.so
T=$(mktemp -d /tmp/rt-probe-rec-XXXXXX)
trap 'rm -rf "$T"' EXIT
export RDMATRACE_COUNTER_MS=0

dump_all() { "$RDMATRACE" dump --json --no-clock "$1"/traces/*.rtr; }
ntraces() { find "$1/traces" -name '*.rtr' | wc -l; }
# traced processes: HOST-PID-PROGRAM[.salvage].rtr (a process that ended with
# _exit has what its collector wrote plus a salvaged file)
npids() { ls "$1/traces" | cut -d- -f2 | sort -u | wc -l; }
# check_each_pid DIR: every process's files together pass check_trace.py
check_each_pid() {
	local p all=0
	for p in $(ls "$1/traces" | cut -d- -f2 | sort -u); do
		"$RDMATRACE" dump --json --no-clock "$1"/traces/*-"$p"-*.rtr | python3 tests/probes/check_trace.py 1 >"$1.chk" || { all=1; cat "$1.chk"; }
	done
	return $all
}

# ---- the capture's options: refused out of range, before anything runs ----
"$RDMATRACE" record -o "$T/badsnap" --capture lo --capture-snaplen 10 -- true >"$T/badsnap.out" 2>&1
check "record --capture-snaplen 10: refused (exit 2), said why" bash -c "[ $? -eq 2 ] && grep -q 'bad --capture-snaplen .10. (64..262144 bytes)' '$T/badsnap.out' && [ ! -e '$T/badsnap' ]"
"$RDMATRACE" record -o "$T/badbuf" --capture lo --capture-buffer 0 -- true >"$T/badbuf.out" 2>&1
check "record --capture-buffer 0: refused (exit 2), said why" bash -c "[ $? -eq 2 ] && grep -q 'bad --capture-buffer .0. (1..1024 MiB)' '$T/badbuf.out' && [ ! -e '$T/badbuf' ]"

# ---- basic: everything one QP does ----
"$RDMATRACE" record -o "$T/basic" -- "$PROG" basic >"$T/basic.out" 2>"$T/basic.err"
rc=$?
if [ $rc -eq 0 ]; then ok "record basic exits 0"; else not_ok "record basic exits 0 (rc $rc)"; sed 's/^/#   /' "$T/basic.err"; fi
check_grep "program output passed through" '^verbs_prog basic: ok$' "$T/basic.out"
check_grep "program output kept in logs/" '^verbs_prog basic: ok$' "$T/basic/logs/$(hostname | tr /- __)-verbs_prog.out"
check "run.json is valid JSON with exit code 0 and the command" \
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["exit"]["code"]==0, j; assert j["command"][-1]=="basic"; assert j["hosts"][0]["boot_id"]; assert j["clock"]["rate_ns"]>0; assert len(j["processes"])==1 and j["processes"][0]["root"]' "$T/basic/run.json"
check "one trace file named HOST-PID-PROGRAM.rtr" bash -c "ls '$T/basic/traces' | grep -Eq '^[^-]+-[0-9]+-verbs_prog\.rtr$' && [ \$(ls '$T/basic/traces' | wc -l) -eq 1 ]"
dump_all "$T/basic" >"$T/basic.json"
check "every WR, completion, PSN range and QP transition is right" python3 tests/probes/check_trace.py 1 <"$T/basic.json"
check "control path recorded (device, pd, mr, cq, qp create/destroy)" python3 -c '
import json,sys
k=[json.loads(l)["kind"] for l in open(sys.argv[1])]
for kind,n in (("device",2),("pd",2),("mr",4),("cq_create",2),("qp_create",4)):
    assert k.count(kind)==n, (kind,k.count(kind))' "$T/basic.json"

# ---- an asynchronous event and direct verbs ----
"$RDMATRACE" record -o "$T/extras" -- "$PROG" extras >/dev/null 2>&1
check "extras run exits 0" test $? -eq 0
dump_all "$T/extras" >"$T/extras.json"
check "async event recorded with its QP" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
recv=[r["qpn"] for r in ev if r["kind"]=="wr_post" and r.get("queue")=="recv"][0]
a=[r for r in ev if r["kind"]=="async"]
assert len(a)==1 and a[0]["qpn"]==recv, a' "$T/extras.json"
check "mlx5dv_init_obj recorded as a direct-verbs warning on that QP" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
recv=[r["qpn"] for r in ev if r["kind"]=="wr_post" and r.get("queue")=="recv"][0]
w=[r for r in ev if r["kind"]=="warning" and r["qpn"]==recv and "mlx5dv" in json.dumps(r)]
assert len(w)==1, [r for r in ev if r["kind"]=="warning"]' "$T/extras.json"

# ---- a failing modify_qp is recorded with its error ----
"$RDMATRACE" record -o "$T/badmod" -- "$PROG" bad-modify >/dev/null 2>&1
dump_all "$T/badmod" | python3 tests/probes/check_trace.py 1 --bad-modify >"$T/badmod.chk"
if [ $? -eq 0 ]; then ok "failed ibv_modify_qp recorded with result -EINVAL"; else not_ok "failed ibv_modify_qp recorded"; cat "$T/badmod.chk"; fi
check "the diagnosis says a QP cannot go from RESET to RTS" bash -c \
	"'$RDMATRACE' diagnose '$T/badmod' | grep -q 'to RTS (from RESET) failed with EINVAL: a QP cannot go from RESET to RTS (it goes RESET -> INIT -> RTR -> RTS'"

# ---- threads ----
"$RDMATRACE" record -o "$T/thr" -- "$PROG" threads 4 >/dev/null 2>&1
check "record threads exits 0" test $? -eq 0
dump_all "$T/thr" | python3 tests/probes/check_trace.py 4 >"$T/thr.chk"
if [ $? -eq 0 ]; then ok "4 threads: every QP's WRs, completions and PSNs right"; else not_ok "threads trace"; cat "$T/thr.chk"; fi

# ---- fork: parent and child in their own files ----
"$RDMATRACE" record -o "$T/fork" -- "$PROG" fork >/dev/null 2>&1
check "record fork exits 0" test $? -eq 0
check "fork: parent and child traced apart" test "$(npids "$T/fork")" -eq 2
if check_each_pid "$T/fork"; then ok "fork: each process's trace complete and right"; else not_ok "fork: each process's trace"; fi
check "fork: run.json lists both processes" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len({p["pid"] for p in j["processes"]})==2' "$T/fork/run.json"

# ---- exec: a child that execs is traced into its own file ----
"$RDMATRACE" record -o "$T/exec" -- "$PROG" exec >/dev/null 2>&1
check "record exec exits 0" test $? -eq 0
check "exec: parent and exec'd child traced apart" test "$(npids "$T/exec")" -eq 2
if check_each_pid "$T/exec"; then ok "exec: both traces complete and right"; else not_ok "exec: traces"; fi

# ---- libibverbs reached only through dlopen(RTLD_LOCAL) of a plugin (as pyverbs) ----
"$RDMATRACE" record -o "$T/dlopen" -- "$BUILD/tests/probes/dlopen_prog" >/dev/null 2>&1
check "dlopen'ed plugin: record exits 0" test $? -eq 0
dump_all "$T/dlopen" | python3 tests/probes/check_trace.py 1 >"$T/dlopen.chk"
if [ $? -eq 0 ]; then ok "dlopen'ed plugin: contexts hooked, every WR, completion and PSN right"; else not_ok "dlopen'ed plugin trace"; cat "$T/dlopen.chk"; fi

# ---- counters: read a last time at the exit, before the process's end record ----
# (a sysfs stand-in for the stand-in device; its rdma_recvs changes while the
# program waits, and only the reading at its return from main can see it)
mkdir -p "$T/sysfs/fakeverbs0/ports/1/hw_counters"
echo 5 >"$T/sysfs/fakeverbs0/ports/1/hw_counters/rdma_recvs"
mkfifo "$T/wait.in"
RDMATRACE_SYSFS_ROOT="$T/sysfs" "$RDMATRACE" record -o "$T/wait" -- "$PROG" wait <"$T/wait.in" >"$T/wait.out" 2>&1 &
rpid=$!
exec 7>"$T/wait.in"
for _ in $(seq 100); do grep -q ready "$T/wait.out" 2>/dev/null && break; sleep 0.1; done
# (the sampler's first reading, of 5, is in the trace before the value changes)
for _ in $(seq 100); do
	"$RDMATRACE" dump --kind counter "$T"/wait/traces/*.rtr 2>/dev/null | grep -q rdma_recvs && break
	sleep 0.1
done
echo 9 >"$T/sysfs/fakeverbs0/ports/1/hw_counters/rdma_recvs"
exec 7>&-
wait $rpid
check "program that returns from main: record exits 0" test $? -eq 0
check "the counters' last reading is recorded before the process's end record, which has the status" python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
kinds = [(r["kind"], r.get("name"), r.get("value")) for r in recs if r["kind"] in ("counter", "process_end")]
assert kinds == [("counter", "rdma_recvs", 5), ("counter", "rdma_recvs", 9), ("process_end", None, None)], kinds
end = [r for r in recs if r["kind"] == "process_end"][0]
assert end["how"] == "exit" and end.get("exit_code") == 0, end
' < <(dump_all "$T/wait")

# ---- killed mid-run: the trace is salvaged ----
"$RDMATRACE" record -o "$T/kill" -- "$PROG" hang >"$T/kill.out" 2>"$T/kill.err" &
rpid=$!
for _ in $(seq 100); do grep -q ready "$T/kill.out" 2>/dev/null && break; sleep 0.1; done
cpid=$(pgrep -P $rpid -x verbs_prog | head -1)
if [ -n "$cpid" ]; then kill -KILL "$cpid"; fi
wait $rpid
rc=$?
check "killed program: record exits 137" test $rc -eq 137
check "killed program: run.json says SIGKILL" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["exit"]["signal"]==9' "$T/kill/run.json"
dump_all "$T/kill" | python3 tests/probes/check_trace.py 1 >"$T/kill.chk"
if [ $? -eq 0 ]; then ok "killed program: salvaged trace has every event"; else not_ok "killed program: salvaged trace"; cat "$T/kill.chk"; cat "$T/kill.err"; fi
check "killed program: record wrote how it ended into the salvaged trace" bash -c \
	"'$RDMATRACE' dump --json '$T'/kill/traces/*.rtr | grep '\"kind\":\"process_end\"' | grep -q '\"how\":\"wait\",\"signal\":\"SIGKILL\"'"
"$RDMATRACE" diagnose --json "$T/kill" >"$T/kill.diag"
check "killed program: the diagnosis says it was killed by SIGKILL after its last record" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and f[0]["severity"] == "error", d["findings"]
assert f[0]["text"].startswith("verbs_prog (pid %s) on " % sys.argv[2]) and "was killed by SIGKILL" in f[0]["text"], f[0]
assert "after its last record" in f[0]["text"] and "process_end record (wait)" in f[0]["evidence"], f[0]
' "$T/kill.diag" "$cpid"

# ---- a child of the program killed: the kernel's process events say how and when ----
# (record reaps only the program; the shell in between reaps the child)
cat >"$T/killchild.sh" <<EOF
"$PROG" hang >"$T/killchild.out" &
c=\$!
for _ in \$(seq 100); do grep -q ready "$T/killchild.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.2
kill -KILL \$c
wait \$c
echo "child \$c status \$?"
EOF
"$RDMATRACE" record -o "$T/killchild" -- sh "$T/killchild.sh" >"$T/killchild.rec" 2>&1
check "killed child: record exits with the shell's 0" test $? -eq 0
kpid=$(sed -n 's/^child \([0-9]*\) status 137$/\1/p' "$T/killchild.rec")
check "killed child: the shell saw it killed" test -n "$kpid"
if python3 -c 'import json,sys; sys.exit(0 if isinstance(json.load(open(sys.argv[1]))["process_events"], dict) else 1)' \
	"$T/killchild/run.json"; then
	check "killed child: run.json gives its signal" python3 -c '
import json, sys
p = [x for x in json.load(open(sys.argv[1]))["processes"] if x["pid"] == int(sys.argv[2])]
assert p and all(x.get("exit_signal") == 9 and "root" not in x for x in p), p
' "$T/killchild/run.json" "$kpid"
	check "killed child: its salvaged trace ends with the kernel's time of the kill" bash -c \
		"'$RDMATRACE' dump --json '$T'/killchild/traces/*.salvage.rtr | grep '\"kind\":\"process_end\"' |
		 grep '\"how\":\"wait\",\"signal\":\"SIGKILL\"' | grep -q '\"exact_time\":1'"
	"$RDMATRACE" diagnose --json "$T/killchild" >"$T/killchild.diag"
	check "killed child: the diagnosis says it was killed after its last record, and gone 200 ms or more after it" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and f[0]["severity"] == "error", d["findings"]
t = f[0]["text"]
m = re.search(r"was killed by SIGKILL \(.*\) after its last record \(.*\), and was gone ([0-9.]+) ms after that record", t)
assert t.startswith("verbs_prog (pid %s) on " % sys.argv[2]) and m and 200 <= float(m.group(1)) < 10000, t
' "$T/killchild.diag" "$kpid"
else
	skip "killed child: how it ended" "record may not listen to the kernel's process events here (not root)"
fi

# ---- a crash: the tracer's handler records the signal and the address ----
"$RDMATRACE" record -o "$T/crash" -- "$PROG" crash >"$T/crash.out" 2>&1
rc=$?
if sanitizer_build; then # the sanitizer's SEGV handler was there first: it reports and exits
	check "crashing program: it still dies (status $rc)" test $rc -ne 0
	skip "crashing program: the diagnosis of the signal" "sanitizer build: its own SEGV handler ends the program"
else
check "crashing program: record exits 139 (SIGSEGV)" test $rc -eq 139
"$RDMATRACE" diagnose --json "$T/crash" >"$T/crash.diag"
check "crashing program: the diagnosis names the signal, the address, what was left undone" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and f[0]["severity"] == "error", d["findings"]
t = f[0]["text"]
assert "crashed with SIGSEGV at address 0x8 (not mapped)" in t and "after its last record (wr_post)" in t, t
# it posted 8 signaled sends and polled none of them
assert "8 send WRs posted were never completed on QP 0x" in t, t
assert "process_end record (signal)" in f[0]["evidence"] and "first WR never completed: wr_id 1 (SEND" in f[0]["evidence"], f[0]
' "$T/crash.diag"
# the same fault in a thread that never made an RDMA call (it had no ring):
# the handler takes one for the end record
"$RDMATRACE" record -o "$T/crasht" -- "$PROG" crash-thread >"$T/crasht.out" 2>&1
check "crash in a thread without RDMA: record exits 139" test $? -eq 139
check "crash in a thread without RDMA: its end record, from that thread, names the signal and the address" python3 -c '
import json, subprocess, sys
ev = [json.loads(l) for l in subprocess.run([sys.argv[1], "dump", "--json"] + sys.argv[2:], capture_output=True, text=True).stdout.splitlines()]
e = [x for x in ev if x["kind"] == "process_end"]
assert len(e) == 1 and e[0]["how"] == "signal" and e[0]["signal"] == "SIGSEGV" and e[0]["addr"] == 8, e
assert e[0]["tid"] not in {x["tid"] for x in ev if x["kind"] == "wr_post"}, e
' "$RDMATRACE" "$T"/crasht/traces/*.rtr
"$RDMATRACE" diagnose --json "$T/crasht" >"$T/crasht.diag"
check "crash in a thread without RDMA: the diagnosis says it crashed, and what was left undone" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and f[0]["severity"] == "error", d["findings"]
t = f[0]["text"]
assert "crashed with SIGSEGV at address 0x8 (not mapped)" in t and "8 send WRs posted were never completed on QP 0x" in t, t
' "$T/crasht.diag"
fi
# a program that ends normally, and a forked child that ends with _exit(0):
# no such finding (the probe's exit wrappers note the status)
for r in basic fork; do
	check "$r: no process_ended finding" bash -c "! '$RDMATRACE' diagnose --json '$T/$r' | grep -q process_ended"
done
check "fork: the child's _exit(0) is recorded" bash -c \
	"'$RDMATRACE' dump --json '$T'/fork/traces/*.rtr | grep '\"kind\":\"process_end\"' | grep -q '\"how\":\"exit\",\"exit_code\":0'"

# ---- a program that gives up: returns 1 from main ----
"$RDMATRACE" record -o "$T/giveup" -- "$PROG" giveup >/dev/null 2>&1
check "giveup: record exits 1" test $? -eq 1
check "giveup: the status main returned is recorded (the probe's on_exit handler)" bash -c \
	"'$RDMATRACE' dump --json '$T'/giveup/traces/*.rtr | grep '\"kind\":\"process_end\"' | grep -q '\"how\":\"exit\",\"exit_code\":1'"
"$RDMATRACE" diagnose --json "$T/giveup" >"$T/giveup.diag"
check "giveup: diagnose exits 1 (a problem)" test $? -eq 1
check "giveup: a process_ended warning says it exited with status 1 after its last record" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
f=[x for x in d["findings"] if x["kind"]=="process_ended"]
assert len(f)==1 and f[0]["severity"]=="warning", f
assert "verbs_prog (pid " in f[0]["text"] and "exited with status 1 after its last record (" in f[0]["text"], f[0]
assert "its own output says why" in f[0]["text"] and "process_end record (exit)" in f[0]["evidence"], f[0]
# the last line of what record kept of its output, quoted
assert "The recorded output (logs/" in f[0]["text"] and f[0]["text"].endswith(".out) ends with \"verbs_prog giveup: set up, returning 1\"."), f[0]
' "$T/giveup.diag"
# one that says why on stderr: record keeps its stderr apart too, and the
# finding quotes its last two lines (its stdout, buffered, comes last in the .out)
"$RDMATRACE" record -o "$T/giveup-err" -- "$PROG" giveup-stderr >/dev/null 2>&1
check "giveup-stderr: record keeps the stderr alone and names it in run.json" python3 -c '
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
err = open(sys.argv[1] + "/" + r["stderr_log"]).read()
out = open(sys.argv[1] + "/" + r["log"]).read()
assert err == "verbs_prog giveup: cannot go on (\"no peer\")\nverbs_prog giveup: stopping\n", err
assert "stopping" in out and "returning 1" in out, out
' "$T/giveup-err"
check "giveup-stderr: the finding quotes the last two lines of its stderr" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "diagnose", "--json", sys.argv[2]], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and " Its stderr (logs/" in f[0], f
assert f[0].endswith("-verbs_prog.err) ends with \"verbs_prog giveup: cannot go on (\x27no peer\x27)\" and \"verbs_prog giveup: stopping\"."), f[0]
' "$RDMATRACE" "$T/giveup-err"
check "a program that writes nothing on stderr leaves no .err" bash -c "! ls '$T'/giveup/logs/*.err 2>/dev/null && ! grep -q stderr_log '$T/giveup/run.json'"

# ---- a program that gives up before any RDMA call: no trace at all ----
# (perftest refusing its arguments, a program that cannot reach its peer to
# exchange addresses); record's run.json says how it ended
"$RDMATRACE" record -o "$T/notrace" -- sh -c 'echo "cannot reach 10.9.0.1: Connection refused" >&2; exit 3' >/dev/null 2>&1
"$RDMATRACE" diagnose --json "$T/notrace" >"$T/notrace.diag"
check "no trace: diagnose exits 1 (a problem), not 2 (nothing to read)" test $? -eq 1
check "no trace: a process_ended warning gives the exit status and quotes the stderr" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "process_ended"]
assert len(f) == 1 and f[0]["severity"] == "warning", d["findings"]
t = f[0]["text"]
assert t.startswith("sh (pid ") and " exited with status 3 before it made an RDMA call the probe could record" in t, t
assert t.endswith(" Its stderr (logs/" + t.split("Its stderr (logs/")[1].split(")")[0] + ") ends with \"cannot reach 10.9.0.1: Connection refused\"."), t
assert f[0]["evidence"] == "run.json: exit code 3, no process traced", f[0]
' "$T/notrace.diag"
"$RDMATRACE" record -o "$T/notrace-kill" -- sh -c 'kill -KILL $$' >/dev/null 2>&1
check "no trace, killed: the warning names the signal" bash -c \
	"'$RDMATRACE' diagnose '$T/notrace-kill' | grep -q 'was killed by SIGKILL before it made an RDMA call the probe could record'"
"$RDMATRACE" record -o "$T/notrace-ok" -- true >/dev/null 2>&1
"$RDMATRACE" diagnose "$T/notrace-ok" >"$T/notrace-ok.out" 2>&1
check "no trace, exit 0: still nothing to diagnose (exit 2, says why)" bash -c \
	"test $? -eq 2 && grep -q 'has no trace files' '$T/notrace-ok.out'"

# ---- SIGTERM to record reaches the program ----
"$RDMATRACE" record -o "$T/term" -- "$PROG" hang >"$T/term.out" 2>&1 &
rpid=$!
for _ in $(seq 100); do grep -q ready "$T/term.out" 2>/dev/null && break; sleep 0.1; done
kill -TERM $rpid
wait $rpid
check "SIGTERM forwarded: record exits 143" test $? -eq 143
dump_all "$T/term" | python3 tests/probes/check_trace.py 1 >"$T/term.chk"
if [ $? -eq 0 ]; then ok "SIGTERM: trace complete"; else not_ok "SIGTERM: trace"; cat "$T/term.chk"; fi
# ... and one that comes while record is still starting (a script's time
# limit, a lab stopping a side at once) is passed on once the program runs:
# it stops at once, and the run's files are written all the same (before,
# record itself died of it, leaving no run.json, or the program ran on)
"$RDMATRACE" record -o "$T/termearly" -- sleep 5 >/dev/null 2>&1 &
rpid=$!
sleep 0.01
kill -TERM $rpid
t0=$(date +%s%N)
wait $rpid
rc=$?
t1=$(date +%s%N)
check "SIGTERM while record starts: the program stopped at once, run.json says so" bash -c "test $rc -eq 143 &&
	test $(( (t1 - t0) / 1000000 )) -lt 3000 &&
	python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))[\"exit\"]; assert e.get(\"signal\") == 15, e' '$T/termearly/run.json'"

# ---- flight recorder ----
"$RDMATRACE" record -o "$T/flight" --flight-recorder 64K -- "$PROG" basic >/dev/null 2>&1
check "flight recorder run exits 0" test $? -eq 0
check "flight recorder: mode in run.json" grep -q '"mode": "flight"' "$T/flight/run.json"
dump_all "$T/flight" | python3 tests/probes/check_trace.py 1 >"$T/flight.chk"
if [ $? -eq 0 ]; then ok "flight recorder: trace written at exit"; else not_ok "flight recorder trace"; cat "$T/flight.chk"; fi

# ---- exit status, bad usage ----
"$RDMATRACE" record -o "$T/st" -- sh -c 'exit 3' >/dev/null 2>&1
check "exit status propagated" test $? -eq 3
check "no trace for a process that never used RDMA" test "$(ntraces "$T/st")" -eq 0
"$RDMATRACE" record -o "$T/nx" -- /nonexistent/prog >/dev/null 2>"$T/nx.err"
check "missing program: exit 127 with a message" bash -c "[ $? -eq 127 ] && grep -q 'cannot run' '$T/nx.err'"
check_fails "bad --flight-recorder size refused" "$RDMATRACE" record -o "$T/bad" --flight-recorder 1000 -- true
check_fails "no program refused" "$RDMATRACE" record -o "$T/bad"
check_fails "unknown option refused" "$RDMATRACE" record --frob -- true
RDMATRACE_PROBE=/nonexistent.so "$RDMATRACE" record -o "$T/bad" -- true 2>"$T/np.err"
check "missing probe: exit 2 with a message" bash -c "[ $? -eq 2 ] && grep -q 'librdmatrace-probe.so' '$T/np.err'"

# ---- one recording per run directory ----
# a second record into a directory another one is writing (two programs
# given the same -o) is refused, and the first one's recording is whole; a
# directory that holds a finished recording is refused too
"$RDMATRACE" record -o "$T/one" -- "$PROG" wait >"$T/one.out" 2>&1 < <(sleep 3) &
first=$!
for i in $(seq 50); do [ -d "$T/one/traces" ] && break; sleep 0.1; done
"$RDMATRACE" record -o "$T/one" -- "$PROG" basic >"$T/two.out" 2>&1
rc=$?
check "a second record into a run directory in use: exit 2, told why" bash -c \
	"[ $rc -eq 2 ] && grep -q 'is in use by another rdmatrace record; record each program into a directory of its own' '$T/two.out'"
wait $first
check "... and the first recording is whole: its run.json names its one process, its trace is there" python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/run.json"))
assert d["command"][-1] == "wait" and len(d["processes"]) == 1, d' "$T/one"
check "... one trace" test "$(ntraces "$T/one")" -eq 1
"$RDMATRACE" record -o "$T/one" -- true >"$T/three.out" 2>&1
rc=$?
check "a record into a run directory that holds a recording: exit 2, told why, nothing changed" bash -c \
	"[ $rc -eq 2 ] && grep -q 'already holds a recording (its run.json)' '$T/three.out' && grep -q '\"wait\"' '$T/one/run.json'"

# ---- the probe never breaks the program: untraced after one warning ----
# (in a sanitizer build its runtime has to come first, as record arranges)
sanrt=$(ldd "$PROBE" 2>/dev/null | awk '$1 ~ /^lib[at]san\.so/ { printf "%s:", $3 }')
RDMATRACE_SHM=/rdmatrace-does-not-exist LD_PRELOAD=$sanrt$PROBE "$PROG" threads 2 >"$T/un.out" 2>"$T/un.err"
check "tracing cannot start: program still runs" bash -c "[ $? -eq 0 ] && grep -q 'threads: ok' '$T/un.out'"
check "tracing cannot start: exactly one warning on stderr" test "$(wc -l <"$T/un.err")" -eq 1
check "nothing of the probe's on stdout" test "$(wc -l <"$T/un.out")" -eq 1
done_testing
