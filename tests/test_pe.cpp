// The pe family (properties/pe.cpp): each property holds on the reference,
// meets the counter-schemes' expectations, and fails on planted bugs.
#define BOOST_TEST_MODULE pe
#include <boost/test/unit_test.hpp>

#include "support/planted.h"

using namespace pecheck;
using pecheck::testing::run_property;

BOOST_AUTO_TEST_CASE(bounded_holds_on_reference_and_fails_on_integer) {
  const auto ok = run_property("pe.bounded", "builtin:sinusoidal");
  BOOST_TEST(name(ok.outcome) == "holds");
  BOOST_TEST(ok.cases == 100);
  const auto bad = run_property("pe.bounded", "builtin:integer");
  BOOST_TEST(name(bad.outcome) == "violated");
  BOOST_REQUIRE(bad.counterexample.has_value());
  // Shrunk to the smallest position above the bound: t = 2 at the smallest dim.
  BOOST_TEST(bad.counterexample->inputs["position"].get<int>() == 2);
  BOOST_TEST(bad.counterexample->inputs["dim"].get<int>() == 2);
}
