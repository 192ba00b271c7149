# shellcheck shell=bash
# Sourced by the hand-run HTTP measurements of results/http/NOTES.md
# (h2o.sh, port.sh): one wrk run's rate and the CPU the server spent on it,
# the two figures every server of those comparisons is set beside nginx by.
# Needs lib.sh's die.

TCK=$(getconf CLK_TCK)
# cpu PID: clock ticks (user+sys) of PID and of its children (nginx's and
# h2o's workers)
cpu() {
    local p t=0
    for p in "$1" $(pgrep -P "$1" || true); do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
    done
    echo "$t"
}
# rps URL SECONDS PID: "requests/s cpu_us_per_request" of one
# "wrk -t2 -c30" run; a run with a non-2xx answer or a socket error is refused.
rps() {
    local out c0 c1
    c0=$(cpu "$3")
    out=$(wrk -t2 -c30 -d"$2s" "$1") || die "wrk failed on $1"
    c1=$(cpu "$3")
    case $out in *Non-2xx*|*"Socket errors"*) die "wrk saw errors on $1" ;; esac
    echo "$out" | awk -v c=$((c1 - c0)) -v t="$TCK" '/requests in/ { n = $1 }
        /^Requests\/sec:/ { r = $2 } END { print r, 1e6 * c / t / n }'
}
