#!/usr/bin/env bash
# One UD server, three clients at once (lab/ud.c answers each SIDR request
# with its one QP), on uroce, each process under rdmatrace record and the
# wire captured on loopback.  Every datagram must be linked to the send WR
# of the process behind its source address and to a receive WR of the
# process behind its destination, although all four QPs have QPN 17 and
# the server's receives are taken by the clients in arrival order; the one
# host's clock must come out consistent.  Then the same run with each trace
# copied into traces/ as well: read once, same links.
. tests/lib.sh
T=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$T"' EXIT
net=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1))
srv=$net.1 port=$((8471 + RANDOM % 1000))
export LD_LIBRARY_PATH=$BUILD/uroce${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$T/run
mkdir -p "$R"
"$RDMATRACE" capture -i lo -w "$R/capture.pcapng" -q --filter "host $srv" 2>"$T/capture.err" &
cap=$!
pids+=("$cap")
sleep 0.5
if ! kill -0 "$cap" 2>/dev/null; then
	skip "UD with three senders" "no loopback capture here: $(head -1 "$T/capture.err")"
	done_testing
	exit
fi
"$RDMATRACE" record -o "$R/server" -- "$BUILD/lab/rt-lab-ud" --server -a "$srv" -p "$port" --count 36 \
	>"$T/server.out" 2>&1 &
spid=$!
pids+=("$spid")
for _ in $(seq 100); do grep -q 'lab: server ready' "$T/server.out" && break; sleep 0.1; done
cpids=()
for c in 2 3 4; do
	UROCE_ADDR=$net.$c "$RDMATRACE" record -o "$R/client$c" -- "$BUILD/lab/rt-lab-ud" --client -a "$srv" -p "$port" \
		--count 12 >"$T/client$c.out" 2>&1 &
	cpids+=($!)
done
pids+=("${cpids[@]}")
rc=0
for p in "${cpids[@]}" "$spid"; do wait "$p" || rc=1; done
sleep 0.2
kill -INT "$cap"
wait "$cap"
check "three UD clients served by one server QP: every datagram's data verified" \
	bash -c "test $rc = 0 && grep -q 'RESULT ud server ok requests=36 bad=0' '$T/server.out' &&
		 test \$(cat '$T'/client*.out | grep -c 'RESULT ud client ok replies=12 bad=0') = 3"
check "UD, three senders: each datagram linked to its sender's WR and its receiver's receive" \
	python3 tests/analysis/check_ud_senders.py "$R" "$RDMATRACE" "$srv" 3 12
"$RDMATRACE" diagnose "$R" >"$T/diag.txt" 2>&1
check "UD, three senders: the host's clock is consistent, nothing is found" \
	bash -c "grep -q 'no problems' '$T/diag.txt' && ! grep -q 'could not be aligned' '$T/diag.txt'"
mkdir -p "$R/traces"
cp "$R"/server/traces/*.rtr "$R"/client*/traces/*.rtr "$R/traces/"
"$RDMATRACE" diagnose "$R" >"$T/diag2.txt" 2>&1
check "traces in traces/ and in the hosts' runs: each read once" \
	test "$(grep -c 'note: trace .* is a copy of .*read once' "$T/diag2.txt")" = 4
check "traces read once: the same links" python3 tests/analysis/check_ud_senders.py "$R" "$RDMATRACE" "$srv" 3 12
check "traces read once: the clock is still consistent" bash -c "! grep -q 'could not be aligned' '$T/diag2.txt'"
done_testing
