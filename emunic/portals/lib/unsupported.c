/* Calls outside this slice of the personality: each says so on stderr and
 * returns PTL_FAIL (docs/portals.md lists them). Searches come next. */
#include "state.h"

int PtlMESearch(ptl_handle_ni_t ni, ptl_pt_index_t pt, const ptl_me_t *me, ptl_search_op_t op, void *user_ptr)
{
    (void)ni, (void)pt, (void)me, (void)op, (void)user_ptr;
    return pl_unsupported("PtlMESearch", "list searches");
}

int PtlLESearch(ptl_handle_ni_t ni, ptl_pt_index_t pt, const ptl_le_t *le, ptl_search_op_t op, void *user_ptr)
{
    (void)ni, (void)pt, (void)le, (void)op, (void)user_ptr;
    return pl_unsupported("PtlLESearch", "list searches");
}

