/* rl_glib — see rl_glib.h. */
#include "rl_glib.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- runloop driven by a GMainContext ------------------------------------ */

typedef struct {
    GSource base;
    RLRunLoopRef rl;
    char *mode;
    int fd;        /* the loop's poll descriptor the source waits on, -1: none */
    gpointer tag;  /* its g_source_add_unix_fd tag */
} RLGSource;

/* Follows the loop's poll descriptor: a new one after the caller closed the
 * old by mistake, none (-1) once the loop's thread has exited. */
static void rlg_follow(RLGSource *s)
{
    int fd = RLRunLoopGetPollDescriptor(s->rl);
    if (fd == s->fd) return;
    if (s->tag) g_source_remove_unix_fd(&s->base, s->tag);
    s->tag = fd >= 0 ? g_source_add_unix_fd(&s->base, fd, G_IO_IN) : NULL;
    s->fd = fd;
}

static gboolean rlg_prepare(GSource *base, gint *timeout)
{
    RLGSource *s = (RLGSource *)base;
    /* the timeout first: it notices a descriptor closed by mistake, which
     * rlg_follow then replaces */
    RLTimeInterval t = RLRunLoopGetTimeout(s->rl, s->mode);
    rlg_follow(s);
    *timeout = -1;
    if (s->fd < 0) return TRUE;  /* dispatch removes the source */
    if (t <= 0) return TRUE;
    if (!isinf(t)) *timeout = t * 1000 >= INT_MAX ? INT_MAX : (gint)ceil(t * 1000);
    return FALSE;
}

static gboolean rlg_check(GSource *base)
{
    RLGSource *s = (RLGSource *)base;
    if (s->fd < 0) return TRUE;
    if (s->tag && g_source_query_unix_fd(base, s->tag) != 0) return TRUE;
    /* no readiness: a timer's time may have come (GLib's timeout ended the poll) */
    return RLRunLoopGetTimeout(s->rl, s->mode) <= 0;
}

static gboolean rlg_dispatch(GSource *base, GSourceFunc callback, gpointer data)
{
    RLGSource *s = (RLGSource *)base;
    if (s->fd < 0) return G_SOURCE_REMOVE;  /* the loop's thread exited (reported) */
    if (RLRunLoopGetCurrent() != s->rl) {
        RLRunLoopRunPending(s->rl, s->mode);  /* reports kRLErrorWrongThread, runs nothing */
        return G_SOURCE_REMOVE;
    }
    RLRunLoopRunPending(s->rl, s->mode);
    return callback ? callback(data) : G_SOURCE_CONTINUE;
}

static void rlg_finalize(GSource *base)
{
    RLGSource *s = (RLGSource *)base;
    free(s->mode);
    RLRelease(s->rl);
}

static GSourceFuncs rlg_funcs = { rlg_prepare, rlg_check, rlg_dispatch, rlg_finalize, NULL, NULL };

GSource *rl_glib_source_new(RLRunLoopRef rl, RLRunLoopMode mode)
{
    if (!rl || !mode) return NULL;
    RLGSource *s = (RLGSource *)g_source_new(&rlg_funcs, sizeof(RLGSource));
    g_source_set_name(&s->base, "runloop");
    s->rl = (RLRunLoopRef)RLRetain(rl);
    s->mode = strdup(mode);
    s->fd = -1;
    s->tag = NULL;
    return &s->base;
}

/* ---- a GMainContext hosted on a runloop ---------------------------------- */

typedef struct {
    int fd;
    gushort events;
    RLFileDescriptorRef file;
    RLRunLoopSourceRef source;
} host_watch;

struct rl_glib_host {
    GMainContext *ctx;
    RLRunLoopRef rl;
    char *mode;
    RLRunLoopObserverRef observer;  /* BeforeWaiting: prepare for the sleep */
    RLRunLoopTimerRef timer;        /* GLib's timeout */
    RLRunLoopSourceRef kick;        /* GLib has something ready now */
    GPollFD *fds;
    gint nfds, cap, priority;
    gboolean prepared;  /* prepare + query done, check + dispatch due */
    int busy;           /* inside prepare / query / check: no re-entry */
    int depth;          /* cycles in progress (a GLib callback may run the loop) */
    gboolean freed;     /* rl_glib_host_free called during a cycle */
    host_watch *watches;
    int nwatches;
};

static void host_cycle(rl_glib_host *h);

static void host_unwatch(host_watch *w)
{
    RLFileDescriptorInvalidate(w->file);
    RLRelease(w->source);
    RLRelease(w->file);
}

static RLOptionFlags watch_callbacks(gushort events)
{
    RLOptionFlags f = 0;
    if (events & (G_IO_IN | G_IO_PRI | G_IO_HUP | G_IO_ERR)) f |= kRLFileDescriptorReadCallBack;
    if (events & G_IO_OUT) f |= kRLFileDescriptorWriteCallBack;
    return f;
}

static void host_fd_ready(RLFileDescriptorRef f, RLOptionFlags types, void *info) { host_cycle(info); }

/* Makes the loop watch exactly the descriptors GLib asked for, with their
 * events; re-enables the (one-shot) callbacks of those kept. */
static void host_sync_watches(rl_glib_host *h)
{
    for (int i = 0; i < h->nwatches;) {
        host_watch *w = &h->watches[i];
        gboolean keep = FALSE;
        for (int j = 0; j < h->nfds; j++)
            if (h->fds[j].fd == w->fd && h->fds[j].events == w->events) keep = TRUE;
        if (keep) { i++; continue; }
        host_unwatch(w);
        h->watches[i] = h->watches[--h->nwatches];
    }
    h->watches = realloc(h->watches, sizeof(host_watch) * (size_t)(h->nfds + 1));
    for (int j = 0; j < h->nfds; j++) {
        host_watch *found = NULL;
        for (int i = 0; i < h->nwatches; i++)
            if (h->watches[i].fd == h->fds[j].fd && h->watches[i].events == h->fds[j].events) found = &h->watches[i];
        if (!found) {
            RLFileDescriptorContext ctx = { 0, h, NULL, NULL, NULL };
            RLFileDescriptorRef file = RLFileDescriptorCreate(NULL, h->fds[j].fd, false, host_fd_ready, &ctx);
            if (!file) continue;  /* reported by runloop */
            found = &h->watches[h->nwatches++];
            found->fd = h->fds[j].fd;
            found->events = h->fds[j].events;
            found->file = file;
            found->source = RLFileDescriptorCreateRunLoopSource(NULL, file, 0);
            RLRunLoopAddSource(h->rl, found->source, h->mode);
        }
        RLFileDescriptorEnableCallBacks(found->file, watch_callbacks(found->events));
    }
}

/* One GLib iteration split around the runloop's sleep: check and dispatch
 * what the last prepare asked for, then prepare and query for the next
 * sleep, and turn GLib's descriptors and timeout into the loop's. */
static void host_cycle(rl_glib_host *h)
{
    if (h->busy || h->freed) return;
    h->depth++;
    if (h->prepared) {
        h->prepared = FALSE;
        g_poll(h->fds, (guint)h->nfds, 0);
        h->busy++;
        gboolean ready = g_main_context_check(h->ctx, h->priority, h->fds, h->nfds);
        h->busy--;
        if (ready) {
            g_main_context_dispatch(h->ctx);  /* may run the loop (nested) or free the host */
            if (!h->freed) RLRunLoopWakeUp(h->rl);  /* a pass looks at what the callbacks queued */
        }
    }
    if (!h->freed && !h->prepared) {
        h->busy++;
        gboolean ready = g_main_context_prepare(h->ctx, &h->priority);
        gint timeout = -1;
        for (;;) {
            h->nfds = g_main_context_query(h->ctx, h->priority, &timeout, h->fds, h->cap);
            if (h->nfds <= h->cap) break;
            h->cap = h->nfds;
            h->fds = realloc(h->fds, sizeof(GPollFD) * (size_t)h->cap);
        }
        h->busy--;
        h->prepared = TRUE;
        host_sync_watches(h);
        if (ready || timeout == 0) {
            RLRunLoopSourceSignal(h->kick);
            RLRunLoopWakeUp(h->rl);
        } else {
            RLRunLoopTimerSetNextFireDate(h->timer, timeout < 0 ? RLAbsoluteTimeGetCurrent() + 1e10
                                                                : RLAbsoluteTimeGetCurrent() + timeout / 1000.0);
        }
    }
    if (--h->depth == 0 && h->freed) free(h);
}

static void host_before_waiting(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { host_cycle(info); }
static void host_timer(RLRunLoopTimerRef t, void *info) { host_cycle(info); }
static void host_kick(void *info) { host_cycle(info); }

rl_glib_host *rl_glib_host_new(GMainContext *ctx, RLRunLoopRef rl, RLRunLoopMode mode)
{
    if (!ctx || !rl || !mode || RLRunLoopGetCurrent() != rl) return NULL;
    if (!g_main_context_acquire(ctx)) return NULL;
    rl_glib_host *h = calloc(1, sizeof *h);
    h->ctx = g_main_context_ref(ctx);
    h->rl = (RLRunLoopRef)RLRetain(rl);
    h->mode = strdup(mode);
    h->cap = 8;
    h->fds = malloc(sizeof(GPollFD) * (size_t)h->cap);
    RLRunLoopObserverContext octx = { 0, h, NULL, NULL, NULL };
    h->observer = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeWaiting, true, 0, host_before_waiting, &octx);
    RLRunLoopTimerContext tctx = { 0, h, NULL, NULL, NULL };
    h->timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 1e10, 1e10, 0, 0, host_timer, &tctx);
    RLRunLoopSourceContext sctx = { 0 };
    sctx.info = h;
    sctx.perform = host_kick;
    h->kick = RLRunLoopSourceCreate(NULL, 0, &sctx);
    RLRunLoopAddObserver(rl, h->observer, h->mode);
    RLRunLoopAddTimer(rl, h->timer, h->mode);
    RLRunLoopAddSource(rl, h->kick, h->mode);
    host_cycle(h);  /* first prepare: GLib's sources are known from now */
    return h;
}

void rl_glib_host_free(rl_glib_host *h)
{
    if (!h || h->freed) return;
    h->freed = TRUE;
    RLRunLoopObserverInvalidate(h->observer);
    RLRunLoopTimerInvalidate(h->timer);
    RLRunLoopSourceInvalidate(h->kick);
    RLRelease(h->observer);
    RLRelease(h->timer);
    RLRelease(h->kick);
    for (int i = 0; i < h->nwatches; i++) host_unwatch(&h->watches[i]);
    free(h->watches);
    free(h->fds);
    free(h->mode);
    g_main_context_release(h->ctx);
    g_main_context_unref(h->ctx);
    RLRelease(h->rl);
    if (h->depth == 0) free(h);
}
