# Gets and writes holding spare-buffer grants at one server together.
add_executable(test_spares ${CMAKE_CURRENT_LIST_DIR}/test_spares.c)
target_link_libraries(test_spares PRIVATE armci)

# armci_spares_test(NODES RANKS [NIC nic] [TAG tag] [ENV...])
function(armci_spares_test nodes ranks)
  cmake_parse_arguments(A "" "TAG" "" ${ARGN})
  armci_nic_args(nic prefix env ${A_UNPARSED_ARGUMENTS})
  set(t ${prefix}spares_${nodes}x${ranks}${A_TAG})
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic} --timeout 150
                   -- $<TARGET_FILE:test_spares>)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 180)
  if(env)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

armci_spares_test(1 4)
armci_spares_test(2 2)
armci_spares_test(1 4 NIC pami)
armci_spares_test(1 4 NIC dcmf)
armci_spares_test(1 3 TAG _nohelper ARMCI_HELPER=0)
