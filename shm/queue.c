/*
 * Inbound queue of a rank: intrusive multi-producer single-consumer FIFO of cells.
 *
 *   head (consumer)                                       tail (producers)
 *     |                                                     |
 *     v                                                     v
 *   [stub or oldest cell] -> [c1] -> [c2] -> ... -> [cn] -> NULL
 *
 * Algorithm: Dmitry Vyukov's "Intrusive MPSC node-based queue" (1024cores.net, 2010; the same
 * scheme as his non-intrusive MPSC queue, with a stub node so that the user's nodes need no
 * dummy). A producer swings the tail to its cell with one atomic exchange, then links the
 * previous tail to it. The consumer walks from the head; the node at the head is "the one
 * being removed", so it may hand a cell out only once the cell's successor is known. When the
 * last cell would have to go, the consumer first pushes the stub behind it, so the list never
 * becomes empty and producers never need a CAS loop.
 * Order: the exchanges totally order the pushes, and the list follows that order, so the queue
 * is FIFO (linearizable at the exchange), in particular per producer.
 * Progress: push is wait-free (one exchange, one store). Pop is wait-free too, but the queue as
 * a whole is not lock-free: between its exchange and its link, a producer hides its cell and
 * every later one from the consumer; pop then returns NULL although cells were pushed (is_empty
 * says false). That window is a few instructions; it is long only if the OS preempts the
 * producer's kernel thread right there (a ULT cannot be switched out there: it makes no call).
 * ABA: none. Producers never compare-and-swap; their exchange is unconditional and the link
 * they write goes to the node they got from it, which only they link. There is a single
 * consumer, and it hands a cell out only after it has seen the cell's successor, so by then no
 * producer will write into that cell any more: a popped cell (or the stub) may be pushed again
 * at once, as a new node.
 * Layout: tail (written by every producer), head (consumer) and the stub each have their own
 * cache line (shm.h).
 */
#include "config.h"

#include <stddef.h>

#include "shm/shm.h"

_Static_assert(offsetof(tm_shm_cell_t, data) == 2 * sizeof(void *),
               "a cell's data follows its two links on its first line");
_Static_assert(offsetof(tm_shm_queue_t, head) - offsetof(tm_shm_queue_t, tail) >= TM_SHM_CACHE_LINE,
               "producers' tail and consumer's head on separate cache lines");
_Static_assert(offsetof(tm_shm_queue_t, stub) - offsetof(tm_shm_queue_t, head) >= TM_SHM_CACHE_LINE,
               "the stub, linked by producers when the queue is empty, away from the head");

void tm_shm_queue_init(tm_shm_queue_t *q)
{
    atomic_init(&q->stub.next, NULL);
    q->stub.pool = NULL;
    atomic_init(&q->head, &q->stub);
    atomic_init(&q->tail, &q->stub);
}

void tm_shm_queue_push(tm_shm_queue_t *q, tm_shm_cell_t *cell)
{
    tm_shm_cell_t *prev;

    /* Relaxed: published by the exchange below (release half). */
    atomic_store_explicit(&cell->next, NULL, memory_order_relaxed);
    /* seq_cst rather than acq_rel, for the sleep/wake handshake of tm_shm_queue_is_empty (free
     * on x86, where any exchange is a full barrier). Acquire half: prev's own push stored
     * prev->next = NULL before its exchange, and our link below must come after that store,
     * not be overwritten by it. Release half: our NULL above precedes whoever links to us. */
    prev = atomic_exchange_explicit(&q->tail, cell, memory_order_seq_cst);
    /* Release: the consumer reads this link with acquire, and then sees the cell's contents. */
    atomic_store_explicit(&prev->next, cell, memory_order_release);
}

tm_shm_cell_t *tm_shm_queue_pop(tm_shm_queue_t *q)
{
    /* Relaxed loads of head: only this thread (the consumer) writes it. */
    tm_shm_cell_t *head = atomic_load_explicit(&q->head, memory_order_relaxed);
    /* Acquire on every link: pairs with the producers' release link (cell contents). */
    tm_shm_cell_t *next = atomic_load_explicit(&head->next, memory_order_acquire);

    if (head == &q->stub) {
        if (next == NULL)
            return NULL;
        /* Step over the stub; it leaves the list until the queue next drains. */
        atomic_store_explicit(&q->head, next, memory_order_relaxed);
        head = next;
        next = atomic_load_explicit(&head->next, memory_order_acquire);
    }
    if (next != NULL) {
        atomic_store_explicit(&q->head, next, memory_order_relaxed);
        return head;
    }
    /* head has no successor yet. Unless it is also the tail, a producer has exchanged but not
     * linked: wait for it (return NULL). Relaxed is enough, the value is only compared: a stale
     * read at worst returns NULL once more, and the acquire load of the link that led to head
     * already makes head's own exchange visible here, so the tail read is never older than head. */
    if (atomic_load_explicit(&q->tail, memory_order_relaxed) != head)
        return NULL;
    /* head is the last cell: put the stub behind it so that head can leave the list. */
    tm_shm_queue_push(q, &q->stub);
    next = atomic_load_explicit(&head->next, memory_order_acquire);
    if (next == NULL) {
        /* A producer exchanged between our tail check and the stub's exchange and has not
         * linked yet: head stays, with that cell and then the stub behind it. */
        return NULL;
    }
    atomic_store_explicit(&q->head, next, memory_order_relaxed);
    return head;
}

bool tm_shm_queue_is_empty(const tm_shm_queue_t *q)
{
    /* The head at the stub means no cell is waiting before it; the tail at the stub means no
     * producer has exchanged since the stub was last pushed (the tail returns to the stub only
     * through the consumer's own push of it). seq_cst on the tail: the consumer's side of the
     * Dekker pattern described in shm.h (its "I sleep" store, then this load, against a
     * producer's exchange, then its load of "does it sleep?"). The head load is the consumer's
     * own when the consumer calls; from another thread it is a hint in any case. */
    return atomic_load_explicit(&q->head, memory_order_relaxed) == &q->stub &&
           atomic_load_explicit(&q->tail, memory_order_seq_cst) == &q->stub;
}
