/* Global and geometry collectives (being written). */
#include "dcmf_lib.h"

void dcmfl_collectives_fini(void) {}
