/* Bounce slots for sources longer than a command carries: the payload is
 * copied into the heap before the call returns, and the NIC clears the
 * slot's busy word once the target has read it. A volatile source that
 * finds every slot busy waits (poll, then sleep on the doorbell the NIC
 * rings after clearing one); any other source is then read in place. */
#include <stddef.h>

#include "state.h"

#define SLOTS 64

static struct ptlx_bounce *_Atomic pool;
static _Atomic unsigned cursor;

static int any_free(void *arg)
{
    struct ptlx_bounce *b = arg;
    for (int i = 0; i < SLOTS; i++)
        if (!atomic_load_explicit(&b[i].busy, memory_order_acquire))
            return 1;
    return 0;
}

static struct ptlx_bounce *pool_get(void)
{
    struct ptlx_bounce *b = atomic_load(&pool);
    if (b)
        return b;
    pthread_mutex_lock(&pl.mu);
    if (!(b = atomic_load(&pool)) && (b = emunic_malloc(SLOTS * sizeof *b))) {
        for (int i = 0; i < SLOTS; i++)
            atomic_init(&b[i].busy, 0);
        atomic_store(&pool, b);
    }
    pthread_mutex_unlock(&pl.mu);
    return b;
}

struct ptlx_bounce *pl_bounce_take(int wait)
{
    struct ptlx_bounce *b = pool_get();
    if (!b)
        return NULL;
    for (;;) {
        unsigned c = atomic_fetch_add(&cursor, 1);
        for (int k = 0; k < SLOTS; k++) {
            struct ptlx_bounce *s = &b[(c + (unsigned)k) % SLOTS];
            uint32_t z = 0;
            if (atomic_compare_exchange_strong(&s->busy, &z, 1))
                return s;
        }
        if (!wait || emunic_wait_until(any_free, b, -1) < 0)
            return NULL; /* all busy, or the NIC is gone */
    }
}

void pl_bounce_give_back(struct ptlx_bounce *s)
{
    atomic_store_explicit(&s->busy, 0, memory_order_release);
}

/* At the last PtlFini. A slot still busy is a put the NIC has not
 * finished reading: the pool stays allocated rather than letting the
 * NIC's release land in memory the heap hands out again. */
void pl_bounce_fini(void)
{
    struct ptlx_bounce *b = atomic_load(&pool);
    if (!b)
        return;
    atomic_store(&pool, NULL);
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&b[i].busy))
            return;
    emunic_free(b);
}
