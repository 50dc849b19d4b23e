// The planted-bug catalog of the declared-convention claims (CLAIMS.md §5,
// src/planted/catches_conventions.cpp): every row's mutant fails its property
// with that sub-check deciding, shrunk, with a diagnosis where the property
// diagnoses; and every declared sub-check of the §5 properties is failed by
// some planted bug (a check no bug can fail would be a check that cannot fail).
#define BOOST_TEST_MODULE convention_catalog
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <utility>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "support/planted.h"

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

const std::set<std::string> kDiagnosed = {"rope.reference_values", "pe.reference_values"};
const std::set<std::string> kSection5 = {"rope.reference_values", "rope.pass_through", "rope.distinct_positions",
                                         "attention.causal_no_lookahead"};

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_fails_its_property_with_its_check) {
  for (const auto& row : convention_catches()) {
    BOOST_TEST_CONTEXT(row.mutant << " on " << row.property) {
      const auto r = run_property(row.property, std::string("mutant:") + row.mutant);
      BOOST_TEST(name(r.outcome) == "violated", r.message());
      const auto* ce = r.counterexample();
      BOOST_REQUIRE(ce != nullptr);
      BOOST_TEST(ce->check == row.check);
      if (kDiagnosed.count(row.property) != 0) BOOST_TEST(!ce->diagnosis.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(every_section5_sub_check_is_caught_by_a_planted_bug) {
  std::set<std::pair<std::string, std::string>> caught;
  for (const auto& row : planted_catches()) caught.emplace(row.property, row.check);
  for (const auto& id : kSection5) {
    const auto* def = find_property(id);
    BOOST_REQUIRE_MESSAGE(def != nullptr, id);
    for (const auto& check : def->impl.checks) {
      BOOST_TEST(caught.count({id, check}) == 1, id << " / " << check << " has no planted bug that fails it");
    }
  }
}
