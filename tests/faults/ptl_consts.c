/* The link layer names three Portals message kinds by number (link.h);
 * this fails to compile if they drift from emunic/portals/proto.h. */
#include "link.h"
#include "proto.h"

_Static_assert(LINK_PTLX_PUT == PTLX_PUT, "LINK_PTLX_PUT");
_Static_assert(LINK_PTLX_SWAP == PTLX_SWAP, "LINK_PTLX_SWAP");
_Static_assert(LINK_PTLX_RESULT == PTLX_RESULT, "LINK_PTLX_RESULT");
_Static_assert(PTLX_PUT < PTLX_GET && PTLX_GET < PTLX_ATOMIC && PTLX_ATOMIC < PTLX_FETCH &&
                   PTLX_FETCH < PTLX_SWAP && PTLX_SWAP + 1 == PTLX_RESULT,
               "data operations PUT..SWAP are contiguous");

int main(void) { return 0; }
