# The Blue Gene/P shim headers (bpcore/, spi/): atomics under threads, and
# the lockbox across the ranks of one emulated node. Threaded, so it also
# runs in the TSan pass (label tsan).
add_executable(dcmf_shims dcmf_shims.c dcmf_shims_kernel.c)
target_link_libraries(dcmf_shims PRIVATE dcmf Threads::Threads)
dcmf_job_test(dcmf_shims 1 4 120)
dcmf_job_test(dcmf_shims 2 2 120)
set_property(TEST dcmf.dcmf_shims_1x4 dcmf.dcmf_shims_2x2 APPEND PROPERTY LABELS tsan)
# the lockbox, a file the client names, goes with the job however it ends
add_test(NAME dcmf.lockbox_names
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/lockbox_names.sh $<TARGET_FILE:emunic-run> $<TARGET_FILE:dcmf_shims>)
set_tests_properties(dcmf.lockbox_names PROPERTIES LABELS "job" TIMEOUT 150)
