/* For dcmf_shims.c: the BG/P kernel's core queries called from a file that
 * does not include spi/bgp_SPI.h, as clients do (A1's DCMF benchmarks call
 * Kernel_PhysicalProcessorID with no declaration at all): they must link
 * against libdcmf's functions. */
#include "dcmf_shims_kernel.h"

int Kernel_PhysicalProcessorID(void);
int Kernel_ProcessCount(void);

void shims_kernel_linked(int *core, int *count)
{
    *core = Kernel_PhysicalProcessorID();
    *count = Kernel_ProcessCount();
}
