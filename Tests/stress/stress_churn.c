/*
 * stress_churn — thread churn: 10,000 threads (4 at a time) each create
 * their loop, schedule a timer, a source and an observer (the items keep
 * only the loop's references), run one pass, and exit with the items still
 * scheduled.  Memory must stay flat:
 *   - after each batch every context retain has its release (the loops of
 *     exited threads released everything they held);
 *   - RSS (/proc/self/statm) grows by less than 2 MB between 2,000 and
 *     10,000 threads (the first threads warm up the Swift runtime, malloc
 *     arenas and the handle table page).
 *
 *   stress_churn [threads]   (default 10000)
 */
#define _GNU_SOURCE 1
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_long retains, releases, fired;
static const void *c_retain(const void *info) { atomic_fetch_add(&retains, 1); return info; }
static void c_release(const void *info) { (void)info; atomic_fetch_add(&releases, 1); }
static void perform(void *info) { (void)info; atomic_fetch_add(&fired, 1); }
static void timer_cb(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }
static void observer_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { (void)o; (void)a; (void)info; }

static void *churn_thread(void *arg)
{
    (void)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerContext tc = {0, NULL, c_retain, c_release, NULL};
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 3600, 1, 0, 0, timer_cb, &tc);
    RLRunLoopSourceContext sc = {0, NULL, c_retain, c_release, NULL, NULL, NULL, NULL, NULL, perform};
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &sc);
    RLRunLoopObserverContext oc = {0, NULL, c_retain, c_release, NULL};
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, observer_cb, &oc);
    RLRunLoopAddTimer(rl, t, kRLRunLoopCommonModes);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, s, "churn.other");
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRelease(t);
    RLRelease(s);
    RLRelease(o);
    RLRunLoopSourceSignal(s);   /* borrowed: the loop still holds it */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    return NULL;
}

static double rss_mb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    if (f) fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

int main(int argc, char **argv)
{
    long total = argc > 1 ? atol(argv[1]) : 10000;
    int failures = 0;
    double rss_2k = 0, rss_end = 0;
    for (long done = 0; done < total;) {
        pthread_t t[4];
        int n = 0;
        for (; n < 4 && done + n < total; n++)
            if (pthread_create(&t[n], NULL, churn_thread, NULL) != 0) { perror("pthread_create"); return 2; }
        for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
        done += n;
        if (atomic_load(&retains) != atomic_load(&releases)) {
            printf("FAIL after %ld threads: context retains %ld, releases %ld\n", done, atomic_load(&retains),
                   atomic_load(&releases));
            failures++;
            break;
        }
        if (done % 1000 == 0 || done == total) {
            double rss = rss_mb();
            printf("  %5ld threads: RSS %.2f MB, context retains = releases = %ld, performs %ld\n", done, rss,
                   atomic_load(&retains), atomic_load(&fired));
            if (done == 2000) rss_2k = rss;
            rss_end = rss;
        }
    }
    if (atomic_load(&fired) != total) {
        printf("FAIL: %ld of %ld sources performed\n", atomic_load(&fired), total);
        failures++;
    }
    if (total >= 10000 && rss_end - rss_2k >= 2.0) {
        printf("FAIL: RSS grew %.2f MB between 2,000 and %ld threads (limit 2 MB)\n", rss_end - rss_2k, total);
        failures++;
    }
    printf("%s stress_churn: %ld threads, RSS %.2f MB at 2k, %.2f MB at end (growth %.2f MB, limit 2)\n",
           failures ? "FAIL" : "ok", total, rss_2k, rss_end, rss_end - rss_2k);
    return failures ? 1 : 0;
}
