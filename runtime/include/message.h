/* ARMCI messaging and collectives (armci_msg_*): two-sided messages and
 * collectives over the default group or an ARMCI_Group, carried by the same
 * device as the one-sided calls. Names and signatures follow the ARMCI API
 * that Global Arrays calls. */
#ifndef ARMCI_MESSAGE_H
#define ARMCI_MESSAGE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of the reductions and selections: macros with GA's ARMCI
 * values, spelled token for token as GA and A1 spell them, so a program
 * that defines them itself (before or after this header) redefines them
 * identically. ARMCI-MPI numbers them 0..4 instead (docs/runtime.md). */
#define ARMCI_INT       -99
#define ARMCI_LONG      -101
#define ARMCI_LONG_LONG -102
#define ARMCI_FLOAT     -306
#define ARMCI_DOUBLE    -307

/* SCOPE_NODE: ranks on the caller's node; SCOPE_MASTERS: the first rank of
 * every node; SCOPE_ALL: everyone in the group. */
#define SCOPE_ALL     333
#define SCOPE_NODE    337
#define SCOPE_MASTERS 339

struct armci_group_s;

/* The message layer's own start and end, as GA's ARMCI has them (its test
 * programs call them around ARMCI_Init/ARMCI_Finalize): MPI_Init and
 * MPI_Finalize in the libarmci built for MPI programs when MPI is not
 * already up (down); nothing otherwise, emunic-run having started the job. */
void armci_msg_init(int *argc, char ***argv);
void armci_msg_finalize(void);

int armci_msg_me(void);
int armci_msg_nproc(void);
void armci_msg_abort(int code);
double armci_timer(void);

void armci_msg_snd(int tag, void *buf, int len, int to);
void armci_msg_rcv(int tag, void *buf, int buflen, int *msglen, int from);
int armci_msg_rcvany(int tag, void *buf, int buflen, int *msglen);

void armci_msg_barrier(void);
void armci_msg_group_barrier(struct armci_group_s *group);
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

void armci_msg_bcast(void *buf, int len, int root);
void armci_msg_brdcst(void *buf, int len, int root);
void armci_msg_bcast_scope(int scope, void *buf, int len, int root);
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root,
                                 struct armci_group_s *group);

/* op is matched by prefix, as GA's ARMCI does ("+", "*", "max", "min",
 * "absmax", "absmin"; for the integer types also "or", "&&"/"land",
 * "||"/"lor", "&"/"band", "|"/"bor", and "and"); an unknown op is an
 * ARMCI error that aborts the job. */
void armci_msg_igop(int *x, int n, char *op);
void armci_msg_lgop(long *x, int n, char *op);
void armci_msg_llgop(long long *x, int n, char *op);
void armci_msg_fgop(float *x, int n, char *op);
void armci_msg_dgop(double *x, int n, char *op);
void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_reduce(void *x, int n, char *op, int type);
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);

void armci_msg_group_igop(int *x, int n, char *op, struct armci_group_s *group);
void armci_msg_group_lgop(long *x, int n, char *op, struct armci_group_s *group);
void armci_msg_group_llgop(long long *x, int n, char *op, struct armci_group_s *group);
void armci_msg_group_fgop(float *x, int n, char *op, struct armci_group_s *group);
void armci_msg_group_dgop(double *x, int n, char *op, struct armci_group_s *group);
void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type,
                               struct armci_group_s *group);

/* Selection: x is n bytes whose first element (of type) is compared with
 * op "min" or "max"; every rank gets the winner's n bytes (GA sends the
 * value and its index). Ranks with contribute == 0 take part but offer
 * nothing. */
void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

#ifdef __cplusplus
}
#endif
#endif
