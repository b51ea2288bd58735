# The transfer paths under each runtime option set (label "job").
add_executable(test_rma_smoke ${CMAKE_CURRENT_LIST_DIR}/test_rma_smoke.c)
target_link_libraries(test_rma_smoke PRIVATE armci)

function(armci_rma_test name nodes ranks)
  set(t runtime.rma_${name}_${nodes}x${ranks})
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic portals --timeout 120
                   -- $<TARGET_FILE:test_rma_smoke>)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 150 ENVIRONMENT "${ARGN}")
endfunction()

armci_rma_test(default 2 2)
armci_rma_test(default 1 1)
armci_rma_test(default 4 4)
armci_rma_test(nohelper 2 2 ARMCI_HELPER=0)
armci_rma_test(accnic 2 2 ARMCI_ACC=nic)
armci_rma_test(rmwhelper 2 2 ARMCI_RMW=helper)
armci_rma_test(noncontighelper 2 2 ARMCI_NONCONTIG=helper)
armci_rma_test(noncontighelper_nohelper 1 3 ARMCI_NONCONTIG=helper ARMCI_HELPER=0)
armci_rma_test(partial 2 2 ARMCI_ORDER=partial)
armci_rma_test(unordered 2 2 ARMCI_ORDER=unordered ARMCI_CONFLICT_TRACKING=0)
armci_rma_test(credits4 2 2 ARMCI_FLOW_INTIMATION=0 ARMCI_BUFS=4)
armci_rma_test(shm 2 2 ARMCI_SHM=1)
armci_rma_test(accsource 2 2 ARMCI_ACC=source)
armci_rma_test(accsource_nohelper 1 3 ARMCI_ACC=source ARMCI_HELPER=0)
armci_rma_test(handoff 2 2 ARMCI_HANDOFF=1)
armci_rma_test(handoff_onebuf 2 2 ARMCI_HANDOFF=1 ARMCI_HANDOFF_BUFS=1 ARMCI_ACC=nic)
