/* A rank for the --dilate test: sleeps 100 ms (real) and prints how long
 * that took on CLOCK_MONOTONIC, CLOCK_REALTIME, gettimeofday and time():
 * "mono_ms real_ms tod_ms". With --dilate K the clocks run K times slower. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static double ms(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

int main(void)
{
    struct timespec m0, m1, r0, r1;
    struct timeval t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &m0);
    clock_gettime(CLOCK_REALTIME, &r0);
    gettimeofday(&t0, NULL);
    struct timespec d = {0, 100000000};
    nanosleep(&d, NULL);
    clock_gettime(CLOCK_MONOTONIC, &m1);
    clock_gettime(CLOCK_REALTIME, &r1);
    gettimeofday(&t1, NULL);
    double tod = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_usec - t0.tv_usec) / 1e3;
    printf("%.3f %.3f %.3f %ld\n", ms(&m0, &m1), ms(&r0, &r1), tod, (long)time(NULL));
    return 0;
}
