# PAMI point-to-point: clients, contexts, sends, RMA, RMW, fences.
add_executable(pami_smoke pami_smoke.c)
target_link_libraries(pami_smoke PRIVATE pami)
pami_job_test(pami_smoke 2 2 60)
pami_job_test(pami_smoke 1 3 60)
pami_job_test(pami_smoke 1 1 60)
