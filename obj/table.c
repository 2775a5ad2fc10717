/*
 * Per-rank handle tables: a growing array of object pointers, one table per kind of handle.
 * A freed slot is reused by the next object, so handle values stay small; handles are only
 * meaningful to the rank that created them (each rank runs its own copy of the program).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "obj/obj.h"

int tm_mpi_table_add(tm_mpi_table_t *t, void *obj)
{
    void **slots;
    int cap;

    for (int i = 0; i < t->len; i++)
        if (t->slots[i] == NULL) {
            t->slots[i] = obj;
            return i;
        }
    if (t->len == t->cap) {
        cap = t->cap ? 2 * t->cap : 16;
        /* Payloads have 26 bits; stay well below them. */
        if (cap > (1 << 24))
            return -ENOMEM;
        slots = realloc(t->slots, (size_t)cap * sizeof(*slots));
        if (slots == NULL)
            return -ENOMEM;
        t->slots = slots;
        t->cap = cap;
    }
    t->slots[t->len] = obj;
    return t->len++;
}

void *tm_mpi_table_get(const tm_mpi_table_t *t, long index)
{
    if (index < 0 || index >= t->len)
        return NULL;
    return t->slots[index];
}

void tm_mpi_table_remove(tm_mpi_table_t *t, int index)
{
    t->slots[index] = NULL;
    while (t->len > 0 && t->slots[t->len - 1] == NULL)
        t->len--;
}

void tm_mpi_table_destroy(tm_mpi_table_t *t)
{
    free(t->slots);
    t->slots = NULL;
    t->len = 0;
    t->cap = 0;
}
