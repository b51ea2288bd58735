# The libarmci variant for MPI programs (EMUNIC_ARMCI_MPI), built next to
# the MPI-free one whenever MPI (Debian's mpich) is there. MPICH leaks a
# little at exit, which LeakSanitizer would blame on the test.
if(TARGET armci_mpi OR EMUNIC_ARMCI_MPI)
  add_executable(test_mpi_group test_mpi_group.c)
  if(EMUNIC_ARMCI_MPI)
    target_link_libraries(test_mpi_group PRIVATE armci)
  else()
    target_link_libraries(test_mpi_group PRIVATE armci_mpi)
  endif()
  foreach(shape 2x2 1x3)
    string(REPLACE "x" ";" nn ${shape})
    list(GET nn 0 nodes)
    list(GET nn 1 ranks)
    add_test(NAME runtime.mpi_group_${shape}
             COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic portals --timeout 60
                     -- $<TARGET_FILE:test_mpi_group>)
    set_tests_properties(runtime.mpi_group_${shape} PROPERTIES LABELS job TIMEOUT 90
      ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" PASS_REGULAR_EXPRESSION "mpi groups ok")
  endforeach()
  # ARMCI over part of the job (GA_Initialize_comm, GA's comm_init.x)
  foreach(nic portals dcmf)
    foreach(how half seq reverse)
      add_test(NAME runtime.mpi_subset_${how}_${nic}_2x2
               COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 2 --nic ${nic} --timeout 60
                       -- $<TARGET_FILE:test_mpi_group> ${how})
      set_tests_properties(runtime.mpi_subset_${how}_${nic}_2x2 PROPERTIES LABELS job TIMEOUT 90
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" PASS_REGULAR_EXPRESSION "mpi subsets \\(${how}\\) ok on 4 ranks")
    endforeach()
  endforeach()
  add_test(NAME runtime.mpi_subset_half_dcmf_4x2
           COMMAND $<TARGET_FILE:emunic-run> -N 4 -n 2 --nic dcmf --timeout 90
                   -- $<TARGET_FILE:test_mpi_group> half)
  set_tests_properties(runtime.mpi_subset_half_dcmf_4x2 PROPERTIES LABELS job TIMEOUT 120
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" PASS_REGULAR_EXPRESSION "mpi subsets \\(half\\) ok on 8 ranks")
  # emunic's PAMI_Client_create is collective over the job: refused in one line
  add_test(NAME runtime.mpi_subset_pami_refused_2x2
           COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 2 --nic pami --timeout 60
                   -- $<TARGET_FILE:test_mpi_group> half)
  set_tests_properties(runtime.mpi_subset_pami_refused_2x2 PROPERTIES LABELS job TIMEOUT 90
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0"
    PASS_REGULAR_EXPRESSION "ARMCI over 2 of the job's ranks is not supported: PAMI_Client_create is collective"
    FAIL_REGULAR_EXPRESSION "returned|timeout|ok on")
endif()
