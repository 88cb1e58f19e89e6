/*
 * worker_thread.c — a keep-alive worker thread ("permanent thread"): one
 * thread with its own run loop, fed with work from other threads.
 *
 *   cc -std=gnu11 -I include examples/c/worker_thread.c -L build -lrunloop -lpthread \
 *      -Wl,-rpath,$PWD/build -o worker_thread && ./worker_thread
 */
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdio.h>

static RLThreadRef worker;
static long total;  /* touched by tasks only: they all run on the worker */

static void add(void *info) { total += (long)info; }
static void report(void *info) { (void)info; printf("worker: total is %ld\n", total); }

/* Another thread handing the worker 1,000 tasks. */
static void *producer(void *arg)
{
    (void)arg;
    for (long i = 1; i <= 1000; i++) RLThreadPerform(worker, add, (void *)i, 0);
    return NULL;
}

int main(void)
{
    worker = RLThreadCreate("example-worker");

    pthread_t a, b;
    pthread_create(&a, NULL, producer, NULL);
    pthread_create(&b, NULL, producer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);

    RLThreadPerform(worker, report, NULL, 1);  /* waits until it has run */
    RLThreadStop(worker);                       /* runs what is queued, exits, joins */
    RLRelease(worker);
    printf("main: worker stopped\n");
    return 0;
}
