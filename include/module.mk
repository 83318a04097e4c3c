# The public headers: each one compiles on its own, with gcc and clang.
TEST_SCRIPTS += tests/include/test_headers.sh
