/* ARMCI memory: where segments come from (the emunic registered heap,
 * which the NIC copies with one memcpy and a node's processes can map, or
 * private memory), and the table of collective allocations that every
 * remote address is checked against. */
#ifndef ARMCII_MEM_H
#define ARMCII_MEM_H
#include <stddef.h>
#include <stdint.h>

enum { ARMCII_MEM_HEAP, ARMCII_MEM_PRIVATE };

void *armcii_mem_alloc(size_t len, int kind);
void armcii_mem_free(void *p, int kind);
/* A pointer this process can use for [raddr, raddr+len) of proc's memory
 * (proc on this node, address in its heap), or NULL. */
void *armcii_mem_local(int proc, const void *raddr, size_t len);

/* One collective allocation. state[] holds per-target conflict bits. */
struct armcii_seg {
    int id;
    int kind;
    void *mine;
    uintptr_t *base; /* per world rank, 0 if it has no part */
    size_t *len;
    uint8_t *state;
    struct armcii_seg *next;
};

/* The segment of proc holding [addr, addr+len), or NULL. */
struct armcii_seg *armcii_seg_find(int proc, const void *addr, size_t len);
/* Same, but a miss is an ARMCI_Error naming fn and what. */
struct armcii_seg *armcii_seg_check(int proc, const void *addr, size_t len, const char *fn,
                                    const char *what);
void armcii_check_proc(int proc, const char *fn);
/* Clear conflict bits of proc in every segment. */
void armcii_seg_clear(int proc, uint8_t bits);
void armcii_mem_finalize(void);
#endif
