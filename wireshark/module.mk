# Wireshark integration: the Lua post-dissector, the profile, and the
# `rdmatrace wireshark` / `rdmatrace tshark` commands.
CLI_SRCS += cli/cmd_wireshark.c cli/cmd_tshark.c cli/wireshark_files.c
TEST_TOOLS += tests/wireshark/make_annotated.c
TEST_SCRIPTS += tests/wireshark/test_plugin.sh
