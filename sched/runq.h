/*
 * Run queue of one VP: the ULTs bound to it that are ready to run, in FIFO order.
 *
 *   owner VP only                     any thread (other VPs, foreign pthreads)
 *   head -> u1 -> u2 -> u3 <- tail     inbound -> u6 -> u5 -> u4 -> NULL   (newest first)
 *
 * The local FIFO is a plain intrusive list: only the owning VP's kernel thread touches it, so it
 * needs no atomics. Other threads push onto the inbound list, and the owner moves the whole
 * inbound list to the tail of the FIFO (reversed, so that FIFO order holds per producer).
 *
 * Inbound list: a multi-producer single-consumer list in the manner of the Linux kernel's llist
 * (include/linux/llist.h: llist_add, llist_del_all). Producers push with a CAS on the head as in
 * Treiber's stack (IBM RJ 5118, 1986); the consumer never pops one node but takes the whole list
 * with one atomic exchange(NULL).
 * Progress: push is lock-free (its CAS fails only when another push succeeded), take is
 * wait-free (one exchange).
 * ABA: none. ABA hurts a pop that reads head->next and then CASes head; here nothing ever reads
 * a node's link while it may be in the list: a producer only writes the link of its own node
 * before publishing it, and its CAS merely checks that head is still the node it linked to. If
 * the head went A -> (taken) -> A in between, A is again the first node and linking to it is
 * still right. A node is in at most one list at a time: the callers make sure a ULT is enqueued
 * by one thread only (whoever clears its PARKED bit, ult.h).
 * The inbound head sits on its own cache line, away from the owner's FIFO.
 */
#ifndef TM_SCHED_RUNQ_H
#define TM_SCHED_RUNQ_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define TM_SCHED_CACHE_LINE 64

typedef struct tm_sched_runq_node {
    /* Plain pointer: in the inbound list it is written before the node is published with a
     * release CAS and read after the owner's acquire exchange. */
    struct tm_sched_runq_node *next;
} tm_sched_runq_node_t;

typedef struct tm_sched_runq {
    tm_sched_runq_node_t *head; /* owner only */
    tm_sched_runq_node_t *tail; /* owner only; meaningful when head != NULL */
    alignas(TM_SCHED_CACHE_LINE) _Atomic(tm_sched_runq_node_t *) inbound;
} tm_sched_runq_t;

static inline void tm_sched_runq_init(tm_sched_runq_t *q)
{
    q->head = NULL;
    q->tail = NULL;
    atomic_init(&q->inbound, NULL);
}

/* Owner only: appends node to the FIFO. */
static inline void tm_sched_runq_push(tm_sched_runq_t *q, tm_sched_runq_node_t *node)
{
    node->next = NULL;
    if (q->head == NULL)
        q->head = node;
    else
        q->tail->next = node;
    q->tail = node;
}

/* Any thread: pushes node onto the inbound list.
 * seq_cst, not just release: the caller then reads whether the owner sleeps (vp.c), and the
 * owner publishes that it sleeps before it re-reads the inbound head. Those four accesses form
 * a Dekker pattern that only a single total order (seq_cst on all four) makes safe: at least one
 * side sees the other's write, so a push never goes unnoticed by a sleeping owner. */
static inline void tm_sched_runq_push_inbound(tm_sched_runq_t *q, tm_sched_runq_node_t *node)
{
    /* First guess an empty list instead of loading the head: the list is mostly empty, and a
     * load would fetch the line shared only for the CAS to fetch it again exclusive. */
    tm_sched_runq_node_t *head = NULL;

    do
        node->next = head;
    while (!atomic_compare_exchange_weak_explicit(&q->inbound, &head, node, memory_order_seq_cst,
                                                  memory_order_relaxed));
}

/* Any thread: whether the inbound list holds something (seq_cst: the owner's side of the Dekker
 * pattern described at tm_sched_runq_push_inbound). */
static inline bool tm_sched_runq_inbound_pending(tm_sched_runq_t *q)
{
    return atomic_load_explicit(&q->inbound, memory_order_seq_cst) != NULL;
}

/* Owner only: moves the inbound list, oldest first, to the tail of the FIFO. */
static inline void tm_sched_runq_drain(tm_sched_runq_t *q)
{
    tm_sched_runq_node_t *list, *fifo = NULL, *last;

    /* Cheap test first: the exchange would take the line exclusive on every call. */
    if (atomic_load_explicit(&q->inbound, memory_order_relaxed) == NULL)
        return;
    /* acquire: pairs with the producers' CAS, so their nodes' links and everything they wrote
     * before pushing are visible here. */
    list = atomic_exchange_explicit(&q->inbound, NULL, memory_order_acquire);
    last = list;
    while (list != NULL) {
        tm_sched_runq_node_t *next = list->next;

        list->next = fifo;
        fifo = list;
        list = next;
    }
    if (fifo == NULL)
        return;
    if (q->head == NULL)
        q->head = fifo;
    else
        q->tail->next = fifo;
    q->tail = last;
}

/* Owner only: the next ready node, or NULL. Takes in what other threads pushed first, so that a
 * VP whose ULTs keep yielding still runs those woken from elsewhere. */
static inline tm_sched_runq_node_t *tm_sched_runq_pop(tm_sched_runq_t *q)
{
    tm_sched_runq_node_t *node;

    tm_sched_runq_drain(q);
    node = q->head;
    if (node != NULL)
        q->head = node->next;
    return node;
}

/* Owner only: whether nothing is ready (neither in the FIFO nor inbound). */
static inline bool tm_sched_runq_empty(tm_sched_runq_t *q)
{
    return q->head == NULL && atomic_load_explicit(&q->inbound, memory_order_relaxed) == NULL;
}

#endif /* TM_SCHED_RUNQ_H */
