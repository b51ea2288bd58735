# Short-message flow control: senders flood a rank that is not progressing.
add_executable(test_flood ${CMAKE_CURRENT_LIST_DIR}/test_flood.c)
target_link_libraries(test_flood PRIVATE armci)
add_test(NAME runtime.flood_2x4
         COMMAND $<TARGET_FILE:emunic-run> -N 2 -n 4 --nic portals --timeout 120
                 -- $<TARGET_FILE:test_flood>)
set_tests_properties(runtime.flood_2x4 PROPERTIES LABELS job TIMEOUT 150)
