/* portals4.h must match the real API's binary facts (x86-64): struct
 * layouts and constant values that real clients compile against. A
 * mismatch is a compile error, so this test "runs" at build time; main
 * only reports. Facts: shared/api-facts/portals4-api.txt. */
#include <stddef.h>
#include <stdio.h>

#include "portals4.h"

#define FACT(cond) _Static_assert(cond, #cond)

FACT(sizeof(ptl_md_t) == 32);
FACT(sizeof(ptl_le_t) == 32);
FACT(sizeof(ptl_me_t) == 64);
FACT(sizeof(ptl_ct_event_t) == 16);
FACT(sizeof(ptl_event_t) == 80);
FACT(sizeof(ptl_ni_limits_t) == 96);
FACT(sizeof(ptl_process_t) == 8);
FACT(sizeof(ptl_handle_any_t) == 4);
FACT(offsetof(ptl_event_t, initiator) == 56);
FACT(offsetof(ptl_event_t, type) == 72);

FACT(PTL_OK == 0 && PTL_ARG_INVALID == 1 && PTL_CT_NONE_REACHED == 2 && PTL_EQ_DROPPED == 3);
FACT(PTL_EQ_EMPTY == 4 && PTL_FAIL == 5 && PTL_IGNORED == 6 && PTL_IN_USE == 7);
FACT(PTL_LIST_TOO_LONG == 8 && PTL_NO_INIT == 9 && PTL_NO_SPACE == 10 && PTL_PID_IN_USE == 11);
FACT(PTL_PT_FULL == 12 && PTL_PT_EQ_NEEDED == 13 && PTL_PT_IN_USE == 14 && PTL_ABORTED == 15);
FACT(PTL_EQ_NONE == 0x3fffffff && PTL_CT_NONE == 0x5fffffff && PTL_INVALID_HANDLE == 0xffffffff);
FACT(PTL_PID_ANY == 0xffff && PTL_NID_ANY == 0xffff && PTL_UID_ANY == 0xffffffff);
FACT(PTL_PT_ANY == 0xffffffff && PTL_RANK_ANY == 0xffffffff && PTL_TIME_FOREVER == 0xffffffff);
FACT(PTL_SIZE_MAX == 0xffffffffffffffffULL);
FACT(PTL_NI_MATCHING == 1 && PTL_NI_NO_MATCHING == 2 && PTL_NI_LOGICAL == 4 && PTL_NI_PHYSICAL == 8);
FACT(PTL_NI_OK == 0 && PTL_NI_UNDELIVERABLE == 1 && PTL_NI_DROPPED == 2 && PTL_NI_PT_DISABLED == 3);
FACT(PTL_NI_PERM_VIOLATION == 4 && PTL_NI_OP_VIOLATION == 5 && PTL_NI_NO_MATCH == 6 && PTL_NI_SEGV == 7);
FACT(PTL_PT_ONLY_USE_ONCE == 1 && PTL_PT_FLOWCTRL == 2 && PTL_PT_ONLY_TRUNCATE == 4);
FACT(PTL_MD_EVENT_CT_SEND == 2 && PTL_MD_EVENT_CT_REPLY == 4 && PTL_MD_EVENT_CT_ACK == 8);
FACT(PTL_MD_UNORDERED == 0x10 && PTL_MD_EVENT_SUCCESS_DISABLE == 0x20 && PTL_MD_VOLATILE == 0x40);
FACT(PTL_MD_EVENT_SEND_DISABLE == 0x80 && PTL_MD_UNRELIABLE == 0x100 && PTL_MD_EVENT_CT_BYTES == 0x4000);
FACT(PTL_MD_OPTIONS_MASK == 0x41ff && PTL_IOVEC == 1);
FACT(PTL_LE_OP_PUT == 2 && PTL_LE_OP_GET == 4 && PTL_LE_USE_ONCE == 8 && PTL_LE_IS_ACCESSIBLE == 0x20);
FACT(PTL_LE_EVENT_LINK_DISABLE == 0x40 && PTL_LE_EVENT_COMM_DISABLE == 0x80);
FACT(PTL_LE_EVENT_SUCCESS_DISABLE == 0x200 && PTL_LE_EVENT_CT_COMM == 0x1000 && PTL_LE_EVENT_CT_BYTES == 0x4000);
FACT(PTL_LE_APPEND_OPTIONS_MASK == 0x7fff && PTL_ME_APPEND_OPTIONS_MASK == 0x7ffff);
FACT(PTL_ME_MANAGE_LOCAL == 0x8000 && PTL_ME_NO_TRUNCATE == 0x10000 && PTL_ME_MAY_ALIGN == 0x20000);
FACT(PTL_PRIORITY_LIST == 0 && PTL_OVERFLOW_LIST == 1 && PTL_SEARCH_ONLY == 0 && PTL_SEARCH_DELETE == 1);
FACT(PTL_NO_ACK_REQ == 0 && PTL_ACK_REQ == 1 && PTL_CT_ACK_REQ == 2 && PTL_OC_ACK_REQ == 3);
FACT(PTL_MIN == 0 && PTL_SUM == 2 && PTL_BXOR == 9 && PTL_SWAP == 10 && PTL_MSWAP == 17 && PTL_OP_LAST == 18);
FACT(PTL_INT8_T == 0 && PTL_UINT32_T == 5 && PTL_FLOAT == 6 && PTL_INT64_T == 7 && PTL_UINT64_T == 8);
FACT(PTL_DOUBLE == 9 && PTL_FLOAT_COMPLEX == 10 && PTL_DOUBLE_COMPLEX == 11 && PTL_LONG_DOUBLE == 12);
FACT(PTL_LONG_DOUBLE_COMPLEX == 13 && PTL_DATATYPE_LAST == 14);
FACT(PTL_EVENT_GET == 0 && PTL_EVENT_PUT == 2 && PTL_EVENT_ATOMIC == 4 && PTL_EVENT_FETCH_ATOMIC == 6);
FACT(PTL_EVENT_REPLY == 8 && PTL_EVENT_SEND == 9 && PTL_EVENT_ACK == 10 && PTL_EVENT_PT_DISABLED == 11);
FACT(PTL_EVENT_LINK == 12 && PTL_EVENT_AUTO_UNLINK == 13 && PTL_EVENT_AUTO_FREE == 14 && PTL_EVENT_SEARCH == 15);
FACT(PTL_CT_OPERATION == 0 && PTL_CT_BYTE == 1);
FACT(PTL_SR_DROP_COUNT == 0 && PTL_SR_PERMISSION_VIOLATIONS == 1 && PTL_SR_OPERATION_VIOLATIONS == 2);
FACT(PTL_TARGET_BIND_INACCESSIBLE == 1 && PTL_TOTAL_DATA_ORDERING == 2 && PTL_COHERENT_ATOMICS == 4);

int main(void)
{
    printf("portals4.h: struct layouts and constant values match the Portals 4 API facts\n");
    return 0;
}
