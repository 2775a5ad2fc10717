/*
 * The C library's one hash table (hcreate, hsearch, hdestroy), for each rank on its own: linked
 * into each rank's private copy of the program (see rank_getopt.c), through the reentrant forms
 * on this copy's table.
 */
#include <search.h>
#include <stddef.h>

static struct hsearch_data table;

int hcreate(size_t nel)
{
    return hcreate_r(nel, &table);
}

ENTRY *hsearch(ENTRY item, ACTION action)
{
    ENTRY *found;
    return hsearch_r(item, action, &found, &table) ? found : NULL;
}

void hdestroy(void)
{
    hdestroy_r(&table);
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak hcreate
#pragma weak hsearch
#pragma weak hdestroy
