#!/usr/bin/env bash
# Every lab scenario end to end on the uroce backend: `rdmatrace lab` must
# exit 0 (each scenario checks its own results: data verified, expected
# error statuses, RNR NAKs in rnr, retransmissions in loss), and the run
# directory must hold what docs/run-directory.md promises.  Then the ways
# a lab run can go wrong.
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for s in $("$RDMATRACE" lab --list | awk 'NR > 1 { print $1 }'); do
	if timeout 180 "$RDMATRACE" lab "$s" -o "$T/$s" >"$T/$s.out" 2>&1; then
		ok "lab $s on uroce: every expectation met"
	else
		not_ok "lab $s on uroce"
		sed 's/^/#   /' "$T/$s.out" | tail -25
	fi
	check "lab $s: run.json, traces, capture and logs" test -s "$T/$s/run.json" -a -s "$T/$s/capture.pcapng" \
		-a "$(ls "$T/$s/traces" | wc -l)" -ge 2 -a -s "$T/$s/logs/packets.txt"
done

check "lab minimal: the client's trace holds its WRITE and READ" bash -c \
	"'$RDMATRACE' dump '$T'/minimal/traces/*.rtr | grep -q RDMA_READ"
check "lab rnr: min_rnr_timer 0 shows as 655.36 ms RNR NAKs" grep -q 'RNR NAK 655.36 ms' "$T/rnr/logs/packets.txt"
check "lab error: the client saw the remote access error and the flushes" grep -q 'remote_access_errors=1 flushed=2' "$T/error/logs/client-rt-lab-error.out"
check "lab bulk: the TCP comparison ran" grep -q 'RESULT bulk server ok transport=tcp' "$T/bulk/logs/server-tcp.out"
check "run.json is valid JSON" python3 -m json.tool "$T/minimal/run.json"

# Options reach the programs.
"$RDMATRACE" lab imm --count 3 --size 1000 -o "$T/imm3" >"$T/imm3.out" 2>&1
check "--count and --size reach the programs" grep -q 'RESULT imm server ok batches=3' "$T/imm3/logs/server-rt-lab-imm.out"
"$RDMATRACE" lab minimal --loss 5 --seed 7 -o "$T/lossy" >"$T/lossy.out" 2>&1
check "--loss injects faults into any scenario, and the data still arrives" grep -q 'ok    client: ok' "$T/lossy.out"
check "--loss is recorded in run.json" grep -q '"faults": "drop:prob=0.05"' "$T/lossy/run.json"
# the caller's UROCE_FAULTS: recorded in run.json; a corrupted ACK is a bad
# ICRC on the wire, which the clean-run check ("every ICRC verifies") would
# fail: under injected corruption the check counts them and wants the
# diagnosis to tell them; without it, the clean run's check holds
UROCE_FAULTS="corrupt:op=ack,nth=1" "$RDMATRACE" lab minimal -o "$T/corrupt" >"$T/corrupt.out" 2>&1
check "UROCE_FAULTS from the environment is recorded in run.json" grep -q '"faults": "corrupt:op=ack,nth=1"' "$T/corrupt/run.json"
check "injected corruption: the bad ICRC counted on the wire and told by the diagnosis" \
	grep -q 'ok    injected corruption: 1 packet with a bad ICRC on the wire, told by the diagnosis' "$T/corrupt.out"
check "a run without injected corruption: every ICRC verifies (checked)" grep -q 'ok    every ICRC verifies' "$T/minimal.out"
# a UROCE_FAULTS uroce refuses: the program fails with uroce's reason (and
# the errno of the refusal), not with a missing library or device
UROCE_FAULTS="corrupt:op=write_imm,nth=2" timeout 60 "$RDMATRACE" lab minimal -o "$T/badfaults" >"$T/badfaults.out" 2>&1
check "a bad UROCE_FAULTS: the lab says uroce's reason" grep -q "UROCE_FAULTS: bad value 'write_imm' for 'op'" "$T/badfaults.out"
check "... and the program's call fails with EINVAL, not a missing device" bash -c \
	"grep -q 'rdma_create_event_channel.*: Invalid argument' '$T/badfaults.out' && ! grep -q 'no uroce device found' '$T/badfaults.out'"
# ud has no retransmission: with 5 % loss (seed 3) its programs give up and
# exit 1; the diagnosis quotes how each side's stderr ends (the lab's
# run.json names each side's stderr and output beside its record)
timeout 120 "$RDMATRACE" lab ud --loss 5 --seed 3 -o "$T/udloss" >"$T/udloss.out" 2>&1
check "a side that gives up in a lab run: its exit finding quotes the end of its stderr" python3 -c '
import json, subprocess, sys
rt, run = sys.argv[1:3]
sides = json.load(open(run + "/run.json"))["sides"]
failed = [s for s in sides.values() if s["exit_status"]]
assert failed, sides
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
for s in failed:
    pid = s["record"]["processes"][0]["pid"]
    last = [l for l in open(run + "/" + s["stderr"]).read().splitlines() if l.strip()][-1]
    f = [x["text"] for x in d["findings"] if x["kind"] == "process_ended" and "(pid %d)" % pid in x["text"]]
    assert len(f) == 1 and (" Its stderr (%s) ends with " % s["stderr"]) in f[0] and f[0].endswith("\"%s\"." % last.strip()), (s, last, f)
' "$RDMATRACE" "$T/udloss"

# a run longer than the lab's --timeout: sendrecv's receiver posts its
# receives 5 s late, the lab stops the client after 2 s (exit status 124 in
# run.json, SIGTERM to the program through record), and the diagnosis of its
# end says the lab's time limit stopped it.  Meanwhile the client resent its
# first SEND thousands of times after RNR NAKs of timer code 1 (the scenario's
# --min-rnr-timer 1, set once the connection is up: a NAK before that has code
# 0, and the stall counts the codes as they came), and each of its receiver's
# engine records of those SENDs is matched to its own captured copy (an
# occurrence number of 8 bits matched the 257th to the first's copy, seconds
# away, and the clock was called inconsistent)
timeout 120 "$RDMATRACE" lab sendrecv --timeout 2 -o "$T/limit" -- --post-delay-ms 5000 --timeout-ms 3000 >"$T/limit.out" 2>&1
check "a client stopped by the lab's --timeout: its end says so; RNR NAK codes as they came; the clock consistent" python3 -c '
import json, re, subprocess, sys
rt, run = sys.argv[1:3]
side = json.load(open(run + "/run.json"))["sides"]["client"]
assert side["exit_status"] == 124, side
pid = side["record"]["processes"][0]["pid"]
d = json.loads(subprocess.run([rt, "diagnose", "--json", run], capture_output=True, text=True).stdout)
f = [x["text"] for x in d["findings"] if x["kind"] == "process_ended" and x["text"].startswith("rt-lab-sendrecv (pid %d) " % pid)]
assert len(f) == 1 and " was stopped by SIGTERM " in f[0] and \
    " The lab stopped it: its side of the run had not ended within the lab\x27s time limit (--timeout; run.json: exit status 124)." in f[0], f
r = [x["text"] for x in d["findings"] if x["kind"] == "rnr_stall"]
# (whether the first SEND came before the receiver set code 1 is up to timing: then its NAK had code 0)
m = re.search(r"answered (\d+) RNR NAKs with timer code (?:1 \(0\.01 ms\);|0 \(655\.36 ms\) \((\d+) of them\), then code 1 \(0\.01 ms\) \((\d+)\) - the responder\x27s QP changed its min_rnr_timer meanwhile)", r[0] if r else "")
assert len(r) == 1 and m and int(m.group(1)) > 256 and (not m.group(2) or int(m.group(2)) + int(m.group(3)) == int(m.group(1))), r
# (the receiving program starts its 5 s delay before the first SEND arrives: 4999.989 ms seen)
assert re.search(r"next receive posted (49[5-9]\d|50\d\d)\.\d+ ms after it", [x["evidence"] for x in d["findings"] if x["kind"] == "rnr_stall"][0]), r
assert not [x for x in d["findings"] if x["kind"] == "clock"], [x["text"] for x in d["findings"] if x["kind"] == "clock"]
assert all(h["uncertainty_ns"] is not None and h["uncertainty_ns"] < 1000000 for h in d["hosts"]), d["hosts"]
' "$RDMATRACE" "$T/limit"

# Running again into the same directory replaces the run.
"$RDMATRACE" lab minimal -o "$T/minimal" >/dev/null 2>&1
check "a rerun replaces the previous run's traces" test "$(ls "$T/minimal/traces" | wc -l)" -eq 2
mkdir -p "$T/notarun" && echo precious >"$T/notarun/file"
check_fails "a non-empty directory that is not a run is refused" "$RDMATRACE" lab minimal -o "$T/notarun"
check "... and left alone" grep -q precious "$T/notarun/file"

# Bad input and failure.
check_fails "unknown scenario" "$RDMATRACE" lab no-such-scenario -o "$T/x"
check "unknown scenario says so" bash -c "'$RDMATRACE' lab no-such-scenario 2>&1 | grep -q \"unknown scenario 'no-such-scenario'\""
check_fails "unknown backend" "$RDMATRACE" lab minimal --backend nowhere -o "$T/x"
check "--netem is for the vm backend, and says so" bash -c "! '$RDMATRACE' lab minimal --netem 'duplicate 5%' -o '$T/x' >'$T/netem.out' 2>&1 && grep -q -- '--netem is for the vm backend' '$T/netem.out'"
check "--netem with --loss is refused, and says so" bash -c "! '$RDMATRACE' lab minimal --backend vm --netem 'duplicate 5%' --loss 3 -o '$T/x' >'$T/netem2.out' 2>&1 && grep -q -- '--netem and --loss together' '$T/netem2.out'"
check_fails "a non-number option" "$RDMATRACE" lab minimal --count lots -o "$T/x"
: >"$T/afile"
"$RDMATRACE" lab minimal -o "$T/afile/run" >"$T/nodir.out" 2>&1
rc=$?
check "a run directory that cannot be made is refused (status 2), the reason said once" \
	bash -c "[ $rc = 2 ] && grep -q 'cannot create $T/afile/run' '$T/nodir.out' && [ \$(grep -c 'Not a directory' '$T/nodir.out') = 1 ]"
timeout 60 "$RDMATRACE" lab minimal -o "$T/dies" -- --size not-a-size >"$T/dies.out" 2>&1
rc=$?
check "a program that dies fails the run" test $rc -ne 0 -a $rc -ne 124
check "... with a message naming what failed and the log" grep -q 'did not come up; its output is in .*logs/server-rt-lab-minimal.out' "$T/dies.out"
check "... and keeps what was recorded" test -s "$T/dies/logs/server-rt-lab-minimal.out" -a -s "$T/dies/run.json"
check "... and its diagnosis says the server gave up before any RDMA call, quoting why" bash -c \
	"'$RDMATRACE' diagnose '$T/dies' | grep -q \"rt-lab-minimal (pid [0-9]*) on .* exited with status 2 before it made an RDMA call .*Its stderr (logs/server-.*) ends with \\\"rt-lab-minimal: 'not-a-size' is not a size\\\".\""
# a lab program that fails before it connects (here: no memory for a 64 GiB
# transfer) reports it and exits 1; it crashed in its clean-up before
# (a sanitizer build's allocator would abort on the request instead of failing it)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1 \
TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}allocator_may_return_null=1 \
	"$BUILD/lab/rt-lab-bulk" --client -a 127.0.0.1 -p 1 --size 64G --timeout-ms 1000 >"$T/nomem.out" 2>&1
rc=$?
check "a lab program failing before it connects exits 1 with its result line (no crash: status $rc)" \
	bash -c "test $rc -eq 1 && grep -q 'RESULT bulk client fail' '$T/nomem.out'"
done_testing
