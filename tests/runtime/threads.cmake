# Application threads calling ARMCI concurrently (GA's thread_perf_*),
# over every device, with and without the helper thread.
add_executable(test_threads ${CMAKE_CURRENT_LIST_DIR}/test_threads.c)
target_link_libraries(test_threads PRIVATE armci Threads::Threads)

foreach(nic portals pami dcmf)
  armci_msg_job_test(test_threads 2 2 150 NIC ${nic})
endforeach()
armci_msg_job_test(test_threads 1 1 150)
armci_msg_job_test(test_threads 1 3 150 TAG _nohelper ARMCI_HELPER=0)
armci_msg_job_test(test_threads 2 2 150 TAG _accsource ARMCI_ACC=source ARMCI_NONCONTIG=helper)
# the application threads and the helper thread share the core: TSan pass
set_property(TEST runtime.test_threads_2x2 runtime.pami.test_threads_2x2 APPEND PROPERTY LABELS tsan)

# A handle re-initialised while its get is in flight (GA's handle pool,
# when two threads pick the same handle): over a 200 ms link on every NIC.
add_executable(test_reinit ${CMAKE_CURRENT_LIST_DIR}/test_reinit.c)
target_link_libraries(test_reinit PRIVATE armci)
foreach(nic portals pami dcmf)
  armci_nic_args(n prefix rest NIC ${nic})
  add_test(NAME ${prefix}test_reinit_2x1
           COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 1 --nic ${nic} --timeout 60
                   --machine ${PROJECT_SOURCE_DIR}/tests/portals/slow_link.yaml -- $<TARGET_FILE:test_reinit>)
  set_tests_properties(${prefix}test_reinit_2x1 PROPERTIES LABELS "job" TIMEOUT 90)
endforeach()
