#!/usr/bin/env bash
# scripts/lab-vm without booting anything: prerequisites, the cached initramfs
# and its module set, and clear errors for bad options and a missing kernel.
. tests/lib.sh
. tests/vm/vmlib.sh

check "lab-vm check passes" "$LABVM" check

out=$("$LABVM" build 2>&1); rc=$?
img=$(printf '%s\n' "$out" | grep '\.cpio$' | head -1)
if [ $rc -eq 0 ] && [ -s "$img" ]; then ok "build prints the cached initramfs ($img)"; else not_ok "build"; echo "$out" | sed 's/^/#   /'; fi
again=$("$LABVM" build 2>&1 | grep '\.cpio$' | head -1)
if [ "$again" = "$img" ]; then ok "a second build reuses the cache"; else not_ok "second build gave '$again'"; fi
if [ -s "$img" ]; then
	list=$(cpio -it --quiet <"$img")
	for m in rdma_rxe ib_uverbs rdma_ucm ib_core ib_cm iw_cm rdma_cm udp_tunnel ip6_udp_tunnel \
		virtio_net virtio_pci 9p 9pnet 9pnet_virtio sch_netem sch_prio cls_u32; do
		if printf '%s\n' "$list" | grep -qx "lib/modules/$m.ko"; then ok "initramfs has $m.ko"
		else not_ok "initramfs lacks $m.ko"; fi
	done
	# Dependencies load first: ib_core before rdma_rxe, 9pnet before 9p.
	order=$(cd "$VM_TMP" && cpio -i --quiet --to-stdout modules.list <"$img")
	pos() { printf '%s\n' "$order" | grep -nx "$1.ko" | cut -d: -f1; }
	if [ "$(pos ib_core)" -lt "$(pos rdma_rxe)" ] && [ "$(pos 9pnet)" -lt "$(pos 9p)" ] &&
		[ "$(pos virtio)" -lt "$(pos virtio_net)" ]; then ok "modules.list loads dependencies first"
	else not_ok "module order"; printf '%s\n' "$order" | sed 's/^/#   /'; fi
fi
# Compressed modules (.ko.xz, .ko.zst) are unpacked into the image: build from
# a copy of the needed modules, compressed, and compare with the plain image.
kver=$("$LABVM" check 2>/dev/null | sed -n 's/^kernel: \([^ ]*\) .*/\1/p')
if [ -s "$img" ] && [ -n "$kver" ] && command -v xz >/dev/null && command -v zstd >/dev/null; then
	M=$VM_TMP/modroot/lib/modules/$kver
	mkdir -p "$M" "$VM_TMP/plain" "$VM_TMP/packed"
	cp /lib/modules/"$kver"/modules.builtin* /lib/modules/"$kver"/modules.order "$M/" 2>/dev/null
	i=0
	while read -r b; do
		src=$(find /lib/modules/"$kver"/kernel -name "$b" -o -name "$b.*" | head -1)
		rel=${src#/lib/modules/$kver/}
		mkdir -p "$M/$(dirname "$rel")"
		case $((i % 2)) in
		0) xz -c "$src" >"$M/${rel%.ko*}.ko.xz" ;;
		1) zstd -q -c "$src" >"$M/${rel%.ko*}.ko.zst" ;;
		esac
		i=$((i + 1))
	done < <(cd "$VM_TMP" && cpio -i --quiet --to-stdout modules.list <"$img")
	depmod -b "$VM_TMP/modroot" "$kver"
	out=$(RDMATRACE_VM_MODROOT=$VM_TMP/modroot RDMATRACE_VM_CACHE=$VM_TMP/cache "$LABVM" build 2>&1)
	img2=$(printf '%s\n' "$out" | grep '\.cpio$' | head -1)
	(cd "$VM_TMP/plain" && cpio -id --quiet <"$img") && (cd "$VM_TMP/packed" && cpio -id --quiet <"${img2:-/dev/null}")
	# The load order may differ among independent modules (depmod of a smaller tree).
	if [ -n "$img2" ] && diff -r -x modules.list "$VM_TMP/plain" "$VM_TMP/packed" >/dev/null &&
		[ "$(sort "$VM_TMP/plain/modules.list")" = "$(sort "$VM_TMP/packed/modules.list")" ]; then
		ok "modules compressed with xz and zstd give the same image ($i modules)"
	else
		not_ok "compressed modules"; printf '%s\n' "$out" | sed 's/^/#   /'
		diff -rq "$VM_TMP/plain" "$VM_TMP/packed" 2>&1 | head -5 | sed 's/^/#   /'
	fi
else
	skip "compressed modules" "xz or zstd missing"
fi

kernel=$("$LABVM" build 2>/dev/null | sed -n 's/^kernel: //p')
if [ -n "$kernel" ] && [ -s "$kernel" ]; then ok "kernel image to boot: $kernel"; else not_ok "no kernel image printed"; fi

out=$("$LABVM" run -o "$VM_TMP/r0" --client true 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q -- '--server'; then ok "run without --server: usage error naming it"; else not_ok "run without --server gave $rc: $out"; fi
out=$("$LABVM" run --bogus 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q -- "--bogus"; then ok "unknown option named"; else not_ok "unknown option gave $rc: $out"; fi
out=$("$LABVM" run --server true --client true --loss lots 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q -- "--loss"; then ok "bad --loss value named"; else not_ok "bad --loss gave $rc: $out"; fi
out=$("$LABVM" frobnicate 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q frobnicate; then ok "unknown command named"; else not_ok "unknown command gave $rc"; fi

out=$(RDMATRACE_VM_KERNEL=0.0.0-nosuch "$LABVM" check 2>&1); rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q '/boot/vmlinuz-0.0.0-nosuch'; then ok "check names the missing kernel"; else not_ok "check with a missing kernel: rc $rc: $out"; fi
out=$(RDMATRACE_VM_KERNEL=0.0.0-nosuch "$LABVM" run -o "$VM_TMP/r1" --server true --client true 2>&1); rc=$?
if [ $rc -eq 3 ] && printf '%s' "$out" | grep -q 'vmlinuz-0.0.0-nosuch'; then ok "run with a missing kernel fails clearly"; else not_ok "run with a missing kernel: rc $rc: $out"; fi
out=$(RDMATRACE_VM_QEMU=/nonexistent/qemu "$LABVM" check 2>&1); rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q '/nonexistent/qemu'; then ok "check names a missing qemu"; else not_ok "check with no qemu: rc $rc: $out"; fi
done_testing
