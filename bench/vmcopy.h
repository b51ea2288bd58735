/* Floors for the NIC's private-memory path, measured without emunic: the
 * caller (in the NIC's role) copies between two forked helper processes
 * that each hold a private buffer, with process_vm_readv/writev.
 *   VM_READV    one process_vm_readv from a helper into the caller's own
 *               memory: the one-copy floor (heap <-> private in emunic)
 *   VM_BOUNCE   process_vm_readv from helper A into a bounce buffer, then
 *               process_vm_writev from it into helper B, chunk by chunk:
 *               what the NIC does for private -> private */
#ifndef EMUNIC_BENCH_VMCOPY_H
#define EMUNIC_BENCH_VMCOPY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vmcopy {
    pid_t src, dst;  /* helpers; their buffers sit at `remote` */
    char *remote;    /* address of the helpers' buffers (and of ours) */
    char *bounce;
    size_t bytes, bounce_bytes;
};

/* buf (bytes long, already touched) is the caller's private buffer; the
 * helpers are forked with their own copies of it at the same address.
 * Returns 0 or -1. */
int vmcopy_open(struct vmcopy *v, char *buf, size_t bytes, size_t max_chunk);
void vmcopy_close(struct vmcopy *v);

/* Copy len bytes at offset off: VM_READV from src into `into` (the
 * caller's memory), or VM_BOUNCE from src to dst in chunks of `chunk`.
 * Returns 0 or -1. */
int vmcopy_readv(struct vmcopy *v, uint64_t off, void *into, size_t len);
int vmcopy_bounce(struct vmcopy *v, uint64_t off, size_t len, size_t chunk);

#endif
