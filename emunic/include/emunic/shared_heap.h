/* Memory for a personality's NIC state that every daemon of the job maps
 * at the same address: each node's arena in the daemons' object. A node's
 * arena is touched only by whoever holds that node's lock (its own daemon
 * in a turn, or another daemon applying one operation for its rank), so
 * a module keeps there what another daemon needs to run the node's target
 * work (nicd/fastpath.c). No rank maps it. */
#ifndef EMUNIC_SHARED_HEAP_H
#define EMUNIC_SHARED_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* n zeroed bytes in node's arena, or NULL if it is full or unmapped. */
void *emu_shared_alloc(uint32_t node, size_t n);
/* n zeroed bytes in the arena that holds p (a module's own objects grow
 * in their node's arena), or NULL. */
void *emu_shared_alloc_near(const void *p, size_t n);
/* Give back what emu_shared_alloc* returned (NULL is ignored). */
void emu_shared_free(void *p);
/* The state a module keeps for node, published by node's own daemon
 * (set_root), and found by the others: NULL unless both that daemon and
 * this one map the arenas at the shared address. */
void emu_shared_set_root(uint32_t node, uint8_t module, void *state);
void *emu_shared_root(uint32_t node, uint8_t module);

#endif
