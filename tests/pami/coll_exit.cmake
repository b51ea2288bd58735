# A node leader leaving right after a hybrid barrier while members are slow
# to read the release (IBM's collectives/barrier at 2x2).
add_executable(coll_exit coll_exit.c)
target_link_libraries(coll_exit PRIVATE pami)
pami_job_test(coll_exit 2 2 60)
pami_job_test(coll_exit 1 3 60)
pami_job_test(coll_exit 2 3 60)
