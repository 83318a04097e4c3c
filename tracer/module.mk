# The tracer: event schema helpers, rings, clock, trace files and reader.
LIB_SRCS += tracer/event_kind.c
