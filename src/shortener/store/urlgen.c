/* urlgen: realistic sample URLs for the link store. See urlgen.h. */
#include "shortener/store/urlgen.h"

#include <stdio.h>
#include <string.h>

#include "measure/keys/rng.h"

static const char *const hosts[] = {
    "example.com", "www.example.org", "news.example.net", "blog.example.io",
    "shop.example.co.uk", "docs.example.dev", "api.example.com",
    "media.example-cdn.net", "www.example-university.edu",
    "forum.example.community", "maps.example.com", "en.example.wiki",
    "static.assets.example.com", "tickets.example-events.org",
    "careers.example-corp.com", "git.example.dev",
};
static const char *const words[] = {
    "article", "2026", "news", "products", "category", "shoes", "running",
    "blog", "post", "how-to-bake-sourdough-bread", "release-notes", "v2",
    "docs", "getting-started", "users", "profile", "settings", "search",
    "images", "gallery", "summer-sale", "index.html", "page", "story",
    "world", "technology", "the-quick-brown-fox-jumps-over-the-lazy-dog",
    "download", "report", "annual-report-2025.pdf", "events", "tickets",
    "faq", "support", "kb", "a1b2c3d4", "item", "12345678", "details",
};
static const char *const params[] = {
    "utm_source", "utm_medium", "utm_campaign", "ref", "id", "page", "q",
    "lang", "session", "sort", "filter", "v",
};

static size_t append(char *buf, size_t cap, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n + k >= cap)
        k = cap - 1 - n;
    memcpy(buf + n, s, k);
    buf[n + k] = '\0';
    return n + k;
}

size_t urlgen_sample(uint64_t seed, uint64_t k, char *buf, size_t cap)
{
    rng_t r;
    rng_seed(&r, rng_mix(seed, k));
    /* Cap well below LINKS_URL_MAX and cap: realistic links are short,
     * with a long tail from tracking parameters. */
    size_t lim = cap < 600 ? cap : 600;
    size_t n = 0;
    buf[0] = '\0';
    n = append(buf, lim, n, rng_below(&r, 10) < 9 ? "https://" : "http://");
    n = append(buf, lim, n, hosts[rng_below(&r, sizeof hosts / sizeof hosts[0])]);
    /* Path depth 0..6, skewed to 2-3 segments. */
    uint64_t depth = rng_below(&r, 4) + rng_below(&r, 4);
    for (uint64_t i = 0; i < depth; i++) {
        n = append(buf, lim, n, "/");
        n = append(buf, lim, n, words[rng_below(&r, sizeof words / sizeof words[0])]);
    }
    if (depth == 0)
        n = append(buf, lim, n, "/");
    /* A third of links carry a query string, some of them long. */
    if (rng_below(&r, 3) == 0) {
        uint64_t np = 1 + rng_below(&r, 3) + (rng_below(&r, 8) == 0 ? 6 : 0);
        for (uint64_t i = 0; i < np; i++) {
            char kv[64];
            snprintf(kv, sizeof kv, "%s%s=%llx", i ? "&" : "?",
                     params[rng_below(&r, sizeof params / sizeof params[0])],
                     (unsigned long long)(rng_next(&r) >> rng_below(&r, 60)));
            n = append(buf, lim, n, kv);
        }
    }
    if (rng_below(&r, 10) == 0)
        n = append(buf, lim, n, "#section-2");
    return n;
}
