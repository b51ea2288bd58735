#include "emunic/counters.h"

void emu_counters_print(FILE *f, const char *prefix,
                        const struct emu_nic_counters *c)
{
#define EMU_CTR_PRINT(name, doc)                                          \
    fprintf(f, "%s%-12s %12llu  %s\n", prefix, #name,                   \
            (unsigned long long)atomic_load_explicit(&c->name,            \
                                                     memory_order_relaxed), doc);
    EMU_COUNTERS(EMU_CTR_PRINT)
#undef EMU_CTR_PRINT
}
