/* The BG/P kernel's core queries as functions libdcmf exports, besides the
 * inline versions of spi/bgp_SPI.h: clients call them without including
 * the header (A1's DCMF micro-benchmarks do, declaring nothing), which
 * needs a symbol to link with. Both are the header's code, renamed while
 * it is included so that the exported names stay free. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* bgp_SPI.h needs POSIX and Linux declarations */
#endif

#define Kernel_PhysicalProcessorID emu_bgp_inline_processor_id_
#define Kernel_ProcessCount emu_bgp_inline_process_count_
#include <spi/bgp_SPI.h>
#undef Kernel_PhysicalProcessorID
#undef Kernel_ProcessCount

int Kernel_PhysicalProcessorID(void);
int Kernel_ProcessCount(void);

int Kernel_PhysicalProcessorID(void)
{
    return emu_bgp_inline_processor_id_();
}

int Kernel_ProcessCount(void)
{
    return emu_bgp_inline_process_count_();
}
