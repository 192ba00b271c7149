/* args: see args.h. */
#include "shortener/cli/args.h"

int args_parse_one(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                   int nopts, const char **arg, const char *missing)
{
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, arg, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos != 1)
        return cli_usage(cmd, "%s", missing);
    return 0;
}
