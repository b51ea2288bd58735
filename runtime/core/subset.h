/* ARMCI over part of the job (subset.c). */
#ifndef ARMCII_SUBSET_H
#define ARMCII_SUBSET_H
#include "device.h"

/* Before the device starts: members[p] is the job rank of ARMCI proc p (n
 * of the job's njob ranks, me among them, none twice: -EINVAL otherwise).
 * Fills dev_h with handlers that pass h arrivals numbered by proc. */
int armcii_subset_begin(const int *members, int n, int njob, int me, const struct adev_handlers *h,
                        struct adev_handlers *dev_h);
/* Once dev is up with job (in job ranks): turns job into ARMCI's numbering
 * and returns the device the core uses (NULL: out of memory). */
const struct armci_device *armcii_subset_end(const struct armci_device *dev, struct adev_job *job);
/* On a failed start (after finalize, the view lets go by itself). */
void armcii_subset_free(void);
/* The job rank of ARMCI proc (itself when ARMCI runs over the whole job). */
int armcii_job_rank(int proc);
#endif
