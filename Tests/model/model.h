/*
 * model.h — a small executable model of runloop's single-thread semantics
 * (SPEC.md §3–5, Tests/c/CF_NOTES.md, include/runloop/runloop.h), used by
 * test_model.c to check the engine against random operation sequences.
 *
 * The model knows one loop with four concrete modes (MODE_DEFAULT .. MODE_C)
 * and the pseudo-mode MODE_COMMON; a fixed pool of sources, timers and
 * observers; queued blocks.  Runs are always RunInMode(mode, 0, rash): one
 * pass, no sleeping, so no real time matters.  Timers are either "due"
 * (fire date in the past: base - 1 + rank/1000 s, rank 0..2) or "not due"
 * (far future).  As in CF, a date in the past means "now" at the moment it
 * is set, so due timers fire in the order their dates were set, whatever
 * the dates.
 *
 * Rules encoded (each one is a sentence of the contract):
 *   - adding an item twice to a mode does nothing; a mode keeps items in
 *     the order they joined it;
 *   - kCommonModes: Add puts the item in the common items and in every
 *     common mode; AddCommonMode copies the common items (in the order
 *     they became common) into the new common mode; Remove(common) removes
 *     a common item from the common items and every common mode, and does
 *     nothing for an item that is not a common item;
 *   - invalidation removes an item from every mode and the common items;
 *     an invalid item cannot be added again;
 *   - a mode exists once an item joined it or a block was queued for it by
 *     name (AddCommonMode alone, Remove and Contains create none);
 *   - Run: mode = common, a mode that does not exist, or a mode with no valid sources, no timers and no
 *     queued block for it (observers alone don't count) -> Finished with no
 *     Entry/Exit; otherwise Entry, BeforeTimers, BeforeSources, blocks for
 *     the mode (queue order), signalled sources of the mode (by order, ties
 *     by first signal; only the first with returnAfterSourceHandled),
 *     due timers of the mode (in the order their past dates were set), Exit; result HandledSource if a source
 *     was performed and rash, else TimedOut;
 *   - observers of an activity run by order, ties in the order they joined
 *     the mode; a non-repeating observer is invalidated after its callout;
 *   - a one-shot timer is invalid after it fires; a repeating one becomes
 *     not due (its next slot is in the future);
 *   - a signal is kept on the source until it is performed (also while it
 *     is in no mode); signalling twice keeps the first signal's place.
 */
#ifndef RL_MODEL_H
#define RL_MODEL_H

#include <stdint.h>

enum { MODE_DEFAULT = 0, MODE_A, MODE_B, MODE_C, MODE_COMMON, N_MODES = 5, N_CONCRETE = 4 };
enum { KIND_SOURCE = 0, KIND_TIMER, KIND_OBSERVER, KIND_BLOCK, N_KINDS };
enum { POOL = 4, MAX_BLOCKS = 64, MAX_EVENTS = 256 };

/* Activity indexes (bit = ACT_BITS[i]). */
enum { ACT_ENTRY = 0, ACT_BEFORE_TIMERS, ACT_BEFORE_SOURCES, ACT_BEFORE_WAITING, ACT_AFTER_WAITING, ACT_EXIT, N_ACTS };
extern const unsigned long ACT_BITS[N_ACTS];

typedef struct {
    int valid;
    long order;
    int in[N_CONCRETE];          /* member of the concrete mode */
    uint64_t seq[N_CONCRETE];    /* when it joined / was pushed into the mode */
    int common;                  /* in the common items */
    uint64_t common_seq;
    /* sources */
    int signalled;
    uint64_t since;              /* first signal */
    /* timers */
    int repeats;                 /* timers and observers */
    int due;
    int rank;                    /* due: when its past date was set (model clock) */
    /* observers */
    unsigned long mask;
} model_item;

typedef struct { int id; int mode; } model_block;

/* An event: which callout ran.  kind, pool index (block id for blocks) and
 * the activity (observers). */
typedef struct { int kind; int index; int act; } model_event;

typedef struct {
    model_item items[3][POOL];   /* [KIND_SOURCE..KIND_OBSERVER][i] */
    int is_common[N_CONCRETE];
    int exists[N_CONCRETE];      /* made by Add and Perform (not AddCommonMode alone) */
    model_block blocks[MAX_BLOCKS];
    int n_blocks;
    uint64_t clock;              /* the sequence counter */
    model_event events[MAX_EVENTS];
    int n_events;
} model;

void model_init(model *m);
/* A fresh valid item in slot (kind, i) (after the old one was released). */
void model_create(model *m, int kind, int i, long order, int repeats, unsigned long mask);
void model_add(model *m, int kind, int i, int mode);
void model_remove(model *m, int kind, int i, int mode);
int model_contains(const model *m, int kind, int i, int mode);
void model_invalidate(model *m, int kind, int i);
void model_signal(model *m, int i);
/* rank < 0: a far-future date. */
void model_set_fire_date(model *m, int i, int rank);
void model_add_common_mode(model *m, int mode);
/* Returns 0 when the queue is full (the caller then skips the op). */
int model_perform(model *m, int id, int mode);
/* One RunInMode(mode, 0, rash): fills m->events, returns the result. */
int model_run(model *m, int mode, int rash);

#endif
