#!/usr/bin/env bash
# Failures of the VM lab: a command that hangs, a module that is missing in the
# guest, a kernel that panics, a VM that does not boot in time, and qemu
# refusing to start.  Each gives
# a clear message naming what failed and the log to read, keeps what was
# recorded in RUNDIR, and leaves no qemu process behind.  Also checks that the
# source tree is visible inside the guests through the read-only root share.
. tests/lib.sh
. tests/vm/vmlib.sh

TOPDIR=$(pwd -P)
case $BUILD in /*) BUILDDIR=$BUILD ;; *) BUILDDIR=$TOPDIR/$BUILD ;; esac

# 1. The server hangs; the client checks what it sees of the host and exits.
R=$VM_TMP/hang
vm_run "$R" --grace 3 --ready true --server-name sleeper --server 'echo started; sleep 600' \
	--client "test -r '$TOPDIR/Makefile' && echo tree-visible; touch \"\$RDMATRACE_RUNDIR/written-by-client\" && echo rundir-writable; touch /usr/rt-test 2>/dev/null || echo root-readonly; cat /proc/sys/kernel/hostname; '$BUILDDIR/rdmatrace' --version"
if [ "$VM_RC" -eq 1 ]; then ok "a hung server gives exit status 1"; else not_ok "hung server: exit $VM_RC"; sed 's/^/#   /' "$R.stderr"; fi
check "no qemu left after the hang" no_qemu_left "$R"
check_grep "the hung server was stopped and said so" 'server: sleeper was stopped' "$R.stderr"
check_grep "its output was kept" '^started$' "$R/logs/server-sleeper.out"
check_grep "run.json says the server was stopped" '"host": "server", .*"result": "stopped"' "$R/run.json"
check_grep "the source tree is visible in the guest" '^tree-visible$' "$R/logs/client-test.out"
check_grep "the run directory is writable from the guest" '^rundir-writable$' "$R/logs/client-test.out"
if [ -e "$R/written-by-client" ]; then ok "the guest's file reached the host"; else not_ok "no file from the guest"; fi
check_grep "the host root is read-only in the guest" '^root-readonly$' "$R/logs/client-test.out"
check_grep "the guest has its own host name" '^client$' "$R/logs/client-test.out"
check_grep "the project's build runs in the guest" '^rdmatrace [0-9]' "$R/logs/client-test.out"

# 2. A kernel module the job asks for does not exist.
R=$VM_TMP/nomod
vm_run "$R" --modules rdmatrace_no_such_module --server 'rping -s -a 10.9.0.1 -C 1' --client 'rping -c -a 10.9.0.1 -C 1'
if [ "$VM_RC" -eq 3 ]; then ok "a missing module gives exit status 3"; else not_ok "missing module: exit $VM_RC"; fi
check_grep "the message names the module" 'FAILED: .*modprobe rdmatrace_no_such_module' "$R.stderr"
check_grep "the message names the log" 'log: .*/logs/(server|client)-setup.log' "$R.stderr"
check_grep "run.json lists the failure" '"what": ".*rdmatrace_no_such_module' "$R/run.json"
check "no qemu left after the setup failure" no_qemu_left "$R"

# 3. The guest kernel panics (no init): the VM ends, the console log says why.
R=$VM_TMP/panic
RDMATRACE_VM_APPEND="rdinit=/rdmatrace-no-init" vm_run "$R" --server true --client true
if [ "$VM_RC" -eq 3 ]; then ok "a panicking VM gives exit status 3"; else not_ok "panic: exit $VM_RC"; fi
check_grep "the message says the kernel panicked and names the console log" 'FAILED: server VM kernel panic.*log: .*/logs/server-console.log' "$R.stderr"
check_grep "the console log was kept" 'Kernel panic' "$R/logs/server-console.log"
check_grep "the panicked VM was booted once more" "server VM's kernel panicked before its job .*retry 1" "$R.stderr"
check_grep "the first console log was kept too" 'Kernel panic' "$R/logs/server-console.1.log"
check_grep "run.json counts the retry" '"boot_retries": 1' "$R/run.json"
check "no qemu left after the panic" no_qemu_left "$R"

# 4. A VM that does not reach its job in time is killed.
R=$VM_TMP/slow
vm_run "$R" --boot-timeout 1 --server true --client true
if [ "$VM_RC" -eq 3 ]; then ok "a VM that does not boot in time gives exit status 3"; else not_ok "boot timeout: exit $VM_RC"; fi
check_grep "the message names the boot timeout and the console log" 'did not boot within 1 s .*log: .*console.log' "$R.stderr"
check_grep "run.json lists the failure" '"what": ".*did not boot' "$R/run.json"
check "no qemu left after the boot timeout" no_qemu_left "$R"

# 5. qemu itself refuses to start: its own message is shown and kept.
R=$VM_TMP/qemu
RDMATRACE_VM_QEMU_ARGS="-device rdmatrace-no-such-device" vm_run "$R" --server true --client true
if [ "$VM_RC" -eq 3 ]; then ok "qemu failing to start gives exit status 3"; else not_ok "qemu failure: exit $VM_RC"; fi
check_grep "the message quotes qemu and names its log" "qemu said: .*rdmatrace-no-such-device.*log: .*/logs/server-qemu.log" "$R.stderr"
check "no qemu left after qemu failed" no_qemu_left "$R"
done_testing
