/*
 * Collective consistency: what every member of a communicator must pass alike to a collective
 * call (MPI 3.1, 5.1, 5.12): the call itself (a blocking and a non-blocking call of one kind do
 * not match each other), the root, the reduction's operation. Each collective's members meet
 * somewhere (the flat block, the schedule's messages); there they compare their signatures, and
 * a mismatch is an error on the members that see it, naming the calls (check.c). The amounts of
 * data are compared where the data meets its buffer (truncation).
 */
#ifndef TM_COLL_CHECK_H
#define TM_COLL_CHECK_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbc/nbc.h"
#include "obj/datatype.h"
#include "obj/obj.h"
#include "obj/op.h"

typedef struct tm_coll_sig {
    const char *call; /* "MPI_Bcast": the kind */
    int root;         /* -1: a collective without a root */
    int op;           /* the operation's kind (tm_mpi_op_kind_t), -1: none, or TM_COLL_OP_ANY */
    /* Each member's piece of the data, where the standard wants the pieces alike (a broadcast's
     * buffer, a gather's block): its bytes and its type signature (count x the type's, see
     * tm_mpi_type_t.signature; 0 under [coll] check_types = false); both 0 where pieces may
     * differ (the v forms) or there is no data. */
    uint64_t bytes, types;
    /* All of them in one word, equal for equal signatures whose names are the same string (the
     * usual case): comparing keys is the fast test, the fields decide when keys differ. */
    uint64_t key;
} tm_coll_sig_t;

/* The operation of a member whose operation is not significant (MPI_PROC_NULL in a rooted
 * reduction on an intercommunicator): it agrees with any. */
#define TM_COLL_OP_ANY (-2)

/* [coll] check_types: whether signatures carry their pieces' type signatures (set at the first
 * MPI_Init, tm_coll_init). */
extern bool tm_coll_check_types;

/* The signature of call `call` with root `root` (-1: none), operation op (NULL: none) and pieces
 * of count x type (type NULL: none compared). */
static inline tm_coll_sig_t tm_coll_sig(const char *call, int root, const tm_mpi_op_t *op,
                                        size_t count, const tm_mpi_type_t *type)
{
    int kind = op ? (int)op->kind : -1;
    uint64_t bytes = type ? count * type->size : 0;
    uint64_t types = type && tm_coll_check_types ? count * type->signature : 0;
    uint64_t key =
        ((uint64_t)(uintptr_t)call ^ ((uint64_t)(uint32_t)root << 40) ^
         ((uint64_t)(uint32_t)kind << 20) ^ bytes * UINT64_C(0xff51afd7ed558ccd) ^ types) *
        UINT64_C(0x9e3779b97f4a7c15);
    return (tm_coll_sig_t){call, root, kind, bytes, types, key};
}

/* Whether two members' calls agree, their pieces of data aside: the names (a large-count
 * form's, MPI_Bcast_c, is its int form's), roots and operations (user-defined operations agree
 * with each other: each rank made its own). */
bool tm_coll_sig_names_equal(const char *a, const char *b);
static inline bool tm_coll_sig_calls_equal(const tm_coll_sig_t *a, const tm_coll_sig_t *b)
{
    return a->root == b->root &&
           (a->op == b->op || a->op == TM_COLL_OP_ANY || b->op == TM_COLL_OP_ANY) &&
           (a->call == b->call || tm_coll_sig_names_equal(a->call, b->call));
}

/* Whether two members' signatures agree, pieces included. Inline: every collective's leader
 * compares; the names are nearly always the same string. */
static inline bool tm_coll_sig_equal(const tm_coll_sig_t *a, const tm_coll_sig_t *b)
{
    return a->key == b->key ||
           (a->bytes == b->bytes && a->types == b->types && tm_coll_sig_calls_equal(a, b));
}

/* A mismatch two members' signatures show: rank `a` passed sig_a, rank `b` sig_b. */
typedef struct tm_coll_mismatch {
    int a, b; /* ranks in the communicator; a < 0: none */
    tm_coll_sig_t sig_a, sig_b;
} tm_coll_mismatch_t;

/* Reports mismatch m for call `call` of c's member r, e.g. "collective mismatch on
 * MPI_COMM_WORLD: rank 0 called MPI_Allreduce, rank 1 MPI_Bcast": MPI_ERR_ROOT for roots,
 * MPI_ERR_OP for operations, MPI_ERR_TRUNCATE for amounts of data, MPI_ERR_TYPE for their
 * types, MPI_ERR_OTHER for calls. Returns the error class. */
int tm_coll_mismatch_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_mismatch_t *m);

/* ---- the ledger (check.c): the calls compared where the members do not meet ---- */

/* Where a collective call's members meet, which compares their calls there. */
typedef enum tm_coll_meet {
    TM_COLL_MEET_MESSAGES, /* a schedule's messages: their tags */
    TM_COLL_MEET_ROUND,    /* a round of the flat block: its leaders */
    TM_COLL_MEET_CHAIN,    /* the flat scans' chain: each member and the one before */
} tm_coll_meet_t;

/* A view's state of the check (check.c; here for the inline parts below). */
struct tm_coll_check {
    struct tm_coll_ledger *ledger;
    int index; /* the member's in the ledger: its rank, after the first group's if second */
    const _Atomic int *broken; /* the ledger's word that says the communicator broke */
    /* The last call's name and its hash, for the tags (a call is mostly repeated). */
    const char *hashed_call;
    uint32_t call_hash;
    bool told; /* the member got the error of the communicator's break */
};

int tm_coll_check_begin_slow(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const tm_coll_sig_t *sig, tm_coll_meet_t meet, uint64_t seq);

/* Numbers collective call `call` (signature sig) of member r of c among c's collective calls,
 * writes it into c's ledger (a call of the flat block's rounds, where every member meets every
 * other: only if it sleeps, tm_coll_check_sleeps) and sets c->coll_tag_sig for its
 * schedule's tags. The ledger compares calls that meet in different
 * places (or in messages, whose tags only keep them apart). MPI_SUCCESS, or the error of a
 * communicator that a mismatch broke before (reported through c's handler). Inline: a call of
 * the rounds only counts itself. */
static inline int tm_coll_check_begin(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                      const tm_coll_sig_t *sig, tm_coll_meet_t meet)
{
    uint64_t seq = ++c->coll_calls;
    struct tm_coll_check *k = c->check;
    if (__builtin_expect(!k || meet != TM_COLL_MEET_ROUND ||
                             atomic_load_explicit(k->broken, memory_order_acquire),
                         0))
        return tm_coll_check_begin_slow(r, c, call, sig, meet, seq);
    return MPI_SUCCESS;
}

/* A flat call on c (call number seq, signature sig) that waits for the others where they meet
 * (`meet`) is about to sleep (tm_p2p_wait_sleeping): its call goes into the ledger, for the
 * ledger's thread to compare should the others never come. */
void tm_coll_check_sleeps(tm_mpi_comm_t *c, uint64_t seq, const tm_coll_sig_t *sig,
                          tm_coll_meet_t meet);

/* The word that turns nonzero when c breaks, else NULL: valid while c's view is. */
static inline const _Atomic int *tm_coll_check_abort_flag(const tm_mpi_comm_t *c)
{
    return c->check ? c->check->broken : NULL;
}

/* Makes schedule s (of a collective on c) stop when c breaks (nbc.h's abort flag), holding c's
 * ledger until s is freed: the view may go first (MPI_Comm_free with the collective pending). */
void tm_coll_check_abort_on(tm_mpi_comm_t *c, tm_nbc_sched_t *s);

/* Whether a mismatch broke c. */
bool tm_coll_check_is_broken(const tm_mpi_comm_t *c);

/* Reports the mismatch that broke c, for call `call` of member r: the calls that differed, or,
 * for a later call, that the communicator's collectives are out of step since then. */
int tm_coll_check_broken_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

/* Before a view of c goes (MPI_Comm_free, MPI_Finalize, call `call`): a last comparison; when
 * the communicator broke and this member was not told yet (its part of the mismatched call
 * needed nobody: a broadcast's root, say), reports it now through c's handler. Returns the
 * error class, or MPI_SUCCESS. */
int tm_coll_check_final(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

/* A view of c goes (MPI_Comm_free, MPI_Finalize): a last comparison, then its ledger let go. */
void tm_coll_check_release(tm_mpi_rank_t *r, tm_mpi_comm_t *c);

#endif /* TM_COLL_CHECK_H */
