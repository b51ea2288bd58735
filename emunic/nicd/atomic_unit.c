/* The NIC's atomic unit, shared by the core's atomics and personalities'
 * (Portals atomics, PAMI rmw, DCMF ...): bring target and operand into
 * daemon memory (or use the heap mapping directly), apply, write back. */
#include "nic.h"

#include "emunic/atomic_op.h"

static int apply(struct emu_nic *nic, const struct emu_msg *m, int fetch, void *fetch_out);

int emu_nic_atomic(struct emu_nic *nic, const struct emu_msg *m, int fetch)
{
    return apply(nic, m, fetch, NULL);
}

int nic_atomic_into(struct emu_nic *nic, const struct emu_msg *m, void *old)
{
    return apply(nic, m, 1, old);
}

/* Bring target and operand into daemon memory (or use the heap mapping
 * directly), apply, and write back what changed. fetch_out: where the old
 * value goes instead of (m->src, m->aux). */
static int apply(struct emu_nic *nic, const struct emu_msg *m, int fetch, void *fetch_out)
{
    int st = EMU_OK;
    const void *operand = m->data;
    char *opbuf = NULL, *tbuf = NULL, *fbuf = NULL;
    if (!(m->flags & EMU_F_INLINE)) {
        opbuf = nic->bounce;
        st = emu_nic_copy_out(nic, opbuf, m->src, m->laddr, m->len);
        if (st != EMU_OK)
            return st;
        operand = opbuf;
    }
    /* the bounce buffer is 2 MiB: operand in the first half, a copy of a
     * private target in the second (atomics are at most 1 MiB) */
    char *target = xfer_heap_ptr(nic, m->dst, m->raddr, m->len);
    if (!target) {
        tbuf = nic->bounce + (1u << 20);
        st = emu_nic_copy_out(nic, tbuf, m->dst, m->raddr, m->len);
        if (st != EMU_OK)
            return st;
        target = tbuf;
    }
    /* The old value is in our memory now (heap mapping or tbuf): small
     * fetches keep a copy on the stack, large ones go out before applying.
     * Never through emu_nic_copy: its private-to-private bounce is the
     * buffer holding the operand. */
    char fetch_small[EMU_INLINE_MAX];
    if (fetch) {
        if (fetch_out)
            fbuf = fetch_out;
        else if (m->len <= sizeof fetch_small)
            fbuf = fetch_small;
        else if ((st = emu_nic_copy_in(nic, m->src, m->aux, target, m->len)) != EMU_OK)
            return st;
    }
    if (emu_atomic_apply(m->aop, m->dtype, target, operand, m->operand, m->len, fbuf) != 0)
        return EMU_E_INVAL;
    if (tbuf && (st = emu_nic_copy_in(nic, m->dst, m->raddr, tbuf, m->len)) != EMU_OK)
        return st;
    /* applied: an initiator that exited since (it finalized right after
     * the operation fired) only misses its copy of the old value */
    if (fbuf && !fetch_out && (st = emu_nic_copy_in(nic, m->src, m->aux, fbuf, m->len)) == EMU_E_DEAD)
        st = EMU_E_NORESULT;
    return st;
}

