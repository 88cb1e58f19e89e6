/* rl_uv — see rl_uv.h. */
#include "rl_uv.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rl_uv {
    uv_poll_t *poll;  /* on `fd`; re-made when the descriptor changes */
    uv_prepare_t prepare;
    uv_timer_t timer;
    RLRunLoopRef rl;
    char *mode;
    int fd;          /* the descriptor `poll` watches, -1: none */
    int running;     /* inside RLRunLoopRunPending: no re-entry */
    int stopped;
    int gave_up;     /* wrong thread or the loop gone: watches nothing more */
    int open;        /* handles not closed yet */
    unsigned long runs;
};

static void on_closed(uv_handle_t *h);

/* Closes the poll handle (freed in its close callback). */
static void drop_poll(rl_uv *a)
{
    if (!a->poll) return;
    uv_close((uv_handle_t *)a->poll, on_closed);
    a->poll = NULL;
    a->fd = -1;
}

static void rl_uv_run(rl_uv *a)
{
    if (a->running || a->stopped || a->fd < 0) return;
    a->running = 1;
    RLRunLoopRunResult r = RLRunLoopRunPending(a->rl, a->mode);
    a->running = 0;
    a->runs++;
    /* kRLErrorLoopGone or kRLErrorWrongThread (reported): stop watching a
     * descriptor that stays readable */
    if (r == kRLRunLoopRunFinished && !a->stopped
        && (RLRunLoopGetCurrent() != a->rl || RLRunLoopGetPollDescriptor(a->rl) < 0)) {
        drop_poll(a);
        uv_timer_stop(&a->timer);
        a->gave_up = 1;
    }
}

static void on_poll(uv_poll_t *h, int status, int events) { rl_uv_run(h->data); }

static void on_closed(uv_handle_t *h);
static void on_timer(uv_timer_t *h) { rl_uv_run(h->data); }

/* Before libuv polls: follow the descriptor, arm the timer with the timeout. */
static void on_prepare(uv_prepare_t *h)
{
    rl_uv *a = h->data;
    if (a->stopped || a->running || a->gave_up) return;
    /* the timeout first: it notices a descriptor closed by mistake, and
     * RLRunLoopGetPollDescriptor then gives the new one */
    RLTimeInterval t = RLRunLoopGetTimeout(a->rl, a->mode);
    int fd = RLRunLoopGetPollDescriptor(a->rl);
    if (fd < 0) {
        drop_poll(a);
        uv_timer_stop(&a->timer);
        a->gave_up = 1;
        return;
    }
    if (fd != a->fd) {
        /* first prepare, or a new descriptor (the old one was closed by
         * mistake): a uv_poll_t watches one descriptor for life */
        drop_poll(a);
        a->poll = malloc(sizeof *a->poll);
        uv_poll_init(a->prepare.loop, a->poll, fd);
        a->poll->data = a;
        a->open++;
        uv_poll_start(a->poll, UV_READABLE, on_poll);
        a->fd = fd;
    }
    if (isinf(t)) {
        uv_timer_stop(&a->timer);
    } else {
        double ms = ceil(t * 1000);
        uv_timer_start(&a->timer, on_timer, ms >= (double)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)ms, 0);
    }
}

rl_uv *rl_uv_start(uv_loop_t *uv, RLRunLoopRef rl, RLRunLoopMode mode)
{
    /* the library refuses to prepare for the common modes (each prepare
     * and run would report it, and the zero timeout would spin libuv) */
    if (!uv || !rl || !mode || strcmp(mode, kRLRunLoopCommonModes) == 0 || RLRunLoopGetCurrent() != rl) return NULL;
    int fd = RLRunLoopGetPollDescriptor(rl);
    if (fd < 0) return NULL;
    rl_uv *a = calloc(1, sizeof *a);
    a->rl = (RLRunLoopRef)RLRetain(rl);
    a->mode = strdup(mode);
    a->fd = -1;
    uv_prepare_init(uv, &a->prepare);
    uv_timer_init(uv, &a->timer);
    a->prepare.data = a->timer.data = a;
    a->open = 2;
    uv_prepare_start(&a->prepare, on_prepare);
    /* the poll handle is made by the first prepare */
    return a;
}

static void on_closed(uv_handle_t *h)
{
    rl_uv *a = h->data;
    if (h->type == UV_POLL) free(h);
    if (--a->open > 0) return;
    RLRelease(a->rl);
    free(a->mode);
    free(a);
}

void rl_uv_stop(rl_uv *a)
{
    if (!a || a->stopped) return;
    a->stopped = 1;
    drop_poll(a);
    uv_close((uv_handle_t *)&a->prepare, on_closed);
    uv_close((uv_handle_t *)&a->timer, on_closed);
}

unsigned long rl_uv_runs(const rl_uv *a) { return a ? a->runs : 0; }
