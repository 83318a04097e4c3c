#!/usr/bin/env bash
# Benchmark of the VM lab (make bench, or by hand): boots the two SoftRoCE VMs
# VM_BENCH_RUNS times (default 3), one pair at a time, running
# `rping -C 5` between them, and prints the median boot time (qemu start to the
# guest's job runner) and whole-scenario time taken from each run.json.
# Skips (exit 0) when the VM lab's prerequisites are not installed.
set -u
cd "$(dirname "$0")/.."
runs=${VM_BENCH_RUNS:-3}
if ! scripts/lab-vm check >/dev/null 2>&1; then
	echo "vm-lab bench: skipped (scripts/lab-vm check fails; scripts/install-deps.sh --vm)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmatrace-vmbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2" | head -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }
: >"$tmp/boot"; : >"$tmp/total"
for i in $(seq "$runs"); do
	if ! scripts/lab-vm run -q -o "$tmp/r$i" --server 'rping -s -a 10.9.0.1 -v -C 5' \
		--client 'rping -c -a 10.9.0.1 -v -C 5'; then
		echo "vm-lab bench: run $i failed; see $tmp/r$i (kept)"; trap - EXIT; exit 1
	fi
	j=$tmp/r$i/run.json
	s=$(field server_boot_seconds "$j"); c=$(field client_boot_seconds "$j"); t=$(field total_seconds "$j")
	awk -v a="$s" -v b="$c" 'BEGIN { print (a > b ? a : b) }' >>"$tmp/boot"
	echo "$t" >>"$tmp/total"
	echo "vm-lab bench: run $i: boot server $s s, client $c s; rping -C 5 scenario $t s"
done
echo "vm-lab bench: median of $runs: both VMs up after $(median <"$tmp/boot") s; whole rping -C 5 scenario $(median <"$tmp/total") s (load $(cut -d' ' -f1 /proc/loadavg))"
