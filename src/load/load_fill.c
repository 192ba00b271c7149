/* load_fill: what a connection sends next (see load_fill.h): the
 * scenario's choice of each request, --rate's send times, the ring filled
 * up to --pipeline requests, and the staged request whose time has come. */
#include "load/load_fill.h"

/* Ask the scenario for the VU's next request, built in r; its kind, or
 * LOAD_NEXT_DONE when the VU is done (the run is interrupted or over, or
 * the scenario says so), or LOAD_NEXT_WAIT. */
static int vu_choose(struct load_vu *v, struct load_req *r, uint64_t now)
{
    const struct load_shared *s = v->w->s;
    if (load_interrupted || (s->o->duration > 0 && now >= s->t_end_ns))
        return LOAD_NEXT_DONE;
    return v->w->ops->next(v->sc, now, r->buf, sizeof(r->buf), &r->len);
}

/* Add one request to the ring's tail, with its send time; its kind, or
 * LOAD_NEXT_WAIT or LOAD_NEXT_DONE (nothing added). */
static int vu_add(struct load_vu *v, uint64_t now)
{
    struct load_shared *s = v->w->s;
    const struct load_opts *o = s->o;
    uint64_t t = 0;
    if (o->rate > 0) {
        double slot = (double)v->index + (double)v->nsent * (double)o->connections;
        t = s->t_start + (uint64_t)(slot * 1e9 / o->rate);
    }
    struct load_req *r = load_vu_req(v, v->qn);
    int kind = o->rate > 0 && o->duration > 0 && t >= s->t_end_ns ? LOAD_NEXT_DONE
                                                                   : vu_choose(v, r, now);
    if (kind < 0)
        return kind;
    r->kind = kind;
    r->retried = 0;
    r->t_sched = t;
    /* Stamped again by vu_send when it goes; this stamp is for a request
     * that vu_write sends without vu_send (added while the VU is WRITING
     * or CONNECTING, pipelining). */
    r->t_sent = now;
    r->deadline = now + v->w->timeout_ns;
    v->nsent++;
    v->qn++;
    if (t > now) {
        v->staged = 1;
        if (t < v->w->next_wake)
            v->w->next_wake = t;
    }
    return kind;
}

/* Fill the VU's ring up to --pipeline requests (the scenario willing; with
 * --rate, up to the first one not due yet), and have what is to write
 * sent at the end of the loop turn; now: a recent clock reading. */
void load_vu_fill(struct load_vu *v, uint64_t now)
{
    struct load_worker *w = v->w;
    while (v->qn < v->qcap && !v->staged && !v->no_more) {
        int kind = vu_add(v, now);
        if (kind >= 0 && v->qcap > 1)
            continue;
        if (kind >= 0) {
            /* Depth 1: the ring was empty, its one request is to write
             * unless staged; the tests below, done straight. */
            if (!v->staged && ((1u << v->st) & LOAD_VU_SENDABLE))
                load_pend_push(w, v);
            else if (v->staged && v->st == LOAD_VU_IDLE)
                v->st = LOAD_VU_WAITING;
            return;
        }
        if (kind == LOAD_NEXT_WAIT && v->qn > 0)
            break;
        v->no_more = 1;   /* DONE, or WAIT with nothing to wait for */
    }
    if (v->no_more && v->qn == 0) {
        v->st = LOAD_VU_DONE;
        w->active--;
        load_vu_close(v);
        return;
    }
    if (v->qn - v->staged > v->qsent && ((1u << v->st) & LOAD_VU_SENDABLE))
        load_pend_push(w, v);
    else if (v->staged && v->st == LOAD_VU_IDLE)
        v->st = LOAD_VU_WAITING;
}

/* A staged request's time has come: on the pending list (dropped when the
 * run was interrupted); else the worker wakes for it. */
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
