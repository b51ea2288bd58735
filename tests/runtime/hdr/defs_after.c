/* The other order (see defs_before.c): our headers first, then the
 * program's own identical definitions, spelled with other white space,
 * which C allows. */
#include <message.h>
#include <armci.h>

#define ARMCI_INT -99
#define ARMCI_LONG -101
#define ARMCI_LONG_LONG -102
#define ARMCI_FLOAT -306
#define ARMCI_DOUBLE -307
#define SCOPE_ALL 333
#define SCOPE_NODE 337
#define SCOPE_MASTERS 339
#define ARMCI_MAX_STRIDE_LEVEL 8

int defs_after(void);

/* A switch over them compiles (distinct constants). */
int defs_after(void)
{
    static const int v[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE,
                            SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS, ARMCI_MAX_STRIDE_LEVEL};
    int n = 0;
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        switch (v[i]) {
        case ARMCI_INT: case ARMCI_LONG: case ARMCI_LONG_LONG: case ARMCI_FLOAT:
        case ARMCI_DOUBLE: case SCOPE_ALL: case SCOPE_NODE: case SCOPE_MASTERS:
        case ARMCI_MAX_STRIDE_LEVEL:
            n++;
            break;
        default:
            break;
        }
    }
    return n;
}
