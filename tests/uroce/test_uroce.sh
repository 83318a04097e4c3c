#!/usr/bin/env bash
# uroce tests: the transport test program (both ends in one process), then
# Debian's unmodified ibverbs-utils over build/uroce/libibverbs.so.1 between
# two processes, then a packet capture of uroce traffic checked by tshark and
# by our ICRC code.  Addresses are pinned per run (UROCE_ADDR) in a random
# 127.x.y.0/24 so parallel runs and other helpers do not collide.
. tests/lib.sh
U=$BUILD/uroce
TMP=$(mktemp -d /tmp/uroce-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$BUILD/tests/uroce/t_transport" | grep -v '^1\.\.'
# its own cases print their results; a crash or a sanitizer's report
# (exit status 66 at the end) fails here
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || not_ok "t_transport exited with status $rc"

export LD_LIBRARY_PATH=$U
# A sanitizer build of the library needs its runtime first in Debian's binaries.
if ldd "$U/libibverbs.so.1" 2>/dev/null | grep -q libasan; then
	export LD_PRELOAD=$(cc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0
elif ldd "$U/libibverbs.so.1" 2>/dev/null | grep -q libubsan; then
	export LD_PRELOAD=$(cc -print-file-name=libubsan.so)
elif ldd "$U/libibverbs.so.1" 2>/dev/null | grep -q libtsan; then
	# TSan cannot start inside an uninstrumented program (preloaded or not):
	# the engine's threads run under TSan in t_transport above instead
	skip "Debian's binaries and captures over uroce" "TSan build: uninstrumented programs cannot load the TSan-instrumented library"
	done_testing
	exit 0
fi
NET=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1))

check "ibv_devices lists uroce0" sh -c "ibv_devices | grep -q uroce0"
UROCE_ADDR=$NET.9 ibv_devinfo -v >"$TMP/devinfo" 2>&1
check_grep "ibv_devinfo shows an active port" "PORT_ACTIVE" "$TMP/devinfo"
check_grep "ibv_devinfo shows the RoCE v2 GID of UROCE_ADDR" "GID\[ *0\]:.*::ffff:$NET.9, RoCE v2" "$TMP/devinfo"

# pingpong NAME ARGS: server and client of an ibverbs-utils example in two
# processes (the client with $CLIENT_FAULTS when set, else $UROCE_FAULTS).
pingpong() {
	local name=$1; shift
	local port=$((20000 + RANDOM % 20000))
	UROCE_ADDR=$NET.1 timeout 30 "$name" -g 0 -p $port "$@" >"$TMP/$name.srv" 2>&1 &
	local spid=$!
	# the client connects once: wait for the server to listen (a loaded CI
	# machine took more than the 0.3 s this used to sleep)
	local w
	for w in $(seq 100); do
		if command -v ss >/dev/null; then
			ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
		elif [ "$w" -ge 10 ]; then
			break
		fi
		kill -0 $spid 2>/dev/null || break
		sleep 0.1
	done
	UROCE_FAULTS=${CLIENT_FAULTS-${UROCE_FAULTS:-}} UROCE_ADDR=$NET.2 timeout 30 "$name" -g 0 -p $port "$@" 127.0.0.1 >"$TMP/$name.cli" 2>&1
	local crc=$?
	wait $spid
	local src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q "iters in" "$TMP/$name.cli"; then
		ok "$name $* between two processes"
	else
		not_ok "$name $* between two processes (client $crc, server $src)"
		sed 's/^/#   /' "$TMP/$name.srv" "$TMP/$name.cli" | head -20
	fi
}

# Capture everything on our addresses while the pingpongs run.
CAP=$TMP/uroce.pcap
LD_PRELOAD= dumpcap -q -i lo -P -B 64 -f "udp port 4791 and net $NET.0/24" -w "$CAP" >"$TMP/dumpcap.log" 2>&1 &
DPID=$!
sleep 1
pingpong ibv_rc_pingpong -n 200 -s 5000 -m 1024
pingpong ibv_rc_pingpong -n 100 -e
pingpong ibv_uc_pingpong -n 200 -s 3000 -m 1024
pingpong ibv_ud_pingpong -n 200 -s 1000
pingpong ibv_srq_pingpong -n 100 -q 4
# bulk messages (64 packets each): without a capture uroce would send them as UDP GSO
pingpong ibv_rc_pingpong -n 20 -s 65536 -m 1024
# retransmissions and RNR NAKs in the capture too
UROCE_FAULTS="drop:nth=5;dup:nth=9;drop:dir=rx,op=ack,nth=3" pingpong ibv_rc_pingpong -n 50 -s 2000 -m 1024
# the client's ACKs held back until its next packet leaves: its last one
# until it closes its device, which must send it (else the server, whose
# retry_cnt 7 never runs out, as rxe's, resends until its timeout)
CLIENT_FAULTS="reorder:op=ack" pingpong ibv_rc_pingpong -n 50 -s 2000 -m 1024
sleep 0.5
kill -INT $DPID 2>/dev/null
wait $DPID 2>/dev/null
if [ -s "$CAP" ]; then
	LD_PRELOAD= "$BUILD/tests/uroce/t_capture_icrc" "$CAP" 1000
	LD_PRELOAD= tshark -r "$CAP" -T fields -e frame.number -e _ws.col.Protocol -e _ws.col.Info >"$TMP/tshark.txt" 2>"$TMP/tshark.err"
	check "tshark reads the capture" test -s "$TMP/tshark.txt"
	if grep -Eiq "malformed|unknown" "$TMP/tshark.txt"; then
		not_ok "tshark finds no malformed or unknown packets"
		grep -Ei "malformed|unknown" "$TMP/tshark.txt" | head -5 | sed 's/^/#   /'
	else
		ok "tshark finds no malformed or unknown packets"
	fi
	check "tshark decodes the packets as RRoCE" sh -c "! cut -f2 '$TMP/tshark.txt' | grep -qv RRoCE"
	check_grep "tshark shows RDMA acknowledges" "RC Acknowledge" "$TMP/tshark.txt"
	check_grep "tshark shows UD sends" "UD Send Only" "$TMP/tshark.txt"
else
	skip "capture of uroce traffic" "dumpcap could not capture on lo: $(head -1 "$TMP/dumpcap.log")"
fi
# A capture started in the middle of a bulk transfer that runs with GSO (a
# network namespace of our own, so no other capture on lo has GSO off already):
# uroce must notice it before it sees anything, so every frame is one packet.
# Except at the very start: the kernel hands packets on lo to captures when it
# receives them, which under load (its receive work deferred to ksoftirqd) can
# be a millisecond or more after they were sent, so a GSO send made before the
# capture's socket existed (dumpcap binds it 1-2 ms after creating it here) may
# reach the capture whole (CI once saw 4 frames of 3000 with a wrong ICRC; with
# two CPU hogs, once in 10 runs: the capture's first frame, one WRITE send of
# three 4112-byte segments). t_capture_icrc accepts such a
# frame only in the capture's first 100 ms and only when it splits into
# segments whose ICRCs are all right.
if ! unshare -n true 2>/dev/null || [ ! -x "$BUILD/bench/uroce_bench" ]; then
	skip "capture started during a GSO transfer" "needs unshare -n (root) and $BUILD/bench/uroce_bench"
else
	CAP3=$TMP/mid.pcap
	unshare -n bash -c '
		ip link set lo up || exit 3
		UROCE_ADDR=127.0.0.21,127.0.0.22 "$2" write 3 >"$1.out" 2>&1 &
		b=$!
		sleep 1
		LD_PRELOAD= dumpcap -q -i lo -P -f "udp port 4791" -c 3000 -w "$1" >/dev/null 2>&1 &
		d=$!
		sleep 1
		kill -INT $d 2>/dev/null
		wait $d
		wait $b' _ "$CAP3" "$BUILD/bench/uroce_bench"
	check "WRITE bulk transfer with a capture started half-way" test -s "$CAP3.out"
	LD_PRELOAD= T_ICRC_GSO_START_MS=100 "$BUILD/tests/uroce/t_capture_icrc" "$CAP3" 1000 |
		sed 's/ - / - mid-transfer capture: /'
fi

# With lo segmenting UDP GSO sends in software (tx-udp-segmentation off, set in
# a network namespace of our own), uroce's default mode sends GSO even while a
# capture runs: the capture must still hold one RoCE packet per frame, the
# segments of IPv4 GSO sends carry IP IDs 1, 2, ... and every ICRC verifies.
if ! command -v ethtool >/dev/null || ! unshare -n true 2>/dev/null; then
	skip "GSO capture with lo segmenting in software" "needs ethtool and unshare -n (root)"
else
	CAP2=$TMP/gso.pcap
	unshare -n bash -c '
		ip link set lo up && ethtool -K lo tx-udp-segmentation off >/dev/null 2>&1 || exit 3
		LD_PRELOAD= dumpcap -q -i lo -P -B 64 -f "udp port 4791" -w "$1" >/dev/null 2>&1 &
		d=$!
		for _ in $(seq 50); do [ "$(wc -l </proc/net/packet)" -gt 1 ] && break; sleep 0.1; done
		sleep 0.5
		UROCE_ADDR=127.0.0.11 timeout 30 ibv_rc_pingpong -g 0 -p 18515 -n 20 -s 65536 -m 1024 >"$1.srv" 2>&1 &
		s=$!
		sleep 0.3
		UROCE_ADDR=127.0.0.12 timeout 30 ibv_rc_pingpong -g 0 -p 18515 -n 20 -s 65536 -m 1024 127.0.0.1 >"$1.cli" 2>&1
		c=$?
		wait $s
		sv=$?
		sleep 0.3
		kill -INT $d
		wait $d
		[ $c -eq 0 ] && [ $sv -eq 0 ] && grep -q "iters in" "$1.cli"' _ "$CAP2"
	rc=$?
	if [ $rc -eq 3 ]; then
		skip "GSO capture with lo segmenting in software" "ethtool cannot turn tx-udp-segmentation off here"
	else
		check "ibv_rc_pingpong 64 KiB messages with GSO, lo segmenting in software" test $rc -eq 0
		# 2600 packets cross lo; at least half (dumpcap can drop some when the
		# machine is busy) proves the bulk transfer was captured
		LD_PRELOAD= "$BUILD/tests/uroce/t_capture_icrc" "$CAP2" 1300 100 | sed 's/ - / - GSO capture: /'
		LD_PRELOAD= tshark -r "$CAP2" -T fields -e _ws.col.Protocol -e _ws.col.Info >"$TMP/tshark2.txt" 2>/dev/null
		check "tshark: GSO capture decodes as RRoCE, nothing malformed" sh -c \
			"test -s '$TMP/tshark2.txt' && ! grep -Eiq 'malformed|unknown' '$TMP/tshark2.txt' && ! cut -f1 '$TMP/tshark2.txt' | grep -qv RRoCE"
	fi
fi
done_testing
