// Every test executable's main(): Boost.Test's, generated here once. The
// tests' precompiled header holds <boost/test/unit_test.hpp> (parsed once for
// all 74 test files), so a test file's own include of it defines no main.
#define BOOST_TEST_MODULE pecheck
#include <boost/test/unit_test.hpp>
