# EXT_collsel (collsel.c): IBM PE's collective-selection tuner, its
# argument checks, a data-checked run and the table task 0 writes.
add_executable(collsel collsel.c ptest.h)
target_link_libraries(collsel PRIVATE pami)
pami_job_test(collsel 2 1 120)
pami_job_test(collsel 2 2 180)
pami_job_test(collsel 1 3 180)
