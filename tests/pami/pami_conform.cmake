# PAMI behaviour IBM's own tests count on (pami_conform.c): eager local
# completion of sends up to 4096 bytes, a pong's local completion before
# the next ping, unset dispatch ids, the immediate limits (256 / 512),
# PAMI_CLIENT_CONST_CONTEXTS at PAMI_Context_createv, advance with
# (size_t)-1, PAMI_CLIENT_HWTHREADS_AVAILABLE, and the extensions
# EXT_torus_network and EXT_test_extension. "FAIL task <t> <file>:<line>
# ..." and exit 1 on the first mismatch; every wait is bounded.
add_executable(pami_conform pami_conform.c ptest.h)
target_link_libraries(pami_conform PRIVATE pami)
pami_job_test(pami_conform 1 1 60)
pami_job_test(pami_conform 2 1 90)
pami_job_test(pami_conform 1 2 90)
pami_job_test(pami_conform 2 2 90)
# EMUNIC_PAMI_HWTHREADS: 8 hardware threads per node, shared by its tasks
pami_job_test(pami_conform 1 2 90 hw8)
set_tests_properties(pami.pami_conform_1x2_hw8 PROPERTIES ENVIRONMENT EMUNIC_PAMI_HWTHREADS=8)
# A machine with a torus (share/emunic/machines/bgq.yaml: 5 dimensions, all
# wrapping): EXT_torus_network has one more dimension, the node's ranks.
add_test(NAME pami.pami_conform_2x2_bgq
         COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 2 --nic pami --machine bgq --timeout 90
                 -- $<TARGET_FILE:pami_conform> torus=6)
set_tests_properties(pami.pami_conform_2x2_bgq PROPERTIES LABELS "job" TIMEOUT 120)
