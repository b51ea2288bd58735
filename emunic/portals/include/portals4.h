/* Portals 4 API for emunic's emulated NIC.
 *
 * Names, signatures, types and constant values follow the Portals 4
 * specification and the reference implementation's public header, so
 * programs written for Portals 4 hardware compile unchanged. This text is
 * emunic's own. Which functions are emulated, and how, is listed in
 * docs/portals.md; the others return PTL_FAIL and say so on stderr. */
#ifndef PORTALS4_H
#define PORTALS4_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- base types ---- */
typedef uint64_t ptl_size_t;
typedef uint32_t ptl_pt_index_t;
typedef uint64_t ptl_match_bits_t;
typedef uint64_t ptl_hdr_data_t;
typedef unsigned int ptl_time_t;
typedef unsigned int ptl_interface_t;
typedef uint32_t ptl_nid_t;
typedef uint32_t ptl_pid_t;
typedef uint32_t ptl_rank_t;
typedef uint32_t ptl_uid_t;
typedef int ptl_sr_value_t;
typedef uint32_t ptl_handle_any_t;
typedef ptl_handle_any_t ptl_handle_ni_t;
typedef ptl_handle_any_t ptl_handle_eq_t;
typedef ptl_handle_any_t ptl_handle_ct_t;
typedef ptl_handle_any_t ptl_handle_md_t;
typedef ptl_handle_any_t ptl_handle_le_t;
typedef ptl_handle_any_t ptl_handle_me_t;
typedef unsigned char ptl_list_t;
typedef unsigned char ptl_search_op_t;
typedef unsigned char ptl_ack_req_t;
typedef unsigned char ptl_op_t;
typedef unsigned char ptl_datatype_t;
typedef unsigned char ptl_event_kind_t;
typedef unsigned char ptl_ni_fail_t;

typedef union {
    ptl_rank_t rank;
    struct {
        ptl_nid_t nid;
        ptl_pid_t pid;
    } phys;
} ptl_process_t;

/* ---- return codes ---- */
enum {
    PTL_OK = 0,
    PTL_ARG_INVALID,
    PTL_CT_NONE_REACHED,
    PTL_EQ_DROPPED,
    PTL_EQ_EMPTY,
    PTL_FAIL,
    PTL_IGNORED,
    PTL_IN_USE,
    PTL_LIST_TOO_LONG,
    PTL_NO_INIT,
    PTL_NO_SPACE,
    PTL_PID_IN_USE,
    PTL_PT_FULL,
    PTL_PT_EQ_NEEDED,
    PTL_PT_IN_USE,
    PTL_ABORTED,
    PTL_STATUS_LAST
};

/* ---- special handles and wildcards ---- */
#define PTL_EQ_NONE ((ptl_handle_eq_t)0x3fffffff)
#define PTL_CT_NONE ((ptl_handle_ct_t)0x5fffffff)
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)0xffffffff)
#define PTL_IFACE_DEFAULT ((ptl_interface_t)0xffffffff)
#define PTL_PID_ANY ((ptl_pid_t)0xffff)
#define PTL_NID_ANY ((ptl_nid_t)0xffff)
#define PTL_PID_MAX 1024
#define PTL_UID_ANY ((ptl_uid_t)0xffffffff)
#define PTL_PT_ANY ((ptl_pt_index_t)0xffffffff)
#define PTL_RANK_ANY ((ptl_rank_t)0xffffffff)
#define PTL_TIME_FOREVER ((ptl_time_t)0xffffffff)
#define PTL_SIZE_MAX ((ptl_size_t)0xffffffffffffffffULL)

/* ---- NI ---- */
#define PTL_NI_MATCHING 0x1
#define PTL_NI_NO_MATCHING 0x2
#define PTL_NI_LOGICAL 0x4
#define PTL_NI_PHYSICAL 0x8
#define PTL_NI_INIT_OPTIONS_MASK 0xf

enum {
    PTL_NI_OK = 0,
    PTL_NI_UNDELIVERABLE,
    PTL_NI_DROPPED,
    PTL_NI_PT_DISABLED,
    PTL_NI_PERM_VIOLATION,
    PTL_NI_OP_VIOLATION,
    PTL_NI_NO_MATCH,
    PTL_NI_SEGV
};

#define PTL_TARGET_BIND_INACCESSIBLE 0x1
#define PTL_TOTAL_DATA_ORDERING 0x2
#define PTL_COHERENT_ATOMICS 0x4

typedef enum {
    PTL_SR_DROP_COUNT = 0,
    PTL_SR_PERMISSION_VIOLATIONS,
    PTL_SR_OPERATION_VIOLATIONS,
    PTL_SR_LAST
} ptl_sr_index_t;

typedef struct {
    int max_entries;
    int max_unexpected_headers;
    int max_mds;
    int max_cts;
    int max_eqs;
    int max_pt_index;
    int max_iovecs;
    int max_list_size;
    int max_triggered_ops;
    ptl_size_t max_msg_size;
    ptl_size_t max_atomic_size;
    ptl_size_t max_fetch_atomic_size;
    ptl_size_t max_waw_ordered_size;
    ptl_size_t max_war_ordered_size;
    ptl_size_t max_volatile_size;
    unsigned int features;
} ptl_ni_limits_t;

/* ---- portal table ---- */
#define PTL_PT_ONLY_USE_ONCE 0x1
#define PTL_PT_FLOWCTRL 0x2
#define PTL_PT_ONLY_TRUNCATE 0x4
#define PTL_PT_MATCH_UNORDERED 0x8
#define PTL_PT_ALLOC_DISABLED 0x10
#define PTL_PT_ALLOC_OPTIONS_MASK 0x1f

/* ---- memory descriptors ---- */
#define PTL_IOVEC 0x1
#define PTL_MD_EVENT_CT_SEND 0x2
#define PTL_MD_EVENT_CT_REPLY 0x4
#define PTL_MD_EVENT_CT_ACK 0x8
#define PTL_MD_UNORDERED 0x10
#define PTL_MD_EVENT_SUCCESS_DISABLE 0x20
#define PTL_MD_VOLATILE 0x40
#define PTL_MD_EVENT_SEND_DISABLE 0x80
#define PTL_MD_UNRELIABLE 0x100
#define PTL_MD_EVENT_CT_BYTES 0x4000
#define PTL_MD_OPTIONS_MASK 0x41ff

typedef struct {
    void *start;
    ptl_size_t length;
    unsigned int options;
    ptl_handle_eq_t eq_handle;
    ptl_handle_ct_t ct_handle;
} ptl_md_t;

typedef struct {
    void *iov_base;
    ptl_size_t iov_len;
} ptl_iovec_t;

/* ---- list entries ---- */
#define PTL_LE_OP_PUT 0x2
#define PTL_LE_OP_GET 0x4
#define PTL_LE_USE_ONCE 0x8
#define PTL_LE_UNEXPECTED_HDR_DISABLE 0x10
#define PTL_LE_IS_ACCESSIBLE 0x20
#define PTL_LE_EVENT_LINK_DISABLE 0x40
#define PTL_LE_EVENT_COMM_DISABLE 0x80
#define PTL_LE_EVENT_FLOWCTRL_DISABLE 0x100
#define PTL_LE_EVENT_SUCCESS_DISABLE 0x200
#define PTL_LE_EVENT_OVER_DISABLE 0x400
#define PTL_LE_EVENT_UNLINK_DISABLE 0x800
#define PTL_LE_EVENT_CT_COMM 0x1000
#define PTL_LE_EVENT_CT_OVERFLOW 0x2000
#define PTL_LE_EVENT_CT_BYTES 0x4000
#define PTL_LE_APPEND_OPTIONS_MASK 0x7fff

#define PTL_ME_OP_PUT PTL_LE_OP_PUT
#define PTL_ME_OP_GET PTL_LE_OP_GET
#define PTL_ME_USE_ONCE PTL_LE_USE_ONCE
#define PTL_ME_UNEXPECTED_HDR_DISABLE PTL_LE_UNEXPECTED_HDR_DISABLE
#define PTL_ME_IS_ACCESSIBLE PTL_LE_IS_ACCESSIBLE
#define PTL_ME_EVENT_LINK_DISABLE PTL_LE_EVENT_LINK_DISABLE
#define PTL_ME_EVENT_COMM_DISABLE PTL_LE_EVENT_COMM_DISABLE
#define PTL_ME_EVENT_FLOWCTRL_DISABLE PTL_LE_EVENT_FLOWCTRL_DISABLE
#define PTL_ME_EVENT_SUCCESS_DISABLE PTL_LE_EVENT_SUCCESS_DISABLE
#define PTL_ME_EVENT_OVER_DISABLE PTL_LE_EVENT_OVER_DISABLE
#define PTL_ME_EVENT_UNLINK_DISABLE PTL_LE_EVENT_UNLINK_DISABLE
#define PTL_ME_EVENT_CT_COMM PTL_LE_EVENT_CT_COMM
#define PTL_ME_EVENT_CT_OVERFLOW PTL_LE_EVENT_CT_OVERFLOW
#define PTL_ME_EVENT_CT_BYTES PTL_LE_EVENT_CT_BYTES
#define PTL_ME_MANAGE_LOCAL 0x8000
#define PTL_ME_NO_TRUNCATE 0x10000
#define PTL_ME_MAY_ALIGN 0x20000
#define PTL_ME_LOCAL_INC_UH_RLENGTH 0x40000
#define PTL_ME_APPEND_OPTIONS_MASK 0x7ffff

typedef struct {
    void *start;
    ptl_size_t length;
    ptl_handle_ct_t ct_handle;
    ptl_uid_t uid;
    unsigned int options;
} ptl_le_t;

typedef struct {
    void *start;
    ptl_size_t length;
    ptl_handle_ct_t ct_handle;
    ptl_uid_t uid;
    unsigned int options;
    ptl_process_t match_id;
    ptl_match_bits_t match_bits;
    ptl_match_bits_t ignore_bits;
    ptl_size_t min_free;
} ptl_me_t;

enum { PTL_PRIORITY_LIST = 0, PTL_OVERFLOW_LIST };
enum { PTL_SEARCH_ONLY = 0, PTL_SEARCH_DELETE };

/* ---- acknowledgements ---- */
enum { PTL_NO_ACK_REQ = 0, PTL_ACK_REQ, PTL_CT_ACK_REQ, PTL_OC_ACK_REQ };

/* ---- atomics ---- */
enum {
    PTL_MIN = 0, PTL_MAX, PTL_SUM, PTL_PROD, PTL_LOR, PTL_LAND, PTL_BOR,
    PTL_BAND, PTL_LXOR, PTL_BXOR, PTL_SWAP, PTL_CSWAP, PTL_CSWAP_NE,
    PTL_CSWAP_LE, PTL_CSWAP_LT, PTL_CSWAP_GE, PTL_CSWAP_GT, PTL_MSWAP,
    PTL_OP_LAST
};

enum {
    PTL_INT8_T = 0, PTL_UINT8_T, PTL_INT16_T, PTL_UINT16_T, PTL_INT32_T,
    PTL_UINT32_T, PTL_FLOAT, PTL_INT64_T, PTL_UINT64_T, PTL_DOUBLE,
    PTL_FLOAT_COMPLEX, PTL_DOUBLE_COMPLEX, PTL_LONG_DOUBLE,
    PTL_LONG_DOUBLE_COMPLEX, PTL_DATATYPE_LAST
};

/* ---- events ---- */
enum {
    PTL_EVENT_GET = 0, PTL_EVENT_GET_OVERFLOW, PTL_EVENT_PUT,
    PTL_EVENT_PUT_OVERFLOW, PTL_EVENT_ATOMIC, PTL_EVENT_ATOMIC_OVERFLOW,
    PTL_EVENT_FETCH_ATOMIC, PTL_EVENT_FETCH_ATOMIC_OVERFLOW,
    PTL_EVENT_REPLY, PTL_EVENT_SEND, PTL_EVENT_ACK, PTL_EVENT_PT_DISABLED,
    PTL_EVENT_LINK, PTL_EVENT_AUTO_UNLINK, PTL_EVENT_AUTO_FREE,
    PTL_EVENT_SEARCH
};

typedef struct {
    void *start;
    void *user_ptr;
    ptl_hdr_data_t hdr_data;
    ptl_match_bits_t match_bits;
    ptl_size_t rlength;
    ptl_size_t mlength;
    ptl_size_t remote_offset;
    ptl_process_t initiator;
    ptl_uid_t uid;
    ptl_pt_index_t pt_index;
    ptl_event_kind_t type;
    ptl_list_t ptl_list;
    ptl_ni_fail_t ni_fail_type;
    ptl_op_t atomic_operation;
    ptl_datatype_t atomic_type;
} ptl_event_t;

typedef struct {
    ptl_size_t success;
    ptl_size_t failure;
} ptl_ct_event_t;

typedef enum { PTL_CT_OPERATION = 0, PTL_CT_BYTE } ptl_ct_type_t;

/* ---- functions ---- */
int PtlInit(void);
void PtlFini(void);
void PtlAbort(void);
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);
int PtlAtomicSync(void);
int PtlStartBundle(ptl_handle_ni_t ni_handle);
int PtlEndBundle(ptl_handle_ni_t ni_handle);

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid,
              const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
              ptl_handle_ni_t *ni_handle);
int PtlNIFini(ptl_handle_ni_t ni_handle);
int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register,
                ptl_sr_value_t *status);
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *ni_handle);
int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size,
              const ptl_process_t *mapping);
int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size,
              ptl_process_t *mapping, ptl_size_t *actual_map_size);
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id);

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options,
               ptl_handle_eq_t eq_handle, ptl_pt_index_t pt_index_req,
               ptl_pt_index_t *pt_index);
int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t *md,
              ptl_handle_md_t *md_handle);
int PtlMDRelease(ptl_handle_md_t md_handle);

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_le_t *le, ptl_list_t ptl_list, void *user_ptr,
                ptl_handle_le_t *le_handle);
int PtlLEUnlink(ptl_handle_le_t le_handle);
int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_le_t *le, ptl_search_op_t ptl_search_op,
                void *user_ptr);
int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_me_t *me, ptl_list_t ptl_list, void *user_ptr,
                ptl_handle_me_t *me_handle);
int PtlMEUnlink(ptl_handle_me_t me_handle);
int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_me_t *me, ptl_search_op_t ptl_search_op,
                void *user_ptr);

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle);
int PtlCTFree(ptl_handle_ct_t ct_handle);
int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle);
int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event);
int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t *event);
int PtlCTPoll(const ptl_handle_ct_t *ct_handles, const ptl_size_t *tests,
              unsigned int size, ptl_time_t timeout, ptl_ct_event_t *event,
              unsigned int *which);
int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct);
int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment);

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t *eq_handle);
int PtlEQFree(ptl_handle_eq_t eq_handle);
int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQPoll(const ptl_handle_eq_t *eq_handles, unsigned int size,
              ptl_time_t timeout, ptl_event_t *event, unsigned int *which);

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data);
int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr);
int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype);
int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                   ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                   ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype);
int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
            ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
            ptl_hdr_data_t hdr_data, const void *operand, ptl_op_t operation,
            ptl_datatype_t datatype);

int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                    ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold);
int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_process_t target_id, ptl_pt_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                       ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                       ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                            ptl_size_t length, ptl_process_t target_id,
                            ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                            ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                     ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                     ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                     ptl_hdr_data_t hdr_data, const void *operand, ptl_op_t operation,
                     ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle,
                     ptl_size_t threshold);
int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);

#ifdef __cplusplus
}
#endif

#endif
