#define _GNU_SOURCE 1  /* dup3 */
/* rl_glib — see rl_glib.h. */
#include "rl_glib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/epoll.h>
#include <unistd.h>
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
    /* the library refuses to prepare for the common modes (each prepare
     * and dispatch would report it, and GLib would call them at once again) */
    if (!rl || !mode || strcmp(mode, kRLRunLoopCommonModes) == 0) return NULL;
    RLGSource *s = (RLGSource *)g_source_new(&rlg_funcs, sizeof(RLGSource));
    g_source_set_name(&s->base, "runloop");
    s->rl = (RLRunLoopRef)RLRetain(rl);
    s->mode = strdup(mode);
    s->fd = -1;
    s->tag = NULL;
    return &s->base;
}

/* ---- a GMainContext hosted on a runloop ---------------------------------- */

/* GLib's descriptors are watched through one epoll set of the host's own,
 * which the loop watches with one version-1 source: GLib may close a
 * descriptor before the host hears of it (a callback destroys its source
 * and closes the descriptor), which epoll takes in its stride, whereas a
 * runloop source per descriptor would report each such close as misuse. */
typedef struct {
    int fd;
    uint32_t events;  /* epoll events wanted (union over GLib's entries) */
} host_reg;

struct rl_glib_host {
    GMainContext *ctx;
    RLRunLoopRef rl;
    char *mode;
    RLRunLoopObserverRef observer;  /* BeforeWaiting: prepare for the sleep */
    RLRunLoopTimerRef timer;        /* GLib's timeout */
    RLRunLoopSourceRef kick;        /* GLib has something ready now */
    RLRunLoopSourceRef watch;       /* version 1, on `epfd` */
    int epfd;                       /* GLib's descriptors */
    GPollFD *fds;
    gint nfds, cap, priority;
    gboolean prepared;  /* prepare + query done, check + dispatch due */
    int busy;           /* inside prepare / query / check: no re-entry */
    int depth;          /* cycles in progress (a GLib callback may run the loop) */
    gboolean freed;     /* rl_glib_host_free called during a cycle */
    gboolean always;    /* a descriptor epoll refuses (a regular file): always ready */
    host_reg *regs;
    int nregs;
};

static void host_cycle(rl_glib_host *h);

static uint32_t epoll_events(gushort events)
{
    uint32_t e = 0;
    if (events & G_IO_IN) e |= EPOLLIN;
    if (events & G_IO_OUT) e |= EPOLLOUT;
    if (events & G_IO_PRI) e |= EPOLLPRI;
    return e;  /* EPOLLHUP and EPOLLERR are always reported */
}

static int epoll_set(int epfd, int op, int fd, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.fd = fd };
    return epoll_ctl(epfd, op, fd, &ev);
}

/* A new set in the old one's number: the only way to drop a registration
 * whose descriptor was closed while its file stays open elsewhere. */
static void host_rebuild(rl_glib_host *h)
{
    int fresh = epoll_create1(EPOLL_CLOEXEC);
    if (fresh < 0) return;
    int kept = 0;
    for (int i = 0; i < h->nregs; i++)
        if (epoll_set(fresh, EPOLL_CTL_ADD, h->regs[i].fd, h->regs[i].events) == 0) h->regs[kept++] = h->regs[i];
    h->nregs = kept;
    if (dup3(fresh, h->epfd, O_CLOEXEC) < 0) { close(fresh); return; }
    close(fresh);
}

/* Makes `epfd` watch exactly GLib's descriptors (one registration per
 * descriptor, the union of its entries' events). */
static void host_sync_watches(rl_glib_host *h)
{
    gboolean rebuild = FALSE;
    h->always = FALSE;
    for (int i = 0; i < h->nregs;) {
        uint32_t wanted = 0;
        gboolean found = FALSE;
        for (int j = 0; j < h->nfds; j++)
            if (h->fds[j].fd == h->regs[i].fd) { found = TRUE; wanted |= epoll_events(h->fds[j].events); }
        if (found && wanted == h->regs[i].events) { i++; continue; }
        int rc = found ? epoll_set(h->epfd, EPOLL_CTL_MOD, h->regs[i].fd, wanted)
                       : epoll_set(h->epfd, EPOLL_CTL_DEL, h->regs[i].fd, 0);
        if (rc != 0 && (errno == EBADF || errno == ENOENT)) rebuild = TRUE;  /* closed under us */
        if (found && rc == 0) { h->regs[i].events = wanted; i++; continue; }
        h->regs[i] = h->regs[--h->nregs];
    }
    h->regs = realloc(h->regs, sizeof(host_reg) * (size_t)(h->nregs + h->nfds + 1));
    for (int j = 0; j < h->nfds; j++) {
        int fd = h->fds[j].fd, known = 0;
        for (int i = 0; i < h->nregs; i++) known |= h->regs[i].fd == fd;
        if (known) continue;
        uint32_t wanted = 0;
        for (int k = j; k < h->nfds; k++)
            if (h->fds[k].fd == fd) wanted |= epoll_events(h->fds[k].events);
        if (epoll_set(h->epfd, EPOLL_CTL_ADD, fd, wanted) == 0) {
            h->regs[h->nregs++] = (host_reg){ fd, wanted };
        } else if (errno == EPERM) {
            h->always = TRUE;  /* as poll(2) reports such a file: ready */
        }
    }
    if (rebuild) host_rebuild(h);
}

static int host_get_port(void *info) { return ((rl_glib_host *)info)->epfd; }

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
        if (ready || timeout == 0 || h->always) {
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
static void host_ready(void *info) { host_cycle(info); }

rl_glib_host *rl_glib_host_new(GMainContext *ctx, RLRunLoopRef rl, RLRunLoopMode mode)
{
    if (!ctx || !rl || !mode || RLRunLoopGetCurrent() != rl) return NULL;
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) return NULL;
    if (!g_main_context_acquire(ctx)) {
        close(epfd);
        return NULL;
    }
    rl_glib_host *h = calloc(1, sizeof *h);
    h->epfd = epfd;
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
    RLRunLoopSourceContext1 wctx = { 0 };
    wctx.version = 1;
    wctx.info = h;
    wctx.getPort = host_get_port;
    wctx.perform = host_ready;
    h->watch = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&wctx);
    RLRunLoopAddObserver(rl, h->observer, h->mode);
    RLRunLoopAddTimer(rl, h->timer, h->mode);
    RLRunLoopAddSource(rl, h->kick, h->mode);
    RLRunLoopAddSource(rl, h->watch, h->mode);
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
    RLRunLoopSourceInvalidate(h->watch);  /* before its descriptor is closed */
    RLRelease(h->observer);
    RLRelease(h->timer);
    RLRelease(h->kick);
    RLRelease(h->watch);
    close(h->epfd);
    free(h->regs);
    free(h->fds);
    free(h->mode);
    g_main_context_release(h->ctx);
    g_main_context_unref(h->ctx);
    RLRelease(h->rl);
    if (h->depth == 0) free(h);
}
