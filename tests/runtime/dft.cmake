# The DFT-like kernel (bench/armci_dft_kernel.c) checks its own result
# exactly and exits non-zero on a mismatch, so a run is a test of strided
# gets, accumulates and the fetch-and-add task counter under load (label
# "job"; ~1 s, ~3 s under ASan). 7x7 tiles over the 2x2 process grid give
# ranks unequal shares (ARMCI_Malloc sizes differ) and 20000 tasks do not
# divide evenly over the 343 tile triples. The target is defined in bench/,
# added after tests/: $<TARGET_FILE:> resolves at generate time.
add_test(NAME runtime.dft_kernel_2x2
         COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 2 --nic portals --timeout 120
                 -- $<TARGET_FILE:armci_dft_kernel> --tasks 20000 --tiles 7 --quiet)
set_tests_properties(runtime.dft_kernel_2x2 PROPERTIES LABELS job TIMEOUT 150)
