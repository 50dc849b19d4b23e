# Installable as fmt and RapidCheck are: the headers under include/pecheck/,
# the layers as pecheck::<layer>, pecheck::pecheck, pecheck::boost_test and
# pecheck::plugin_abi, a config and a version file, and the CLI.
include(CMakePackageConfigHelpers)
set(PECHECK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pecheck)

get_property(pecheck_layers GLOBAL PROPERTY PECHECK_LAYERS)
list(REMOVE_ITEM pecheck_layers pecheck_planted)  # planted bugs stay out of the installed library
install(TARGETS ${pecheck_layers} pecheck_library pecheck_boost_test pecheck_plugin_abi
        EXPORT pecheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pecheck DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN "planted" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/adapters/c/pecheck_plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pecheckTargets NAMESPACE pecheck:: DESTINATION ${PECHECK_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pecheckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/pecheckConfig.cmake INSTALL_DESTINATION ${PECHECK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pecheckConfig.cmake ${PROJECT_BINARY_DIR}/pecheckConfigVersion.cmake
        ${PROJECT_SOURCE_DIR}/cmake/pecheck_add_tests.cmake DESTINATION ${PECHECK_CMAKE_DIR})
if(TARGET pecheck_cli)
  install(TARGETS pecheck_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
