/* Collective allocation: each member allocates its part, the parts'
 * addresses are gathered, and the segment goes into the table every
 * remote address is checked against. */
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "armcii.h"
#include "coll.h"
#include "config.h"
#include "serial.h"

static struct armcii_seg *segs;
static int next_id;

void armcii_check_proc(int proc, const char *fn)
{
    if (proc < 0 || proc >= armcii_nproc())
        armcii_error(1, "%s: proc %d out of range 0..%d", fn, proc, armcii_nproc() - 1);
}

struct armcii_seg *armcii_seg_find(int proc, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    for (struct armcii_seg *s = segs; s; s = s->next) {
        uintptr_t b = s->base[proc];
        if (b && a >= b && a - b <= s->len[proc] && len <= s->len[proc] - (a - b))
            return s;
    }
    return NULL;
}

void armcii_seg_clear(int proc, uint8_t bits)
{
    for (struct armcii_seg *s = segs; s; s = s->next)
        s->state[proc] &= (uint8_t)~bits;
}

struct armcii_seg *armcii_seg_check(int proc, const void *addr, size_t len, const char *fn,
                                    const char *what)
{
    struct armcii_seg *s = armcii_seg_find(proc, addr, len);
    if (!s)
        armcii_error(1, "%s: %s %p (+%zu bytes) is not ARMCI memory of rank %d "
                     "(allocate it with ARMCI_Malloc)", fn, what, addr, len, proc);
    return s;
}

static int memdev_kind(const char *device, const char *fn)
{
    if (!device || !*device || !strcmp(device, "heap") || !strcmp(device, "default"))
        return ARMCII_MEM_HEAP;
    if (!strcmp(device, "private"))
        return ARMCII_MEM_PRIVATE;
    armcii_error(1, "%s: unknown memory device \"%s\" (heap, private)", fn, device);
}

struct part {
    uint64_t addr, len;
};

static int malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *g, int kind,
                        const char *fn)
{
    armcii_need_init(fn);
    if (!ptr_arr)
        armcii_error(1, "%s: ptr_arr is NULL", fn);
    if (bytes < 0)
        armcii_error(1, "%s: bytes %ld < 0", fn, bytes);
    if (!armcii_group_valid(g) || g->rank < 0)
        armcii_error(1, "%s: not a group the caller belongs to", fn);
    int n = armcii_nproc();
    struct armcii_seg *s = calloc(1, sizeof *s);
    struct part *all = calloc((size_t)g->size, sizeof *all);
    if (!s || !all || !(s->base = calloc((size_t)n, sizeof *s->base)) ||
        !(s->len = calloc((size_t)n, sizeof *s->len)) || !(s->state = calloc((size_t)n, 1)))
        armcii_error(1, "%s: out of memory for the segment table", fn);
    s->kind = kind;
    if (bytes > 0 && !(s->mine = armcii_mem_alloc((size_t)bytes, kind)))
        armcii_error(1, "%s: cannot allocate %ld bytes (%s memory); raise emunic-run --heap",
                     fn, bytes, kind == ARMCII_MEM_HEAP ? "registered heap" : "private");
    struct part me = {(uint64_t)(uintptr_t)s->mine, (uint64_t)bytes};
    if (s->mine && armcii_dev->mem_register &&
        armcii_dev->mem_register(s->mine, (size_t)bytes) != 0)
        armcii_error(1, "%s: the device could not register %ld bytes", fn, bytes);
    armcii_coll_allgather(g, &me, sizeof me, all);
    for (int i = 0; i < g->size; i++) {
        int w = g->grp_to_abs[i];
        s->base[w] = (uintptr_t)all[i].addr;
        s->len[w] = (size_t)all[i].len;
        ptr_arr[i] = (void *)(uintptr_t)all[i].addr;
    }
    free(all);
    s->id = next_id++;
    s->next = segs;
    segs = s;
    return 0;
}

static int free_group(void *ptr, ARMCI_Group *g, const char *fn)
{
    armcii_need_init(fn);
    if (!armcii_group_valid(g) || g->rank < 0)
        armcii_error(1, "%s: not a group the caller belongs to", fn);
    /* ranks that own no part pass NULL: find the segment by a member that does */
    uint64_t mine = (uint64_t)(uintptr_t)ptr, *all = calloc((size_t)g->size, sizeof *all);
    if (!all)
        armcii_error(1, "%s: out of memory", fn);
    ARMCI_AllFence();
    armcii_coll_allgather(g, &mine, sizeof mine, all);
    struct armcii_seg **pp = NULL;
    for (int i = 0; i < g->size && !pp; i++) {
        if (!all[i])
            continue;
        int w = g->grp_to_abs[i];
        for (struct armcii_seg **q = &segs; *q; q = &(*q)->next)
            if ((*q)->base[w] == (uintptr_t)all[i])
                pp = q;
        if (!pp)
            armcii_error(1, "%s: %p (rank %d) is not the start of an ARMCI allocation", fn,
                         (void *)(uintptr_t)all[i], w);
    }
    free(all);
    if (!pp)
        return 0; /* everybody passed NULL: nothing was allocated */
    struct armcii_seg *s = *pp;
    if (ptr && (uintptr_t)ptr != s->base[armcii_me()])
        armcii_error(1, "%s: %p is not the start of this rank's part", fn, ptr);
    *pp = s->next;
    if (s->mine) {
        if (armcii_dev->mem_deregister)
            armcii_dev->mem_deregister(s->mine, s->len[armcii_me()]);
        armcii_mem_free(s->mine, s->kind);
    }
    free(s->base);
    free(s->len);
    free(s->state);
    free(s);
    return 0;
}

int ARMCI_Malloc(void **ptr_arr, armci_size_t bytes)
{
    ARMCII_SERIAL;
    return malloc_group(ptr_arr, bytes, armcii_group_default(), ARMCII_MEM_HEAP, "ARMCI_Malloc");
}

int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    ARMCII_SERIAL;
    return malloc_group(ptr_arr, bytes, group, ARMCII_MEM_HEAP, "ARMCI_Malloc_group");
}

int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    ARMCII_SERIAL;
    return malloc_group(ptr_arr, bytes, armcii_group_default(),
                        memdev_kind(device, "ARMCI_Malloc_memdev"), "ARMCI_Malloc_memdev");
}

int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                              const char *device)
{
    ARMCII_SERIAL;
    return malloc_group(ptr_arr, bytes, group, memdev_kind(device, "ARMCI_Malloc_group_memdev"),
                        "ARMCI_Malloc_group_memdev");
}

int ARMCI_Free(void *ptr)
{
    ARMCII_SERIAL;
    return free_group(ptr, armcii_group_default(), "ARMCI_Free");
}

int ARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    ARMCII_SERIAL;
    return free_group(ptr, group, "ARMCI_Free_group");
}

int ARMCI_Free_memdev(void *ptr)
{
    ARMCII_SERIAL;
    return free_group(ptr, armcii_group_default(), "ARMCI_Free_memdev");
}

/* Local buffers come from the registered heap too, so transfers from them
 * take the NIC's memcpy path. */
void *ARMCI_Malloc_local(armci_size_t bytes)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Malloc_local");
    if (bytes < 0)
        armcii_error(1, "ARMCI_Malloc_local: bytes %ld < 0", bytes);
    return armcii_mem_alloc((size_t)bytes, ARMCII_MEM_HEAP);
}

int ARMCI_Free_local(void *ptr)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Free_local");
    armcii_mem_free(ptr, ARMCII_MEM_HEAP);
    return 0;
}

/* Direct local access needs no epoch here: the NIC writes host memory
 * coherently. The calls check their argument. */
void ARMCI_Access_begin(void *ptr)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Access_begin");
    armcii_seg_check(armcii_me(), ptr, 0, "ARMCI_Access_begin", "ptr");
}

void ARMCI_Access_end(void *ptr)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Access_end");
    armcii_seg_check(armcii_me(), ptr, 0, "ARMCI_Access_end", "ptr");
}

void ARMCI_Copy(void *src, void *dst, int bytes)
{
    ARMCII_SERIAL;
    if (bytes < 0 || (bytes && (!src || !dst)))
        armcii_error(1, "ARMCI_Copy: bad arguments (src %p, dst %p, bytes %d)", src, dst, bytes);
    memmove(dst, src, (size_t)bytes);
}

int ARMCI_Uses_shm(void)
{
    ARMCII_SERIAL;
    return armcii_cfg.shm;
}

int ARMCI_Uses_shm_grp(ARMCI_Group *group)
{
    ARMCII_SERIAL;
    if (!armcii_group_valid(group))
        armcii_error(1, "ARMCI_Uses_shm_grp: not a valid group");
    return armcii_cfg.shm;
}

void ARMCI_Set_shm_limit(unsigned long shmemlimit)
{
    ARMCII_SERIAL;
    (void)shmemlimit; /* the heap's size is set by emunic-run --heap */
}

void armcii_mem_finalize(void)
{
    while (segs) {
        struct armcii_seg *n = segs->next;
        if (segs->mine)
            armcii_mem_free(segs->mine, segs->kind);
        free(segs->base);
        free(segs->len);
        free(segs->state);
        free(segs);
        segs = n;
    }
}
