// The registry's tables against the real names: every claim has an
// implementation and every implementation a claim (the join builds), every
// scheme the expectations table names is the scheme of a built-in or planted
// subject or a profile, every property it names exists, and every profile's
// globs select some property — so a typo in a table is a failing test, not a
// silently ignored row.
#include <boost/test/unit_test.hpp>

#include <fnmatch.h>

#include <set>
#include <string>

#include "pecheck/config/profiles.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/builtin/builtins.h"

BOOST_AUTO_TEST_SUITE(test_registry)

using namespace pecheck;

namespace {

// Every scheme a subject of this build carries, and every profile name.
std::set<std::string> known_schemes() {
  install_planted_subjects();
  std::set<std::string> schemes;
  for (const auto* table : {&builtin_subjects(), &mutant_subjects()}) {
    for (const auto& entry : *table) schemes.insert(entry.make()->info().scheme);
  }
  for (const auto& p : profiles()) schemes.insert(p.name);
  return schemes;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_claim_has_an_implementation_and_every_implementation_a_claim) {
  BOOST_REQUIRE_NO_THROW(all_properties());
  const auto& properties = all_properties();
  const auto& claims = claim_table();
  BOOST_TEST_REQUIRE(properties.size() == claims.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < properties.size(); ++i) {
    const auto& p = properties[i];
    BOOST_TEST_CONTEXT(p.info.id) {
      BOOST_TEST(p.info.id == claims[i].id, "the registry keeps the catalog order");
      BOOST_TEST(ids.insert(p.info.id).second, "listed twice");
      BOOST_TEST(p.info.family == family_of(p.info.id));
      BOOST_TEST(!p.info.claim.empty());
      BOOST_TEST(!p.impl.checks.empty());
      BOOST_TEST(static_cast<bool>(p.impl.draw));
      BOOST_TEST(static_cast<bool>(p.impl.remeasure));
      BOOST_TEST(find_property(p.info.id) == &p);
      const std::set<std::string> checks(p.impl.checks.begin(), p.impl.checks.end());
      BOOST_TEST(checks.size() == p.impl.checks.size(), "a sub-check is declared twice");
    }
  }
  BOOST_TEST(find_property("pe.offset_only_dott") == nullptr);
}

BOOST_AUTO_TEST_CASE(every_expectation_names_a_real_property_and_a_real_scheme) {
  const std::set<std::string> schemes = known_schemes();
  BOOST_TEST(schemes.count("sinusoidal") == 1u);  // the set is not empty by accident
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& row : expectation_table()) {
    BOOST_TEST_CONTEXT(row.property << " on " << row.scheme) {
      BOOST_TEST(find_property(row.property) != nullptr, "no property " << row.property);
      BOOST_TEST(schemes.count(row.scheme) == 1u,
                 "no built-in, planted bug or profile has the scheme '" << row.scheme << "'");
      BOOST_TEST(seen.emplace(row.property, row.scheme).second, "two rows for the same property and scheme");
      // The row reaches the joined registry.
      if (const PropertyDef* p = find_property(row.property)) {
        const auto it = p->info.expect_for.find(row.scheme);
        BOOST_TEST((it != p->info.expect_for.end() && it->second == row.expect));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_profile_glob_selects_a_property) {
  for (const auto& profile : profiles()) {
    for (const auto& glob : profile.properties) {
      bool any = false;
      for (const auto& p : all_properties()) any |= fnmatch(glob.c_str(), p.info.id.c_str(), 0) == 0;
      BOOST_TEST(any, "profile " << profile.name << ": '" << glob << "' selects no property");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_registry
