# Short-message flow control: senders flood a rank that is not progressing.
add_executable(test_flood ${CMAKE_CURRENT_LIST_DIR}/test_flood.c)
target_link_libraries(test_flood PRIVATE armci)

# armci_flood_test(NODES RANKS [NIC nic] [ENV...])
function(armci_flood_test nodes ranks)
  armci_nic_args(nic prefix env ${ARGN})
  set(t ${prefix}flood_${nodes}x${ranks})
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic} --timeout 120
                   -- $<TARGET_FILE:test_flood>)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 150)
  if(env)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

armci_flood_test(2 4)
