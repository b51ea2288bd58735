/* The job's network as a torus, for the personalities' topology queries
 * (PAMI's EXT_torus_network): the machine model's dimensions and wrap when
 * it has a topology; otherwise one open line of the job's nodes. Ranks on
 * a node are one more, last dimension (BG/Q's T). */
#include <errno.h>
#include <string.h>

#include "client.h"
#include "emunic/model.h"

#define CL emu_cl

static int modelled(const struct emu_machine *m)
{
    return m->ndims > 0 && m->ndims < EMUNIC_TORUS_MAX_DIMS;
}

int emunic_torus_shape(struct emunic_torus *t)
{
    if (CL.refs <= 0)
        return -ENOENT;
    const struct emu_machine *m = &emu_job_netcfg(&CL.job)->m;
    memset(t, 0, sizeof *t);
    if (modelled(m)) {
        t->ndims = m->ndims + 1;
        for (uint32_t d = 0; d < m->ndims; d++) {
            t->size[d] = m->dims[d] ? m->dims[d] : 1;
            t->wrap[d] = (m->torus_mask >> d) & 1u;
        }
    } else {
        t->ndims = 2;
        t->size[0] = CL.job.geo.nnodes;
    }
    t->size[t->ndims - 1] = CL.job.geo.ranks_per_node;
    t->wrap[t->ndims - 1] = 1;
    return 0;
}

int emunic_torus_coords(uint32_t rank, uint32_t *coords)
{
    struct emunic_torus t;
    int rc = emunic_torus_shape(&t);
    if (rc)
        return rc;
    if (rank >= CL.job.geo.nranks)
        return -EINVAL;
    uint32_t node = rank / CL.job.geo.ranks_per_node;
    const struct emu_machine *m = &emu_job_netcfg(&CL.job)->m;
    if (modelled(m))
        emu_model_coords(m, node, coords);
    else
        coords[0] = node;
    coords[t.ndims - 1] = rank % CL.job.geo.ranks_per_node;
    return 0;
}

int emunic_torus_rank(const uint32_t *coords, uint32_t *rank)
{
    struct emunic_torus t;
    int rc = emunic_torus_shape(&t);
    if (rc)
        return rc;
    for (uint32_t d = 0; d < t.ndims; d++)
        if (coords[d] >= t.size[d])
            return -EINVAL;
    const struct emu_machine *m = &emu_job_netcfg(&CL.job)->m;
    uint32_t node = modelled(m) ? emu_model_node_at(m, coords) : coords[0];
    if (node >= CL.job.geo.nnodes)
        return -ENOENT; /* a place of the machine the job has no node on */
    *rank = node * CL.job.geo.ranks_per_node + coords[t.ndims - 1];
    return 0;
}
