# The Debian package: `cpack -G DEB` in the build folder writes pecheck_<version>_<arch>.deb with what
# install.cmake installs (the CLI, headers, static libraries, CMake config) plus the Python package
# (with its dist-info, so that pytest finds the plugin's pytest11 entry point) and the subject adapter.
# Runtime dependencies come from dpkg-shlibdeps (the CLI's shared libraries) plus python3; the C++
# development packages the CMake config needs are suggested, not required, so that a CI image that
# only runs `pecheck run` stays small. Built and inspected by tests/package/check_deb.py.

# Debian's python3 reads /usr/lib/python3/dist-packages.
set(PECHECK_PYTHON_DIR "lib/python3/dist-packages" CACHE STRING "where the Python package is installed")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/pecheck DESTINATION ${PECHECK_PYTHON_DIR}
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
set(pecheck_dist_info ${PROJECT_BINARY_DIR}/python/pecheck-${PROJECT_VERSION}.dist-info)
file(WRITE ${pecheck_dist_info}/METADATA "Metadata-Version: 2.1\nName: pecheck\nVersion: ${PROJECT_VERSION}\n\
Summary: Property-based checks of positional encodings, rotary embeddings, attention and transformer modules\n\
Requires-Python: >=3.8\nRequires-Dist: numpy\n")
file(WRITE ${pecheck_dist_info}/entry_points.txt "[pytest11]\npecheck = pecheck.pytest_plugin\n")
file(WRITE ${pecheck_dist_info}/top_level.txt "pecheck\n")
file(WRITE ${pecheck_dist_info}/INSTALLER "dpkg\n")
install(DIRECTORY ${pecheck_dist_info} DESTINATION ${PECHECK_PYTHON_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/adapters/python/pecheck_subject.py ${PROJECT_SOURCE_DIR}/adapters/python/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pecheck/adapters/python)
# The contracts errors cite (SUBJECT-PROTOCOL.md, CLAIMS.md) and the user documentation, shipped with the tool.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

set(CPACK_PACKAGE_NAME pecheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "property-based verification of positional encodings, rotary embeddings, attention and transformer modules")
set(CPACK_PACKAGE_CONTACT "pecheck maintainers <pecheck@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # pecheck_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pytest, python3-torch, librapidcheck-dev, libboost-test-dev, \
libeigen3-dev, libfmt-dev, nlohmann-json3-dev, libcli11-dev, libtomlplusplus-dev, pkg-config")
include(CPack)
