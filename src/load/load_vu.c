/* load_vu: a connection's socket below the engine's state machine
 * (load_conn.c): the write side of its FIFO ring of requests (several in
 * one call when pipelining), output interest on and off, closing. */
#include "load/load_vu.h"

#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "load/load_h2.h"
#include "load/load_tls.h"

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

/* https: the requests to write gathered into one buffer (one TLS record
 * rather than one per request), from the first one's v->off; what fits. */
static ssize_t tls_send_some(struct load_vu *v, int nw)
{
    char *b = v->w->wbuf;
    size_t n = 0;
    for (int k = 0; k < nw && n < LOAD_WBUF; k++) {
        const struct load_req *r = load_vu_req(v, v->qsent + k);
        size_t o = k == 0 ? v->off : 0, len = r->len - o;
        if (len > LOAD_WBUF - n)
            len = LOAD_WBUF - n;
        memcpy(b + n, r->buf + o, len);
        n += len;
    }
    return load_tls_send(v, b, n);
}

/* Write the requests to write, several in one call when pipelining. */
ssize_t load_vu_send_some(struct load_vu *v, int nw)
{
    if (v->ssl)
        return tls_send_some(v, nw);
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
    load_h2_close(v);
    load_tls_close(v);
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
