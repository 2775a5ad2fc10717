/*
 * The C library's string functions that keep state between calls or return a static buffer, for
 * each rank on its own: strtok, strerror, strsignal, inet_ntoa, ecvt, fcvt, l64a. Linked into
 * each rank's private copy of the program (see rank_getopt.c), each through its reentrant form,
 * or written out, on this copy's state.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <float.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *strtok(char *str, const char *delim)
{
    static char *next;
    return strtok_r(str, delim, &next);
}

char *strerror(int errnum)
{
    static char unknown[64]; /* "Unknown error N": known errors' texts are constants */
    return strerror_r(errnum, unknown, sizeof unknown);
}

char *strsignal(int sig)
{
    static char unknown[64]; /* known signals' texts are constants */
    const char *known = sigdescr_np(sig);
    if (known)
        return (char *)known;
    if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        snprintf(unknown, sizeof unknown, "Real-time signal %d", sig - SIGRTMIN);
    else
        snprintf(unknown, sizeof unknown, "Unknown signal %d", sig);
    return unknown;
}

/* Digits of ecvt and fcvt: fcvt writes every digit before the point of a double, and up to as
 * many after. */
#define CVT_DIGITS (DBL_MAX_10_EXP + DBL_DIG + 2)

char *ecvt(double value, int ndigit, int *decpt, int *sign)
{
    static char digits[CVT_DIGITS + 1];
    return ecvt_r(value, ndigit, decpt, sign, digits, sizeof digits) == 0 ? digits : NULL;
}

char *fcvt(double value, int ndigit, int *decpt, int *sign)
{
    static char digits[CVT_DIGITS + 1];
    return fcvt_r(value, ndigit, decpt, sign, digits, sizeof digits) == 0 ? digits : NULL;
}

char *l64a(long value)
{
    /* The low 32 bits, six at a time from the lowest, as base-64 digits (XPG). */
    static const char alphabet[] =
        "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    static char text[7];
    unsigned long bits = (unsigned long)value & 0xffffffffUL;
    int i = 0;
    for (; bits; bits >>= 6)
        text[i++] = alphabet[bits & 0x3f];
    text[i] = '\0';
    return text;
}

char *inet_ntoa(struct in_addr in)
{
    static char text[INET_ADDRSTRLEN];
    const unsigned char *b = (const unsigned char *)&in.s_addr; /* network order */
    snprintf(text, sizeof text, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    return text;
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak strtok
#pragma weak strerror
#pragma weak strsignal
#pragma weak ecvt
#pragma weak fcvt
#pragma weak l64a
#pragma weak inet_ntoa
