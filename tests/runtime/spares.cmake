# Gets and writes holding spare-buffer grants at one server together.
add_executable(test_spares ${CMAKE_CURRENT_LIST_DIR}/test_spares.c)
target_link_libraries(test_spares PRIVATE armci)

armci_msg_job_test(test_spares 1 4 150)
armci_msg_job_test(test_spares 2 2 150)
armci_msg_job_test(test_spares 1 4 150 NIC pami)
armci_msg_job_test(test_spares 1 4 150 NIC dcmf)
armci_msg_job_test(test_spares 1 3 150 TAG _nohelper ARMCI_HELPER=0)
