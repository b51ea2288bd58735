# PAMI types and data functions (types.c, data_ops.c): a single-process
# CMocka test of libpami's type machinery; needs no NIC or emunic-run.
add_executable(pami_types_unit types_unit.c)
target_include_directories(pami_types_unit PRIVATE ${PROJECT_SOURCE_DIR}/emunic/pami/lib
                                                   ${PROJECT_SOURCE_DIR}/emunic/include)
target_link_libraries(pami_types_unit PRIVATE pami emunic PkgConfig::CMOCKA m)
add_test(NAME pami.types_unit COMMAND pami_types_unit)
set_tests_properties(pami.types_unit PROPERTIES LABELS unit TIMEOUT 60)
