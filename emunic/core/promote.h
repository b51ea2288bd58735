/* Moving exposed private memory onto memfds (promote.c; not installed). */
#ifndef EMUNIC_PROMOTE_H
#define EMUNIC_PROMOTE_H

#include <stdint.h>

struct emu_rank_info;

/* Before [base, base+len) is exposed: if its whole pages are private
 * anonymous memory of at least EMUNIC_PRIVATE_MAP_MIN bytes (64 KiB;
 * EMUNIC_PRIVATE_MAP=0: never), move them onto a memfd listed in
 * me->promo[] (or find the slot of a range moved before). Returns the
 * slot, not usable by NICs until emu_promote_serve names its region, or
 * -1 with nothing changed. Caller holds the client lock. */
int emu_promote(struct emu_rank_info *me, uint64_t base, uint64_t len);
/* NICs may use slot's mapping while region `key` is live. */
void emu_promote_serve(struct emu_rank_info *me, int slot, uint32_t key);
/* After region `key` was retracted: the range it moved goes back onto
 * private anonymous memory (what allocators expect of it), contents kept,
 * unless another live exposure moved the same range (then it serves that). */
void emu_promote_release(struct emu_rank_info *me, uint32_t key);

#endif
