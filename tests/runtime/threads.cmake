# Application threads calling ARMCI concurrently (GA's thread_perf_*),
# over every device, with and without the helper thread.
add_executable(test_threads ${CMAKE_CURRENT_LIST_DIR}/test_threads.c)
target_link_libraries(test_threads PRIVATE armci Threads::Threads)

# armci_threads_test(NODES RANKS [NIC nic] [TAG tag] [ENV...])
function(armci_threads_test nodes ranks)
  cmake_parse_arguments(A "" "TAG" "" ${ARGN})
  armci_nic_args(nic prefix env ${A_UNPARSED_ARGUMENTS})
  set(t ${prefix}threads_${nodes}x${ranks}${A_TAG})
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic} --timeout 150
                   -- $<TARGET_FILE:test_threads>)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 180)
  if(env)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

foreach(nic portals pami dcmf)
  armci_threads_test(2 2 NIC ${nic})
endforeach()
armci_threads_test(1 1)
armci_threads_test(1 3 TAG _nohelper ARMCI_HELPER=0)
armci_threads_test(2 2 TAG _accsource ARMCI_ACC=source ARMCI_NONCONTIG=helper)
# the application threads and the helper thread share the core: TSan pass
set_property(TEST runtime.threads_2x2 runtime.pami.threads_2x2 APPEND PROPERTY LABELS tsan)
