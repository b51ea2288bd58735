# Machine profiles (--machine NAME) and the --dilate interposer: emunic-run
# looks for NAME.yaml in <bindir>/../share/emunic/machines and preloads
# libemunic_dilate.so from <bindir>/<EMUNIC_BIN_TO_LIB> (launcher/machine.c).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/emunic/machines
        DESTINATION ${CMAKE_INSTALL_DATADIR}/emunic
        FILES_MATCHING PATTERN "*.yaml")
install(TARGETS emunic_dilate LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
