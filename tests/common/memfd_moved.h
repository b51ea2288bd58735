/* Whether [lo, hi) is exactly one mapping of a memfd emunic moved exposed
 * private memory onto (core/promote.c): what the tests of that move read
 * from /proc/self/maps. -1 if the maps cannot be read. */
#ifndef TESTS_MEMFD_MOVED_H
#define TESTS_MEMFD_MOVED_H

#include <stdio.h>
#include <string.h>

static inline int memfd_moved(unsigned long long lo, unsigned long long hi)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    char line[768];
    int yes = 0;
    while (!yes && fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        if (sscanf(line, "%llx-%llx", &a, &b) == 2 && a == lo && b == hi && strstr(line, "memfd:emunic-private"))
            yes = 1;
    }
    fclose(f);
    return yes;
}

#endif
