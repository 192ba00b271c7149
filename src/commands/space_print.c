/* space_print: stat's and space's figures as text lines in the column
 * layout of SQLite's kvtest stat ("Page-size:  %8d"), so our lines read as
 * one block with the upstream ones above them, and the percentages they
 * show. */
#include <inttypes.h>
#include <stdio.h>

#include "commands/space_int.h"

double space_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

void space_print_int(const char *label, int64_t v)
{
    printf("%-19s %8" PRId64 "\n", label, v);
}

void space_print_line(const char *label, const char *v)
{
    printf("%-19s %8s\n", label, v);
}

void space_print_pct(const char *label, double v, const char *note)
{
    if (note)
        printf("%-19s %7.1f%% (%s)\n", label, v, note);
    else
        printf("%-19s %7.1f%%\n", label, v);
}
