/* Request storage in use. Whether a client's DCMF_Request_t (or
 * DCMF_CollectiveRequest_t) is still carrying an operation is the
 * library's own record, never read from the storage: the client owns those
 * bytes again from the operation's last callback on and may have written
 * anything there since, leftovers of ours included.
 *
 * A hash set of address ranges, keyed by the 512-byte block the range
 * starts in; ranges are at most BUSY_MAX_LEN long, so every range that can
 * overlap a given one starts in one of a few blocks around it. Used under
 * the library's lock only. */
#include <stdint.h>
#include <stdlib.h>

#include "dcmf_lib.h"

#define BLOCK_SHIFT 9
#define BUSY_MAX_LEN ((size_t)DCMF_COLLECTIVE_REQUEST_NQUADS * sizeof(DCQuad))

struct ent {
    uintptr_t a;
    size_t len;
    struct ent *next;
};

static struct ent **tab;
static size_t nbuckets, count;

static size_t bucket(uintptr_t block)
{
    return (size_t)((block * 0x9e3779b97f4a7c15ull) >> 17) & (nbuckets - 1);
}

static int grow(void)
{
    size_t n = nbuckets ? 2 * nbuckets : 64;
    struct ent **t = calloc(n, sizeof *t);
    if (!t)
        return -1;
    struct ent **old = tab;
    size_t oldn = nbuckets;
    tab = t;
    nbuckets = n;
    for (size_t i = 0; i < oldn; i++)
        for (struct ent *e = old[i], *next; e; e = next) {
            next = e->next;
            size_t b = bucket(e->a >> BLOCK_SHIFT);
            e->next = tab[b];
            tab[b] = e;
        }
    free(old);
    return 0;
}

int dcmfl_busy_add(const void *p, size_t len)
{
    if (len > BUSY_MAX_LEN)
        len = BUSY_MAX_LEN;
    if ((count >= 2 * nbuckets && grow() != 0) || !tab)
        return -1;
    struct ent *e = malloc(sizeof *e);
    if (!e)
        return -1;
    e->a = (uintptr_t)p;
    e->len = len;
    size_t b = bucket(e->a >> BLOCK_SHIFT);
    e->next = tab[b];
    tab[b] = e;
    count++;
    return 0;
}

void dcmfl_busy_del(const void *p)
{
    if (!tab)
        return;
    uintptr_t a = (uintptr_t)p;
    for (struct ent **pp = &tab[bucket(a >> BLOCK_SHIFT)]; *pp; pp = &(*pp)->next)
        if ((*pp)->a == a) {
            struct ent *e = *pp;
            *pp = e->next;
            free(e);
            count--;
            return;
        }
}

int dcmfl_busy_has(const void *p)
{
    if (!tab)
        return 0;
    uintptr_t a = (uintptr_t)p;
    for (struct ent *e = tab[bucket(a >> BLOCK_SHIFT)]; e; e = e->next)
        if (e->a == a)
            return 1;
    return 0;
}

int dcmfl_busy_overlaps(const void *p, size_t len)
{
    if (!tab || !len)
        return 0;
    uintptr_t a = (uintptr_t)p, end = a + len;
    uintptr_t first = (a > BUSY_MAX_LEN ? a - BUSY_MAX_LEN : 0) >> BLOCK_SHIFT;
    uintptr_t last = (end - 1) >> BLOCK_SHIFT;
    for (uintptr_t blk = first; blk <= last; blk++)
        for (struct ent *e = tab[bucket(blk)]; e; e = e->next)
            if (e->a >> BLOCK_SHIFT == blk && e->a < end && a < e->a + e->len)
                return 1;
    return 0;
}

void dcmfl_busy_clear(void)
{
    for (size_t i = 0; i < nbuckets; i++)
        while (tab[i]) {
            struct ent *e = tab[i];
            tab[i] = e->next;
            free(e);
        }
    free(tab);
    tab = NULL;
    nbuckets = count = 0;
}
