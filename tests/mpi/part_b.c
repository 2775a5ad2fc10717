#include <math.h>

int hits;

double norm(double x, double y)
{
    return sqrt(x * x + y * y);
}
