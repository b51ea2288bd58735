/* A program that defines ARMCI's message.h constants itself, as GA's and
 * A1's headers spell them, and then includes ours: the redefinitions must
 * be identical (this file is built with -Werror, and a differing macro
 * redefinition is a diagnostic). defs_after.c does it the other way round;
 * main() checks the values against GA's ARMCI. */
#define ARMCI_INT       -99
#define ARMCI_LONG      -101
#define ARMCI_LONG_LONG -102
#define ARMCI_FLOAT     -306
#define ARMCI_DOUBLE    -307

#define SCOPE_ALL     333
#define SCOPE_NODE    337
#define SCOPE_MASTERS 339

#define ARMCI_MAX_STRIDE_LEVEL 8

#include <armci.h>
#include <message.h>

#include <stdio.h>

int defs_after(void);

#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
SAME(ARMCI_INT, -99);
SAME(ARMCI_LONG, -101);
SAME(ARMCI_LONG_LONG, -102);
SAME(ARMCI_FLOAT, -306);
SAME(ARMCI_DOUBLE, -307);
SAME(SCOPE_ALL, 333);
SAME(SCOPE_NODE, 337);
SAME(SCOPE_MASTERS, 339);
SAME(ARMCI_MAX_STRIDE_LEVEL, 8);

/* macros, not enumerators: the preprocessor sees them */
#if !defined(ARMCI_INT) || !defined(SCOPE_MASTERS) || ARMCI_DOUBLE != -307 || SCOPE_NODE != 337
#error "message.h's constants must be macros with GA's values"
#endif

int main(void)
{
    int n = defs_after();
    printf("message.h: ARMCI_INT %d ARMCI_LONG %d ARMCI_LONG_LONG %d ARMCI_FLOAT %d "
           "ARMCI_DOUBLE %d SCOPE_ALL %d SCOPE_NODE %d SCOPE_MASTERS %d; "
           "ARMCI_MAX_STRIDE_LEVEL %d; redefinitions before and after: ok (%d)\n",
           ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE, SCOPE_ALL,
           SCOPE_NODE, SCOPE_MASTERS, ARMCI_MAX_STRIDE_LEVEL, n);
    return n == 9 ? 0 : 1;
}
