# armci_msg_*, collectives, groups and domains: multi-rank programs under
# emunic-run --nic portals (label "job"), plus error cases: one bad call
# each, which must end the job with a non-zero status and the message that
# names the call and the argument.

foreach(prog test_msg test_groups)
  add_executable(${prog} ${prog}.c)
  target_link_libraries(${prog} PRIVATE armci)
endforeach()
# test_groups also drives coll.h's non-blocking collectives directly.
target_include_directories(test_groups PRIVATE ${PROJECT_SOURCE_DIR}/runtime/core)

# armci_msg_job_test(PROG NODES RANKS TIMEOUT [NIC nic] [TAG _suffix] [ENV...]): any
# runtime test program that checks itself (threads.cmake and spares.cmake
# register theirs with it too)
function(armci_msg_job_test prog nodes ranks timeout)
  cmake_parse_arguments(B "" "TAG" "" ${ARGN})
  armci_nic_args(nic prefix env ${B_UNPARSED_ARGUMENTS})
  set(name ${prefix}${prog}_${nodes}x${ranks}${B_TAG})
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic}
                   --timeout ${timeout} -- $<TARGET_FILE:${prog}>)
  math(EXPR ctest_timeout "${timeout} + 30")
  set_tests_properties(${name} PROPERTIES LABELS "job" TIMEOUT ${ctest_timeout})
  if(env)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

foreach(prog test_msg test_groups)
  armci_msg_job_test(${prog} 1 1 120)
  armci_msg_job_test(${prog} 2 2 180)
  armci_msg_job_test(${prog} 1 3 180)
  armci_msg_job_test(${prog} 4 4 400)
endforeach()

function(armci_msg_err_test prog case nodes ranks expect)
  armci_nic_args(nic prefix env ${ARGN})
  armci_err_test(${prefix}${prog}_err_${case} ${prog} "err;${case}" ${nodes} ${ranks} "${expect}"
                 NIC ${nic} ${env})
endfunction()

armci_msg_err_test(test_msg rcv_overflow 1 2
  "armci_msg_rcv: message of 100 bytes from rank 0 .*longer than buflen = 10")
armci_msg_err_test(test_msg bad_op 1 1 "armci_msg_igop: unknown op \"sum\" for type int")
armci_msg_err_test(test_msg or_float 1 1 "armci_msg_fgop: unknown op \"or\" for type float")
armci_msg_err_test(test_msg land_double 1 1 "armci_msg_dgop: unknown op \"land\" for type double")
armci_msg_err_test(test_msg bad_type 1 1 "armci_msg_gop_scope: unknown type 99")
armci_msg_err_test(test_msg null_buf 1 1 "armci_msg_dgop: x is NULL with n = 3")
armci_msg_err_test(test_msg neg_n 1 1 "armci_msg_igop: n = -1 < 0")
armci_msg_err_test(test_msg neg_len 1 1 "armci_msg_snd: len = -1 < 0")
armci_msg_err_test(test_msg bad_to 2 1 "armci_msg_snd: to = 2 out of range 0..1")
armci_msg_err_test(test_msg bad_scope 1 1 "armci_msg_gop_scope: unknown scope 7")
armci_msg_err_test(test_msg bad_root 1 2 "armci_msg_bcast: root = 2 out of range 0..1")
armci_msg_err_test(test_msg sel_op 1 1 "armci_msg_sel: unknown op \"avg\"")
armci_msg_err_test(test_msg abort 1 1 "armci_msg_abort\\(7\\)")
armci_msg_err_test(test_msg group_freed 1 2 "armci_msg_group_igop: group has been freed")

armci_msg_err_test(test_groups pid_range 1 3
  "ARMCI_Group_create: pid_list\\[1\\] = 99 out of range 0..2")
armci_msg_err_test(test_groups pid_dup 2 1
  "ARMCI_Group_create: pid_list\\[1\\] = 1 repeats pid_list\\[0\\]")
armci_msg_err_test(test_groups n_neg 1 1 "ARMCI_Group_create: n = -1 < 0")
armci_msg_err_test(test_groups n_big 1 2 "ARMCI_Group_create: n = 3 > 2")
armci_msg_err_test(test_groups null_list 1 1 "ARMCI_Group_create: pid_list is NULL with n = 1")
armci_msg_err_test(test_groups null_out 1 1 "ARMCI_Group_create: group_out is NULL")
armci_msg_err_test(test_groups child_range 1 3
  "ARMCI_Group_create_child: pid_list\\[0\\] = 2 out of range 0..1")
armci_msg_err_test(test_groups freed 1 2 "ARMCI_Group_size: group has been freed")
armci_msg_err_test(test_groups garbage 1 1 "ARMCI_Group_rank: not a valid group handle")
armci_msg_err_test(test_groups stale_copy 1 1 "ARMCI_Absolute_id: not a valid group handle")
armci_msg_err_test(test_groups free_world 1 1 "ARMCI_Group_free: the world group cannot be freed")
armci_msg_err_test(test_groups bcast_root 1 2
  "armci_msg_group_bcast_scope: root = 2 \\(a world rank\\) is not a member of the group")
armci_msg_err_test(test_groups abs_range 1 2 "ARMCI_Absolute_id: group_rank = 2 out of range 0..1")
armci_msg_err_test(test_groups nonmember_default 1 2
  "ARMCI_Group_set_default: the caller \\(rank 1\\) is not a member")
armci_msg_err_test(test_groups nonmember_coll 1 2
  "armci_msg_group_barrier: the caller \\(rank 1\\) is not a member")
armci_msg_err_test(test_groups pid_mismatch 1 2
  "ARMCI_Group_create: member [0-9]+ of pid_list passed a different list")
armci_msg_err_test(test_groups domain_id 2 1 "armci_domain_nprocs: id = 2 out of range 0..1")
armci_msg_err_test(test_groups domain_proc 1 2 "ARMCI_Same_node: proc = -1 out of range 0..1")
armci_msg_err_test(test_groups domain_loc 2 2
  "armci_domain_glob_proc_id: loc_proc_id = 2 out of range 0..1 for domain 1")
