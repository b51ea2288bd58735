# The runtime's test programs again, over its DCMF device (emunic-run --nic
# dcmf, label "job"): runtime.dcmf.<what>. DCMF has no network atomics, so
# accumulates and RMW go through the data server (ARMCI_ACC=nic and
# ARMCI_RMW=nic fall back to it; test_sync's private memory, which no
# server reaches, through the device's target-run amo), and a helper
# thread means two threads progressing one DCMF messager. Layouts 1x1, 2x2, 1x3 and 4x4 (the flood
# test needs senders: 2x2, 1x3, 2x4).
set(DCMF NIC dcmf)

# the transfer paths under each option set
foreach(layout 1x1 2x2 1x3 4x4)
  string(REPLACE "x" ";" nr ${layout})
  armci_rma_test(default ${nr} ${DCMF})
endforeach()
armci_rma_test(nohelper 2 2 ${DCMF} ARMCI_HELPER=0)
armci_rma_test(nohelper 1 3 ${DCMF} ARMCI_HELPER=0)
armci_rma_test(partial 2 2 ${DCMF} ARMCI_ORDER=partial)
armci_rma_test(unordered 2 2 ${DCMF} ARMCI_ORDER=unordered ARMCI_CONFLICT_TRACKING=0)
armci_rma_test(accsource 2 2 ${DCMF} ARMCI_ACC=source)
armci_rma_test(accsource_nohelper 1 3 ${DCMF} ARMCI_ACC=source ARMCI_HELPER=0)
armci_rma_test(accnic 2 2 ${DCMF} ARMCI_ACC=nic ARMCI_RMW=nic)
armci_rma_test(noncontighelper 2 2 ${DCMF} ARMCI_NONCONTIG=helper)
armci_rma_test(handoff 2 2 ${DCMF} ARMCI_HANDOFF=1)
armci_rma_test(handoff_onebuf 1 3 ${DCMF} ARMCI_HANDOFF=1 ARMCI_HANDOFF_BUFS=1)
armci_rma_test(allfence_all 2 2 ${DCMF} ARMCI_ALLFENCE=all)
armci_rma_test(allfence_all 4 4 ${DCMF} ARMCI_ALLFENCE=all)
armci_rma_test(credits4 2 2 ${DCMF} ARMCI_FLOW_INTIMATION=0 ARMCI_BUFS=4)
armci_rma_test(shm 2 2 ${DCMF} ARMCI_SHM=1)
# DCMF's interrupt mode: a third thread runs the callbacks
armci_rma_test(interrupts 2 2 ${DCMF} DCMF_INTERRUPTS=1)
armci_rma_test(interrupts_nohelper 1 3 ${DCMF} DCMF_INTERRUPTS=1 ARMCI_HELPER=0)

# the ARMCI call suite
foreach(what strided sync)
  foreach(layout 1x1 2x2 1x3 4x4)
    string(REPLACE "x" ";" nr ${layout})
    armci_suite_job_test(${what} default ${nr} ${DCMF})
  endforeach()
  armci_suite_job_test(${what} nohelper 2 2 ${DCMF} ARMCI_HELPER=0)
  armci_suite_job_test(${what} partial 1 3 ${DCMF} ARMCI_ORDER=partial)
  armci_suite_job_test(${what} unordered 2 2 ${DCMF} ARMCI_ORDER=unordered)
  armci_suite_job_test(${what} allfence_all 2 2 ${DCMF} ARMCI_ALLFENCE=all)
  armci_suite_job_test(${what} nohelper_allsrv 1 3 ${DCMF} ARMCI_HELPER=0 ARMCI_NONCONTIG=helper
                       ARMCI_ACC=helper ARMCI_RMW=helper)
  armci_suite_job_test(${what} tight 2 2 ${DCMF} ARMCI_BUFS=1 ARMCI_SPARE_BUFS=0
                       ARMCI_BUF_SIZE=512 ARMCI_SPARE_SIZE=4096)
endforeach()

# messages, groups, flood control, the DFT kernel and the bad calls: the
# same set over every NIC (tests/runtime/CMakeLists.txt)
armci_nic_common_tests(${DCMF})
armci_suite_err_test(init_only 1 2 "ARMCI_Init: ARMCI_ORDER=bogus is not one of: strict, partial"
                     ${DCMF} ARMCI_ORDER=bogus)
armci_err_test(runtime.dcmf.errors_allfence_bogus test_errors init_only 1 2
               "ARMCI_Error: rank [0-9]+: ARMCI_Init: ARMCI_ALLFENCE=some is not one of: touched, all"
               ${DCMF} ARMCI_ALLFENCE=some)
armci_err_test(runtime.dcmf.errors_put_before_init test_errors put_before_init 1 2
               "ARMCI_Error: ARMCI_Put: ARMCI is not initialised" ${DCMF})
armci_msg_err_test(test_msg rcv_overflow 1 2
  "armci_msg_rcv: message of 100 bytes from rank 0 .*longer than buflen = 10" ${DCMF})
# a device that is not the job's NIC, either way round
armci_err_test(runtime.dcmf.errors_device_portals test_errors init_only 1 2
               "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=portals, but this job's NIC is dcmf"
               ${DCMF} ARMCI_DEVICE=portals)
armci_err_test(runtime.errors_device_dcmf test_errors init_only 1 2
               "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=dcmf, but this job's NIC is portals"
               ARMCI_DEVICE=dcmf)
armci_err_test(runtime.dcmf.errors_device_bogus test_errors init_only 1 1
               "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=bogus is not a device \\(devices: portals, dcmf"
               ${DCMF} ARMCI_DEVICE=bogus)

# The device's two contexts over one messager (helper thread, interrupt
# thread) also run in the TSan pass.
set_property(TEST runtime.dcmf.rma_default_2x2 runtime.dcmf.rma_interrupts_2x2
             APPEND PROPERTY LABELS tsan)
