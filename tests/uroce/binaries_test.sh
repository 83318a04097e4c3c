#!/usr/bin/env bash
# Debian's unmodified RDMA binaries over uroce on loopback: rping (data
# verified), perftest with -R (ib_write_bw, ib_read_lat, ib_send_bw) and
# ib_send_bw -c UD,
# rdma_server/rdma_client, ucmatose and udaddy, each pair run with
# LD_LIBRARY_PATH=$BUILD/uroce on a loopback address of its own; plus a
# capture of an rping connection that tshark must decode as CM messages with
# no malformed packet.  Every process is bounded by `timeout`.
. tests/lib.sh
set -u

LIBDIR=$BUILD/uroce
need_uroce_programs "Debian RDMA binaries over uroce"

TMP=$(mktemp -d /tmp/uroce-bin.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export LD_LIBRARY_PATH=$PWD/$LIBDIR
export UROCE_CM_TIMEOUT_MS=500 UROCE_CM_RETRIES=4
# a loopback address and port range of our own: other tests may run alongside
A=127.$((100 + RANDOM % 100)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
PORT=$((30000 + RANDOM % 20000))

# wait_listen: until the server's device has UDP 4791 on its address:
# $WAIT_ADDR (default $A), inside namespace $WAIT_NS when that is set
wait_listen() {
	local addr=${WAIT_ADDR:-$A} i
	[[ $addr == *:* ]] && addr="[$addr]"
	for i in $(seq 1 50); do
		if [ -n "${WAIT_NS:-}" ]; then
			ip netns exec "$WAIT_NS" ss -Hnlu "src $addr:4791" 2>/dev/null | grep -q . && return 0
		else
			ss -Hnlu "src $addr:4791" 2>/dev/null | grep -q . && return 0
		fi
		sleep 0.1
	done
	return 1
}

# pair NAME SERVER_CMD CLIENT_CMD: runs both, each bounded; 0 when both exit 0.
# With DAEMON=1 the server is a daemon (cmtime -b): stopped once the client is done.
pair() {
	local name=$1 scmd=$2 ccmd=$3 spid rc=0
	PORT=$((PORT + 1))
	scmd=${scmd//@P/$PORT}
	ccmd=${ccmd//@P/$PORT}
	bash -c "exec timeout -k 2 30 $scmd" >"$TMP/$name.server" 2>&1 &
	spid=$!
	if ! wait_listen; then
		echo "server did not come up" >>"$TMP/$name.server"
	fi
	sleep 0.3 # from binding the address to listening
	timeout -k 2 30 bash -c "exec $ccmd" >"$TMP/$name.client" 2>&1 || rc=1
	if [ "${DAEMON:-0}" = 1 ]; then
		sleep 0.5
		kill "$spid" 2>/dev/null
		wait "$spid"
	else
		wait "$spid" || rc=1
	fi
	if [ $rc -ne 0 ]; then
		echo "# $name: server: $scmd" && sed 's/^/#   /' "$TMP/$name.server" | tail -15
		echo "# $name: client: $ccmd" && sed 's/^/#   /' "$TMP/$name.client" | tail -15
	fi
	return $rc
}

# --- rping with a capture of its connection
CAP=$TMP/rping.pcap
timeout 40 dumpcap -q -i lo -f "udp port 4791 and host $A" -w "$CAP" >"$TMP/dumpcap.log" 2>&1 &
DPID=$!
for _ in $(seq 1 30); do [ -s "$CAP" ] && break; sleep 0.1; done
# rping's server (and, more rarely, its client) exits from its CM thread when
# that thread asks for the next event after main() destroyed the event
# channel (rdma_get_cm_event: Bad file descriptor); rping races with itself
# there, with the kernel's librdmacm too.  Such a run is repeated once.
rping_pair() {
	pair rping "env RDMATRACE_OUTPUT=$TMP/server.rtr rping -s -a $A -p @P -C 10 -v -V" \
		"env RDMATRACE_OUTPUT=$TMP/client.rtr rping -c -a $A -p @P -C 10 -v -V"
}
if rping_pair || { grep -q "rdma_get_cm_event: Bad file descriptor" "$TMP/rping.server" "$TMP/rping.client" &&
	echo "# rping: a CM thread outlived its event channel; once more" && rping_pair; }; then
	n=$(grep -c 'ping data: rdma-ping-' "$TMP/rping.client")
	if [ "$n" -eq 10 ]; then ok "rping -C 10 -v -V: 10 pings, data verified"; else not_ok "rping: $n ping lines (want 10)"; fi
else
	not_ok "rping server and client"
fi
sleep 0.5
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
if [ -s "$CAP" ]; then
	tshark -r "$CAP" --disable-protocol rpcordma -T fields -e _ws.col.Info >"$TMP/info" 2>&1
	for m in ConnectRequest ConnectReply ReadyToUse DisconnectRequest DisconnectReply; do
		check_grep "capture: tshark shows CM: $m" "CM: $m" "$TMP/info"
	done
	if grep -qi malformed "$TMP/info"; then not_ok "capture: no malformed packet"; grep -i malformed "$TMP/info" | head -5 | sed 's/^/#   /'
	else ok "capture: no malformed packet ($(wc -l <"$TMP/info") packets)"; fi
	req=$(tshark -r "$CAP" -Y 'infiniband.mad.attributeid == 0x0010' -T fields \
		-e infiniband.cm.req.serviceid -e infiniband.cm.req.ip_cm.dip4 2>/dev/null | head -1)
	check "capture: REQ carries the IP CM service ID and cma_hdr" grep -q "$A" <<<"$req"
else
	if grep -qiE "permission|not permitted|operation not" "$TMP/dumpcap.log"; then
		skip "capture of the rping connection" "dumpcap may not capture here: $(head -1 "$TMP/dumpcap.log")"
	else
		not_ok "capture of the rping connection (dumpcap wrote nothing)"
		sed 's/^/#   /' "$TMP/dumpcap.log" | head -5
	fi
fi

# the CM events the applications were given, in the trace next to the engine's records
"$RDMATRACE" dump "$TMP/server.rtr" >"$TMP/server.dump" 2>&1
"$RDMATRACE" dump "$TMP/client.rtr" >"$TMP/client.dump" 2>&1
ev() { grep -o 'cm_event qpn=[0-9]* event=[A-Z_]*' "$1" | sed 's/.*event=//' | tr '\n' ' '; }
if [ "$(ev "$TMP/server.dump")" = "CONNECT_REQUEST ESTABLISHED DISCONNECTED " ]; then
	ok "trace: server CM events CONNECT_REQUEST ESTABLISHED DISCONNECTED"
else
	not_ok "trace: server CM events: $(ev "$TMP/server.dump")"
fi
if ev "$TMP/client.dump" | grep -q '^ADDR_RESOLVED ROUTE_RESOLVED ESTABLISHED'; then
	ok "trace: client CM events ADDR_RESOLVED ROUTE_RESOLVED ESTABLISHED"
else
	not_ok "trace: client CM events: $(ev "$TMP/client.dump")"
fi
check_grep "trace: CONNECT_REQUEST with its addresses, ports and 56 bytes of private data" \
	"event=CONNECT_REQUEST status=0 cm_id=[0-9]+ family=2 local=$A peer=127\.[0-9.]+ local_port=$PORT peer_port=[0-9]+ private_len=56" "$TMP/server.dump"
check_grep "trace: engine records in the same file" " packet " "$TMP/client.dump"

# --- the trace of a rejected connection (our own two-process test, traced per process)
mkdir -p "$TMP/rej"
RDMATRACE_OUTPUT="$TMP/rej/t-%p.rtr" CM_TEST_ONLY=reject timeout -k 2 30 "$BUILD/tests/uroce/cm_connect_test" >"$TMP/rej.out" 2>&1
"$RDMATRACE" dump "$TMP"/rej/*.rtr >"$TMP/rej.dump" 2>&1
check_grep "trace: CONNECT_REQUEST carries the {addr, rkey} private data" \
	"event=CONNECT_REQUEST status=0 .* private_len=56 private_data=3412000000000000785600" "$TMP/rej.dump"
check_grep "trace: REJECTED with status 28, the 148-byte REJ private data, flagged as an error" \
	"event=REJECTED status=28 .* private_len=148 private_data=736572766572207361797320.* error=1" "$TMP/rej.dump"

# --- CM retransmission through the engine's fault injection (GSI packets only, qp=1)
# the server's first REP is lost: the REQ retransmission or the REP timer brings it again
if pair rping_lostrep "env UROCE_CM_DEBUG=1 UROCE_CM_TIMEOUT_MS=400 UROCE_FAULTS=drop:dir=tx,qp=1,nth=1 rping -s -a $A -p @P -C 3 -V" \
	"env UROCE_CM_DEBUG=1 UROCE_CM_TIMEOUT_MS=400 rping -c -a $A -p @P -C 3 -V"; then
	check_grep "CM retransmission: a lost REP is sent again and the connection comes up" "resend REP" "$TMP/rping_lostrep.server"
else
	not_ok "rping with the first REP dropped"
fi
# the client's RTU (its second CM message) is lost: the server resends the REP, the client repeats the RTU
if pair rping_lostrtu "env UROCE_CM_DEBUG=1 UROCE_CM_TIMEOUT_MS=1000 rping -s -a $A -p @P -C 3 -V" \
	"env UROCE_CM_DEBUG=1 UROCE_CM_TIMEOUT_MS=1000 UROCE_FAULTS=drop:dir=tx,qp=1,nth=2 rping -c -a $A -p @P -C 3 -V"; then
	if grep -q "resend REP" "$TMP/rping_lostrtu.server" && [ "$(grep -c 'send RTU' "$TMP/rping_lostrtu.client")" -ge 2 ]; then
		ok "CM retransmission: a lost RTU is repeated when the REP comes again"
	else
		not_ok "CM retransmission: lost RTU not repeated"
		grep -h uroce-cm "$TMP/rping_lostrtu.server" "$TMP/rping_lostrtu.client" | sed 's/^/#   /' | head -20
	fi
else
	not_ok "rping with the first RTU dropped"
fi

# --- perftest UD over its own TCP exchange: messages as long as the port's
# MTU (a UD QP has no path MTU of its own; a previous release limited it to
# 1024 bytes and failed the first send with LOC_LEN_ERR)
B=${A%.*}.$(( (${A##*.} % 250) + 2 ))
if pair ib_send_bw_ud "env UROCE_ADDR=$A ib_send_bw -c UD -F -n 200 -p @P" \
	"env UROCE_ADDR=$B ib_send_bw -c UD -F -n 200 -p @P $A"; then
	check_grep "ib_send_bw -c UD: 200 messages of the port's MTU (4096 bytes)" '^ *4096 +200 ' "$TMP/ib_send_bw_ud.client"
else
	not_ok "ib_send_bw -c UD"
fi

# --- rping with self-made QPs (rdma_init_qp_attr / rdma_establish)
if pair rping_q "rping -s -q -a $A -p @P -C 5 -V" "rping -c -q -a $A -p @P -C 5 -V"; then
	ok "rping -q (self-created QP, rdma_init_qp_attr, rdma_establish)"
else
	not_ok "rping -q"
fi

# --- perftest over rdma_cm.  Its server listens on the wildcard address, so the
# device takes 127.0.0.1: run the pair in a network namespace of our own, where
# 127.0.0.1 is free whatever else runs on this host.
PNS=uroce-cm-pt-$$-$RANDOM
if ip netns add "$PNS" 2>/dev/null; then
	ip -n "$PNS" link set lo up
	for t in "ib_write_bw -n 200 -s 65536" "ib_read_lat -n 200" "ib_send_bw -n 200 -s 4096"; do
		name=${t%% *}
		# perftest's server listens for the data connection only after it has set up
		# its resources, and its client may connect first (REJ 8, as with the kernel):
		# such a run is repeated, at most twice
		for try in 1 2 3; do
			prc=0
			WAIT_NS=$PNS WAIT_ADDR=127.0.0.1 pair "$name" "ip netns exec $PNS $t -R -F -p @P" \
				"ip netns exec $PNS $t -R -F -p @P 127.0.0.1" >"$TMP/$name.pair" || prc=1
			[ $prc -eq 0 ] && break
			grep -q "RDMA_CM_EVENT_REJECTED; error: 8" "$TMP/$name.client" || break
			echo "# $name: the client connected before the server listened (try $try)"
			sleep 1
		done
		cat "$TMP/$name.pair"
		if [ $prc -eq 0 ]; then
			if grep -Eq '^ *[0-9]+ +[0-9]+ ' "$TMP/$name.client"; then ok "$name -R"; else not_ok "$name -R: no result line"; sed 's/^/#   /' "$TMP/$name.client" | tail -8; fi
		elif miss=$(grep -ho 'symbol lookup error: .*' "$TMP/$name.client" "$TMP/$name.server" | head -1) && [ -n "$miss" ]; then
			skip "$name -R" "perftest's providers need a symbol uroce's libibverbs lacks (${miss##*: })"
		else
			not_ok "$name -R"
		fi
	done
	# the zero-configuration case exactly as typed in two terminals
	if WAIT_NS=$PNS WAIT_ADDR=127.0.0.1 pair rping_lo "ip netns exec $PNS rping -s -a 127.0.0.1 -C 5 -V" \
		"ip netns exec $PNS rping -c -a 127.0.0.1 -C 5 -v -V"; then
		ok "rping -s -a 127.0.0.1 / rping -c -a 127.0.0.1 (no configuration)"
	else
		not_ok "rping -s -a 127.0.0.1 / rping -c -a 127.0.0.1"
	fi
	if WAIT_NS=$PNS WAIT_ADDR=127.0.0.1 pair rdma_xserver "ip netns exec $PNS rdma_xserver -p @P" "ip netns exec $PNS rdma_xclient -s 127.0.0.1 -p @P"; then
		check_grep "rdma_xserver / rdma_xclient (SRQ)" "rdma_xclient: end 0" "$TMP/rdma_xserver.client"
	else
		not_ok "rdma_xserver / rdma_xclient"
	fi
	ip netns del "$PNS"
else
	skip "perftest -R, rping on 127.0.0.1, rdma_xserver" "cannot create a network namespace"
fi

# --- what uroce does not do fails cleanly: a message, an error status, no crash
# clean_failure RC: non-zero, not a timeout (124/137), not a signal (128+N)
clean_failure() { [ "$1" -ne 0 ] && [ "$1" -ne 124 ] && { [ "$1" -lt 128 ] || [ "$1" -gt 192 ]; }; }
timeout -k 2 10 mckey -m 239.1.1.1 -b "$A" >"$TMP/mckey" 2>&1; rc=$?
if clean_failure $rc && grep -q "multicast is not supported by uroce" "$TMP/mckey"; then
	ok "mckey: multicast refused with a message (exit $rc)"
else
	not_ok "mckey: exit $rc"; sed 's/^/#   /' "$TMP/mckey" | head -5
fi
timeout -k 2 10 rcopy /etc/hostname "$A:$TMP/copy" >"$TMP/rcopy" 2>&1; rc=$?
if clean_failure $rc && grep -q "rsockets (rsocket) are not supported by uroce" "$TMP/rcopy"; then
	ok "rcopy: rsockets refused with a message (exit $rc)"
else
	not_ok "rcopy: exit $rc"; sed 's/^/#   /' "$TMP/rcopy" | head -5
fi

# --- rdmacm-utils
if pair rdma_server "rdma_server -s $A -p @P" "rdma_client -s $A -p @P"; then
	check_grep "rdma_server / rdma_client (rdma_create_ep, sync ids)" "rdma_client: end 0" "$TMP/rdma_server.client"
else
	not_ok "rdma_server / rdma_client"
fi
if pair ucmatose "ucmatose -b $A -p @P -c 2 -C 10" "ucmatose -s $A -p @P -c 2 -C 10"; then
	check_grep "ucmatose: 2 connections, 10 messages each" "test complete" "$TMP/ucmatose.client"
else
	not_ok "ucmatose"
fi
# udaddy: -p is the port space; it always uses port 7174 (our address is our own)
# cmtime -b is a daemon: it serves until it is stopped
if DAEMON=1 pair cmtime "cmtime -b $A -p @P -c 50" "cmtime -s $A -p @P -c 50"; then
	check_grep "cmtime: 50 connections set up and torn down at once" "^connect +:" "$TMP/cmtime.client"
else
	not_ok "cmtime -c 50"
fi
if pair udaddy "udaddy -b $A" "udaddy -s $A"; then
	check_grep "udaddy (UD port space, SIDR)" "test complete" "$TMP/udaddy.client"
else
	not_ok "udaddy"
fi

# --- IPv6, wildcard listeners and non-loopback routes, in a network namespace of our own
NS=uroce-cm-$$-$RANDOM
if ip netns add "$NS" 2>/dev/null; then
	trap 'ip netns del "$NS" 2>/dev/null; rm -rf "$TMP"' EXIT
	ip -n "$NS" link set lo up
	ip -n "$NS" addr add fd00::1/128 dev lo
	ip -n "$NS" addr add fd00::2/128 dev lo
	if WAIT_NS=$NS WAIT_ADDR=fd00::1 pair rping6 "ip netns exec $NS rping -s -a fd00::1 -p @P -C 5 -V" \
		"ip netns exec $NS rping -c -a fd00::1 -I fd00::2 -p @P -C 5 -v -V"; then
		n=$(grep -c 'ping data: rdma-ping-' "$TMP/rping6.client")
		if [ "$n" -eq 5 ]; then ok "rping over IPv6 (fd00::2 -> fd00::1, netns)"; else not_ok "rping IPv6: $n pings"; fi
	else
		not_ok "rping over IPv6 in a netns"
	fi
	if ip -n "$NS" link add v0 type veth peer name v1 2>/dev/null; then
		ip -n "$NS" link set v0 up; ip -n "$NS" link set v1 up
		ip -n "$NS" addr add 10.77.0.1/24 dev v0
		if WAIT_NS=$NS WAIT_ADDR=10.77.0.1 pair rping_any "ip netns exec $NS rping -s -a 0.0.0.0 -p @P -C 5 -V" \
			"ip netns exec $NS rping -c -a 10.77.0.1 -p @P -C 5 -V"; then
			ok "wildcard listener on the namespace's interface address, client by route"
		else
			not_ok "wildcard listener / routed client in a netns"
		fi
	else
		skip "wildcard listener in a netns" "cannot create a veth pair"
	fi
else
	skip "IPv6 and wildcard listeners in a netns" "cannot create a network namespace"
fi
done_testing
