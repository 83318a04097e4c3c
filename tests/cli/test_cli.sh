#!/usr/bin/env bash
# The rdmatrace command itself: overview, per-command help, unknown commands.
. tests/lib.sh

out=$("$RDMATRACE" --help)
check "--help lists commands" grep -q '^commands:' <<<"$out"
check_fails "no arguments is a usage error" "$RDMATRACE"
check_fails "unknown command is an error" "$RDMATRACE" no-such-command
err=$("$RDMATRACE" no-such-command 2>&1 >/dev/null)
check "unknown command names itself" grep -q "unknown command 'no-such-command'" <<<"$err"
for cmd in $("$RDMATRACE" --help | awk '/^commands:/ {on=1; next} on && !NF {exit} on {print $1}'); do
	check "$cmd --help prints usage" bash -c "'$RDMATRACE' $cmd --help | grep -qi usage"
done
done_testing
