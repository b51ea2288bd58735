# The runtime's test programs again, over its PAMI device (emunic-run --nic
# pami, label "job"): runtime.pami.<what>. PAMI_Rmw covers integer
# fetch-and-add and swap only, so the device has no ADEV_CAP_AMO:
# accumulates and RMW go through the data server (ARMCI_ACC=nic and
# ARMCI_RMW=nic fall back to it; test_sync's private memory, which no
# server reaches, through the device's amo(): PAMI_Rmw for RMW, a
# target-run active message for sums). Layouts 1x1, 2x2, 1x3 and 4x4 (the
# flood test needs senders: 2x2, 1x3, 2x4).
#
# This file is included (by the glob in CMakeLists.txt) before rma.cmake
# and suite.cmake define the registration functions, so its body runs
# deferred, at the end of the directory.
function(armci_pami_tests)
set(PAMI NIC pami)

# the transfer paths under each option set
foreach(layout 1x1 2x2 1x3 4x4)
  string(REPLACE "x" ";" nr ${layout})
  armci_rma_test(default ${nr} ${PAMI})
endforeach()
armci_rma_test(nohelper 2 2 ${PAMI} ARMCI_HELPER=0)
armci_rma_test(nohelper 1 3 ${PAMI} ARMCI_HELPER=0)
armci_rma_test(partial 2 2 ${PAMI} ARMCI_ORDER=partial)
armci_rma_test(unordered 2 2 ${PAMI} ARMCI_ORDER=unordered ARMCI_CONFLICT_TRACKING=0)
armci_rma_test(accsource 2 2 ${PAMI} ARMCI_ACC=source)
armci_rma_test(accsource_nohelper 1 3 ${PAMI} ARMCI_ACC=source ARMCI_HELPER=0)
armci_rma_test(accnic 2 2 ${PAMI} ARMCI_ACC=nic ARMCI_RMW=nic)
armci_rma_test(noncontighelper 2 2 ${PAMI} ARMCI_NONCONTIG=helper)
armci_rma_test(handoff 2 2 ${PAMI} ARMCI_HANDOFF=1)
armci_rma_test(handoff_onebuf 1 3 ${PAMI} ARMCI_HANDOFF=1 ARMCI_HANDOFF_BUFS=1)
armci_rma_test(allfence_all 2 2 ${PAMI} ARMCI_ALLFENCE=all)
armci_rma_test(allfence_all 4 4 ${PAMI} ARMCI_ALLFENCE=all)
armci_rma_test(credits4 2 2 ${PAMI} ARMCI_FLOW_INTIMATION=0 ARMCI_BUFS=4)
armci_rma_test(shm 2 2 ${PAMI} ARMCI_SHM=1)
# the device's own knobs: a 2-entry region cache (LFU evictions all the
# time), and no regions at all (every transfer by address)
armci_rma_test(mrcache2 2 2 ${PAMI} ARMCI_PAMI_MR_CACHE=2)
armci_rma_test(mrcache1 1 3 ${PAMI} ARMCI_PAMI_MR_CACHE=1 ARMCI_HELPER=0)
armci_rma_test(byaddress 2 2 ${PAMI} ARMCI_PAMI_RDMA=0)

# the ARMCI call suite
foreach(what strided sync)
  foreach(layout 1x1 2x2 1x3 4x4)
    string(REPLACE "x" ";" nr ${layout})
    armci_suite_job_test(${what} default ${nr} ${PAMI})
  endforeach()
  armci_suite_job_test(${what} nohelper 2 2 ${PAMI} ARMCI_HELPER=0)
  armci_suite_job_test(${what} partial 1 3 ${PAMI} ARMCI_ORDER=partial)
  armci_suite_job_test(${what} unordered 2 2 ${PAMI} ARMCI_ORDER=unordered)
  armci_suite_job_test(${what} allfence_all 2 2 ${PAMI} ARMCI_ALLFENCE=all)
  armci_suite_job_test(${what} nohelper_allsrv 1 3 ${PAMI} ARMCI_HELPER=0 ARMCI_NONCONTIG=helper
                       ARMCI_ACC=helper ARMCI_RMW=helper)
  armci_suite_job_test(${what} tight 2 2 ${PAMI} ARMCI_BUFS=1 ARMCI_SPARE_BUFS=0
                       ARMCI_BUF_SIZE=512 ARMCI_SPARE_SIZE=4096)
  armci_suite_job_test(${what} mrcache2 2 2 ${PAMI} ARMCI_PAMI_MR_CACHE=2)
endforeach()

# messages, groups, flood control, the DFT kernel and the bad calls: the
# same set over every NIC (tests/runtime/CMakeLists.txt)
armci_nic_common_tests(${PAMI})
armci_err_test(runtime.pami.errors_put_before_init test_errors put_before_init 1 2
               "ARMCI_Error: ARMCI_Put: ARMCI is not initialised" ${PAMI})
armci_msg_err_test(test_msg rcv_overflow 1 2
  "armci_msg_rcv: message of 100 bytes from rank 0 .*longer than buflen = 10" ${PAMI})
armci_err_test(runtime.pami.errors_device_dcmf test_errors init_only 1 2
               "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=dcmf, but this job's NIC is pami"
               ${PAMI} ARMCI_DEVICE=dcmf)
armci_err_test(runtime.errors_device_pami test_errors init_only 1 2
               "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=pami, but this job's NIC is portals"
               ARMCI_DEVICE=pami)

# The region cache and the fallback, seen in the device's counters
# (ARMCI_PAMI_STATS=1, one line per rank and context at finalize): the job
# must pass, transfers must have gone by address before any region was
# known (put_va / get_va), then by region (rput / rget) once the answers
# came, and with a 2-entry cache the LFU policy must have evicted.
set(check ${CMAKE_CURRENT_BINARY_DIR}/armci_pami_expect.cmake)
file(WRITE ${check} [=[
execute_process(COMMAND ${RUN} -N ${NODES} -n ${RANKS} --nic pami --timeout 120 -- ${PROG}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the job exited ${rc}")
endif()
foreach(want IN LISTS EXPECT)
  if(NOT "${out}${err}" MATCHES "${want}")
    message(FATAL_ERROR "no line matches: ${want}")
  endif()
endforeach()
]=])
function(armci_pami_counter_test name prog nodes ranks expect)
  set(t runtime.pami.${name}_${nodes}x${ranks})
  add_test(NAME ${t}
           COMMAND ${CMAKE_COMMAND} -DRUN=$<TARGET_FILE:emunic-run> -DNODES=${nodes}
                   -DRANKS=${ranks} -DPROG=$<TARGET_FILE:${prog}> "-DEXPECT=${expect}"
                   -P ${check})
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 180 ENVIRONMENT "${ARGN}")
endfunction()
set(N "[1-9][0-9]*")
armci_pami_counter_test(mr_fallback test_strided 2 2
  "ctx 0: rput ${N} rget ${N} put_va ${N} get_va ${N} mr_requests ${N}"
  ARMCI_PAMI_STATS=1)
armci_pami_counter_test(mr_lfu test_strided 2 2
  "mr_evictions ${N}" ARMCI_PAMI_STATS=1 ARMCI_PAMI_MR_CACHE=2)
armci_pami_counter_test(rmw_nic test_sync 2 2 "rmw ${N}" ARMCI_PAMI_STATS=1)

# The device's two contexts (application and helper threads, wakeups
# through posted work) also run in the TSan pass.
set_property(TEST runtime.pami.rma_default_2x2 runtime.pami.rma_nohelper_1x3
             runtime.pami.sync_default_2x2 APPEND PROPERTY LABELS tsan)
endfunction()

cmake_language(DEFER CALL armci_pami_tests)
