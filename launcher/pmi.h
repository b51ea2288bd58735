/* PMI-1 server ("simple" wire protocol over PMI_FD), so stacks that
 * bootstrap through PMI (MPICH's simple client, SOS's pmi-simple) start
 * under emunic-run. One socketpair per rank; the launcher's ends sit in
 * its epoll loop and are never waited on. */
#ifndef EMUNIC_RUN_PMI_H
#define EMUNIC_RUN_PMI_H

#include <stdint.h>

struct launcher;
struct pmi;

/* Returns 0 (L->pmi stays NULL under --no-pmi), or -1 after a message. */
int pmi_init(struct launcher *L);
void pmi_free(struct launcher *L);

/* Before forking rank: make its socketpair. Returns the child's end
 * (CLOEXEC; the child clears that), or -1 with errno. */
int pmi_pair(struct pmi *p, uint32_t rank);
/* After the fork: forked != 0 watches our end, 0 closes both. */
void pmi_attach(struct pmi *p, uint32_t rank, int forked);

/* --pmi-port: "127.0.0.1:<port>" for PMI_PORT, NULL in PMI_FD mode. */
const char *pmi_port(const struct pmi *p);
/* --pmi-port: a connection to accept, or one that has not said initack. */
void pmi_accept(struct pmi *p);
void pmi_pending(struct pmi *p, uint32_t slot);

/* Readiness on rank's connection. */
void pmi_event(struct pmi *p, uint32_t rank, uint32_t events);
/* rank was reaped: pmi_drain takes what it wrote last (an abort, say)
 * before the exit is reported, pmi_gone then closes it and stops a job
 * whose barrier can no longer complete. */
void pmi_drain(struct pmi *p, uint32_t rank);
void pmi_gone(struct pmi *p, uint32_t rank);

#endif
