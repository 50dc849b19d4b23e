# pecheck_add_tests(<target-or-subject-spec>
#                   [PECHECK <pecheck executable or target>]   default: the pecheck_cli target, else pecheck on PATH
#                   [PROPERTIES <glob>...]                     default: every property that applies
#                   [PREFIX <test name prefix>]                default: pecheck.<target or spec>
#                   [REPORT_DIR <dir>]                         default: <binary dir>/pecheck-reports/<prefix>
#                   [ARGS <pecheck run arguments>...])         e.g. --cases 1000 --no-regressions
#
# Registers one ctest test per cell (property × subject), named
# <prefix>.<property id>, each running
#   pecheck run --subject <spec> --properties <id> --report-dir <REPORT_DIR>/<id> <ARGS>
# so `ctest -j` (and the tools that spread ctest runs over machines) run the
# cells side by side. A test passes when the cell meets its expectation
# (pecheck's exit code 0).
#
# The cells depend on the subject's declared ops, which only the subject
# knows, so they are discovered when ctest reads the tests (as
# gtest_discover_tests' PRE_TEST mode does): `pecheck run --list-cells`.
# Should discovery fail (the subject cannot start), one test named
# <prefix>.discovery fails and shows why.
#
# A target is the subject itself: an executable becomes cmd:<its file>, a
# shared or module library plugin:<its file>.
function(pecheck_add_tests subject)
  cmake_parse_arguments(PAT "" "PECHECK;PREFIX;REPORT_DIR" "PROPERTIES;ARGS" ${ARGN})
  if(PAT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pecheck_add_tests: unknown arguments ${PAT_UNPARSED_ARGUMENTS}")
  endif()
  set(name "${subject}")
  if(TARGET ${subject})
    get_target_property(type ${subject} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(spec "cmd:$<TARGET_FILE:${subject}>")
    elseif(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
      set(spec "plugin:$<TARGET_FILE:${subject}>")
    else()
      message(FATAL_ERROR "pecheck_add_tests: target ${subject} is a ${type}; give an executable, a plugin or a subject spec")
    endif()
  else()
    set(spec "${subject}")
  endif()
  if(NOT PAT_PECHECK)
    if(TARGET pecheck_cli)
      set(PAT_PECHECK pecheck_cli)
    else()
      find_program(PECHECK_EXECUTABLE pecheck REQUIRED)
      set(PAT_PECHECK "${PECHECK_EXECUTABLE}")
    endif()
  endif()
  if(TARGET ${PAT_PECHECK})
    set(pecheck "$<TARGET_FILE:${PAT_PECHECK}>")
  else()
    set(pecheck "${PAT_PECHECK}")
  endif()
  string(MAKE_C_IDENTIFIER "${name}" safe)
  if(NOT PAT_PREFIX)
    set(PAT_PREFIX "pecheck.${safe}")
  endif()
  if(NOT PAT_REPORT_DIR)
    set(PAT_REPORT_DIR "${CMAKE_CURRENT_BINARY_DIR}/pecheck-reports/${PAT_PREFIX}")
  endif()
  set(select "")
  foreach(glob IN LISTS PAT_PROPERTIES)
    string(APPEND select " --properties [==[${glob}]==]")
  endforeach()
  set(extra "")
  foreach(arg IN LISTS PAT_ARGS)
    string(APPEND extra " [==[${arg}]==]")
  endforeach()
  # Read by ctest (TEST_INCLUDE_FILES): lists the cells, adds a test for each.
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${PAT_PREFIX}_tests-$<CONFIG>.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT "\
execute_process(COMMAND [==[${pecheck}]==] run --subject [==[${spec}]==]${select}${extra} --list-cells
                OUTPUT_VARIABLE cells ERROR_VARIABLE why RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  add_test([==[${PAT_PREFIX}.discovery]==] [==[${pecheck}]==] run --subject [==[${spec}]==]${select}${extra} --list-cells)
  return()
endif()
string(REPLACE \"\\n\" \";\" cells \"\${cells}\")
foreach(cell IN LISTS cells)
  string(REGEX REPLACE \"\\t.*\" \"\" id \"\${cell}\")
  if(id)
    add_test(\"${PAT_PREFIX}.\${id}\" [==[${pecheck}]==] run --subject [==[${spec}]==] --properties \${id}
             --report-dir \"${PAT_REPORT_DIR}/\${id}\"${extra})
  endif()
endforeach()
")
  # The generated file carries the configuration in its name; ctest includes the one that exists.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${PAT_PREFIX}_include.cmake")
  file(WRITE "${include_file}" "\
if(EXISTS \"${CMAKE_CURRENT_BINARY_DIR}/${PAT_PREFIX}_tests-\${CTEST_CONFIGURATION_TYPE}.cmake\")
  include(\"${CMAKE_CURRENT_BINARY_DIR}/${PAT_PREFIX}_tests-\${CTEST_CONFIGURATION_TYPE}.cmake\")
else()
  file(GLOB found [==[${CMAKE_CURRENT_BINARY_DIR}/${PAT_PREFIX}_tests-*.cmake]==])
  list(GET found 0 first)
  include(\${first})
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
