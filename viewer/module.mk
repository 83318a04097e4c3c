# The viewer: `rdmatrace view` (ncurses timeline, lanes, detail, QP list,
# findings, help, tshark hand-off, live mode, batch mode).  The model and
# the screens are free of curses; only viewer/term_curses.c links it.
LIB_SRCS += viewer/source.c viewer/memsrc.c viewer/model.c viewer/ui.c viewer/screens.c viewer/handoff.c viewer/batch.c viewer/term_curses.c
LIB_LDLIBS += -lncursesw
TEST_PROGS += tests/viewer/test_model.c
