/*
 * A JSON string in the command's own JSON (dump --json, the run index
 * record writes): one function, so that both escape the same way.  The
 * timeline exports have theirs, rt_tl_json_string(), which also escapes
 * newlines as \n and bytes above 0x7e.
 */
#ifndef RDMATRACE_CLI_JSON_STR_H
#define RDMATRACE_CLI_JSON_STR_H

#include <stdio.h>

/* S quoted: '"' and '\' escaped by a backslash, control characters as
 * \u00XX, other bytes as they are; NULL as "". */
void rt_cli_json_str(FILE *out, const char *s);

#endif
