/*
 * The C library's time conversions that return a static result, for each rank on its own:
 * localtime, gmtime, ctime, asctime. Linked into each rank's private copy of the program (see
 * rank_getopt.c), through their reentrant forms. As in the C library, localtime and gmtime share
 * one result, ctime and asctime one text, ctime is asctime(localtime()), and localtime reads the
 * time zone again (tzset) at each call.
 */
#include <time.h>

static struct tm broken_down;
static char text[26]; /* "Thu Nov 26 14:02:31 2026\n" */

struct tm *localtime(const time_t *t)
{
    tzset();
    return localtime_r(t, &broken_down);
}

struct tm *gmtime(const time_t *t)
{
    return gmtime_r(t, &broken_down);
}

char *asctime(const struct tm *tm)
{
    return asctime_r(tm, text);
}

char *ctime(const time_t *t)
{
    struct tm *tm = localtime(t);
    return tm ? asctime(tm) : NULL;
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak localtime
#pragma weak gmtime
#pragma weak asctime
#pragma weak ctime
