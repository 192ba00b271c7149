# shellcheck shell=bash
# mask.sh: kv_mask, for the scripts that record commands (lib.sh's
# commands.tsv, scripts/dev/testcost.sh). Sourced, never run.

# kv_mask: stdin to stdout with each password a URL or a connection
# string can carry replaced by ***, the rules of kvtest's own url_mask
# (src/base/url_mask.h): SCHEME://USER:PASSWORD@ keeps USER: (the userinfo
# runs to the last '@' before a blank or a quote), and password=VALUE at
# the start, after '?', '&' or a blank, in any case.
kv_mask() {
    sed -E -e "s#(://[^:@[:space:]'\"]*):[^[:space:]'\"]*@#\\1:***@#g" \
        -e "s#(^|[?&[:space:]])([Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]=)[^&[:space:]'\"]*#\\1\\2***#g"
}
