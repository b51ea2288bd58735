/* dcmf_shims_kernel.c: libdcmf's linkable Kernel_* core queries. */
#ifndef DCMF_SHIMS_KERNEL_H
#define DCMF_SHIMS_KERNEL_H
void shims_kernel_linked(int *core, int *count);
#endif
