/*
 * Hang notes (p2p.h, "hang diagnosis"): what a blocked rank waits for, recorded as values for the
 * runtime's diagnosis, and put into words only when the diagnosis runs.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "p2p/p2p_impl.h"
#include "p2p/transport.h"

void tm_p2p_peer_name(int rank, char *buf, size_t len)
{
    if (rank == MPI_ANY_SOURCE)
        snprintf(buf, len, "MPI_ANY_SOURCE");
    else
        snprintf(buf, len, "%d", rank);
}

/* The runtime's diagnosis: a note recorded by tm_p2p_blocked_record, in words. */
static void blocked_describe(const void *bytes, char *buf, size_t len)
{
    tm_p2p_blocked_note_t note;
    memcpy(&note, bytes, sizeof note);
    if (note.count == 0) {
        snprintf(buf, len, "%s", note.text);
        return;
    }
    char what[160] = "";
    if (note.pending > 0)
        tm_p2p_request_note_words(&note.first, what, sizeof what);
    if (!note.call)
        snprintf(buf, len, "%s", what);
    else if (note.count == 1)
        snprintf(buf, len, "%s(%s)", note.call, what);
    else
        snprintf(buf, len, "%s(%d requests, %d pending, the first: %s)", note.call, note.count,
                 note.pending, what);
}

_Static_assert(sizeof(tm_p2p_blocked_note_t) <= TM_RT_BLOCKED_NOTE_SIZE,
               "a blocked note fits the runtime's");

void tm_p2p_blocked_record(tm_mpi_rank_t *r, const tm_p2p_blocked_note_t *note)
{
    tm_rt_blocked_note_write(r->rt, note, sizeof *note, blocked_describe);
    /* release: the diagnosis reads the note after seeing the flag */
    atomic_store_explicit(&r->rt->blocked, 1, memory_order_release);
}

void tm_p2p_note_blocked(tm_mpi_rank_t *r, const char *fmt, ...)
{
    /* The note has one writer, the rank's ULT: a thread it started leaves none. */
    if (!tm_p2p_job.notes_read || tm_rt_rank_self() != r->rt)
        return;
    tm_p2p_blocked_note_t note = {.count = 0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note.text, sizeof note.text, fmt, ap);
    va_end(ap);
    tm_p2p_blocked_record(r, &note);
}

void tm_p2p_request_note(const tm_p2p_request_t *req, tm_p2p_request_note_t *note)
{
    /* MPI_Isendrecv: what it waits for is its receive, else its send (each named by the call) */
    if (req->kind == TM_P2P_REQ_CHECKED && (req->parts[1] || req->parts[0]))
        req = req->parts[1] ? req->parts[1] : req->parts[0];
    note->call = req->call;
    note->kind = req->kind;
    note->peer = req->source;
    note->tag = req->tag;
    note->ndests = req->ndests;
    const char *comm = req->comm ? req->comm->name : "?";
    size_t n = strnlen(comm, sizeof note->comm - 1);
    memcpy(note->comm, comm, n);
    note->comm[n] = '\0';
}

void tm_p2p_request_note_words(const tm_p2p_request_note_t *note, char *buf, size_t len)
{
    char peer[24], tag[24];
    const char *call = note->call ? note->call : "?";
    if (note->kind == TM_P2P_REQ_COLL) {
        snprintf(buf, len, "%s(comm=%s)", call, note->comm);
        return;
    }
    if (note->kind == TM_P2P_REQ_CHECKED) { /* MPI_Buffer_iflush, or a file access */
        snprintf(buf, len, "%s(%s)", call,
                 strcmp(call, "MPI_Buffer_iflush") == 0 ? "the buffered sends"
                                                        : "its data, in an I/O thread");
        return;
    }
    if (note->kind == TM_P2P_REQ_GREQ) {
        snprintf(buf, len, "MPI_Grequest_start(a generalized request not completed yet)");
        return;
    }
    if (note->ndests > 0) {
        snprintf(buf, len, "%s(ndests=%d, tag=%d, comm=%s)", call, note->ndests, note->tag,
                 note->comm);
        return;
    }
    tm_p2p_peer_name(note->peer, peer, sizeof peer);
    if (note->tag == MPI_ANY_TAG)
        snprintf(tag, sizeof tag, "MPI_ANY_TAG");
    else
        snprintf(tag, sizeof tag, "%d", note->tag);
    snprintf(buf, len, "%s(%s=%s, tag=%s, comm=%s)", call,
             note->kind == TM_P2P_REQ_SEND ? "dest" : "source", peer, tag, note->comm);
}

void tm_p2p_request_describe(const tm_p2p_request_t *req, char *buf, size_t len)
{
    tm_p2p_request_note_t note;
    tm_p2p_request_note(req, &note);
    tm_p2p_request_note_words(&note, buf, len);
}

void tm_p2p_request_blocked_note(void *req, tm_p2p_blocked_note_t *out)
{
    out->call = NULL;
    out->count = out->pending = 1;
    tm_p2p_request_note(req, &out->first);
}
