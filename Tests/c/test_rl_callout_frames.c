/*
 * test_rl_callout_frames — a backtrace taken inside a callout names the
 * kind of callout, as CF's __CFRUNLOOP_IS_CALLING_OUT_TO_… frames do
 * (runloop-only; trace written for runloop): each callback of a pass —
 * observer, timer, version-0 source, version-1 source (descriptor),
 * performed function — finds among its callers the library's trampoline
 * for its kind (Loop.callOutToObserver, …Timer, …Source, …Descriptor,
 * …Block, Sources/RunLoopCore/Loop/Callouts.swift), and no other.
 *
 * The library exports RL* symbols only, so dladdr() cannot name a frame
 * inside it: the test reads the trampolines' address ranges from the
 * library file's own symbol table (.symtab) and compares backtrace()'s
 * return addresses with them.  A stripped library has no .symtab: the
 * test is then skipped (exit 77).
 */
#include "harness.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_callout_frames tests runloop's own call frames"
#endif

enum { OBSERVER, TIMER, SOURCE, DESCRIPTOR, BLOCK, KINDS };
static const char *const trampoline[KINDS] = {
    "callOutToObserver", "callOutToTimer", "callOutToSource", "callOutToDescriptor", "callOutToBlock",
};

/* Where each trampoline is in memory (the symbols whose names contain
 * its name: the function and any code outlined from it). */
#define MAX_RANGES 8
static struct { uintptr_t lo, hi; } ranges[KINDS][MAX_RANGES];
static int range_count[KINDS];

/* Reads the ranges from the symbol table of the file that holds `fn`.
 * Returns 0 when the file has no symbol table. */
static int find_trampolines(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !info.dli_fbase) {
        fprintf(stderr, "dladdr failed\n");
        exit(1);
    }
    int fd = open(info.dli_fname, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(info.dli_fname);
        exit(1);
    }
    const unsigned char *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
    int found = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        found = 1;
        const Elf64_Sym *syms = (const Elf64_Sym *)(file + sh[i].sh_offset);
        const char *names = (const char *)(file + sh[sh[i].sh_link].sh_offset);
        size_t count = sh[i].sh_size / sizeof *syms;
        for (size_t s = 0; s < count; s++) {
            if (ELF64_ST_TYPE(syms[s].st_info) != STT_FUNC || syms[s].st_size == 0) continue;
            for (int k = 0; k < KINDS; k++) {
                if (!strstr(names + syms[s].st_name, trampoline[k]) || range_count[k] == MAX_RANGES) continue;
                uintptr_t lo = (uintptr_t)info.dli_fbase + syms[s].st_value;
                ranges[k][range_count[k]].lo = lo;
                ranges[k][range_count[k]].hi = lo + syms[s].st_size;
                range_count[k]++;
            }
        }
    }
    munmap((void *)file, (size_t)st.st_size);
    return found;
}

/* Which trampolines the current call stack passes through (a bit each). */
static unsigned seen[KINDS];

static void note_frames(int kind)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    for (int f = 1; f < n; f++) {
        uintptr_t at = (uintptr_t)frames[f] - 1;  /* inside the call instruction */
        for (int k = 0; k < KINDS; k++)
            for (int r = 0; r < range_count[k]; r++)
                if (at >= ranges[k][r].lo && at < ranges[k][r].hi) seen[kind] |= 1u << k;
    }
}

static void observer_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o, (void)a, (void)info;
    note_frames(OBSERVER);
}

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    (void)t, (void)info;
    note_frames(TIMER);
}

static void source_cb(void *info)
{
    (void)info;
    note_frames(SOURCE);
}

static int fds[2];

static int descriptor_port(void *info)
{
    (void)info;
    return fds[0];
}

static void descriptor_cb(void *info)
{
    (void)info;
    char c;
    if (read(fds[0], &c, 1) == 1) note_frames(DESCRIPTOR);
    RLRunLoopStop(RLRunLoopGetCurrent());  /* the pass's last callout */
}

static void block_fn(void *info)
{
    (void)info;
    note_frames(BLOCK);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopMode mode = kRLRunLoopDefaultMode;

    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopEntry, 0, 0, observer_cb, NULL);
    RLRunLoopAddObserver(rl, obs, mode);
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent(), 0, 0, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, timer, mode);
    RLRunLoopSourceContext c0 = { .perform = source_cb };
    RLRunLoopSourceRef v0 = RLRunLoopSourceCreate(NULL, 0, &c0);
    RLRunLoopAddSource(rl, v0, mode);
    RLRunLoopSourceSignal(v0);
    CHECK(pipe(fds) == 0);
    RLRunLoopSourceContext1 c1 = { .version = 1, .getPort = descriptor_port, .perform = descriptor_cb };
    RLRunLoopSourceRef v1 = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&c1);
    RLRunLoopAddSource(rl, v1, mode);
    CHECK(write(fds[1], "x", 1) == 1);
    RLRunLoopPerformFunction(rl, mode, block_fn, NULL);

    /* Each callout once, in the first pass: Entry, the block, the
     * signalled source, then (polling, since a source was handled) the
     * due timer and the ready descriptor, which stops the run. */
    RLRunLoopRunInMode(mode, 1.0, 0);

    static const char *const kind_name[KINDS] = { "observer", "timer", "source", "descriptor", "block" };
    for (int k = 0; k < KINDS; k++) {
        const char *through = "nothing";
        for (int t = 0; t < KINDS; t++)
            if (seen[k] == 1u << t) through = trampoline[t];
        if (seen[k] != 0 && (seen[k] & (seen[k] - 1)) != 0) through = "several trampolines";
        TRACE("%s callout: called through %s", kind_name[k], through);
    }

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLRunLoopTimerInvalidate(timer);
    RLRelease(timer);
    RLRunLoopSourceInvalidate(v0);
    RLRelease(v0);
    RLRunLoopSourceInvalidate(v1);
    RLRelease(v1);
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    if (!find_trampolines((void *)&RLRunLoopGetCurrent)) {
        printf("skipped: the library has no symbol table (stripped)\n");
        return 77;
    }
    for (int k = 0; k < KINDS; k++) {
        if (range_count[k] == 0) TRACE("no symbol names %s", trampoline[k]);
    }
    run_on_thread(scenario);
    return trace_check("rl_callout_frames") | harness_failures;
}
