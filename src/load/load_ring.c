/* load_ring: a connection's FIFO ring of requests (see load_conn.h): the
 * write side (several requests in one call when pipelining), the failure
 * notes, --rate's staged requests and the connection's small helpers,
 * apart from the event loop in load_conn.c. */
#include "load/load_conn.h"

#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "measure/clock.h"

void load_note_error(struct load_worker *w, const struct load_req *r, enum load_fail f,
                       const char *why)
{
    if (w->c.nerr >= LOAD_NERR_KEEP)
        return;
    /* The target, rebuilt from the request line: "METHOD PATH HTTP/1.1". */
    const char *p = memchr(r->buf, ' ', r->len);
    const char *e = p ? memchr(p + 1, ' ', r->len - (size_t)(p + 1 - r->buf)) : NULL;
    int plen = p && e ? (int)(e - p - 1) : 0;
    struct load_err *er = &w->c.err[w->c.nerr++];
    er->t = clock_now_ns();
    snprintf(er->msg, sizeof(er->msg), "%s http://%s%.*s: %s: %s", w->s->sc->kinds[r->kind],
             w->s->o->url->hostport, plen, p ? p + 1 : "", load_fail_name(f), why);
}

/* n more bytes written: whole requests move into flight. */
void load_vu_wrote(struct load_vu *v, size_t n)
{
    while (n > 0) {
        size_t left = load_vu_req(v, v->qsent)->len - v->off;
        if (n < left) {
            v->off += n;
            return;
        }
        n -= left;
        v->off = 0;
        v->qsent++;
    }
}

/* Write the requests to write, several in one call when pipelining. */
ssize_t load_vu_send_some(struct load_vu *v, int nw)
{
    const struct load_req *r;
    struct iovec iov[64];
    int k = 0;
    for (; k < nw && k < 64; k++) {
        r = load_vu_req(v, v->qsent + k);
        size_t o = k == 0 ? v->off : 0;
        iov[k].iov_base = (char *)r->buf + o;
        iov[k].iov_len = r->len - o;
    }
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_iov = iov;
    m.msg_iovlen = (size_t)k;
    return sendmsg(v->fd, &m, MSG_NOSIGNAL);
}

void load_vu_close(struct load_vu *v)
{
    if (v->fd >= 0)
        close(v->fd);   /* also leaves the epoll set: nothing dup()s it */
    v->fd = -1;
    v->out_armed = 0;
    v->reused = 0;
}

void load_vu_arm_out(struct load_vu *v, int on)
{
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
    ev.data.ptr = v;
    epoll_ctl(v->w->ep, EPOLL_CTL_MOD, v->fd, &ev);
    v->out_armed = on;
}

void load_scan_staged(struct load_worker *w, struct load_vu *v, uint64_t now)
{
    uint64_t t = load_vu_req(v, v->qn - 1)->t_sched;
    if (load_interrupted) {
        v->staged = 0;
        v->no_more = 1;
        v->qn--;
        if (v->qn == 0) {
            v->st = LOAD_VU_DONE;
            w->active--;
            load_vu_close(v);
        } else if (v->st == LOAD_VU_WAITING) {
            v->st = LOAD_VU_READING;
        }
    } else if (t <= now) {
        v->staged = 0;
        if ((1u << v->st) & LOAD_VU_SENDABLE)
            load_pend_push(w, v);
    } else if (t < w->next_wake) {
        w->next_wake = t;
    }
}
