/*
 * signgam, the sign of the last lgamma result, for each rank on its own: linked into each rank's
 * private copy of the program (see rank_getopt.c), with lgamma, lgammaf and lgammal, which set
 * this copy's through their reentrant forms. A program that calls them links the math library.
 */
#include <math.h>

int signgam;

double lgamma(double x)
{
    return lgamma_r(x, &signgam);
}

float lgammaf(float x)
{
    return lgammaf_r(x, &signgam);
}

long double lgammal(long double x)
{
    return lgammal_r(x, &signgam);
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak signgam
#pragma weak lgamma
#pragma weak lgammaf
#pragma weak lgammal
