/* The errors of one-sided communication (MPI-3.1 chapter 11), under MPI_ERRORS_RETURN on the
 * window (and on MPI_COMM_WORLD for those of no window): an access outside any epoch, an unlock
 * without a lock, MPI_Win_complete without a start, MPI_Win_wait without a post, a flush
 * outside a passive epoch, and MPI_Rput/_Rget/_Raccumulate under a fence (MPI_ERR_RMA_SYNC); a
 * target range past the end of the window, or before it (MPI_ERR_RMA_RANGE, or MPI_ERR_DISP for
 * a negative displacement), and then nothing of the window's neighbourhood changed; a target
 * rank out of range (MPI_ERR_RANK); a window locked and exposed at once: a post while locked,
 * a lock or lock_all while exposed (MPI_ERR_RMA_CONFLICT); a negative count, the origin's of an
 * accumulate too (MPI_ERR_COUNT); MPI_DATATYPE_NULL (MPI_ERR_TYPE); an accumulate with an
 * operation of MPI_Op_create, or MPI_Accumulate with MPI_NO_OP (MPI_ERR_OP); MPI_WIN_NULL
 * (MPI_ERR_WIN); MPI_Win_create and MPI_Win_allocate with a disp_unit of 0 or less (MPI_ERR_DISP)
 * or a negative size (MPI_ERR_SIZE), raised on the communicator; in a dynamic window, attaching a
 * region that overlaps one attached, detaching an address where nothing is attached
 * (MPI_ERR_RMA_ATTACH), and a put to memory not attached (MPI_ERR_RMA_RANGE). After each group of
 * errors, a fence epoch with a put works. A window error handler of MPI_Win_create_errhandler is
 * called with the window and the code (by an error, and by MPI_Win_call_errhandler) and is the one
 * MPI_Win_get_errhandler returns; a communicator's handler is refused (MPI_ERR_ARG). Window
 * attributes of MPI_Win_create_keyval: set, get, delete, replace, and the delete callback
 * called for each, and by MPI_Win_free. MPI_Win_free while the caller holds a lock_all or a
 * post (MPI_ERR_RMA_SYNC, the window kept). Runs with 1 and 3 ranks. */
#include <mpi.h>
#include <stdio.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_errors: rank %d, line %d: %s\n", rank, __LINE__, #cond);          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

/* The window is store[LO, LO + WN): the ints around it must never change. */
enum { LO = 4, WN = 8, STORE = 24 };
static int store[STORE];

/* A fence epoch with a put to the right neighbour (from no epoch, to no epoch): it lands. */
static void check_usable(MPI_Win win, int tag, int line)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int v = rank * 100 + tag;
    int ok = MPI_Win_fence(0, win) == MPI_SUCCESS;
    ok = ok && MPI_Put(&v, 1, MPI_INT, right, tag % WN, 1, MPI_INT, win) == MPI_SUCCESS;
    ok = MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS && ok;
    ok = ok && store[LO + tag % WN] == left * 100 + tag;
    for (int i = 0; i < STORE; i++)
        if (i < LO || i >= LO + WN)
            ok = ok && store[i] == -1;
    if (!ok) {
        fprintf(stderr, "rma_errors: rank %d, line %d: the window is not usable\n", rank, line);
        errors++;
    }
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

static int handler_calls, handler_code;
static MPI_Win handler_win = MPI_WIN_NULL;
static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_win = *win;
    handler_code = *code;
}
static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static int deletes, extra_marker;
static void *deleted_val;
static int on_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win;
    (void)keyval;
    CHECK(extra == &extra_marker);
    deletes++;
    deleted_val = val;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (rank + 1) % size;
    for (int i = 0; i < STORE; i++)
        store[i] = -1;
    MPI_Win win;
    CHECK(MPI_Win_create(store + LO, WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    int v = 7, r = -1;
    MPI_Request req = MPI_REQUEST_NULL;

    /* Outside any epoch. */
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Get(&r, 1, MPI_INT, right, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win)) ==
          MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Fetch_and_op(&v, &r, MPI_INT, right, 0, MPI_SUM, win)) ==
          MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_unlock(right, win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_unlock_all(win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_flush(right, win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_flush_all(win)) == MPI_ERR_RMA_SYNC);
    CHECK(r == -1);
    check_usable(win, 1, __LINE__);

    /* In a fence epoch: out of range, bad rank, type and op, and the request forms. */
    MPI_Datatype wide; /* 2 ints, 8 apart: from disp 0, the second is past the end */
    MPI_Type_vector(2, 1, WN, MPI_INT, &wide);
    MPI_Type_commit(&wide);
    MPI_Op op;
    MPI_Op_create(user_op, 1, &op);
    int two[2] = {7, 7};
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, right, WN, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
    CHECK(error_class(MPI_Put(two, 2, MPI_INT, right, WN - 1, 2, MPI_INT, win)) ==
          MPI_ERR_RMA_RANGE);
    CHECK(error_class(MPI_Put(two, 2, MPI_INT, right, 0, 1, wide, win)) == MPI_ERR_RMA_RANGE);
    int c = error_class(MPI_Put(&v, 1, MPI_INT, right, -1, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_RMA_RANGE || c == MPI_ERR_DISP);
    CHECK(error_class(MPI_Get(&r, 1, MPI_INT, right, WN, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE);
    CHECK(error_class(MPI_Accumulate(&v, 1, MPI_INT, right, WN, 1, MPI_INT, MPI_SUM, win)) ==
          MPI_ERR_RMA_RANGE);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, -10, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Get(&r, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Put(&v, -1, MPI_INT, right, 0, 1, MPI_INT, win)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Get(&r, 1, MPI_INT, right, 0, -2, MPI_INT, win)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Accumulate(&v, -1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Put(&v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win)) ==
          MPI_ERR_TYPE);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, win)) ==
          MPI_ERR_TYPE);
    CHECK(error_class(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, op, win)) == MPI_ERR_OP);
    CHECK(error_class(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, win)) ==
          MPI_ERR_OP);
    int rc = MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Rget(&r, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Raccumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win, &req);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    MPI_Type_free(&wide);
    MPI_Op_free(&op);
    check_usable(win, 2, __LINE__);

    /* MPI_WIN_NULL: raised on MPI_COMM_WORLD. */
    CHECK(error_class(MPI_Win_fence(0, MPI_WIN_NULL)) == MPI_ERR_WIN);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_WIN_NULL)) == MPI_ERR_WIN);
    CHECK(error_class(MPI_Win_lock_all(0, MPI_WIN_NULL)) == MPI_ERR_WIN);

    /* Creation with a bad disp_unit or size: raised on the communicator. */
    MPI_Win bad = MPI_WIN_NULL;
    int *mem = NULL;
    CHECK(error_class(MPI_Win_create(store, 16, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad)) ==
          MPI_ERR_DISP);
    CHECK(error_class(MPI_Win_create(store, 16, -4, MPI_INFO_NULL, MPI_COMM_WORLD, &bad)) ==
          MPI_ERR_DISP);
    CHECK(error_class(MPI_Win_create(store, -16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &bad)) ==
          MPI_ERR_SIZE);
    CHECK(error_class(MPI_Win_allocate(16, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &bad)) ==
          MPI_ERR_DISP);
    CHECK(error_class(MPI_Win_allocate(-16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &bad)) ==
          MPI_ERR_SIZE);
    CHECK(bad == MPI_WIN_NULL);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    check_usable(win, 3, __LINE__);

    /* A user error handler for windows. */
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL, ceh;
    CHECK(MPI_Win_create_errhandler(win_handler, &eh) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(win, eh) == MPI_SUCCESS);
    CHECK(MPI_Win_get_errhandler(win, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    rc = MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    CHECK(handler_calls == 1 && handler_win == win && handler_code == rc);
    CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(handler_calls == 2 && handler_win == win && handler_code == MPI_ERR_OTHER);
    /* A communicator's handler is not a window's. */
    CHECK(MPI_Comm_create_errhandler(comm_handler, &ceh) == MPI_SUCCESS);
    rc = MPI_Win_set_errhandler(win, ceh);
    CHECK(error_class(rc) == MPI_ERR_ARG);
    CHECK(handler_calls == 3 && handler_win == win && handler_code == rc);
    CHECK(MPI_Win_get_errhandler(win, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&ceh);
    MPI_Errhandler_free(&eh);
    /* Still set on the window after the handle is freed. */
    CHECK(error_class(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC && handler_calls == 4);
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    check_usable(win, 4, __LINE__);
    CHECK(handler_calls == 4);

    /* A dynamic window: attach and detach errors, a put to memory not attached. */
    static int region[16], spare[16], other[16];
    MPI_Win dyn;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    for (int i = 0; i < 16; i++)
        region[i] = spare[i] = other[i] = -1;
    CHECK(MPI_Win_attach(dyn, region, sizeof region) == MPI_SUCCESS);
    CHECK(error_class(MPI_Win_attach(dyn, region + 8, sizeof region)) == MPI_ERR_RMA_ATTACH);
    CHECK(error_class(MPI_Win_attach(dyn, region, sizeof region)) == MPI_ERR_RMA_ATTACH);
    CHECK(error_class(MPI_Win_attach(dyn, region + 4, 4 * sizeof(int))) == MPI_ERR_RMA_ATTACH);
    CHECK(error_class(MPI_Win_detach(dyn, region + 4)) == MPI_ERR_RMA_ATTACH);
    CHECK(error_class(MPI_Win_detach(dyn, other)) == MPI_ERR_RMA_ATTACH);
    MPI_Aint mine[2], all[2 * 3];
    MPI_Get_address(region, &mine[0]);
    MPI_Get_address(spare, &mine[1]);
    if (size <= 3) {
        MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
        CHECK(MPI_Win_lock_all(0, dyn) == MPI_SUCCESS);
        CHECK(error_class(MPI_Put(&v, 1, MPI_INT, right, all[2 * right + 1], 1, MPI_INT, dyn)) ==
              MPI_ERR_RMA_RANGE);
        CHECK(error_class(MPI_Put(two, 2, MPI_INT, right,
                                  MPI_Aint_add(all[2 * right], 15 * sizeof(int)), 2, MPI_INT,
                                  dyn)) == MPI_ERR_RMA_RANGE);
        v = 1000 + rank;
        CHECK(MPI_Put(&v, 1, MPI_INT, right, all[2 * right], 1, MPI_INT, dyn) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock_all(dyn) == MPI_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Win_lock_all(0, dyn) == MPI_SUCCESS);
        CHECK(MPI_Win_sync(dyn) == MPI_SUCCESS);
        CHECK(region[0] == 1000 + (rank + size - 1) % size);
        for (int i = 1; i < 16; i++)
            CHECK(region[i] == -1 && spare[i] == -1);
        CHECK(spare[0] == -1);
        CHECK(MPI_Win_unlock_all(dyn) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_detach(dyn, region) == MPI_SUCCESS);
    CHECK(error_class(MPI_Win_detach(dyn, region)) == MPI_ERR_RMA_ATTACH);
    CHECK(MPI_Win_free(&dyn) == MPI_SUCCESS);
    check_usable(win, 5, __LINE__);

    /* Attributes of the program's keyvals on a window. */
    static int small[2];
    MPI_Win kw;
    int kv = MPI_KEYVAL_INVALID, a1 = 1, a2 = 2, a3 = 3, flag = -1;
    void *val = NULL;
    CHECK(MPI_Win_create(small, sizeof small, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &kw) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &kv, &extra_marker) ==
          MPI_SUCCESS);
    CHECK(kv != MPI_KEYVAL_INVALID);
    CHECK(MPI_Win_get_attr(kw, kv, &val, &flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_Win_set_attr(kw, kv, &a1) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(kw, kv, &val, &flag) == MPI_SUCCESS && flag && val == &a1);
    CHECK(MPI_Win_delete_attr(kw, kv) == MPI_SUCCESS);
    CHECK(deletes == 1 && deleted_val == &a1);
    CHECK(MPI_Win_get_attr(kw, kv, &val, &flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_Win_set_attr(kw, kv, &a2) == MPI_SUCCESS);
    CHECK(MPI_Win_set_attr(kw, kv, &a3) == MPI_SUCCESS); /* deletes a2 */
    CHECK(deletes == 2 && deleted_val == &a2);
    CHECK(MPI_Win_get_attr(kw, kv, &val, &flag) == MPI_SUCCESS && flag && val == &a3);
    CHECK(MPI_Win_free(&kw) == MPI_SUCCESS && kw == MPI_WIN_NULL);
    CHECK(deletes == 3 && deleted_val == &a3);
    CHECK(MPI_Win_free_keyval(&kv) == MPI_SUCCESS && kv == MPI_KEYVAL_INVALID);

    /* A window locked and exposed at once (MPI_ERR_RMA_CONFLICT, nothing opened): rank 0 locks
     * the window of `peer` (rank 1, or itself alone), which then may not post; `peer` posts,
     * and then rank 0 may neither lock it nor lock_all, and closes the epoch with a start. */
    int peer = size > 1 ? 1 : 0, zero = 0;
    MPI_Group world_group, origin_group, target_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &zero, &origin_group);
    MPI_Group_incl(world_group, 1, &peer, &target_group);
    if (rank == 0)
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == peer)
        CHECK(error_class(MPI_Win_post(origin_group, 0, win)) == MPI_ERR_RMA_CONFLICT);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(MPI_Win_unlock(peer, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == peer)
        CHECK(MPI_Win_post(origin_group, 0, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(error_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win)) == MPI_ERR_RMA_CONFLICT);
        CHECK(error_class(MPI_Win_lock_all(0, win)) == MPI_ERR_RMA_CONFLICT);
        CHECK(MPI_Win_start(target_group, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
    }
    if (rank == peer)
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { /* the wait ended the exposure: a lock is fine again */
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(peer, win) == MPI_SUCCESS);
    }
    MPI_Group_free(&target_group);
    MPI_Group_free(&origin_group);
    MPI_Group_free(&world_group);
    check_usable(win, 8, __LINE__);

    /* MPI_Win_free with an epoch open: a lock_all, then a post. */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    MPI_Win held = win;
    CHECK(error_class(MPI_Win_free(&held)) == MPI_ERR_RMA_SYNC && held == win);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    check_usable(win, 6, __LINE__);
    MPI_Group self;
    MPI_Comm_group(MPI_COMM_SELF, &self);
    CHECK(MPI_Win_post(self, 0, win) == MPI_SUCCESS);
    CHECK(error_class(MPI_Win_free(&held)) == MPI_ERR_RMA_SYNC && held == win);
    CHECK(MPI_Win_start(self, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
    CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
    MPI_Group_free(&self);

    check_usable(win, 7, __LINE__);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("rma_errors: ok\n");
    MPI_Finalize();
    return total ? 1 : 0;
}
