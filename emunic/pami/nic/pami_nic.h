/* Shared by the PAMI NIC half's files (not installed): module.c owns the
 * module hooks and the RMW unit; cau.c the collective acceleration unit. */
#ifndef EMUNIC_PAMI_NIC_H
#define EMUNIC_PAMI_NIC_H

#include "emunic/module.h"

struct pamin_cau;
int pamin_cau_init(struct emu_nic *nic, struct pamin_cau **cau);
void pamin_cau_fini(struct emu_nic *nic, struct pamin_cau *cau);
/* Commands with m->aop >= PAMIX_CAU_FIRST, on the initiator's NIC and
 * (after emu_nic_route) on the target's. */
void pamin_cau_local(struct emu_nic *nic, struct pamin_cau *cau, struct emu_msg *m);
void pamin_cau_target(struct emu_nic *nic, struct pamin_cau *cau, struct emu_msg *m);
int pamin_cau_progress(struct emu_nic *nic, struct pamin_cau *cau);

#endif
