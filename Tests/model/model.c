/*
 * model.c — the executable model of model.h (plain C, no runloop calls).
 */
#include "model.h"

#include <string.h>

const unsigned long ACT_BITS[N_ACTS] = {1UL << 0, 1UL << 1, 1UL << 2, 1UL << 5, 1UL << 6, 1UL << 7};

/* Run results (runloop.h's values). */
enum { R_FINISHED = 1, R_TIMED_OUT = 3, R_HANDLED_SOURCE = 4 };

void model_init(model *m)
{
    memset(m, 0, sizeof *m);
    m->is_common[MODE_DEFAULT] = 1;
    m->exists[MODE_DEFAULT] = 1;
}

void model_create(model *m, int kind, int i, long order, int repeats, unsigned long mask)
{
    model_item *it = &m->items[kind][i];
    memset(it, 0, sizeof *it);
    it->valid = 1;
    it->order = order;
    it->repeats = repeats;
    it->mask = mask;
}

static void join(model *m, model_item *it, int mode)
{
    if (it->in[mode]) return;
    m->exists[mode] = 1;
    it->in[mode] = 1;
    it->seq[mode] = ++m->clock;
}

void model_add(model *m, int kind, int i, int mode)
{
    model_item *it = &m->items[kind][i];
    if (!it->valid) return;
    if (mode != MODE_COMMON) {
        join(m, it, mode);
        return;
    }
    if (it->common) return;
    it->common = 1;
    it->common_seq = ++m->clock;
    for (int c = 0; c < N_CONCRETE; c++)
        if (m->is_common[c]) join(m, it, c);
}

void model_remove(model *m, int kind, int i, int mode)
{
    model_item *it = &m->items[kind][i];
    if (mode != MODE_COMMON) {
        it->in[mode] = 0;
        return;
    }
    if (!it->common) return;
    it->common = 0;
    for (int c = 0; c < N_CONCRETE; c++)
        if (m->is_common[c]) it->in[c] = 0;
}

int model_contains(const model *m, int kind, int i, int mode)
{
    const model_item *it = &m->items[kind][i];
    return mode == MODE_COMMON ? it->common : it->in[mode];
}

void model_invalidate(model *m, int kind, int i)
{
    model_item *it = &m->items[kind][i];
    it->valid = 0;
    it->common = 0;
    it->signalled = 0;
    for (int c = 0; c < N_CONCRETE; c++) it->in[c] = 0;
}

void model_signal(model *m, int i)
{
    model_item *s = &m->items[KIND_SOURCE][i];
    if (!s->valid || s->signalled) return;
    s->signalled = 1;
    s->since = ++m->clock;
}

void model_set_fire_date(model *m, int i, int rank)
{
    model_item *t = &m->items[KIND_TIMER][i];
    if (!t->valid) return;
    t->due = rank >= 0;
    /* A past date counts from the moment it is set (CF): the order of the
     * sets, not of the dates, decides the firing order. */
    t->rank = rank >= 0 ? (int)++m->clock : rank;
    /* the loop re-pushes the timer into each of its modes */
    for (int c = 0; c < N_CONCRETE; c++)
        if (t->in[c]) t->seq[c] = ++m->clock;
}

void model_add_common_mode(model *m, int mode)
{
    if (mode == MODE_COMMON || m->is_common[mode]) return;
    m->is_common[mode] = 1;
    /* copy the common items in the order they became common */
    for (;;) {
        model_item *next = NULL;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < POOL; i++) {
                model_item *it = &m->items[k][i];
                if (it->valid && it->common && !it->in[mode] && (!next || it->common_seq < next->common_seq)) next = it;
            }
        if (!next) break;
        join(m, next, mode);
    }
}

int model_perform(model *m, int id, int mode)
{
    if (m->n_blocks == MAX_BLOCKS) return 0;
    if (mode != MODE_COMMON) m->exists[mode] = 1;
    m->blocks[m->n_blocks].id = id;
    m->blocks[m->n_blocks].mode = mode;
    m->n_blocks++;
    return 1;
}

static int block_matches(const model *m, const model_block *b, int mode)
{
    return b->mode == mode || (b->mode == MODE_COMMON && m->is_common[mode]);
}

static void emit(model *m, int kind, int index, int act)
{
    if (m->n_events == MAX_EVENTS) return;
    m->events[m->n_events].kind = kind;
    m->events[m->n_events].index = index;
    m->events[m->n_events].act = act;
    m->n_events++;
}

static void notify(model *m, int mode, int act)
{
    int done[POOL] = {0};
    for (;;) {
        int best = -1;
        for (int i = 0; i < POOL; i++) {
            model_item *o = &m->items[KIND_OBSERVER][i];
            if (done[i] || !o->valid || !o->in[mode] || !(o->mask & ACT_BITS[act])) continue;
            model_item *b = best < 0 ? NULL : &m->items[KIND_OBSERVER][best];
            if (!b || o->order < b->order || (o->order == b->order && o->seq[mode] < b->seq[mode])) best = i;
        }
        if (best < 0) return;
        done[best] = 1;
        emit(m, KIND_OBSERVER, best, act);
        if (!m->items[KIND_OBSERVER][best].repeats) model_invalidate(m, KIND_OBSERVER, best);
    }
}

static void run_blocks(model *m, int mode)
{
    int kept = 0;
    for (int b = 0; b < m->n_blocks; b++) {
        if (block_matches(m, &m->blocks[b], mode)) emit(m, KIND_BLOCK, m->blocks[b].id, -1);
        else m->blocks[kept++] = m->blocks[b];
    }
    m->n_blocks = kept;
}

static int has_work(const model *m, int mode)
{
    for (int k = KIND_SOURCE; k <= KIND_TIMER; k++)
        for (int i = 0; i < POOL; i++)
            if (m->items[k][i].valid && m->items[k][i].in[mode]) return 1;
    for (int b = 0; b < m->n_blocks; b++)
        if (block_matches(m, &m->blocks[b], mode)) return 1;
    return 0;
}

/* Performs the signalled sources of the mode (all, or the first with rash). */
static int perform_sources(model *m, int mode, int rash)
{
    int handled = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < POOL; i++) {
            model_item *s = &m->items[KIND_SOURCE][i];
            if (!s->valid || !s->signalled || !s->in[mode]) continue;
            model_item *b = best < 0 ? NULL : &m->items[KIND_SOURCE][best];
            if (!b || s->order < b->order || (s->order == b->order && s->since < b->since)) best = i;
        }
        if (best < 0 || (handled && rash)) return handled;
        m->items[KIND_SOURCE][best].signalled = 0;
        emit(m, KIND_SOURCE, best, -1);
        handled = 1;
    }
}

static void fire_timers(model *m, int mode)
{
    int done[POOL] = {0};
    for (;;) {
        int best = -1;
        for (int i = 0; i < POOL; i++) {
            model_item *t = &m->items[KIND_TIMER][i];
            if (done[i] || !t->valid || !t->due || !t->in[mode]) continue;
            model_item *b = best < 0 ? NULL : &m->items[KIND_TIMER][best];
            if (!b || t->rank < b->rank || (t->rank == b->rank && t->seq[mode] < b->seq[mode])) best = i;
        }
        if (best < 0) return;
        done[best] = 1;
        emit(m, KIND_TIMER, best, -1);
        model_item *t = &m->items[KIND_TIMER][best];
        if (t->repeats) {
            t->due = 0;  /* next slot of its grid: far ahead */
            for (int c = 0; c < N_CONCRETE; c++)
                if (t->in[c]) t->seq[c] = ++m->clock;
        } else {
            model_invalidate(m, KIND_TIMER, best);
        }
    }
}

int model_run(model *m, int mode, int rash)
{
    m->n_events = 0;
    if (mode == MODE_COMMON || !m->exists[mode] || !has_work(m, mode)) return R_FINISHED;
    notify(m, mode, ACT_ENTRY);
    notify(m, mode, ACT_BEFORE_TIMERS);
    notify(m, mode, ACT_BEFORE_SOURCES);
    run_blocks(m, mode);
    int handled = perform_sources(m, mode, rash);
    fire_timers(m, mode);
    int result = handled && rash ? R_HANDLED_SOURCE : R_TIMED_OUT;
    notify(m, mode, ACT_EXIT);
    return result;
}
