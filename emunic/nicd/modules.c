/* The table of personality NIC halves linked into the daemon. A
 * personality adds its module here; the engine knows nothing else of it. */
#include "nic.h"
#include "emunic/shared_heap.h"

#include <stdio.h>
#include <string.h>

extern const struct emu_module emu_selftest_module;
extern const struct emu_module emu_portals_module;
extern const struct emu_module emu_dcmf_module;
extern const struct emu_module emu_pami_module;

static const struct emu_module *const modules[] = {
    &emu_selftest_module,
    &emu_portals_module,
    &emu_dcmf_module,
    &emu_pami_module,
};

#define NMOD (sizeof modules / sizeof modules[0])

static const struct emu_module *find(uint8_t id)
{
    for (size_t i = 0; i < NMOD; i++)
        if (modules[i]->id == id)
            return modules[i];
    return NULL;
}

int modules_init(struct emu_nic *nic)
{
    for (size_t i = 0; i < NMOD; i++) {
        const struct emu_module *md = modules[i];
        if (md->init) {
            int rc = md->init(nic, &nic->mod_state[md->id]);
            if (rc) {
                fprintf(stderr, "emunic-nicd: module %s failed to start (%d)\n", md->name, rc);
                return rc;
            }
        }
    }
    return 0;
}

void modules_fini(struct emu_nic *nic)
{
    for (size_t i = 0; i < NMOD; i++)
        if (modules[i]->fini)
            modules[i]->fini(nic, nic->mod_state[modules[i]->id]);
}

static void unsupported(struct emu_nic *nic, struct emu_msg *m)
{
    EMU_CTR_ADD(nic->ctr, rejected, 1);
    if (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))
        emu_nic_ack(nic, m, EMU_E_NOTSUP, 0);
}

void modules_local(struct emu_nic *nic, struct emu_msg *m)
{
    const struct emu_module *md = find(m->module);
    if (!md) {
        unsupported(nic, m);
        return;
    }
    EMU_CTR_ADD(nic->ctr, module_ops, 1);
    if (md->on_local)
        md->on_local(nic, nic->mod_state[md->id], m);
    else
        emu_nic_route(nic, m);
}

void modules_target(struct emu_nic *nic, struct emu_msg *m)
{
    const struct emu_module *md = find(m->module);
    if (!md || !md->on_target) {
        unsupported(nic, m);
        return;
    }
    md->on_target(nic, nic->mod_state[md->id], m);
}

int modules_has_peer(uint8_t id)
{
    const struct emu_module *md = find(id);
    return md && md->on_peer_target;
}

int modules_peer_target(struct emu_nic *nic, uint32_t node, struct emu_msg *m)
{
    const struct emu_module *md = find(m->module);
    void *st = md && md->on_peer_target ? emu_shared_root(node, md->id) : NULL;
    return st && md->on_peer_target(nic, st, m);
}

int modules_progress(struct emu_nic *nic)
{
    int work = 0;
    for (size_t i = 0; i < NMOD; i++)
        if (modules[i]->progress)
            work += modules[i]->progress(nic, nic->mod_state[modules[i]->id]);
    return work;
}
