/* Layout of the job segment and of the daemons' wire object. The layout
 * is a pure function of the header's parameters, so an attacher recomputes
 * it and rejects any header whose stored offsets or size disagree, before
 * following a single offset. */
#include "emunic/job.h"

#include "emunic/memfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

static uint64_t page_up(uint64_t x) { return (x + 4095) & ~(uint64_t)4095; }
static uint64_t line_up(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

struct layout {
    uint64_t off_ranks, off_nodes, off_cmd, off_cq, off_net, total;
    uint64_t cmd_bytes, cq_bytes, wire_bytes;
    uint64_t wire_off_locks, wire_off_fenced, wire_off_cqs, wire_off_rings, wire_off_home, wire_off_arena;
    uint64_t arena_bytes, wire_size;
};

static void compute(uint32_t nnodes, uint32_t rpn, uint32_t cmd, uint32_t cq,
                    uint32_t wire, struct layout *l)
{
    uint64_t nranks = (uint64_t)nnodes * rpn;
    /* a rank maps its own queues writable: whole pages each */
    l->cmd_bytes = page_up(emu_ring_bytes(cmd));
    l->cq_bytes = page_up(emu_ring_bytes(cq));
    l->wire_bytes = line_up(emu_ring_bytes(wire));
    l->off_ranks = page_up(sizeof(struct emu_job_hdr));
    l->off_nodes = page_up(l->off_ranks + nranks * sizeof(struct emu_rank_info));
    l->off_cmd = page_up(l->off_nodes + nnodes * sizeof(struct emu_node_info));
    l->off_cq = page_up(l->off_cmd + nranks * l->cmd_bytes);
    l->off_net = page_up(l->off_cq + nranks * l->cq_bytes);
    l->total = page_up(l->off_net + sizeof(struct emu_netcfg));
    l->wire_off_locks = line_up((uint64_t)nnodes * EMU_NET_LINKS_PER_NODE * sizeof(uint64_t));
    l->wire_off_fenced = l->wire_off_locks + (uint64_t)nnodes * sizeof(struct emu_wire_lock);
    l->wire_off_cqs = line_up(l->wire_off_fenced + nranks);
    l->wire_off_rings = page_up(l->wire_off_cqs + nranks * sizeof(struct emu_wire_cq));
    l->wire_off_home = page_up(l->wire_off_rings + nnodes * l->wire_bytes);
    l->wire_off_arena = l->wire_off_home + 4096;
    l->arena_bytes = (uint64_t)rpn * EMU_ARENA_PER_RANK;
    l->wire_size = l->wire_off_arena + nnodes * l->arena_bytes;
}

void emu_job_params_default(struct emu_job_params *p)
{
    memset(p, 0, sizeof *p);
    p->nnodes = 1;
    p->ranks_per_node = 1;
    p->heap_size = EMU_DEFAULT_HEAP;
    p->cmd_slots = 256;
    p->cq_slots = 512;
    p->wire_slots = 2048;
    snprintf(p->nic, sizeof p->nic, "core");
}

size_t emu_job_size(const struct emu_job_params *p)
{
    struct layout l;
    compute(p->nnodes, p->ranks_per_node, p->cmd_slots, p->cq_slots, p->wire_slots, &l);
    return l.total;
}

/* The limits both create and attach hold a job to. */
static int params_ok(uint32_t nnodes, uint32_t rpn, uint32_t cmd, uint32_t cq, uint32_t wire)
{
    if (!nnodes || nnodes > EMU_MAX_NODES || !rpn || rpn > EMU_MAX_RANKS_PER_NODE)
        return 0;
    const uint32_t slots[3] = {cmd, cq, wire};
    for (int i = 0; i < 3; i++)
        if (slots[i] < 2 || (slots[i] & (slots[i] - 1)) || slots[i] > (1u << 20))
            return 0;
    return 1;
}

/* Take the geometry from a validated header (a private snapshot on
 * attach) and point the tables with it. */
static void bind_tables(struct emu_job *j, const struct emu_job_hdr *h)
{
    struct emu_job_geo *g = &j->geo;
    struct layout l;
    compute(h->nnodes, h->ranks_per_node, h->cmd_slots, h->cq_slots, h->wire_slots, &l);
    g->nnodes = h->nnodes;
    g->ranks_per_node = h->ranks_per_node;
    g->nranks = h->nranks;
    g->cmd_slots = h->cmd_slots;
    g->cq_slots = h->cq_slots;
    g->wire_slots = h->wire_slots;
    g->heap_size = h->heap_size;
    g->off_ranks = h->off_ranks;
    g->off_nodes = h->off_nodes;
    g->off_cmd = h->off_cmd;
    g->off_cq = h->off_cq;
    g->off_net = h->off_net;
    g->cmd_bytes = h->cmd_bytes;
    g->cq_bytes = h->cq_bytes;
    g->wire_bytes = h->wire_bytes;
    g->wire_off_locks = l.wire_off_locks;
    g->wire_off_fenced = l.wire_off_fenced;
    g->wire_off_cqs = l.wire_off_cqs;
    g->wire_off_rings = l.wire_off_rings;
    g->wire_off_home = l.wire_off_home;
    g->wire_off_arena = l.wire_off_arena;
    g->arena_bytes = l.arena_bytes;
    g->wire_size = l.wire_size;
    g->created_ns = h->created_ns;
    g->launcher_pid = h->launcher_pid;
    memcpy(g->jobid, h->jobid, sizeof g->jobid);
    g->jobid[sizeof g->jobid - 1] = 0;
    memcpy(g->nic, h->nic, sizeof g->nic);
    g->nic[sizeof g->nic - 1] = 0;
    char *b = (char *)j->hdr;
    j->ranks = (struct emu_rank_info *)(b + g->off_ranks);
    j->nodes = (struct emu_node_info *)(b + g->off_nodes);
}

int emu_job_create(struct emu_job *j, const char *jobid,
                   const struct emu_job_params *p, const int *efds)
{
    struct layout l;
    char name[EMU_OBJ_NAME_MAX];
    if (!params_ok(p->nnodes, p->ranks_per_node, p->cmd_slots, p->cq_slots, p->wire_slots) ||
        strlen(jobid) >= EMU_JOBID_MAX || emu_obj_name(name, sizeof name, jobid, "job") != 0)
        return -EINVAL;
    compute(p->nnodes, p->ranks_per_node, p->cmd_slots, p->cq_slots, p->wire_slots, &l);
    int fd = emu_memfd_create(name, l.total, true);
    if (fd < 0)
        return fd;
    size_t size;
    struct emu_job_hdr *h = emu_fd_map(fd, PROT_READ | PROT_WRITE, &size);
    if (!h) {
        int e = errno;
        close(fd);
        return -e;
    }
    j->hdr = h;
    j->size = l.total;
    j->fd = fd;
    j->wire = NULL;
    j->wire_home = 0;
    h->version = EMU_JOB_VERSION;
    h->nnodes = p->nnodes;
    h->ranks_per_node = p->ranks_per_node;
    h->nranks = p->nnodes * p->ranks_per_node;
    h->cmd_slots = p->cmd_slots;
    h->cq_slots = p->cq_slots;
    h->wire_slots = p->wire_slots;
    h->launcher_pid = (int32_t)getpid();
    h->heap_size = p->heap_size;
    h->total_size = l.total;
    h->off_ranks = l.off_ranks;
    h->off_nodes = l.off_nodes;
    h->off_cmd = l.off_cmd;
    h->off_cq = l.off_cq;
    h->off_net = l.off_net;
    h->cmd_bytes = l.cmd_bytes;
    h->cq_bytes = l.cq_bytes;
    h->wire_bytes = l.wire_bytes;
    h->created_ns = emu_now_ns();
    snprintf(h->jobid, sizeof h->jobid, "%s", jobid);
    snprintf(h->nic, sizeof h->nic, "%s", p->nic);
    bind_tables(j, h);
    const struct emu_job_geo *g = &j->geo;
    for (uint32_t r = 0; r < g->nranks; r++) {
        struct emu_rank_info *ri = &j->ranks[r];
        ri->node = r / g->ranks_per_node;
        ri->local = r % g->ranks_per_node;
        ri->heap_size = g->heap_size;
        emu_waiter_init(&ri->cq_waiter, -1);
        emu_waiter_init(&ri->nic_bell, efds ? efds[ri->node] : -1);
        emu_ring_format(emu_job_cmd_ring(j, r), g->cmd_slots);
        emu_ring_format(emu_job_cq_ring(j, r), g->cq_slots);
    }
    for (uint32_t n = 0; n < g->nnodes; n++)
        emu_waiter_init(&j->nodes[n].doorbell, efds ? efds[n] : -1);
    /* the ideal machine until the launcher says otherwise */
    struct emu_netcfg *net = emu_job_netcfg(j);
    net->magic = EMU_NET_MAGIC;
    net->flags = EMU_NET_RELIABLE;
    net->dilate = 1.0;
    net->start_ns = h->created_ns;
    snprintf(net->m.name, sizeof net->m.name, "ideal");
    atomic_thread_fence(memory_order_release);
    h->magic = EMU_JOB_MAGIC;
    return 0;
}

static int header_ok(const struct emu_job_hdr *h, size_t size)
{
    if (size < sizeof *h || h->magic != EMU_JOB_MAGIC || h->version != EMU_JOB_VERSION)
        return 0;
    if (!params_ok(h->nnodes, h->ranks_per_node, h->cmd_slots, h->cq_slots, h->wire_slots) ||
        h->nranks != h->nnodes * h->ranks_per_node)
        return 0;
    struct layout l;
    compute(h->nnodes, h->ranks_per_node, h->cmd_slots, h->cq_slots, h->wire_slots, &l);
    return l.total == size && l.total == h->total_size &&
           l.off_ranks == h->off_ranks && l.off_nodes == h->off_nodes &&
           l.off_cmd == h->off_cmd && l.off_cq == h->off_cq &&
           l.off_net == h->off_net &&
           l.cmd_bytes == h->cmd_bytes &&
           l.cq_bytes == h->cq_bytes && l.wire_bytes == h->wire_bytes;
}

/* The job's segment, opened with oflags from whichever process holds it:
 * the launcher first, whose pid the job id starts with ($EMUNIC_JOB_FD:
 * at which descriptor). */
static int job_fd(const char *jobid, int oflags)
{
    char name[EMU_OBJ_NAME_MAX];
    if (!jobid || strlen(jobid) >= EMU_JOBID_MAX || emu_obj_name(name, sizeof name, jobid, "job") != 0)
        return -EINVAL;
    pid_t launcher = (pid_t)atoi(jobid);
    /* the launcher tells its children where it holds it: no scan of its
     * descriptors (a thousand at 256 ranks) in every rank */
    const char *at = getenv("EMUNIC_JOB_FD");
    if (at && *at) {
        int fd = emu_memfd_open_fd(launcher, atoi(at), name, oflags);
        if (fd >= 0)
            return fd;
    }
    return emu_memfd_find(name, oflags, launcher);
}

/* Validate the mapping p of size bytes and bind j to it. */
static int attach_mapped(struct emu_job *j, void *p, size_t size)
{
    j->hdr = p;
    j->size = size;
    j->fd = -1;
    j->wire = NULL;
    j->wire_home = 0;
    /* check and use one private snapshot: the shared header may change
     * under us (a rank's stray store) between a check and a use */
    struct emu_job_hdr snap;
    memset(&snap, 0, sizeof snap);
    if (size >= sizeof snap)
        memcpy(&snap, p, sizeof snap);
    if (!header_ok(&snap, size)) {
        munmap(p, size);
        j->hdr = NULL;
        return -EPROTO;
    }
    bind_tables(j, &snap);
    return 0;
}

/* Map the segment from fd with prot, validate it, and bind j. */
static int attach_fd(struct emu_job *j, int fd, int prot)
{
    size_t size;
    void *p = emu_fd_map(fd, prot, &size);
    return p ? attach_mapped(j, p, size) : -errno;
}

int emu_job_attach(struct emu_job *j, const char *jobid)
{
    int fd = job_fd(jobid, O_RDWR);
    if (fd < 0)
        return fd;
    int rc = attach_fd(j, fd, PROT_READ | PROT_WRITE);
    if (rc == 0)
        j->fd = fd; /* held, so that others find the job through us too */
    else
        close(fd);
    return rc;
}

/* Map [off, off + len) of fd writable over the read-only view. */
static int window(struct emu_job *j, int fd, uint64_t off, uint64_t len)
{
    void *at = (char *)j->hdr + off;
    void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off);
    return p == at ? 0 : -errno;
}

int emu_job_attach_rank(struct emu_job *j, const char *jobid, uint32_t rank)
{
    /* the tables are laid out in 4 KiB pages: no narrower window on a
     * host with bigger ones, where the rank maps all of it writable */
    bool windows = sysconf(_SC_PAGESIZE) == EMU_PAGE;
    int rofd = job_fd(jobid, windows ? O_RDONLY : O_RDWR);
    if (rofd < 0)
        return rofd;
    int rc = attach_fd(j, rofd, windows ? PROT_READ : PROT_READ | PROT_WRITE);
    const struct emu_job_geo *g = &j->geo;
    if (rc == 0 && rank >= g->nranks) {
        emu_job_detach(j);
        rc = -EINVAL;
    }
    if (rc || !windows) {
        close(rofd);
        return rc;
    }
    /* The same object again, writable, for our own pieces only: reopened
     * through the descriptor we hold, so it is that object and no other
     * of the same name; the rank keeps no descriptor of it. */
    char self[32];
    snprintf(self, sizeof self, "/proc/self/fd/%d", rofd);
    int fd = open(self, O_RDWR | O_CLOEXEC);
    close(rofd);
    if (fd < 0)
        rc = -errno;
    else if ((rc = window(j, fd, g->off_ranks + (uint64_t)rank * sizeof(struct emu_rank_info),
                          sizeof(struct emu_rank_info))) == 0 &&
             (rc = window(j, fd, g->off_cmd + (uint64_t)rank * g->cmd_bytes, g->cmd_bytes)) == 0)
        rc = window(j, fd, g->off_cq + (uint64_t)rank * g->cq_bytes, g->cq_bytes);
    if (fd >= 0)
        close(fd);
    if (rc)
        emu_job_detach(j);
    return rc;
}

int emu_job_wire_create(struct emu_job *j)
{
    int fd = memfd_create("emunic-wire", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)j->geo.wire_size) == 0)
        p = mmap(NULL, j->geo.wire_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return -e;
    }
    j->wire = p;
    j->wire_home = 1;
    *(uint64_t *)((char *)p + j->geo.wire_off_home) = (uint64_t)(uintptr_t)p;
    for (uint32_t n = 0; n < j->geo.nnodes; n++)
        emu_ring_format(emu_job_wire_ring(j, n), j->geo.wire_slots);
    return fd;
}

int emu_job_wire_map(struct emu_job *j, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != j->geo.wire_size)
        return -EPROTO;
    void *p = mmap(NULL, j->geo.wire_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    /* Where the launcher mapped it, every daemon tries to map it too, so
     * that pointers into the arenas mean the same in all of them. A
     * daemon that cannot (the address is taken) works as before, but
     * shares no module state (emu_job_wire_home). */
    uint64_t home = *(volatile uint64_t *)((char *)p + j->geo.wire_off_home);
    j->wire_home = home == (uint64_t)(uintptr_t)p;
    if (!j->wire_home && home && home % 4096 == 0) {
        void *q = mmap((void *)(uintptr_t)home, j->geo.wire_size, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
        if (q == (void *)(uintptr_t)home) {
            munmap(p, j->geo.wire_size);
            p = q;
            j->wire_home = 1;
        } else if (q != MAP_FAILED) {
            munmap(q, j->geo.wire_size); /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
        }
    }
    j->wire = p;
    return 0;
}

void emu_job_detach(struct emu_job *j)
{
    if (j->wire)
        munmap(j->wire, j->geo.wire_size);
    j->wire = NULL;
    if (j->hdr)
        munmap(j->hdr, j->size);
    if (j->fd >= 0)
        close(j->fd);
    j->hdr = NULL;
    j->fd = -1;
}

void *emu_job_cmd_ring(const struct emu_job *j, uint32_t rank)
{
    return (char *)j->hdr + j->geo.off_cmd + (uint64_t)rank * j->geo.cmd_bytes;
}

void *emu_job_cq_ring(const struct emu_job *j, uint32_t rank)
{
    return (char *)j->hdr + j->geo.off_cq + (uint64_t)rank * j->geo.cq_bytes;
}

void *emu_job_wire_ring(const struct emu_job *j, uint32_t node)
{
    if (!j->wire)
        return NULL;
    return (char *)j->wire + j->geo.wire_off_rings + (uint64_t)node * j->geo.wire_bytes;
}

struct emu_netcfg *emu_job_netcfg(const struct emu_job *j)
{
    return (struct emu_netcfg *)((char *)j->hdr + j->geo.off_net);
}

_Atomic uint64_t *emu_job_links(const struct emu_job *j)
{
    return j->wire ? (_Atomic uint64_t *)j->wire : NULL;
}

struct emu_wire_lock *emu_job_wire_lock(const struct emu_job *j, uint32_t node)
{
    if (!j->wire || node >= j->geo.nnodes)
        return NULL;
    return (struct emu_wire_lock *)((char *)j->wire + j->geo.wire_off_locks) + node;
}

struct emu_wire_cq *emu_job_wire_cq(const struct emu_job *j, uint32_t rank)
{
    if (!j->wire || rank >= j->geo.nranks)
        return NULL;
    return (struct emu_wire_cq *)((char *)j->wire + j->geo.wire_off_cqs) + rank;
}

void *emu_job_arena(const struct emu_job *j, uint32_t node)
{
    if (!j->wire || node >= j->geo.nnodes)
        return NULL;
    return (char *)j->wire + j->geo.wire_off_arena + (uint64_t)node * j->geo.arena_bytes;
}

_Atomic uint8_t *emu_job_wire_fenced(const struct emu_job *j)
{
    return j->wire ? (_Atomic uint8_t *)((char *)j->wire + j->geo.wire_off_fenced) : NULL;
}

void emu_jobid_new(char *buf, size_t n)
{
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        rnd = (uint32_t)emu_now_ns();
    snprintf(buf, n, "%d-%08x", (int)getpid(), rnd);
}
