/* Timed delivery: a binary min-heap (see timeq.h). */
#include "timeq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tq_ent {
    int64_t due;
    uint64_t seq;
    uint32_t node;
    struct emu_msg m;
};

static struct {
    struct tq_ent *h;
    size_t n, cap, max;
    uint64_t seq;
    int64_t *last; /* [nnodes] last due ordered per destination */
    uint32_t nnodes;
} tq;

int timeq_init(uint32_t nnodes)
{
    timeq_fini();
    tq.last = calloc(nnodes ? nnodes : 1, sizeof *tq.last);
    if (!tq.last)
        return -ENOMEM;
    tq.nnodes = nnodes;
    return 0;
}

void timeq_fini(void)
{
    free(tq.h);
    free(tq.last);
    memset(&tq, 0, sizeof tq);
}

int64_t timeq_order(uint32_t node, int64_t due)
{
    if (node >= tq.nnodes)
        return due;
    if (due < tq.last[node])
        due = tq.last[node];
    tq.last[node] = due;
    return due;
}

static int before(const struct tq_ent *a, const struct tq_ent *b)
{
    return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

int timeq_push(int64_t due, uint32_t node, const struct emu_msg *m)
{
    if (tq.n == tq.cap) {
        size_t cap = tq.cap ? 2 * tq.cap : 64;
        struct tq_ent *h = realloc(tq.h, cap * sizeof *h);
        if (!h)
            return -ENOMEM;
        tq.h = h;
        tq.cap = cap;
    }
    size_t i = tq.n++;
    struct tq_ent e = {.due = due, .seq = tq.seq++, .node = node, .m = *m};
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &tq.h[p]))
            break;
        tq.h[i] = tq.h[p];
        i = p;
    }
    tq.h[i] = e;
    if (tq.n > tq.max)
        tq.max = tq.n;
    return 0;
}

int timeq_pop(int64_t now, uint32_t *node, struct emu_msg *m)
{
    if (!tq.n || tq.h[0].due > now)
        return 0;
    *node = tq.h[0].node;
    *m = tq.h[0].m;
    struct tq_ent last = tq.h[--tq.n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= tq.n)
            break;
        if (c + 1 < tq.n && before(&tq.h[c + 1], &tq.h[c]))
            c++;
        if (!before(&tq.h[c], &last))
            break;
        tq.h[i] = tq.h[c];
        i = c;
    }
    if (tq.n)
        tq.h[i] = last;
    return 1;
}

int64_t timeq_next_due(void) { return tq.n ? tq.h[0].due : INT64_MAX; }
size_t timeq_len(void) { return tq.n; }
size_t timeq_max(void) { return tq.max; }
