/* Memory an operation touches on one side: contiguous, or described by a
 * ptl_iovec_t array in the owning rank's memory (PTL_IOVEC MDs and list
 * entries). Copies walk both sides' segments piecewise; an atomic must
 * fall inside one segment. */
#include <string.h>

#include "ptl_nic.h"

#define IOV_MAX_READ PTLX_MAX_IOV

/* Load the segment table of an iovec span into daemon memory. */
static int load(struct emu_nic *nic, const struct span *s, ptl_iovec_t *v)
{
    if (!s->iov)
        return 1;
    if (s->count == 0 || s->count > IOV_MAX_READ)
        return -1;
    return emu_nic_copy_out(nic, v, s->rank, s->addr, (uint64_t)s->count * sizeof *v) == EMU_OK ? (int)s->count : -1;
}

/* Address of byte off of span s and how many bytes follow in its segment. */
static int locate(const struct span *s, const ptl_iovec_t *v, int n, uint64_t off, uint64_t *addr, uint64_t *room)
{
    if (!s->iov) {
        *addr = s->addr + off;
        *room = UINT64_MAX - off;
        return 0;
    }
    for (int k = 0; k < n; k++) {
        if (off < v[k].iov_len) {
            *addr = (uint64_t)(uintptr_t)v[k].iov_base + off;
            *room = v[k].iov_len - off;
            return 0;
        }
        off -= v[k].iov_len;
    }
    return -1;
}

uint64_t ptln_span_total(struct emu_nic *nic, const struct span *s)
{
    static ptl_iovec_t v[IOV_MAX_READ];
    int n = load(nic, s, v);
    if (n < 0)
        return 0;
    uint64_t t = 0;
    for (int k = 0; k < n; k++)
        t += v[k].iov_len;
    return t;
}

int ptln_span_copy(struct emu_nic *nic, const struct span *d, uint64_t doff, const struct span *s, uint64_t soff,
                   const void *inline_src, uint64_t len)
{
    static ptl_iovec_t dv[IOV_MAX_READ], sv[IOV_MAX_READ];
    int dn = load(nic, d, dv), sn = inline_src ? 1 : load(nic, s, sv);
    if (dn < 0 || sn < 0)
        return EMU_E_FAULT;
    uint64_t done = 0;
    while (done < len) {
        uint64_t da, droom, sa = 0, sroom = UINT64_MAX;
        if (locate(d, dv, dn, doff + done, &da, &droom) ||
            (!inline_src && locate(s, sv, sn, soff + done, &sa, &sroom)))
            return EMU_E_FAULT;
        uint64_t n = len - done;
        n = n < droom ? n : droom;
        n = n < sroom ? n : sroom;
        int st = inline_src ? emu_nic_copy_in(nic, d->rank, da, (const char *)inline_src + done, n)
                            : emu_nic_copy(nic, d->rank, da, s->rank, sa, n);
        if (st != EMU_OK)
            return st;
        done += n;
    }
    return EMU_OK;
}

int ptln_span_flat(struct emu_nic *nic, const struct span *s, uint64_t off, uint64_t len, uint64_t *addr)
{
    static ptl_iovec_t v[IOV_MAX_READ];
    int n = load(nic, s, v);
    uint64_t room;
    if (n < 0 || locate(s, v, n, off, addr, &room) || (len && room < len))
        return -1;
    return 0;
}
