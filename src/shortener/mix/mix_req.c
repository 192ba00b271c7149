/* mix_req: the mix's pure decisions and its requests' bytes (see mix.h). */
#include "shortener/mix/mix.h"

#include <stdio.h>
#include <string.h>

int mix_task_step(int64_t step, int64_t gets)
{
    if (step == 0)
        return MIX_POST;
    if (step >= 1 && step <= gets)
        return MIX_GET;
    return -1;
}

enum mix_req mix_pick(double create_ratio, int have_ids, rng_t *r)
{
    if (!have_ids || create_ratio >= 1.0)
        return MIX_POST;
    if (create_ratio <= 0.0)
        return MIX_GET;
    return rng_double(r) < create_ratio ? MIX_POST : MIX_GET;
}

int64_t mix_walk_key(int64_t i, int64_t passes, size_t n)
{
    if (i < 0 || n == 0 || i / (int64_t)n >= passes)
        return -1;
    return i % (int64_t)n;
}

size_t mix_make_url(char *buf, size_t cap, rng_t *r, uint64_t vu, uint64_t seq)
{
    static const char alnum[] =
        "abcdefghijklmnopqrstuvwxyz0123456789";
    static const char *const hosts[] = {
        "example.com", "www.example.org", "docs.example.net", "shop.example.com",
    };
    if (cap < 256)
        return 0;
    /* Lengths spread like real links: mostly short, some long. */
    size_t target = 30 + (size_t)rng_below(r, 60);
    if (rng_below(r, 4) == 0)
        target += (size_t)rng_below(r, 110);
    int n = snprintf(buf, cap, "https://%s/kvtest/%llu/%llu/",
                     hosts[rng_below(r, 4)], (unsigned long long)vu,
                     (unsigned long long)seq);
    size_t len = (size_t)n;
    while (len < target && len + 1 < cap) {
        buf[len] = (len % 12 == 0) ? '/' : alnum[rng_below(r, sizeof(alnum) - 1)];
        len++;
    }
    buf[len] = '\0';
    return len;
}

void mix_reqfmt_init(struct mix_reqfmt *f, const struct load_url *u)
{
    int n = snprintf(f->get_pre, sizeof(f->get_pre), "GET %s/link/", u->path);
    f->get_pre_len = (size_t)n;
    n = snprintf(f->tail, sizeof(f->tail), " HTTP/1.1\r\nHost: %s\r\n\r\n", u->hostport);
    f->tail_len = (size_t)n;
    n = snprintf(f->post_pre, sizeof(f->post_pre),
                 "POST %s/link HTTP/1.1\r\nHost: %s\r\n"
                 "Content-Type: application/json\r\nContent-Length: ",
                 u->path, u->hostport);
    f->post_pre_len = (size_t)n;
}

size_t mix_reqfmt_get(const struct mix_reqfmt *f, char *buf, size_t cap, const char *id)
{
    size_t idlen = strlen(id);
    size_t len = f->get_pre_len + idlen + f->tail_len;
    if (len > cap)
        return 0;
    char *p = buf;
    memcpy(p, f->get_pre, f->get_pre_len);
    p += f->get_pre_len;
    memcpy(p, id, idlen);
    p += idlen;
    memcpy(p, f->tail, f->tail_len);
    return len;
}

size_t mix_reqfmt_post(const struct mix_reqfmt *f, char *buf, size_t cap, const char *url)
{
    static const char open[] = "{\"url\": \"", close[] = "\"}";
    size_t ulen = strlen(url);
    size_t blen = sizeof(open) - 1 + ulen + sizeof(close) - 1;
    char num[24];
    int nlen = snprintf(num, sizeof(num), "%zu\r\n\r\n", blen);
    size_t len = f->post_pre_len + (size_t)nlen + blen;
    if (len > cap)
        return 0;
    char *p = buf;
    memcpy(p, f->post_pre, f->post_pre_len);
    p += f->post_pre_len;
    memcpy(p, num, (size_t)nlen);
    p += nlen;
    memcpy(p, open, sizeof(open) - 1);
    p += sizeof(open) - 1;
    memcpy(p, url, ulen);
    p += ulen;
    memcpy(p, close, sizeof(close) - 1);
    return len;
}
