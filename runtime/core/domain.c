/* Topology (armci_domain_*, ARMCI_Same_node): a domain is an emulated node.
 * GA asks these to place data and pick shared-memory paths, so they come
 * straight from the job layout, without communication. */
#include <stdio.h>
#include "armci.h"
#include "armcii.h"
#include "serial.h"

static void check_domain(const char *fn, armci_domain_t domain)
{
    armcii_need_init(fn);
    if (domain != ARMCI_DOMAIN_SMP)
        armcii_error(1, "%s: domain = %d is not ARMCI_DOMAIN_SMP (%d)", fn, domain,
                     ARMCI_DOMAIN_SMP);
}

static void check_node(const char *fn, int id)
{
    if (id < 0 || id >= armcii_nnodes())
        armcii_error(1, "%s: id = %d out of range 0..%d", fn, id, armcii_nnodes() - 1);
}

static void check_proc(const char *fn, const char *name, int proc)
{
    if (proc < 0 || proc >= armcii_nproc())
        armcii_error(1, "%s: %s = %d out of range 0..%d", fn, name, proc, armcii_nproc() - 1);
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    ARMCII_SERIAL;
    static int said;
    check_domain("armci_domain_nprocs", domain);
    /* GA's ARMCI answers a negative id for the caller's own domain (with a
     * warning), and GA's test programs ask ga_cluster_nprocs(-1) so */
    if (id < 0) {
        if (!said++)
            fprintf(stderr, "armci_domain_nprocs: rank %d: id = %d is no domain; answering for "
                            "the caller's own (%d), as GA's ARMCI does\n",
                    armcii_me(), id, armcii_node_of(armcii_me()));
        id = armcii_node_of(armcii_me());
    }
    check_node("armci_domain_nprocs", id);
    return armcii_node_nprocs(id);
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    ARMCII_SERIAL;
    check_domain("armci_domain_id", domain);
    check_proc("armci_domain_id", "glob_proc_id", glob_proc_id);
    return armcii_node_of(glob_proc_id);
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    ARMCII_SERIAL;
    const char *fn = "armci_domain_glob_proc_id";
    check_domain(fn, domain);
    check_node(fn, id);
    if (loc_proc_id < 0 || loc_proc_id >= armcii_node_nprocs(id))
        armcii_error(1, "%s: loc_proc_id = %d out of range 0..%d for domain %d", fn,
                     loc_proc_id, armcii_node_nprocs(id) - 1, id);
    return armcii_node_rank(id, loc_proc_id);
}

int armci_domain_my_id(armci_domain_t domain)
{
    ARMCII_SERIAL;
    check_domain("armci_domain_my_id", domain);
    return armcii_node_of(armcii_me());
}

int armci_domain_count(armci_domain_t domain)
{
    ARMCII_SERIAL;
    check_domain("armci_domain_count", domain);
    return armcii_nnodes();
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    ARMCII_SERIAL;
    check_domain("armci_domain_same_id", domain);
    check_proc("armci_domain_same_id", "proc", proc);
    return armcii_node_of(proc) == armcii_node_of(armcii_me());
}

int ARMCI_Same_node(int proc)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Same_node");
    check_proc("ARMCI_Same_node", "proc", proc);
    return armcii_node_of(proc) == armcii_node_of(armcii_me());
}
