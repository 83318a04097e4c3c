#!/bin/bash
# Job runner of one rdmatrace lab VM: runs inside the guest, chroot-ed into the
# host's root file system (read-only over 9p), started by the initramfs /init.
#
# `scripts/lab-vm run` copies this file to RUNDIR/vm/ROLE/guest-run.sh next to
# job.conf (the role's settings, bash syntax).  The runner brings up eth0 and
# SoftRoCE (rxe0), applies netem, records the guest clocks, then:
#   server: starts the command, waits until it listens (--ready check), writes
#           vm/server/ready, waits for the command to end;
#   client: waits for vm/server/ready, runs the command.
# Either side stops its command when the host creates vm/ROLE/stop.  Results
# go to RUNDIR/logs/ and RUNDIR/vm/ROLE/ (see docs/vm-lab.md); the machine
# powers off when this script returns.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

J=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$J/job.conf"
L=$RT_RUNDIR/logs
SETUP_LOG=$L/$RT_HOST-setup.log
: >"$SETUP_LOG"

# Clock readings use shell builtins only: a fork costs milliseconds under TCG.
now_ns() { local t=$EPOCHREALTIME; echo "${t/./}000"; }
# nap SECONDS: sleep without forking (read with a timeout on a silent fifo).
mkfifo /tmp/.rdmatrace-nap 2>/dev/null
if exec 9<>/tmp/.rdmatrace-nap; then nap() { read -r -t "$1" -u 9; }
else nap() { sleep "$1"; }; fi
stage() { echo "$1 $(now_ns)" >>"$J/stages"; echo "rdmatrace-vm: stage $1" >/dev/console 2>/dev/null || true; }
fail() {
	echo "$*" >"$J/setup-failed"
	echo "rdmatrace-vm: FAILED: $*" >/dev/console 2>/dev/null || true
	finish
	exit 1
}
# run DESC CMD...: runs a setup command, logs it, fails the job when it fails.
run() {
	local desc=$1; shift
	echo "+ [$EPOCHREALTIME] $*" >>"$SETUP_LOG"
	"$@" >>"$SETUP_LOG" 2>&1 || fail "$desc failed: $* (see logs/$RT_HOST-setup.log)"
}

# Monotonic time: the kernel's "now" in /proc/timer_list is ktime_get(),
# i.e. CLOCK_MONOTONIC, in nanoseconds.
# clock NAME: one line "NAME realtime_ns monotonic_ns realtime_after_ns"
# (realtime in microsecond steps, read right before and after monotonic).
clock() {
	local r1 r2 l1 l2 l3 m=
	r1=$EPOCHREALTIME
	{ read -r l1; read -r l2; read -r l3; } </proc/timer_list 2>/dev/null
	r2=$EPOCHREALTIME
	for l1 in "$l1" "$l2" "$l3"; do
		[[ $l1 =~ ^now\ at\ ([0-9]+)\ nsecs ]] && m=${BASH_REMATCH[1]}
	done
	if [ -z "$m" ]; then read -r m _ </proc/uptime; m=${m/./}0000000; fi
	echo "$1 ${r1/./}000 $m ${r2/./}000" >>"$J/clock"
}

finish() {
	[ -n "${finished:-}" ] && return
	finished=1
	clock job_end
	dmesg >"$L/$RT_HOST-dmesg.log" 2>&1
	local d=/sys/class/infiniband/rxe0/ports/1/hw_counters
	if [ -d "$d" ]; then
		for f in "$d"/*; do printf '%s %s\n' "${f##*/}" "$(cat "$f" 2>/dev/null)"; done >"$L/$RT_HOST-hw_counters.txt"
	fi
	{ tc -s qdisc show dev eth0; ip -s link show dev eth0; } >>"$SETUP_LOG" 2>&1
	sync
}

# The host creates vm/ROLE/stop to end the job early.  RT_DEADLINE (seconds
# since the runner started) ends it too, so a VM whose host-side supervisor
# died (kill -9) still powers itself off.
stopped() { [ -e "$J/stop" ] || { [ -n "${RT_DEADLINE:-}" ] && [ "$SECONDS" -ge "$RT_DEADLINE" ]; }; }

# stop_cmd PID: TERM, then KILL after 3 s.
stop_cmd() {
	local pid=$1
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; nap 0.1; done
	kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
}

# ready_default: an RDMA CM listener (rdma_listen) or a listening TCP socket
# (perftest's out-of-band exchange).  TCP is read from /proc without a fork.
ready_default() {
	local f sl local_addr rem st _
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r sl local_addr rem st _; do
			[ "$st" = 0A ] && return 0
		done <"$f"
	done
	[[ $(rdma resource show cm_id 2>/dev/null) == *"state LISTEN"* ]]
}

stage setup
read -r boot_id </proc/sys/kernel/random/boot_id
read -r kernel </proc/sys/kernel/osrelease
while read -r k v; do [ "$k" = btime ] && break; done </proc/stat
printf 'boot_id %s\nkernel %s\nbtime %s\n' "$boot_id" "$kernel" "$v" >"$J/host"
clock job_start
echo "$RT_HOST" >/proc/sys/kernel/hostname
run "loopback" ip link set lo up
# IPv6 duplicate address detection keeps eth0's link-local address, rxe's
# GID 0, tentative for a second or more after the link comes up: a QP
# addressed to GID 0 meanwhile fails its move to RTR with ETIMEDOUT (a CI
# run of verbs_prog).  Nothing else on this private wire has our addresses.
[ -w /proc/sys/net/ipv6/conf/eth0/accept_dad ] && echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
run "eth0 up" ip link set eth0 up
[ -n "${RT_MTU:-}" ] && run "set MTU" ip link set eth0 mtu "$RT_MTU"
run "address" ip addr add "$RT_ADDR" dev eth0
# The peer's MAC is fixed, so its neighbour entry is too: no ARP exchange
# that netem loss could break (rdma_resolve_addr gives up after 2 s).
[ -n "${RT_PEER_MAC:-}" ] && run "peer neighbour" ip neigh replace "$RT_PEER" lladdr "$RT_PEER_MAC" dev eth0 nud permanent
for m in ${RT_MODULES:-}; do run "modprobe $m" modprobe "$m"; done
run "rxe device" rdma link add rxe0 type rxe netdev eth0
port_state() { local st=; read -r st </sys/class/infiniband/rxe0/ports/1/state 2>/dev/null; echo "$st"; }
for _ in $(seq 100); do
	[[ $(port_state) == *ACTIVE* ]] && break
	nap 0.1
done
[[ $(port_state) == *ACTIVE* ]] || fail "rxe0 did not become ACTIVE (port state: $(port_state))"
if [ -n "${RT_NETEM:-}" ] && [ "${RT_NETEM_MADS:-}" = pass ]; then
	# --loss, --delay: the data path's.  The CM's MADs (RoCE to QP 1: UDP port
	# 4791, the BTH's destination QP at byte 32 of the IP packet) go by a prio
	# band without netem: a lost RTU or DREQ would stall the connection for
	# the CM's response timeout, seconds, and fail the run's expectations.
	run "prio qdisc" tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
	# shellcheck disable=SC2086
	run "netem" tc qdisc add dev eth0 parent 1:1 handle 10: netem $RT_NETEM
	run "MADs past netem" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 4791 0xffff \
		match u32 0x00000001 0x00ffffff at 32 flowid 1:2
elif [ -n "${RT_NETEM:-}" ]; then
	# shellcheck disable=SC2086
	run "netem" tc qdisc add dev eth0 root netem $RT_NETEM
fi
read -r cs </sys/devices/system/clocksource/clocksource0/current_clocksource
echo "clocksource ${cs:-}" >>"$J/host"
read -r mac </sys/class/net/eth0/address
read -r gid </sys/class/infiniband/rxe0/ports/1/gids/1
echo "eth0 $mac" >>"$J/host"
echo "gid1 ${gid:-}" >>"$J/host"

if [ "${1:-}" = --shell ]; then
	stage shell
	echo "rdmatrace-vm: $RT_HOST ($RT_ADDR) ready; rxe0 on eth0; run directory at $RT_RUNDIR; exit the shell to power off"
	cd /root 2>/dev/null || cd /
	PS1="$RT_HOST:\w# " setsid -c bash --norc -i </dev/console >/dev/console 2>&1 9>&-
	finish
	exit 0
fi

if [ "${RT_WAIT_SERVER:-0}" = 1 ]; then
	stage wait-server
	until [ -e "$RT_RUNDIR/vm/server/ready" ]; do
		stopped && { echo stopped-before-start >"$J/result"; finish; exit 0; }
		nap 0.1
	done
fi

stage run
out=$L/$RT_HOST-$RT_PROG.out
err=$L/$RT_HOST-$RT_PROG.err
clock cmd_start
cd "$RT_CWD" 2>/dev/null || cd /
export RDMATRACE_RUNDIR=$RT_RUNDIR RDMATRACE_HOST=$RT_HOST RDMATRACE_ROLE=$RT_ROLE
export RDMATRACE_PEER=$RT_PEER RDMATRACE_ADDR=${RT_ADDR%/*}
setsid bash -c "$RT_CMD" </dev/null >"$out" 2>"$err" 9>&- &
pid=$!
echo "$pid" >"$J/pid"

if [ "$RT_ROLE" = server ]; then
	stage wait-ready
	while kill -0 "$pid" 2>/dev/null; do
		if [ -n "${RT_READY:-}" ]; then bash -c "$RT_READY" >/dev/null 2>&1 && break
		else ready_default && break; fi
		stopped && break
		nap 0.2
	done
	# Ready even when the command already ended: the client then fails
	# on its own, and the host reports both exit statuses.
	touch "$RT_RUNDIR/vm/server/ready"
	stage serving
fi

how=exited
while kill -0 "$pid" 2>/dev/null; do
	if stopped; then how=stopped; stop_cmd "$pid"; break; fi
	nap 0.1
done
wait "$pid"
status=$?
clock cmd_end
echo "$status" >"$J/exit"
echo "$how" >"$J/result"
stage "done"
finish
exit 0
