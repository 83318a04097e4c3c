#!/bin/busybox sh
# /init of the rdmatrace VM-lab initramfs (built by `scripts/lab-vm build`).
#
# It runs under busybox before any real user space exists: loads the kernel
# modules listed in /modules.list (virtio, 9p, SoftRoCE, netem, resolved from
# modules.dep at build time), mounts the host's root file system read-only
# over 9p with fresh proc, sys, dev, /tmp and /run on top, mounts the run
# directory share at its host path, and chroot-s into the host root to run
# the job runner the host left in RUNDIR/vm/ROLE/.  Whatever happens, the
# machine powers itself off at the end (qemu runs with -no-reboot).
#
# Progress lines start with "rdmatrace-vm:" on the serial console; the host
# reads the last "stage" to say where a VM that failed got stuck.

/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /host /rundir
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

stage() { echo "rdmatrace-vm: stage $*"; }
die() {
	echo "rdmatrace-vm: FAILED: $*"
	if [ -n "$jobdir" ] && [ -d "$jobdir" ]; then echo "$*" >"$jobdir/init-failed"; sync; fi
	sleep 1
	reboot -f
	sleep 30
}

role=
jobdir=
shell=0
for w in $(cat /proc/cmdline); do
	case "$w" in
	rt.role=*) role=${w#rt.role=} ;;
	rt.shell=1) shell=1 ;;
	esac
done
[ -n "$role" ] || die "no rt.role= on the kernel command line"

stage modules
# Modules the kernel asks for later (crypto algorithms, qdiscs...) come from
# the host root's /lib/modules, which holds the same kernel package.
mkdir -p /sbin
printf '#!/bin/busybox sh\nexec chroot /host /sbin/modprobe "$@"\n' >/sbin/modprobe
chmod 755 /sbin/modprobe
echo /sbin/modprobe >/proc/sys/kernel/modprobe
while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/modules/$m" || die "insmod $m (kernel $(uname -r))"
done </modules.list

stage mount-rundir
# 9p devices appear once virtio_pci has probed; give them a moment.
n=0
until mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 rundir /rundir 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || die "cannot mount the run directory share (9p tag 'rundir')"
	sleep 0.1
done
jobdir=/rundir/vm/$role
[ -f "$jobdir/vm.conf" ] || { jobdir=; die "no vm/$role/vm.conf in the run directory share"; }
# vm.conf: line 1 is the run directory's host path, then one "TAG PATH" per extra share.
{ read -r rundir_path; cat >/shares.list; } <"$jobdir/vm.conf"

stage mount-root
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose hostroot /host ||
	die "cannot mount the host root share (9p tag 'hostroot')"
mount -t proc proc /host/proc || die "mount /proc in the host root"
mount -t sysfs sysfs /host/sys || die "mount /sys in the host root"
mount -t devtmpfs devtmpfs /host/dev || die "mount /dev in the host root"
mkdir -p /host/dev/pts /host/dev/shm 2>/dev/null
ln -sf /proc/self/fd /host/dev/fd
ln -sf /proc/self/fd/0 /host/dev/stdin
ln -sf /proc/self/fd/1 /host/dev/stdout
ln -sf /proc/self/fd/2 /host/dev/stderr
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm
mount -t tmpfs -o mode=1777 tmpfs /host/tmp || die "mount /tmp in the host root"
mount -t tmpfs -o mode=755 tmpfs /host/run || die "mount /run in the host root"
mount -t configfs configfs /host/sys/kernel/config 2>/dev/null
# Extra shares first, then the run directory on top, so a share that
# contains the run directory does not hide its mount.
while read -r tag path; do
	[ -n "$tag" ] || continue
	mkdir -p "/host$path" 2>/dev/null
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 "$tag" "/host$path" ||
		die "cannot mount share $tag at $path"
done </shares.list
mkdir -p "/host$rundir_path" 2>/dev/null
mount --move /rundir "/host$rundir_path" || die "cannot place the run directory at $rundir_path"
jobdir=/host$rundir_path/vm/$role

stage job
runner=$rundir_path/vm/$role/guest-run.sh
if [ "$shell" = 1 ]; then
	chroot /host /bin/bash "$runner" --shell </dev/console >/dev/console 2>&1
else
	chroot /host /bin/bash "$runner" </dev/null
fi
echo "rdmatrace-vm: runner exited with status $?"
sync
stage poweroff
reboot -f
