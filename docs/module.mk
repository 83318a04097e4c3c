# The docs' own tests: man pages current, examples still true.
TEST_SCRIPTS += tests/docs/test_man.sh tests/docs/test_examples.sh
