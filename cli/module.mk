# The rdmatrace command: main.c dispatches to cli/cmd_*.c (see cli/command.h).
CLI_SRCS += cli/main.c cli/datadir.c cli/finding_groups.c cli/json_str.c cli/number_arg.c cli/timeline_memory.c
TEST_SCRIPTS += tests/cli/test_cli.sh
