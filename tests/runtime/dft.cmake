# The DFT-like kernel (bench/armci_dft_kernel.c) checks its own result
# exactly and exits non-zero on a mismatch, so a run is a test of strided
# gets, accumulates and the fetch-and-add task counter under load (label
# "job"; ~1 s, ~3 s under ASan). 7x7 tiles over the 2x2 process grid give
# ranks unequal shares (ARMCI_Malloc sizes differ) and 20000 tasks do not
# divide evenly over the 343 tile triples. The target is defined in bench/,
# added after tests/: $<TARGET_FILE:> resolves at generate time.

# armci_dft_test(NODES RANKS [NIC nic] [TAG _suffix] [ENV...])
function(armci_dft_test nodes ranks)
  cmake_parse_arguments(B "" "TAG" "" ${ARGN})
  armci_nic_args(nic prefix env ${B_UNPARSED_ARGUMENTS})
  set(t ${prefix}dft_kernel_${nodes}x${ranks}${B_TAG})
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic} --timeout 120
                   -- $<TARGET_FILE:armci_dft_kernel> --tasks 20000 --tiles 7 --quiet)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT 150)
  if(env)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

armci_dft_test(2 2)
