/*
 * keep_alive_worker — a background thread that lives for its run loop.
 *
 * The classic pattern (AFNetworking's network thread): a thread adds a
 * source to its loop so the loop is never "finished", then runs it
 * forever.  Other threads give it work by queueing functions on its loop
 * (RLRunLoopPerformFunction + RLRunLoopWakeUp) or by signalling its
 * source (RLRunLoopSourceSignal + RLRunLoopWakeUp), and finally stop it
 * with RLRunLoopStop.  Here the main thread waits for each piece of work
 * to be done before sending the next, so the output order is fixed.
 */
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static RLRunLoopRef worker_loop;      /* set once the worker's loop is ready */
static RLRunLoopSourceRef port;       /* the keep-alive source, also a "port" */
static int done;                      /* pieces of work finished */

static void finished_one(void)
{
    pthread_mutex_lock(&lock);
    done++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void wait_for(int count)
{
    pthread_mutex_lock(&lock);
    while (done < count) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static void job(void *info)
{
    printf("worker: running %s\n", (const char *)info);
    finished_one();
}

static void port_message(void *info)
{
    (void)info;
    printf("worker: source signalled\n");
    finished_one();
}

static void *worker(void *arg)
{
    (void)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceContext context = { .perform = port_message };
    RLRunLoopSourceRef source = RLRunLoopSourceCreate(NULL, 0, &context);
    RLRunLoopAddSource(rl, source, kRLRunLoopDefaultMode);   /* keeps the loop alive */

    printf("worker: loop ready\n");
    pthread_mutex_lock(&lock);
    worker_loop = (RLRunLoopRef)RLRetain(rl);
    port = source;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);

    RLRunLoopRun();                                          /* until stopped */
    printf("worker: loop stopped, exiting\n");

    RLRunLoopSourceInvalidate(source);
    RLRelease(source);
    return NULL;
}

int main(void)
{
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_mutex_lock(&lock);
    while (!worker_loop) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);

    static char first[] = "job 1", second[] = "job 2";
    printf("main: queueing %s\n", first);
    RLRunLoopPerformFunction(worker_loop, kRLRunLoopDefaultMode, job, first);
    RLRunLoopWakeUp(worker_loop);
    wait_for(1);

    printf("main: signalling the source\n");
    RLRunLoopSourceSignal(port);
    RLRunLoopWakeUp(worker_loop);
    wait_for(2);

    printf("main: queueing %s\n", second);
    RLRunLoopPerformFunction(worker_loop, kRLRunLoopDefaultMode, job, second);
    RLRunLoopWakeUp(worker_loop);
    wait_for(3);

    printf("main: stopping the worker\n");
    RLRunLoopStop(worker_loop);
    pthread_join(thread, NULL);
    RLRelease(worker_loop);
    printf("main: done\n");
    return 0;
}
