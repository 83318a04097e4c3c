# shellcheck shell=bash
# Helpers for the VM-lab tests (tests/vm/test_*.sh), sourced after tests/lib.sh.
# Each test boots at most one pair of VMs at a time through scripts/lab-vm.

LABVM=${LABVM:-scripts/lab-vm}
VM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdmatrace-vmtest.XXXXXX")
trap 'rm -rf "$VM_TMP"' EXIT

# vm_run RUNDIR ARGS...: runs `lab-vm run -o RUNDIR ARGS`, keeps its stderr in
# RUNDIR.stderr and its exit status in VM_RC; prints the timing lines.
vm_run() {
	local dir=$1; shift
	VM_RC=0
	"$LABVM" run -o "$dir" "$@" >"$dir.stdout" 2>"$dir.stderr" || VM_RC=$?
	grep -E 'up after|whole run' "$dir.stderr" | sed 's/^/# /'
}

# vm_run_once_more RUNDIR PATTERN WHY ARGS...: vm_run, and when that failed
# with PATTERN in its stderr or in the programs' logs (a known failure of
# the program itself), once more, saying WHY and the programs' last lines
# of output; the failed run is kept as RUNDIR.first (its stderr as
# RUNDIR.first.stderr).  VM_AGAIN is " (at the second attempt)" then, else
# empty, for the ok / not ok line.
vm_run_once_more() {
	local dir=$1 pattern=$2 why=$3
	shift 3
	VM_AGAIN=""
	vm_run "$dir" "$@"
	[ "$VM_RC" -ne 0 ] && cat "$dir.stderr" "$dir"/logs/* 2>/dev/null | grep -q -- "$pattern" || return 0
	echo "# $why; the programs' output, then a second attempt:"
	tail -n 4 "$dir"/logs/*.err 2>/dev/null | sed 's/^/#   /'
	rm -rf "$dir.first" && mv "$dir" "$dir.first" && cp "$dir.stderr" "$dir.first.stderr"
	VM_AGAIN=" (at the second attempt)"
	vm_run "$dir" "$@"
}

# perftest_run RUNDIR "COMMAND" [LAB-VM OPTIONS...]: a perftest COMMAND in both
# VMs under `rdmatrace record` (RUNDIR/srv in the server, RUNDIR/cli in the
# client, which connects to 10.9.0.1), and an ok / not ok line for its exit.
# perftest giving up (a transfer that failed: status 17) once is run again,
# once, with what it printed kept in the output: a TCG machine the host held
# up for half a second runs out of rxe's retries, which is no fault of the
# recording (the first attempt stays in RUNDIR.first).  PERFTEST_SERVER_PRE,
# when set, goes before the server's command (a job started beside it).
perftest_run() {
	local dir=$1 cmd=$2 rec="$PWD/$RDMATRACE record"
	shift 2
	local name=${cmd%% *}
	vm_run_once_more "$dir" "$name exited with status 17" "$cmd: perftest gave up" \
		--scenario "perftest-$name" "$@" \
		--server "${PERFTEST_SERVER_PRE:-}$rec -o $dir/srv -- $cmd" --client "$rec -o $dir/cli -- $cmd 10.9.0.1" \
		--server-name "$name" --client-name "$name"
	if [ "$VM_RC" -eq 0 ]; then ok "$cmd under record in both VMs exits 0$VM_AGAIN"; else not_ok "$cmd under record: lab-vm exited $VM_RC$VM_AGAIN"; sed 's/^/#   /' "$dir.stderr" | tail -20; tail -n 4 "$dir"/logs/*-"$name".err 2>/dev/null | sed 's/^/#   /'; fi
}

# pingpong_run RUNDIR SCENARIO "SERVER OPTIONS" "CLIENT OPTIONS" [WRAP] [PROGRAM]:
# PROGRAM (ibv_rc_pingpong) -d rxe0 -n 10 in both VMs under `rdmatrace record`
# (RUNDIR/srv, RUNDIR/cli; the client connects to 10.9.0.1), WRAP (such as
# "timeout 8", for a run that hangs) before each record; then the diagnosis
# in RUNDIR.json.
pingpong_run() {
	local dir=$1 scenario=$2 sopt=$3 copt=$4 wrap=${5:-} prog=${6:-ibv_rc_pingpong} rec="$PWD/$RDMATRACE record"
	vm_run "$dir" --scenario "$scenario" --ready "sleep 2; true" \
		--server "$wrap $rec -o $dir/srv -- $prog -d rxe0 -n 10 $sopt" \
		--client "$wrap $rec -o $dir/cli -- $prog -d rxe0 -n 10 $copt 10.9.0.1" \
		--server-name $prog --client-name $prog
	"$RDMATRACE" diagnose --json "$dir" >"$dir.json"
}

# rxe_after_pkts N: shell text for a VM's command that waits (at most 60 s)
# until rxe0 has received N packets: a point mid-transfer however fast the
# VMs run.  Use it as "($(rxe_after_pkts 20000); ...) & ...".
rxe_after_pkts() {
	echo "c=/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts; for i in \$(seq 600); do [ \"\$(cat \$c 2>/dev/null || echo 0)\" -ge $1 ] && break; sleep 0.1; done"
}

# tsh CAPTURE ARGS...: tshark on a lab capture, without RPC-over-RDMA guesses.
tsh() {
	local f=$1; shift
	tshark -r "$f" --disable-protocol rpcordma "$@" 2>/dev/null
}

# tcount CAPTURE FILTER: number of packets matching FILTER; "error" when
# tshark refuses the filter or the file (so a typo cannot pass as zero).
tcount() {
	local out
	out=$(tsh "$1" -Y "$2") || { echo error; return; }
	if [ -z "$out" ]; then echo 0; else printf '%s\n' "$out" | wc -l; fi
}

# dup_psns CAPTURE: number of (sender, QP, PSN) triples sent more than once,
# counting RoCE requests and responses but not ACKs and not CM MADs (QP 1).
dup_psns() {
	tsh "$1" -Y 'infiniband && infiniband.bth.destqp != 1 && infiniband.bth.opcode != 17' \
		-T fields -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn |
		sort | uniq -c | awk '$1 > 1 { n++ } END { print n + 0 }'
}

# retry_count RUNDIR: the rxe counters of both VMs that count retransmissions
# (requester retries) and what they look like at the responder.
retry_count() {
	cat "$1"/logs/*-hw_counters.txt 2>/dev/null |
		awk '$1 ~ /^(completer_retry_err|duplicate_request|rcvd_seq_err|out_of_seq_request)$/ { s += $2 } END { print s + 0 }'
}

# no_qemu_left RUNDIR: no qemu process still refers to RUNDIR.
no_qemu_left() {
	! pgrep -f "qemu-system.*$1" >/dev/null
}

# json_ok FILE: run.json parses (when python3 is around) and names both hosts.
json_ok() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["hosts"]) == 2' "$1"
	else
		grep -q '"hosts"' "$1"
	fi
}

# json_get FILE EXPR: a Python expression over the parsed run.json as d.
json_get() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

have_python() { command -v python3 >/dev/null 2>&1; }
