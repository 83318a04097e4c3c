#!/usr/bin/env bash
# The hosts backend of `rdmatrace lab`, driven over real ssh: an sshd of the
# test's own on a loopback port (throwaway keys) stands for the two hosts,
# and the programs run there over uroce (LD_LIBRARY_PATH passed with
# --remote-env), as they would over rxe or a NIC on real machines.
. tests/lib.sh
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null; then
	skip "lab on hosts over ssh" "openssh-server/openssh-client not installed"
	done_testing
	exit
fi
T=$(mktemp -d)
cleanup() { [ -f "$T/sshd.pid" ] && kill "$(cat "$T/sshd.pid")" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$T/id" && cp "$T/id.pub" "$T/authorized_keys"
chmod 600 "$T/authorized_keys"
port=$((22000 + RANDOM % 20000))
cat >"$T/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $T/hostkey
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $T/sshd.pid
CFG
mkdir -p /run/sshd 2>/dev/null
"$SSHD" -f "$T/sshd_config" -E "$T/sshd.log"
for i in $(seq 50); do [ -f "$T/sshd.pid" ] && break; sleep 0.1; done
export RDMATRACE_SSH="ssh -p $port -i $T/id -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
if ! $RDMATRACE_SSH -n "$(id -un)@127.0.0.1" true 2>"$T/ssh.err"; then
	skip "lab on hosts over ssh" "cannot ssh to the test's own sshd: $(head -1 "$T/ssh.err") $(tail -2 "$T/sshd.log" | tr '\n' ' ')"
	done_testing
	exit
fi
H=$(id -un)@127.0.0.1
top=$(pwd)
srv=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1)).1
hosts=(--backend hosts --server-host "$H" --client-host "$H" --server-addr "$srv"
	--remote-env "LD_LIBRARY_PATH=$top/$BUILD/uroce")

"$RDMATRACE" lab minimal "${hosts[@]}" --iface lo -o "$T/min" >"$T/min.out" 2>&1
rc=$?
check "lab minimal on two hosts over ssh: every expectation met" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/min.out" | tail -20
check "both records came back (a trace per side)" test "$(ls "$T/min/traces" 2>/dev/null | wc -l)" -ge 2
check "the server host's capture came back" test -s "$T/min/capture.pcapng"
check "run.json names the hosts" grep -q "\"server_addr\": \"$srv\"" "$T/min/run.json"
check "nothing is left on the hosts" bash -c "! ls -d /tmp/rdmatrace-lab-* 2>/dev/null | grep -q ."

"$RDMATRACE" lab error "${hosts[@]}" -o "$T/err" >"$T/err.out" 2>&1
check "lab error on hosts: the remote access error and the flushes" grep -q 'ok    client: ok mode=rkey remote_access_errors=1 flushed=2' "$T/err.out"
check "without --iface there is no capture, and the run says so" grep -q '"capture_note": "no capture (give --iface' "$T/err/run.json"

check_fails "the hosts backend wants its hosts" "$RDMATRACE" lab minimal --backend hosts -o "$T/x"
check_fails "--loss is refused on real hosts" "$RDMATRACE" lab minimal "${hosts[@]}" --loss 2 -o "$T/x"
RDMATRACE_SSH="ssh -p 1 -o BatchMode=yes -o ConnectTimeout=2" "$RDMATRACE" lab minimal "${hosts[@]}" -o "$T/unreach" >"$T/unreach.out" 2>&1
rc=$?
check "an unreachable host fails the run" test $rc -ne 0
check "... saying the server did not come up and where its output is" grep -q 'did not come up on' "$T/unreach.out"
check "... and keeping run.json" test -s "$T/unreach/run.json"
done_testing
