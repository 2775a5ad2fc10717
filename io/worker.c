/*
 * The I/O threads (io.h): a queue of accesses under a mutex, served by up to TM_IO_WORKERS
 * threads of the process. A thread waits on a condition variable when the queue is empty; a
 * poster starts a new thread when none is idle and the limit is not reached.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "io.h"

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static tm_io_job_t *queue_head, *queue_tail;
static int workers, idle;

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&queue_lock);
    for (;;) {
        while (queue_head == NULL) {
            idle++;
            pthread_cond_wait(&queue_ready, &queue_lock);
            idle--;
        }
        tm_io_job_t *job = queue_head;
        queue_head = job->next;
        if (queue_head == NULL)
            queue_tail = NULL;
        pthread_mutex_unlock(&queue_lock);

        size_t bytes;
        tm_io_file_t *f = job->file; /* the job may be gone once `done` completes it */
        int err = tm_io_access(f, job->off, job->buf, job->count, job->type, job->write, &bytes);
        job->done(job, bytes, err);
        atomic_fetch_sub_explicit(&f->jobs, 1, memory_order_release);

        pthread_mutex_lock(&queue_lock);
    }
    return NULL;
}

/* Starts one more thread, with every signal blocked: signals are the ranks'. Under queue_lock. */
static int worker_start(void)
{
    sigset_t all, old;
    pthread_attr_t attr;
    pthread_t t;

    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&t, &attr, worker_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err == 0)
        workers++;
    return -err;
}

int tm_io_job_post(tm_io_job_t *job)
{
    int err = 0;

    job->next = NULL;
    pthread_mutex_lock(&queue_lock);
    if (idle == 0 && workers < TM_IO_WORKERS)
        err = worker_start();
    if (err < 0 && workers == 0) {
        pthread_mutex_unlock(&queue_lock);
        return err;
    }
    atomic_fetch_add_explicit(&job->file->jobs, 1, memory_order_relaxed);
    if (queue_tail)
        queue_tail->next = job;
    else
        queue_head = job;
    queue_tail = job;
    pthread_cond_signal(&queue_ready);
    pthread_mutex_unlock(&queue_lock);
    return 0;
}

void tm_io_jobs_wait(tm_io_file_t *f)
{
    /* acquire: the threads' last touches happen before the caller frees what they touched. A
     * short wait: the caller saw the jobs complete, their threads only return from `done`. */
    while (atomic_load_explicit(&f->jobs, memory_order_acquire) != 0)
        sched_yield();
}
