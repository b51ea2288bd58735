/* ARMCI: one-sided put, get, accumulate and read-modify-write on memory
 * allocated collectively with ARMCI_Malloc, plus locks, fences, groups and
 * (message.h) messaging and collectives. This is the API Global Arrays is
 * written against; emunic runs it on an OSPRI-style core over the Portals,
 * PAMI or DCMF personality (docs/runtime.md).
 *
 * Every call that returns int returns 0 on success. Misuse (a bad pointer,
 * count, stride, rank or handle, a remote address outside ARMCI memory)
 * calls ARMCI_Error with a message naming the call and the argument. */
#ifndef ARMCI_H
#define ARMCI_H

#include "armci_variant.h"
#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
#include <mpi.h>
#endif
#include "message.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ARMCI_EMUNIC 1

/* The most stride levels a strided call takes (count[] then has
 * ARMCI_MAX_STRIDE_LEVEL + 1 entries), as in GA's ARMCI, ARMCI-MPI and A1. */
#define ARMCI_MAX_STRIDE_LEVEL 8

typedef long armci_size_t;

enum ARMCI_Acc_e {
    ARMCI_ACC_INT = 0, ARMCI_ACC_LNG, ARMCI_ACC_FLT, ARMCI_ACC_DBL,
    ARMCI_ACC_CPL, ARMCI_ACC_DCP
};

enum ARMCI_Rmw_e {
    ARMCI_FETCH_AND_ADD = 0, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG
};

/* A non-blocking operation's handle. Initialise it with ARMCI_INIT_HANDLE;
 * it names a slot in the runtime's table, so a stale or never-initialised
 * handle is caught rather than followed. */
typedef struct armci_hdl_s {
    unsigned int magic;
    int aggregate;
    int slot;
    unsigned int gen;
} armci_hdl_t;

typedef struct {
    void **src_ptr_array;
    void **dst_ptr_array;
    int bytes;
    int ptr_array_len;
} armci_giov_t;

/* A process group: size ranks, the caller's rank in it (-1 when not a
 * member), and the absolute id of each member. A libarmci built for MPI
 * programs (EMUNIC_ARMCI_MPI, see docs/runtime.md) adds the members'
 * communicator, as Global Arrays expects of an MPI-based ARMCI, and lays
 * the struct out as ARMCI-MPI does (comm first, rank and size at the end,
 * 32 bytes with MPICH), so that a Global Arrays built against ARMCI-MPI
 * (Debian's libga-mpich) finds its fields where it looks. */
#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
typedef struct armci_group_s {
    MPI_Comm comm;     /* MPI_COMM_NULL for a caller that is not a member */
    unsigned int magic; /* where ARMCI-MPI keeps a second communicator */
    int *grp_to_abs;
    int id;            /* where ARMCI-MPI keeps abs_to_grp */
    int pad_;
    int rank;
    int size;
} ARMCI_Group;
#else
typedef struct armci_group_s {
    unsigned int magic;
    int id;
    int rank;
    int size;
    int *grp_to_abs;
} ARMCI_Group;
#endif

enum armci_domain_e { ARMCI_DOMAIN_SMP };
typedef int armci_domain_t;

/* Init, finalize, errors */
int ARMCI_Init(void);
int ARMCI_Init_args(int *argc, char ***argv);
int ARMCI_Init_thread(int armci_requested);
#ifdef MPI_VERSION
/* The job is emunic's: comm must span it, rank for rank. Declared when
 * <mpi.h> comes first (GA calls it from GA_Initialize_comm); in an MPI
 * build the world group's comm is a duplicate of it. */
int ARMCI_Init_mpi_comm(MPI_Comm comm);
#endif
#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
/* The communicator of a group's members (GA's ARMCI has it as a function;
 * here it is also the member comm). */
MPI_Comm armci_group_comm(ARMCI_Group *group);
#endif
int ARMCI_Initialized(void);
int ARMCI_Finalize(void);
void ARMCI_Cleanup(void);
void ARMCI_Error(const char *msg, int code);

/* Memory */
int ARMCI_Malloc(void **base_ptrs, armci_size_t bytes);
int ARMCI_Free(void *ptr);
void *ARMCI_Malloc_local(armci_size_t bytes);
int ARMCI_Free_local(void *ptr);
int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group);
int ARMCI_Free_group(void *ptr, ARMCI_Group *group);
int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                              const char *device);
int ARMCI_Free_memdev(void *ptr);
void ARMCI_Access_begin(void *ptr);
void ARMCI_Access_end(void *ptr);
void ARMCI_Copy(void *src, void *dst, int bytes);
int ARMCI_Uses_shm(void);
int ARMCI_Uses_shm_grp(ARMCI_Group *group);
void ARMCI_Set_shm_limit(unsigned long shmemlimit);

/* Contiguous */
int ARMCI_Put(void *src, void *dst, int bytes, int proc);
int ARMCI_Get(void *src, void *dst, int bytes, int proc);
int ARMCI_Acc(int acc_type, void *scale, void *src, void *dst, int bytes, int proc);
int ARMCI_Put_flag(void *src, void *dst, int bytes, int *flag, int value, int proc);

/* Strided: count[0] bytes per contiguous run, count[1..levels] runs per
 * level, strides in bytes; stride_levels 0..ARMCI_MAX_STRIDE_LEVEL. */
int ARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
               int dst_stride_arr[], int count[], int stride_levels, int proc);
int ARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                    int count[], int stride_levels, int *flag, int val, int proc);
void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* Vector */
int ARMCI_PutV(armci_giov_t *darr, int len, int proc);
int ARMCI_GetV(armci_giov_t *darr, int len, int proc);
int ARMCI_AccV(int op, void *scale, armci_giov_t *darr, int len, int proc);

/* Non-blocking. A NULL handle makes the operation implicit: it completes
 * in ARMCI_WaitProc, ARMCI_WaitAll or a fence. */
void ARMCI_INIT_HANDLE(armci_hdl_t *hdl);
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *hdl);
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *hdl);
int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int ARMCI_NbAcc(int acc_type, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *hdl);
int ARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                 int dst_stride_arr[], int count[], int stride_levels, int proc,
                 armci_hdl_t *hdl);
int ARMCI_NbPutV(armci_giov_t *darr, int len, int proc, armci_hdl_t *hdl);
int ARMCI_NbGetV(armci_giov_t *darr, int len, int proc, armci_hdl_t *hdl);
int ARMCI_NbAccV(int op, void *scale, armci_giov_t *darr, int len, int proc, armci_hdl_t *hdl);
int ARMCI_Wait(armci_hdl_t *hdl);
int ARMCI_Test(armci_hdl_t *hdl);
int ARMCI_WaitProc(int proc);
int ARMCI_WaitAll(void);

/* Scalars */
int ARMCI_PutValueInt(int src, void *dst, int proc);
int ARMCI_PutValueLong(long src, void *dst, int proc);
int ARMCI_PutValueFloat(float src, void *dst, int proc);
int ARMCI_PutValueDouble(double src, void *dst, int proc);
int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_GetValueInt(void *src, int proc);
long ARMCI_GetValueLong(void *src, int proc);
float ARMCI_GetValueFloat(void *src, int proc);
double ARMCI_GetValueDouble(void *src, int proc);

/* Completion and synchronisation */
void ARMCI_Fence(int proc);
void ARMCI_AllFence(void);
void ARMCI_Barrier(void);

/* Mutexes and read-modify-write */
int ARMCI_Create_mutexes(int num);
int ARMCI_Destroy_mutexes(void);
void ARMCI_Lock(int mutex, int proc);
void ARMCI_Unlock(int mutex, int proc);
int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);

/* Groups */
void ARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out);
void ARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent);
void ARMCI_Group_free(ARMCI_Group *group);
int ARMCI_Group_rank(ARMCI_Group *group, int *rank);
void ARMCI_Group_size(ARMCI_Group *group, int *size);
void ARMCI_Group_set_default(ARMCI_Group *group);
void ARMCI_Group_get_default(ARMCI_Group *group_out);
void ARMCI_Group_get_world(ARMCI_Group *group_out);
int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);

/* Topology: a domain is a node */
int armci_domain_nprocs(armci_domain_t domain, int id);
int armci_domain_id(armci_domain_t domain, int glob_proc_id);
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
int armci_domain_my_id(armci_domain_t domain);
int armci_domain_count(armci_domain_t domain);
int armci_domain_same_id(armci_domain_t domain, int proc);
int ARMCI_Same_node(int proc);

/* Progress: run pending work (the helper's, when it lives in this rank). */
void ARMCIX_Progress(void);

#ifdef __cplusplus
}
#endif
#endif
