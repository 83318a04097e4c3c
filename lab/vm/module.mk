# VM lab: two qemu VMs with Debian's kernel SoftRoCE (scripts/lab-vm, docs/vm-lab.md).
# `make test-vm` (run by CI after `make test`) installs the --vm packages and
# builds (the guests run the project's binaries through the read-only root
# share) and runs tests/vm/test_*.sh one at a time: each boots a pair of VMs,
# never two pairs at once.
VM_TEST_SCRIPTS := $(sort $(wildcard tests/vm/test_*.sh))

.PHONY: test-vm
test-vm: deps
	@scripts/install-deps.sh --vm
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) TEST_JOBS=1 tests/run-tests.sh $(VM_TEST_SCRIPTS)

# Boot and scenario times (skipped when the --vm packages are missing).
BENCH_SCRIPTS += scripts/lab-vm-bench.sh
