/*
 * nbc/: what the engine (engine.c) and the schedule builder (sched.c) share.
 *
 *   tm_nbc_sched_t
 *   +-------------------------------+
 *   | actions [a0 a1 a2 a3 a4 ...]  |   tagged unions, in the order built
 *   | rounds  [{end 1, ANY}         |   round k = actions [rounds[k-1].end, rounds[k].end)
 *   |          {end 3, ANY}         |
 *   |          {end 5, RANK}]       |
 *   | round: the one running        |   advanced by whoever holds the engine's lock
 *   +-------------------------------+
 */
#ifndef TM_NBC_SCHED_H
#define TM_NBC_SCHED_H

#include <stdatomic.h>

#include "p2p/p2p.h"
#include "nbc.h"

typedef enum tm_nbc_action_kind {
    TM_NBC_SEND,
    TM_NBC_RECV,
    TM_NBC_OP,
    TM_NBC_COPY,
    TM_NBC_POLL,
} tm_nbc_action_kind_t;

typedef struct tm_nbc_action {
    tm_nbc_action_kind_t kind;
    union {
        struct {
            const void *buf;
            size_t count;
            tm_mpi_type_t *type;
            int peer;
        } send;
        struct {
            void *buf;
            size_t count;
            tm_mpi_type_t *type;
            int peer;
        } recv;
        struct {
            const void *in;
            void *inout;
            size_t count;
            tm_mpi_type_t *type;
            tm_mpi_op_t *op;
        } op;
        struct {
            const void *src;
            size_t scount;
            tm_mpi_type_t *stype;
            void *dst;
            size_t dcount;
            tm_mpi_type_t *dtype;
        } copy;
        struct {
            tm_nbc_ready_fn_t ready;
            void *obj;
            uint64_t target;
            int cursor;          /* the ready function's, from 0 */
            tm_mpi_type_t *type; /* held for the ready function, or NULL */
            tm_mpi_op_t *op;     /* likewise */
        } poll;
    };
    tm_p2p_request_t req; /* SEND, RECV: the transfer, once the round started */
} tm_nbc_action_t;

typedef struct tm_nbc_round {
    int end; /* one past its last action */
    tm_nbc_where_t where;
} tm_nbc_round_t;

#define TM_NBC_SCHED_INLINE 4

struct tm_nbc_sched {
    /* Its memory, which a spare keeps for the rank's next schedule (sched.c). */
    tm_nbc_action_t *actions; /* actions_inline, or from the heap once it is too small */
    tm_nbc_round_t *rounds;   /* rounds_inline, or from the heap once it is too small */
    int actions_cap, rounds_cap;
    void *scratch;
    size_t scratch_bytes; /* whole cache lines */
    /* From here to the inline rooms: cleared for each collective. */
    tm_mpi_rank_t *owner;
    tm_mpi_group_t *group; /* the communicator's members (a reference), for peers' mailboxes */
    int context_id;
    int rank; /* the owner's, in the communicator */
    int tag;
    int nactions, nrounds;
    /* The round running, or nrounds once done (the lock holder's; atomic for the debugger and
     * diagnostics that read it without the lock). */
    _Atomic int round;
    bool round_started;
    int err;                  /* sticky build error (-ENOMEM) */
    int status_error;         /* MPI error of a transfer (MPI_ERR_TRUNCATE), for the request */
    tm_p2p_request_t *req;    /* the collective's request, once started */
    const _Atomic int *abort; /* tm_nbc_sched_abort_on, else NULL */
    void (*abort_release)(void *arg);
    void *abort_arg;
    bool kept;            /* aborted with a send under way: never freed */
    bool sharing;         /* counted in the engine's `sharing` (engine.c) */
    tm_nbc_sched_t *next; /* in the engine's list */
    /* Room for the small schedules (a blocking collective on few ranks is a round or two of
     * one or two actions), which then cost no allocation beyond the schedule itself. */
    tm_nbc_round_t rounds_inline[TM_NBC_SCHED_INLINE];
    tm_nbc_action_t actions_inline[TM_NBC_SCHED_INLINE];
};

/* The rank's spare schedule: the last one it freed, kept with its memory for its next
 * collective (sched.c). Only the rank takes and gives it, in its MPI calls. Take returns it (or
 * NULL) and leaves none; keep stores s if there is none and says whether it did. */
tm_nbc_sched_t *tm_nbc_engine_spare_take(tm_nbc_engine_t *e);
bool tm_nbc_engine_spare_keep(tm_nbc_engine_t *e, tm_nbc_sched_t *s);
/* Frees the memory of a schedule whose references tm_nbc_sched_free has dropped: the spare. */
void tm_nbc_sched_free_memory(tm_nbc_sched_t *s);

/* Adds started schedule s to r's engine, which runs it from now on, and runs what can run at
 * once. `background`: some of its rounds may run on the progress thread; `largest`: the bytes
 * of the largest transfer, reduction or copy among those rounds. */
void tm_nbc_engine_start(tm_mpi_rank_t *r, tm_nbc_sched_t *s, bool background, size_t largest);

#endif /* TM_NBC_SCHED_H */
