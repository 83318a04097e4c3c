#!/usr/bin/env bash
# `rdmatrace view` end to end: batch mode on a synthetic run (traces of two
# hosts + a pcapng capture, written by viewer-gen through the project's own
# writers), the real binary driven in tmux (filter a QP, jump to the next RNR
# NAK, open the detail pane, resize, quit), damaged runs, the tshark
# hand-off, and the tmux scenario again under AddressSanitizer.
. tests/lib.sh
GEN=$BUILD/tests/viewer/viewer-gen
T=$(mktemp -d /tmp/rdmatrace-view-XXXXXX)
SOCK=vwtest$$
cleanup() {
	for s in "$SOCK"-tmux "$SOCK"-asan "$SOCK"-live "$SOCK"-mono "$SOCK"-lab; do tmux -L "$s" kill-server 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

"$GEN" "$T/run" >/dev/null
check "generator wrote traces and a capture" test -s "$T/run/capture.pcapng" -a -s "$T/run/traces/client-1100-rdma-app.rtr"

view() { "$RDMATRACE" view "$@" 2>&1; }

# ---- batch mode ----
view "$T/run" --batch >"$T/first.txt"
check "batch exits 0" test $? -eq 0
check "timeline was saved in the run" test -s "$T/run/timeline.rtl"
check_grep "title line" '^ rdmatrace view .*timeline  [0-9]+ rows' "$T/first.txt"
check_grep "column headers" 'time \(s\) +gap +host +QP +kind +summary' "$T/first.txt"
check_grep "control plane rows are marked" '^[ >]#  +0\.0000[0-9]+ .*client .*DEVICE' "$T/first.txt"
check "80x24 by default" test "$(wc -l <"$T/first.txt")" -eq 24
check "no line wider than 80" test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/first.txt")" -le 80

# a run of findings alone (a program that gave up before any RDMA call, no
# capture): its times start at its first timed finding, not at 0
"$RDMATRACE" record -o "$T/notrace" -- sh -c 'echo "no peer" >&2; exit 3' >/dev/null 2>&1
view "$T/notrace" --batch --size 120x10 >"$T/notrace.txt"
check_grep "findings alone: the timed one at 0.000000, after the untimed input notes" \
	'^[ >]i +0\.000000 +- .*FINDING +F[0-9]+ warning process_ended: sh \(pid [0-9]+\)' "$T/notrace.txt"

view "$T/run" --batch --keys 'p17<Enter>r<Enter>' --size 100x30 >"$T/rnr.txt"
check_grep "QP filter shown in the title" '\[qp 17\]' "$T/rnr.txt"
check_grep "selection is on an RNR NAK" '^>R .*(RNR|Acknowledge)' "$T/rnr.txt"
check_grep "detail pane open" '^-- detail: row [0-9]+ --' "$T/rnr.txt"
check_grep "status says what the jump did" 'next RNR NAK' "$T/rnr.txt"
bad=$(awk '/^  time/ { on = 1; next } /^-- detail/ { on = 0 } on && $0 ~ /^[ >*][ !Rr#i] / && $0 !~ / (17|18) / { print }' "$T/rnr.txt" | grep -v ' wire ' | head -1)
check "every host row under the QP filter is about QP 17" test -z "$bad"

# links: from the WR of the Go-Back-N finding to its completion by number
view "$T/run" --batch --size 120x60 --keys '/RDMA_WRITE wr_id=0x3<Enter><Enter>' >"$T/links.txt"
n=$(sed -n 's/^ *\[\([0-9]*\)\] completion .*/\1/p' "$T/links.txt" | head -1)
if [ -n "$n" ]; then
	view "$T/run" --batch --size 120x60 --keys "/RDMA_WRITE wr_id=0x3<Enter><Enter>0$n<Enter>" >"$T/link2.txt"
	check_grep "link N leads to the WR's completion" '^> .* CQE +wr_id=0x3 ' "$T/link2.txt"
	view "$T/run" --batch --size 120x60 --keys "/RDMA_WRITE wr_id=0x3<Enter><Enter>0$n<Enter><BS>" >"$T/link3.txt"
	check_grep "Backspace returns to the WR" '^> .* WR +queue=send opcode=RDMA_WRITE wr_id=0x3 ' "$T/link3.txt"
else
	not_ok "the WR lists its completion among its links"; sed 's/^/#   /' "$T/links.txt" | tail -25
fi

view "$T/run" --batch --keys 'G' >"$T/end.txt"
check_grep "G goes to the end (CM disconnect is last)" '^>#.*CM +event=DISCONNECTED' "$T/end.txt"
view "$T/run" --batch --keys 'e' >"$T/err.txt"
check_grep "e jumps to an error" '^>! ' "$T/err.txt"
view "$T/run" --batch --keys 'x' >"$T/retx.txt"
check_grep "x jumps to a retransmission" '^>r ' "$T/retx.txt"
view "$T/run" --batch --keys 'c' >"$T/cm.txt"
check_grep "c jumps to a CM event" '^>#.* CM ' "$T/cm.txt"
view "$T/run" --batch --keys '/ESTABLISHED<Enter>' >"$T/search.txt"
check_grep "search finds the text" '^>.*ESTABLISHED' "$T/search.txt"
view "$T/run" --batch --keys '/no such thing<Enter>' >"$T/search2.txt"
check_grep "failed search says so" 'not found' "$T/search2.txt"
view "$T/run" --batch --keys 'oack<Enter>' >"$T/op.txt"
check_grep "opcode filter" '\[op ack\]' "$T/op.txt"
view "$T/run" --batch --keys '!' >"$T/errs.txt"
check "errors-only shows only marked rows" test -z "$(awk 'NR > 2 && /^[ >*] / && !/^[ >*][!Rr]/' "$T/errs.txt" | grep -v '^ h help' | grep -v '^ filter' | head -1)"
view "$T/run" --batch --keys 't0.001<Enter>' >"$T/time.txt"
check_grep "jump to time" '^>  +0\.001[0-9]+ ' "$T/time.txt"
view "$T/run" --batch --keys 'jjjmjjjjmB' >"$T/bm.txt"
check_grep "bookmark list has two entries" '^  2 ' "$T/bm.txt"
view "$T/run" --batch --keys 'T' >"$T/abs.txt"
check_grep "absolute time" 'time \(UTC\)' "$T/abs.txt"
view "$T/run" --batch --keys 'l' --size 120x30 >"$T/lanes.txt"
check_grep "lanes: client | wire | server" 'client +wire +server' "$T/lanes.txt"
view "$T/run" --batch --keys 'Q' >"$T/qps.txt"
check_grep "QP list" 'QPN +peer +state' "$T/qps.txt"
check_grep "QP list has both QPs" ' 17 +18 ' "$T/qps.txt"
view "$T/run" --batch --keys 'Q<Enter>' >"$T/qpenter.txt"
check_grep "Enter on a QP filters it" '\[qp (17|18)\]' "$T/qpenter.txt"
view "$T/run" --batch --keys 'F' >"$T/findings.txt"
check_grep "findings screen" 'severity +finding' "$T/findings.txt"
view "$T/run" --batch --keys 'h' --size 120x60 >"$T/help.txt"
for k in 'next / previous RNR NAK' 'filter by QP' 'bookmark' 'lanes view' 'tshark' 'follow'; do
	check_grep "help: $k" "$k" "$T/help.txt"
done
view "$T/run" --batch --keys 'jjj' --frames 2 >"$T/frames.txt"
check "--frames 2 prints two screens" test "$(grep -c $'^\f$' "$T/frames.txt")" -eq 1

view "$T/run" --batch --keys '<Bogus>' >"$T/o" ; rc=$?
check "unknown key name: exit 2" test $rc -eq 2
check_grep "unknown key name: message" 'unknown key name' "$T/o"
view "$T/run" --batch --size 10x2 >"$T/o"; rc=$?
check "bad size: exit 2" test $rc -eq 2
view "$T/nonexistent" --batch >"$T/o"; rc=$?
check "missing path: exit 1" test $rc -eq 1
check_grep "missing path: message" 'No such file' "$T/o"
view "$T/run" >"$T/o" </dev/null; rc=$?
check "no terminal and no --batch: clear error" test $rc -eq 2
check_grep "no terminal: message" 'not a terminal' "$T/o"

# random key sequences (tests/viewer/random-keys.txt, made once with a fixed
# seed from every binding) never crash or fail, on every screen size
bad=0
i=0
while IFS= read -r k; do
	i=$((i + 1))
	size=$(( 20 + (i * 37) % 130 ))x$(( 4 + (i * 13) % 50 ))
	if ! "$RDMATRACE" view "$T/run" --batch --keys "$k" --size "$size" >/dev/null 2>"$T/rk.err"; then
		bad=$((bad + 1)); echo "#   keys '$k' size $size:"; head -5 "$T/rk.err" | sed 's/^/#     /'
	fi
done <tests/viewer/random-keys.txt
check "random key sequences: all $i replays exit 0" test "$bad" -eq 0

# ---- inputs other than a run directory, damaged runs ----
view "$T/run/capture.pcapng" --batch >"$T/cap.txt"; rc=$?
check "capture alone opens" test $rc -eq 0
check_grep "capture alone shows wire rows" ' wire .* WIRE +frame 1 ' "$T/cap.txt"
gzip -c "$T/run/capture.pcapng" >"$T/cap.pcapng.gz"
view "$T/cap.pcapng.gz" --batch >"$T/capgz.txt"; rc=$?
check "a gzip-compressed capture alone opens, the same rows" \
	bash -c "test $rc -eq 0 && diff <(tail -n +2 '$T/cap.txt') <(tail -n +2 '$T/capgz.txt')"
view "$T/run/traces/client-1100-rdma-app.rtr" --batch >"$T/trc.txt"; rc=$?
check "trace file alone opens" test $rc -eq 0
check_grep "trace file alone shows its events" ' client .*DEVICE' "$T/trc.txt"

mkdir -p "$T/empty"
view "$T/empty" --batch >"$T/empty.txt"; rc=$?
check "empty directory: opens (exit 0)" test $rc -eq 0
check_grep "empty directory: says so" 'no events in this run' "$T/empty.txt"

cp -r "$T/run" "$T/trunc"; rm -f "$T/trunc/timeline.rtl" "$T/trunc/annotated.pcapng"
f="$T/trunc/traces/client-1100-rdma-app.rtr"
truncate -s $(( $(stat -c %s "$f") / 2 + 7 )) "$f"
view "$T/trunc" --batch >"$T/trunc.txt"; rc=$?
check "truncated trace: opens (exit 0)" test $rc -eq 0
check_grep "truncated trace: still shows rows" ' rows' "$T/trunc.txt"

cp -r "$T/run" "$T/corrupt"; rm -f "$T/corrupt/timeline.rtl" "$T/corrupt/annotated.pcapng"
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$T/corrupt/capture.pcapng" bs=1 seek=300 conv=notrunc 2>/dev/null
view "$T/corrupt" --batch >"$T/corrupt.txt"; rc=$?
check "corrupt capture: opens (exit 0)" test $rc -eq 0
check_grep "corrupt capture: still shows rows" ' rows' "$T/corrupt.txt"

head -c 5000 /dev/urandom >"$T/garbage.bin"
view "$T/garbage.bin" --batch >"$T/garbage.txt"; rc=$?
check "garbage file: opens with a message (exit 0)" test $rc -eq 0
check_grep "garbage file: message" 'not a run directory' "$T/garbage.txt"

mkdir -p "$T/badtl"; cp -r "$T/run/traces" "$T/badtl/"; head -c 3000 /dev/urandom >"$T/badtl/timeline.rtl"
view "$T/badtl" --batch --no-rebuild >"$T/badtl.txt"; rc=$?
check "corrupt timeline file: opens with a message (exit 0)" test $rc -eq 0

# ---- tshark hand-off ----
if command -v tshark >/dev/null; then
	view "$T/run" --batch --keys '/frame 7 <Enter>w' --size 120x200 >"$T/tshark.txt"
	check_grep "tshark decode shown for the frame" 'tshark -V: frame 7' "$T/tshark.txt"
	check_grep "tshark decode has the InfiniBand layer" 'InfiniBand' "$T/tshark.txt"
	view "$T/run" --batch --keys 'w' >"$T/tshark2.txt"
	check_grep "w on a non-packet row explains" 'not a captured packet' "$T/tshark2.txt"
	view "$T/run" --batch --keys '/frame 7 <Enter>w' --tshark /nonexistent/tshark >"$T/tshark3.txt"
	check_grep "missing tshark: clear message" 'cannot run /nonexistent/tshark' "$T/tshark3.txt"
else
	skip "tshark decode" "no tshark"
fi
DISPLAY= view "$T/run" --batch --keys '/frame 7 <Enter>W' >"$T/ws.txt"
check_grep "Wireshark without a display explains" 'no display' "$T/ws.txt"

# ---- a real run: rping over the uroce engine, recorded with rdmatrace record ----
if [ -e "$BUILD/uroce/librdmacm.so.1" ] && command -v rping >/dev/null; then
	addr=127.0.$((RANDOM % 200 + 20)).$((RANDOM % 200 + 2))
	( LD_LIBRARY_PATH=$PWD/$BUILD/uroce timeout 30 "$RDMATRACE" record -o "$T/lab-srv" -- rping -s -a "$addr" -C 3 >"$T/lab-srv.log" 2>&1 & )
	sleep 1
	LD_LIBRARY_PATH=$PWD/$BUILD/uroce timeout 30 "$RDMATRACE" record -o "$T/lab" --capture lo -- rping -c -a "$addr" -C 3 >"$T/lab-cli.log" 2>&1
	rc=$?
	for i in $(seq 1 50); do ls "$T"/lab-srv/traces/*.rtr >/dev/null 2>&1 && [ -s "$T/lab-srv/run.json" ] && break; sleep 0.1; done
	if [ $rc -eq 0 ] && ls "$T"/lab-srv/traces/*.rtr >/dev/null 2>&1; then
		cp "$T"/lab-srv/traces/*.rtr "$T/lab/traces/"
		view "$T/lab" --batch --size 140x40 --keys 'c' >"$T/lab1.txt"
		check_grep "uroce run: CM event on the wire or in a trace" '^>#.* CM' "$T/lab1.txt"
		view "$T/lab" --batch --size 140x40 --keys '/RC Send Only<Enter>p.<Enter><Enter>' >"$T/lab2.txt"
		check_grep "uroce run: RoCE packets on the wire" ' wire .* WIRE +frame [0-9]+ .*RC ' "$T/lab2.txt"
		check_grep "uroce run: filter the QP of a SEND" '\[qp [0-9]+\]' "$T/lab2.txt"
		check_grep "uroce run: detail pane of the SEND" '^-- detail: row' "$T/lab2.txt"
		view "$T/lab" --batch --size 140x30 --keys 'l' >"$T/lab3.txt"
		check_grep "uroce run: lanes side by side per process" 'rping\[[0-9]+\] +wire +.*rping\[[0-9]+\]' "$T/lab3.txt"
	else
		skip "uroce run" "rping over uroce did not complete (exit $rc)"
	fi
else
	skip "uroce run" "no build/uroce/librdmacm.so.1 or no rping"
fi

# ---- the real binary in tmux ----
# wait_for PATTERN: poll the pane until it shows PATTERN (10 s at most)
wait_for() {
	local i
	for i in $(seq 1 100); do
		tmux -L "$TS" capture-pane -p -t v >"$T/pane.txt" 2>/dev/null
		grep -Eq -- "$1" "$T/pane.txt" && return 0
		sleep 0.1
	done
	return 1
}

tmux_scenario() {  # BINARY LABEL [RUNDIR QPN]
	local bin=$1 label=$2 run=${3:-$T/run} qpn=${4:-17}
	TS=$SOCK-$label
	rm -f "$T/exit"
	tmux -L "$TS" -f /dev/null new-session -d -s v -x 100 -y 30 \
		"ASAN_OPTIONS=log_path=$T/asan:detect_leaks=1 TERM=screen $bin view $run; echo \$? >$T/exit; sleep 30"
	if ! wait_for 'rdmatrace view .* rows'; then
		not_ok "$label: first screen"; cat "$T/pane.txt" | sed 's/^/#   /'
		tmux -L "$TS" kill-server 2>/dev/null; return
	fi
	ok "$label: first screen"
	tmux -L "$TS" send-keys -t v p $(echo "$qpn" | sed 's/./& /g') Enter
	if wait_for "\\[qp $qpn\\]"; then ok "$label: QP filter"; else not_ok "$label: QP filter"; fi
	tmux -L "$TS" send-keys -t v r
	if wait_for 'next RNR NAK'; then ok "$label: next RNR NAK"; else not_ok "$label: next RNR NAK"; fi
	check_grep "$label: selection on the RNR NAK" '^>R ' "$T/pane.txt"
	tmux -L "$TS" send-keys -t v Enter
	if wait_for '^-- detail: row'; then ok "$label: detail pane"; else not_ok "$label: detail pane"; fi
	tmux -L "$TS" resize-window -t v -x 80 -y 24 2>/dev/null
	if wait_for 'detail: row' && [ "$(wc -l <"$T/pane.txt")" -le 24 ]; then ok "$label: resize to 80x24"; else not_ok "$label: resize to 80x24"; fi
	tmux -L "$TS" send-keys -t v h
	if wait_for 'next / previous RNR NAK'; then ok "$label: help"; else not_ok "$label: help"; fi
	tmux -L "$TS" send-keys -t v q q
	for i in $(seq 1 50); do [ -s "$T/exit" ] && break; sleep 0.1; done
	check "$label: q quits with status 0" test "$(cat "$T/exit" 2>/dev/null)" = 0
	tmux -L "$TS" kill-server 2>/dev/null
}

tmux_scenario "$RDMATRACE" tmux

# the same on a lab run: the rnr scenario over uroce (RNR NAKs for real)
if "$RDMATRACE" lab --list >/dev/null 2>&1 && [ -e "$BUILD/uroce/libibverbs.so.1" ]; then
	if timeout 120 "$RDMATRACE" lab rnr -o "$T/labrnr" >"$T/labrnr.log" 2>&1 || [ -s "$T/labrnr/timeline.rtl" ]; then
		view "$T/labrnr" --batch --size 140x10 --keys 'Q' >"$T/labq.txt"
		labqp=$(awk 'NR > 2 && $3 ~ /^[0-9]+$/ && $5 > 0 { print $2; exit }' "$T/labq.txt")
		check "lab run: the QP list has a QP with work requests" test -n "$labqp"
		[ -n "$labqp" ] && tmux_scenario "$RDMATRACE" lab "$T/labrnr" "$labqp"
	else
		skip "lab run in tmux" "rdmatrace lab rnr failed: $(tail -1 "$T/labrnr.log")"
	fi
else
	skip "lab run in tmux" "no rdmatrace lab or no uroce build"
fi

# a terminal without colours: attributes only, no colour sequences
TS=$SOCK-mono
tmux -L "$TS" -f /dev/null new-session -d -s v -x 100 -y 30 "TERM=vt100 $RDMATRACE view $T/run; sleep 30"
if wait_for 'rdmatrace view .* rows'; then
	tmux -L "$TS" send-keys -t v r
	wait_for 'next RNR NAK' >/dev/null
	tmux -L "$TS" capture-pane -e -p -t v >"$T/mono.txt"
	if grep -q $'\e\[[0-9;]*3[0-7]m' "$T/mono.txt"; then not_ok "vt100: no colours"; else ok "vt100: no colours"; fi
	check_grep "vt100: rows still marked (R for the RNR NAK)" '^>R ' "$T/pane.txt"
else
	not_ok "vt100: first screen"
fi
tmux -L "$TS" kill-server 2>/dev/null

# live mode: the run grows while the viewer follows it
"$GEN" "$T/live" >/dev/null
TS=$SOCK-live
tmux -L "$TS" -f /dev/null new-session -d -s v -x 100 -y 30 "TERM=screen $RDMATRACE view --follow $T/live; sleep 30"
if wait_for 'FOLLOW'; then
	first_rows=$(sed -n 's/.* \([0-9][0-9]*\) rows.*/\1/p' "$T/pane.txt" | head -1)
	sleep 1.1 # a new mtime second for the grown files
	"$GEN" "$T/live" --events 3000 --capture >/dev/null
	if wait_for ' (29[0-9][0-9]|[3-9][0-9][0-9][0-9]) rows'; then
		ok "live: new rows appear (was $first_rows)"
	else
		not_ok "live: new rows appear (was $first_rows)"; sed 's/^/#   /' "$T/pane.txt" | head -5
	fi
	# (the selection may be drawn a refresh after the count: wait for it)
	if wait_for '^>'; then
		ok "live: the selection follows the last row"
	else
		not_ok "live: the selection follows the last row"; sed 's/^/#   /' "$T/pane.txt" | head -5
	fi
else
	not_ok "live: viewer starts in follow mode"; sed 's/^/#   /' "$T/pane.txt" | head -5
fi
tmux -L "$TS" kill-server 2>/dev/null
view "$T/run" --batch --keys 'L' >"$T/follow.txt"
check_grep "L on a finished run says it is not being recorded" 'not being recorded' "$T/follow.txt"

# Under AddressSanitizer: the suite may already be an ASan build; else build
# (incrementally) build-address/rdmatrace, bounded in time.
case "$BUILD" in
*address*) skip "tmux under ASan" "this run is already an ASan build" ;;
*)
	if [ "${VIEWER_SKIP_ASAN:-0}" = 1 ]; then
		skip "tmux under ASan" "VIEWER_SKIP_ASAN=1"
	elif asan_build "$T/asan-build.log"; then
		rm -f "$T"/asan.*
		tmux_scenario build-address/rdmatrace asan
		for d in "$T/empty" "$T/trunc" "$T/corrupt" "$T/garbage.bin"; do
			ASAN_OPTIONS=log_path=$T/asan build-address/rdmatrace view "$d" --batch --keys 'GggeQFh<Esc>q' >/dev/null 2>&1
		done
		ASAN_OPTIONS=log_path=$T/asan build-address/rdmatrace view "$T/run" --batch \
			--keys 'p17<Enter>r<Enter>12<BS>lTjjmBqQ<Enter>u!PPP/ESTAB<Enter>nNGgxXcCeE' >/dev/null 2>&1
		if ls "$T"/asan.* >/dev/null 2>&1; then
			not_ok "asan: no errors"; head -30 "$T"/asan.* | sed 's/^/#   /'
		else
			ok "asan: no errors"
		fi
	else
		skip "tmux under ASan" "could not build build-address/rdmatrace within 240 s: $(tail -1 "$T/asan-build.log")"
	fi
	;;
esac

done_testing
