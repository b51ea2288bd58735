/* Calls outside this slice of the personality: each says so on stderr and
 * returns PTL_FAIL (docs/portals.md lists them). Searches and triggered
 * operations come next. */
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

int PtlCTCancelTriggered(ptl_handle_ct_t ct)
{
    (void)ct;
    return pl_unsupported("PtlCTCancelTriggered", "triggered operations");
}

int PtlTriggeredPut(ptl_handle_md_t a, ptl_size_t b, ptl_size_t c, ptl_ack_req_t d, ptl_process_t e,
                    ptl_pt_index_t f, ptl_match_bits_t g, ptl_size_t h, void *i, ptl_hdr_data_t j,
                    ptl_handle_ct_t k, ptl_size_t l)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i, (void)j, (void)k, (void)l;
    return pl_unsupported("PtlTriggeredPut", "triggered operations");
}

int PtlTriggeredGet(ptl_handle_md_t a, ptl_size_t b, ptl_size_t c, ptl_process_t d, ptl_pt_index_t e,
                    ptl_match_bits_t f, ptl_size_t g, void *h, ptl_handle_ct_t i, ptl_size_t j)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i, (void)j;
    return pl_unsupported("PtlTriggeredGet", "triggered operations");
}

int PtlTriggeredAtomic(ptl_handle_md_t a, ptl_size_t b, ptl_size_t c, ptl_ack_req_t d, ptl_process_t e,
                       ptl_pt_index_t f, ptl_match_bits_t g, ptl_size_t h, void *i, ptl_hdr_data_t j,
                       ptl_op_t k, ptl_datatype_t l, ptl_handle_ct_t m, ptl_size_t n)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i, (void)j, (void)k, (void)l, (void)m, (void)n;
    return pl_unsupported("PtlTriggeredAtomic", "triggered operations");
}

int PtlTriggeredFetchAtomic(ptl_handle_md_t a, ptl_size_t b, ptl_handle_md_t c, ptl_size_t d, ptl_size_t e,
                            ptl_process_t f, ptl_pt_index_t g, ptl_match_bits_t h, ptl_size_t i, void *j,
                            ptl_hdr_data_t k, ptl_op_t l, ptl_datatype_t m, ptl_handle_ct_t n, ptl_size_t o)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i, (void)j, (void)k, (void)l, (void)m, (void)n, (void)o;
    return pl_unsupported("PtlTriggeredFetchAtomic", "triggered operations");
}

int PtlTriggeredSwap(ptl_handle_md_t a, ptl_size_t b, ptl_handle_md_t c, ptl_size_t d, ptl_size_t e,
                     ptl_process_t f, ptl_pt_index_t g, ptl_match_bits_t h, ptl_size_t i, void *j,
                     ptl_hdr_data_t k, const void *l, ptl_op_t m, ptl_datatype_t n, ptl_handle_ct_t o,
                     ptl_size_t p)
{
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i, (void)j, (void)k, (void)l, (void)m, (void)n, (void)o, (void)p;
    return pl_unsupported("PtlTriggeredSwap", "triggered operations");
}

int PtlTriggeredCTInc(ptl_handle_ct_t a, ptl_ct_event_t b, ptl_handle_ct_t c, ptl_size_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    return pl_unsupported("PtlTriggeredCTInc", "triggered operations");
}

int PtlTriggeredCTSet(ptl_handle_ct_t a, ptl_ct_event_t b, ptl_handle_ct_t c, ptl_size_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    return pl_unsupported("PtlTriggeredCTSet", "triggered operations");
}
