/* Node-shared memory: a rank may map the registered heap of another rank on
 * its node, as ARMCI's shared-memory segments let a node's processes (and
 * its communication helper) touch each other's data directly. Mappings are
 * cached for the life of the process. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client.h"
#include "emunic/memfd.h"

#define CL emu_cl

static struct peer_map {
    char *ptr;
    size_t size;
} *peers;
static uint32_t npeers;
static pthread_mutex_t peers_mu = PTHREAD_MUTEX_INITIALIZER;

void *emunic_peer_heap(uint32_t rank, size_t *len)
{
    if (!CL.refs || rank >= CL.size || emu_job_node_of(&CL.job, rank) != CL.node) {
        errno = EINVAL;
        return NULL;
    }
    if (rank == CL.rank) {
        if (len)
            *len = CL.heap.size;
        return CL.heap_base;
    }
    pthread_mutex_lock(&peers_mu);
    if (!peers) {
        peers = calloc(CL.size, sizeof *peers);
        npeers = peers ? CL.size : 0;
    }
    char *p = rank < npeers ? peers[rank].ptr : NULL;
    if (!p && rank < npeers &&
        atomic_load_explicit(&CL.job.ranks[rank].heap_base, memory_order_acquire)) {
        /* its pid entry is its own to write: only a heap of this job's
         * size, called by its name, is taken from that process */
        char name[EMU_OBJ_NAME_MAX], what[32];
        snprintf(what, sizeof what, "heap.%u", rank);
        int fd = emu_obj_name(name, sizeof name, CL.job.geo.jobid, what) == 0
                     ? emu_memfd_open(atomic_load(&CL.job.ranks[rank].pid), name, O_RDWR)
                     : -EINVAL;
        if (fd >= 0) {
            p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &peers[rank].size);
            close(fd);
            if (p && peers[rank].size != CL.job.geo.heap_size) {
                munmap(p, peers[rank].size);
                p = NULL;
            }
            peers[rank].ptr = p;
        }
    }
    if (p && len)
        *len = peers[rank].size;
    pthread_mutex_unlock(&peers_mu);
    if (!p)
        errno = ENOENT;
    return p;
}
