# Drives a consumer test (cmake -P): builds the consumer project in a fresh
# directory and runs its tests, the way a user's project would.
#
#   -DMODE=find_package      cmake --install this build into a temporary
#                            prefix, then configure the consumer with
#                            CMAKE_PREFIX_PATH pointing there
#   -DMODE=add_subdirectory  configure the consumer around this source tree,
#                            once without a build type (pecheck must not set
#                            one), then build it
#   -DBUILD_DIR=…  -DSOURCE_DIR=…  -DWORK_DIR=…  -DGENERATOR=…  -DCXX=…  -DC=…
#   -DBUILD_TYPE=…  the one pecheck was built with, and -DLAUNCHER=… the
#                   compiler launcher it was built with (ccache, when
#                   CMAKE_CXX_COMPILER_LAUNCHER named it), so that ccache
#                   reuses its objects; none is needed; -DCXX_FLAGS=… and
#                   -DLINKER_FLAGS=… the flags it was built with (a sanitizer
#                   build's static libraries need its runtime in the consumer)
cmake_minimum_required(VERSION 3.25)

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    list(JOIN ARGN " " shown)
    message(FATAL_ERROR "failed (${code}): ${shown}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(common -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
if(LAUNCHER)
  list(APPEND common -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER})
endif()
set(consumer "${SOURCE_DIR}/tests/consumer/${MODE}")

if(MODE STREQUAL "find_package")
  step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  # What must and must not be installed.
  foreach(file include/pecheck/boost_test.h include/pecheck_plugin.h lib/cmake/pecheck/pecheckConfig.cmake
               lib/cmake/pecheck/pecheckConfigVersion.cmake bin/pecheck)
    if(NOT EXISTS "${WORK_DIR}/prefix/${file}")
      message(FATAL_ERROR "not installed: ${file}")
    endif()
  endforeach()
  if(EXISTS "${WORK_DIR}/prefix/include/pecheck/planted")
    message(FATAL_ERROR "the planted bugs' headers were installed")
  endif()
  step(${CMAKE_COMMAND} -S "${consumer}" -B "${WORK_DIR}/build" ${common} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
       "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
elseif(MODE STREQUAL "add_subdirectory")
  # No build type given: the consumer's CMakeLists fails if pecheck sets one.
  step(${CMAKE_COMMAND} -S "${consumer}" -B "${WORK_DIR}/untyped" ${common} "-DPECHECK_SOURCE_DIR=${SOURCE_DIR}")
  step(${CMAKE_COMMAND} -S "${consumer}" -B "${WORK_DIR}/build" ${common} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
       "-DPECHECK_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be find_package or add_subdirectory, not '${MODE}'")
endif()

step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
step(${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/build" --output-on-failure)
file(REMOVE_RECURSE "${WORK_DIR}")
