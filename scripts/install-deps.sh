#!/usr/bin/env bash
# Installs the Debian packages rdmatrace needs, and only those missing.
# As root it runs apt-get; otherwise it prints the exact command and stops.
#
#   scripts/install-deps.sh          build and `make test`
#   scripts/install-deps.sh --vm     also the VM lab (qemu, Debian's kernel)
#   scripts/install-deps.sh --bench  also the benchmark anchors (LTTng-UST)
#   scripts/install-deps.sh --list   print the packages of the chosen groups
set -eu

core="gcc make libc6-dev pkg-config bc libibverbs-dev librdmacm-dev rdma-core ibverbs-utils
rdmacm-utils perftest libpcap-dev zlib1g-dev libzstd-dev liblz4-dev zstd lz4 tshark libncurses-dev clang libclang-rt-14-dev lua5.4 tmux
iproute2 procps psmisc openssh-client openssh-server ethtool"
vm="qemu-system-x86 linux-image-amd64 busybox-static cpio kmod"
bench="liblttng-ust-dev lttng-tools"

want="$core"
list=0
for arg in "$@"; do
	case "$arg" in
	--vm) want="$want $vm" ;;
	--bench) want="$want $bench" ;;
	--list) list=1 ;;
	*) echo "install-deps: unknown option '$arg' (use --vm, --bench, --list)" >&2; exit 2 ;;
	esac
done

if [ "$list" = 1 ]; then echo $want; exit 0; fi

missing=""
for p in $want; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "rdmatrace needs these Debian packages:$missing" >&2
	echo "install them with:  sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# wireshark-common asks whether non-root users may capture; answer no.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
if ! apt-get install -y -q --no-install-recommends $missing >/tmp/rdmatrace-apt.log 2>&1; then
	apt-get update -q >>/tmp/rdmatrace-apt.log 2>&1 || true
	if ! apt-get install -y -q --no-install-recommends $missing >>/tmp/rdmatrace-apt.log 2>&1; then
		echo "install-deps: apt-get failed; see /tmp/rdmatrace-apt.log" >&2
		tail -20 /tmp/rdmatrace-apt.log >&2
		exit 1
	fi
fi
