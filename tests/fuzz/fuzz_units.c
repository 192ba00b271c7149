/* build: src/base/units.c src/base/net.c src/base/errbuf.c src/base/cli.c src/base/url_mask.c src/measure/timeline.c src/measure/hist.c src/load/load_search.c src/commands/sweep/sweep_cross.c -lm */
/* libFuzzer target: the numbers users type — sizes, counts, durations and
 * rates (base/units.h), the numbers and host:port of URLs (base/net.h),
 * --timeline's interval (timeline_parse_interval), --slo
 * (load_slo_parse), --page-sizes (sweep_parse_pages), and the integer,
 * decimal and choice options of every command (cli_parse, base/cli.h).
 *
 * Input: any bytes. Up to the first NUL they are the text of each parser
 * of C strings; all of them the bytes of the parsers that take a length;
 * split at NUL bytes, the argv of cli_parse (over a table with an
 * integer, a decimal, a choice, a flag, two exclusive flags and a string).
 *
 * Invariants checked:
 *  - units_parse_int agrees with a reference written from its header:
 *    digits (or "0x" and hex digits), then nothing or one of K M G KB MB GB
 *    KiB MiB GiB in any case; the value, suffix applied, within int64.
 *  - units_parse_double and units_parse_duration accept only a decimal
 *    number (digits, an optional fraction and exponent) and, for a
 *    duration, one of "", s, ms, m, h; the value is what strtod reads times
 *    the unit, finite and not negative; printed with %.17g (and "s") it
 *    parses back to the same value.
 *  - units_parse_digits: -1 beyond 18 digits or on a non-digit, else the
 *    value; units_format_bytes: terminated in any cap, "N B" below 1024,
 *    else a figure below 1024 (PiB aside) of KiB..PiB within its rounding.
 *  - net_parse_num agrees with its header (1..9 digits, in [lo, hi]);
 *    net_hostport_split gives spans that put back together are the input.
 *  - timeline_parse_interval: 1 ms..1 h, as nanoseconds; load_slo_parse:
 *    1..LOAD_SLO_MAX distinct known percentiles, each bound finite and
 *    above zero, its reason one line unless it quotes a '\n' of the input
 *    (cli's messages make every line one: base/cli.c says a message needs
 *    no care of its own); load_slo_text stays within its buffer;
 *    sweep_parse_pages:
 *    1..max powers of two in 512..65536, strictly ascending.
 *  - cli_parse: 0 or 2; on 0 every option set holds a value within its
 *    table's bounds, positional arguments are the argv strings given, and
 *    the same argv gives the same result again.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cli.h"
#include "base/net.h"
#include "base/units.h"
#include "commands/sweep/sweep.h"
#include "load/load_search.h"
#include "measure/timeline.h"

#define FUZZ_NAME "fuzz_units"
#include "tests/fuzz/fuzz_check.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    return 0;
}

static int digit_of(char c, int base)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (base == 16 && c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* units_parse_int as units.h describes it. */
static int ref_int(const char *s, int64_t *out)
{
    static const struct {
        const char *s;
        int64_t mult;
    } suf[] = {{"K", 1000}, {"M", 1000000}, {"G", 1000000000},
               {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000},
               {"KiB", 1024}, {"MiB", 1024 * 1024}, {"GiB", 1024 * 1024 * 1024}};
    if (!(s[0] >= '0' && s[0] <= '9'))
        return -1;
    int base = 10;
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    unsigned __int128 v = 0;
    int nd = 0, big = 0;
    for (int d; (d = digit_of(*p, base)) >= 0; p++, nd++) {
        v = v * (unsigned)base + (unsigned)d;
        if (v > INT64_MAX)
            big = 1, v = (unsigned __int128)INT64_MAX + 1;
    }
    if (nd == 0 || big)
        return -1;
    int64_t mult = 1;
    if (*p) {
        size_t i;
        for (i = 0; i < sizeof suf / sizeof suf[0]; i++)
            if (strcasecmp(p, suf[i].s) == 0)
                break;
        if (i == sizeof suf / sizeof suf[0])
            return -1;
        mult = suf[i].mult;
    }
    if (v * (unsigned)mult > INT64_MAX)
        return -1;
    *out = (int64_t)(v * (unsigned)mult);
    return 0;
}

/* A decimal number: digits with an optional fraction (at least one digit
 * in all), then an optional exponent. The length of the longest such
 * prefix, 0 if none. */
static size_t decimal_len(const char *s)
{
    const char *p = s;
    size_t d = 0;
    while (*p >= '0' && *p <= '9')
        p++, d++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9')
            p++, d++;
    }
    if (d == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (*q >= '0' && *q <= '9') {
            while (*q >= '0' && *q <= '9')
                q++;
            p = q;
        }
    }
    return (size_t)(p - s);
}

static void check_int(const char *s)
{
    int64_t v = -7, r = -7;
    int rc = units_parse_int(s, &v), want = ref_int(s, &r);
    if (rc != want || (rc == 0 && v != r))
        fprintf(stderr, "fuzz_units: units_parse_int(\"%s\") = %d (%lld), expected %d (%lld)\n", s,
                rc, (long long)v, want, (long long)r);
    CHECK(rc == want && (rc != 0 || v == r), "units_parse_int differs from its header's definition");
}

static void check_double(const char *s)
{
    double v;
    if (units_parse_double(s, &v) != 0)
        return;
    size_t n = decimal_len(s);
    if (n != strlen(s))
        fprintf(stderr, "fuzz_units: units_parse_double took \"%s\" as %g\n", s, v);
    CHECK(n == strlen(s), "units_parse_double took what is not a decimal number");
    CHECK(isfinite(v) && v >= 0 && v == strtod(s, NULL), "units_parse_double's value");
    char buf[64];
    double back;
    snprintf(buf, sizeof buf, "%.17g", v);
    CHECK(units_parse_double(buf, &back) == 0 && back == v, "units_parse_double: %.17g does not parse back");
}

static void check_duration(const char *s)
{
    double v;
    if (units_parse_duration(s, &v) != 0)
        return;
    size_t n = decimal_len(s);
    const char *unit = s + n;
    double mult = !*unit || strcmp(unit, "s") == 0 ? 1 : strcmp(unit, "ms") == 0 ? 0.001
                  : strcmp(unit, "m") == 0 ? 60 : strcmp(unit, "h") == 0 ? 3600 : -1;
    if (n == 0 || mult < 0 || !isfinite(v))
        fprintf(stderr, "fuzz_units: units_parse_duration took \"%s\" as %g s\n", s, v);
    CHECK(n > 0 && mult > 0, "units_parse_duration took what is not NUMBER[ms|s|m|h]");
    CHECK(isfinite(v) && v >= 0, "units_parse_duration's seconds are not finite and >= 0");
    CHECK(v == strtod(s, NULL) * mult, "units_parse_duration's value");
    char buf[64];
    double back;
    snprintf(buf, sizeof buf, "%.17gs", v);
    CHECK(units_parse_duration(buf, &back) == 0 && back == v, "units_parse_duration: %.17gs does not parse back");
    uint64_t ns;
    if (timeline_parse_interval(s, &ns) == 0)
        CHECK(v >= 0.001 && v <= 3600 && ns >= 1000000 && ns <= 3600000000000ULL &&
                  ns == (uint64_t)(v * 1e9 + 0.5),
              "timeline_parse_interval outside 1 ms..1 h");
    else
        CHECK(!(v >= 0.001 && v <= 3600), "timeline_parse_interval refused 1 ms..1 h");
}

static void check_digits(const char *raw, size_t size)
{
    for (size_t n = 0; n <= size && n <= 20; n++) {
        int64_t v = units_parse_digits(raw, n), want = 0;
        int ok = n <= 18;
        for (size_t i = 0; i < n && ok; i++) {
            if (raw[i] < '0' || raw[i] > '9')
                ok = 0;
            else
                want = want * 10 + (raw[i] - '0');
        }
        CHECK(v == (ok ? want : -1), "units_parse_digits differs from its header");
        static const long ranges[][2] = {{0, 65535}, {1, 65535}, {0, 1000000}, {0, 16383}};
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
            long got = -1;
            int rc = net_parse_num(raw, n, ranges[r][0], ranges[r][1], &got);
            int expect = n >= 1 && n <= 9 && ok && want >= ranges[r][0] && want <= ranges[r][1];
            CHECK(rc == (expect ? 0 : -1) && (!expect || got == want), "net_parse_num differs from its header");
        }
    }
}

static void check_format(int64_t v)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    char full[64];
    units_format_bytes(full, sizeof full, v);
    for (size_t cap = 1; cap < 24; cap++) {
        char *b = malloc(cap);
        if (!b)
            abort();
        units_format_bytes(b, cap, v);
        CHECK(memchr(b, '\0', cap) && strncmp(b, full, cap - 1) == 0, "units_format_bytes overran or differs in a small buffer");
        free(b);
    }
    double x;
    char unit[8];
    CHECK(sscanf(full, "%lf %7s", &x, unit) == 2, "units_format_bytes: not NUMBER UNIT");
    int i = -1;
    for (int k = 0; k < 6; k++)
        if (strcmp(unit, names[k]) == 0)
            i = k;
    CHECK(i >= 0, "units_format_bytes: unknown unit");
    if (v > -1024 && v < 1024) {
        CHECK(i == 0 && strtoll(full, NULL, 10) == v, "units_format_bytes: bytes below 1024 not exact");
    } else {
        double scale = ldexp(1.0, 10 * i);
        CHECK(i > 0 && (i == 5 || fabs(x) <= 1024.0), "units_format_bytes: figure and unit do not fit");
        CHECK(fabs(x * scale - (double)v) <= 0.0500001 * scale + fabs((double)v) * 1e-12,
              "units_format_bytes: figure is not the value");
    }
}

static void check_hostport(const char *raw, size_t n)
{
    struct net_hostport hp;
    char err[64];
    if (net_hostport_split(raw, n, &hp, err, sizeof err) != 0) {
        CHECK(memchr(err, '\0', sizeof err) && err[0], "net_hostport_split failed without a reason");
        char one[1];
        CHECK(net_hostport_split(raw, n, &hp, one, 1) == -1 && one[0] == '\0', "net_hostport_split: 1-byte buffer");
        CHECK(net_hostport_split(raw, n, &hp, NULL, 0) == -1, "net_hostport_split: no buffer");
        return;
    }
    const char *end = raw + n;
    CHECK(hp.host >= raw && hp.host + hp.hlen <= end, "host span outside the input");
    CHECK(hp.port || hp.plen == 0, "plen without a port");
    /* Put back together: [HOST] or HOST, then :PORT when there is one. */
    size_t at = 0;
    if (hp.bracketed) {
        CHECK(n >= 2 && raw[0] == '[' && hp.host == raw + 1 && raw[1 + hp.hlen] == ']', "[host] not the input");
        CHECK(!memchr(hp.host, ']', hp.hlen), "a ']' inside the bracketed host");
        at = hp.hlen + 2;
    } else {
        CHECK(hp.host == raw && !memchr(raw, ':', hp.hlen), "host not the input up to its first ':'");
        at = hp.hlen;
    }
    if (hp.port) {
        CHECK(at < n && raw[at] == ':' && hp.port == raw + at + 1 && hp.port + hp.plen == end,
              ":port not the rest of the input");
    } else {
        CHECK(at == n && hp.plen == 0, "host:port without a port is not the whole input");
    }
}

static void check_slo(const char *s)
{
    struct load_slo slo;
    char err[256];
    if (load_slo_parse(s, &slo, err, sizeof err) != 0) {
        CHECK(memchr(err, '\0', sizeof err) && err[0], "load_slo_parse failed without a reason");
        CHECK(strchr(s, '\n') || !strchr(err, '\n'), "load_slo_parse's reason is not one line");
        return;
    }
    static const double qs[] = {0.50, 0.90, 0.95, 0.99, 0.999, 0.9999};
    CHECK(slo.n >= 1 && slo.n <= LOAD_SLO_MAX, "--slo bounds outside 1..LOAD_SLO_MAX");
    for (int i = 0; i < slo.n; i++) {
        int known = 0;
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++)
            known |= slo.q[i] == qs[k];
        CHECK(known, "--slo percentile not one of p50..p9999");
        for (int j = 0; j < i; j++)
            CHECK(slo.q[i] != slo.q[j], "--slo percentile given twice");
        CHECK(memchr(slo.name[i], '\0', sizeof slo.name[i]) && slo.name[i][0] == 'p', "--slo name");
        if (!(slo.bound_us[i] > 0 && isfinite(slo.bound_us[i])))
            fprintf(stderr, "fuzz_units: --slo %s bound %g us\n", slo.name[i], slo.bound_us[i]);
        CHECK(slo.bound_us[i] > 0 && isfinite(slo.bound_us[i]), "--slo bound not finite and above zero");
    }
    for (size_t cap = 1; cap < 80; cap += 7) {
        char *b = malloc(cap);
        if (!b)
            abort();
        load_slo_text(&slo, b, cap);
        CHECK(memchr(b, '\0', cap), "load_slo_text unterminated");
        free(b);
    }
    CHECK(load_slo_samples(&slo) > 0, "load_slo_samples");
}

static void check_pages(const char *s)
{
    for (int max = 2; max <= 8; max += 6) {
        int64_t out[8];
        int n = -1;
        char err[256];
        if (sweep_parse_pages(s, out, max, &n, err, sizeof err) != 0) {
            CHECK(memchr(err, '\0', sizeof err) && err[0], "sweep_parse_pages failed without a reason");
            continue;
        }
        CHECK(n >= 1 && n <= max, "--page-sizes count outside 1..max");
        for (int i = 0; i < n; i++) {
            CHECK(out[i] >= 512 && out[i] <= 65536 && (out[i] & (out[i] - 1)) == 0,
                  "--page-sizes value not a power of two in 512..65536");
            CHECK(i == 0 || out[i] > out[i - 1], "--page-sizes not strictly ascending");
        }
    }
}

/* cli_parse over one table; fills what it sets. */
struct cli_vals {
    int64_t count;
    double rate;
    int mode, json, order;
    const char *name;
    const char *pos[2];
    int npos;
};

static int parse_cli(int argc, char **argv, struct cli_vals *v)
{
    static const char *const modes[] = {"tasks", "duration", "capacity", NULL};
    memset(v, 0, sizeof *v);
    v->count = -1;
    v->rate = -1;
    v->mode = -1;
    struct cli_opt opts[] = {
        CLI_INT_OPT("count", &v->count, 1, 1000000000),
        CLI_DOUBLE_OPT("rate", &v->rate, 0.001, 1e9),
        CLI_ENUM_OPT("mode", &v->mode, modes),
        CLI_FLAG_OPT("json", &v->json),
        CLI_SET_OPT("asc", &v->order, 1),
        CLI_SET_OPT("desc", &v->order, 2),
        CLI_STR_OPT("name", &v->name),
    };
    /* Misuse is printed on stderr: sent to /dev/null here (glibc's stderr
     * is a variable), or every refused argv would be a line of output. */
    FILE *err = stderr;
    stderr = devnull;
    int rc = cli_parse("fuzz", argc, argv, opts, CLI_COUNT(opts), v->pos, 2, &v->npos);
    stderr = err;
    return rc;
}

static void check_cli(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[17];
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    int argc = 0;
    for (char *p = buf; argc < 16 && p <= buf + size; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    struct cli_vals a, b;
    int rc = parse_cli(argc, argv, &a);
    CHECK(rc == 0 || rc == 2, "cli_parse returned neither 0 nor 2");
    CHECK(parse_cli(argc, argv, &b) == rc && memcmp(&a, &b, sizeof a) == 0, "cli_parse not deterministic");
    if (rc == 0) {
        CHECK(a.count == -1 || (a.count >= 1 && a.count <= 1000000000), "--count outside its bounds");
        CHECK(a.rate == -1 || (a.rate >= 0.001 && a.rate <= 1e9), "--rate outside its bounds");
        CHECK(a.mode >= -1 && a.mode <= 2, "--mode outside its choices");
        CHECK(a.json == 0 || a.json == 1, "--json not a flag");
        CHECK(a.order >= 0 && a.order <= 2, "--asc/--desc not 1 or 2");
        CHECK(a.npos >= 0 && a.npos <= 2, "more positional arguments than allowed");
        for (int i = 0; i < a.npos; i++) {
            int found = 0;
            for (int k = 0; k < argc; k++)
                found |= a.pos[i] == argv[k];
            CHECK(found, "a positional argument that is not an argv string");
        }
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), *raw = malloc(size ? size : 1);
    if (!s || !raw)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    memcpy(raw, data, size);   /* exactly size bytes: reads past them are caught */
    check_int(s);
    check_double(s);
    check_duration(s);
    check_digits(raw, size);
    check_hostport(raw, size);
    check_slo(s);
    check_pages(s);
    int64_t v;
    if (units_parse_int(s, &v) == 0)
        check_format(v);
    if (size >= 8) {
        memcpy(&v, data, 8);
        check_format(v);
    }
    check_cli(data, size);
    free(s);
    free(raw);
    return 0;
}
