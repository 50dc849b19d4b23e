# The consumer's own test, the same whichever way pecheck came in: a
# Boost.Test executable linked with the namespaced targets, whose property
# cases must be registered (--list_content names them) and must pass.
add_executable(consumer_test ${CMAKE_CURRENT_LIST_DIR}/consumer_test.cpp)
target_link_libraries(consumer_test PRIVATE pecheck::pecheck pecheck::boost_test pecheck::plugin_abi)

enable_testing()
add_test(NAME consumer_test COMMAND consumer_test)
add_test(NAME consumer_test_lists_the_properties COMMAND consumer_test --list_content)
set_tests_properties(consumer_test_lists_the_properties PROPERTIES
  PASS_REGULAR_EXPRESSION "consumer_encoder.*pe\\.bounded.*pe\\.reference_values")
