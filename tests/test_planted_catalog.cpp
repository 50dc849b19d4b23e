// Every sub-check can fail: the planted catalog (planted/mutants.h,
// PlantedCatch) names, for every declared sub-check of every property in the
// registry, a planted bug that it catches — no exemptions. Each row is run:
// the property misses its expectation on the planted bug and the row's check
// is the one that decides. A property added without such rows fails here.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/runner/cell.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/factory.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_planted_catalog)

using namespace pecheck;

namespace {

const SubjectEntry* mutant_named(const std::string& name) {
  install_planted_subjects();
  for (const auto& m : mutant_subjects()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// The deciding check of a result: the counterexample's, or for a held
// property the passing check that came closest to its bound.
std::string deciding_check(const PropertyResult& r) {
  if (const auto* c = r.counterexample()) return c->check;
  if (const auto* held = std::get_if<Held>(&r.outcome); held && held->closest) return held->closest->check.name;
  return {};
}

std::string describe(const PropertyResult& r) {
  return std::string(name(r.outcome)) + " (" + std::string(name(r.status())) + "), deciding check '" +
         deciding_check(r) + "'" + (r.message().empty() ? "" : ": " + r.message());
}

// A claim that is false for a correct implementation is shown to fail on the
// correct built-in of the same scheme: the check a planted bug makes pass
// is one that can fail.
const SubjectEntry* correct_twin(const std::string& scheme) {
  for (const auto& b : builtin_subjects()) {
    if (b.in_default_matrix && b.make()->info().scheme == scheme) return &b;
  }
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_names_a_real_planted_bug_property_and_declared_check) {
  const auto rows = planted_catches();
  BOOST_TEST(!rows.empty());
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.mutant << " × " << row.property << " / " << row.check) {
      BOOST_TEST(seen.emplace(row.mutant, row.property, row.check).second, "the row is listed twice");
      const SubjectEntry* mutant = mutant_named(row.mutant);
      BOOST_TEST(mutant != nullptr, "no planted bug mutant:" << row.mutant);
      const PropertyDef* property = find_property(row.property);
      BOOST_TEST(property != nullptr, "no property " << row.property);
      if (mutant == nullptr || property == nullptr) continue;
      const auto& checks = property->impl.checks;
      BOOST_TEST((std::find(checks.begin(), checks.end(), row.check) != checks.end()),
                 row.property << " declares no sub-check '" << row.check << "'");
      BOOST_TEST(property->info.applies_to(mutant->make()->info()),
                 "mutant:" << row.mutant << " lacks the op " << row.property << " needs");
    }
  }
}

BOOST_AUTO_TEST_CASE(every_declared_sub_check_of_every_property_has_a_planted_bug) {
  const auto rows = planted_catches();
  std::string missing;
  for (const auto& p : all_properties()) {
    for (const auto& check : p.impl.checks) {
      const bool caught = std::any_of(rows.begin(), rows.end(), [&](const PlantedCatch& row) {
        return row.property == p.info.id && row.check == check;
      });
      if (!caught) missing += "\n  " + p.info.id + " / " + check;
    }
  }
  BOOST_TEST(missing.empty(), "sub-checks that no planted bug is shown to fail (add a row to a "
                              "src/planted/catches_*.cpp table, and the planted bug if none fails it):"
                                  << missing);
}

BOOST_AUTO_TEST_CASE(every_planted_bug_is_shown_to_fail_some_sub_check) {
  // A planted bug no row names is a claim nobody checks ("this bug is caught").
  const auto rows = planted_catches();
  std::string missing;
  for (const auto& m : mutant_subjects()) {
    const bool named = std::any_of(rows.begin(), rows.end(), [&](const PlantedCatch& row) { return row.mutant == m.name; });
    if (!named) missing += "\n  mutant:" + m.name;
  }
  BOOST_TEST(missing.empty(), "planted bugs the catalog never shows failing (add their rows to a "
                              "src/planted/catches_*.cpp table):"
                                  << missing);
}

BOOST_AUTO_TEST_CASE(every_row_is_caught_by_its_check) {
  for (const auto& row : planted_catches()) {
    BOOST_TEST_CONTEXT(row.mutant << " × " << row.property << " / " << row.check) {
      const PropertyDef* property = find_property(row.property);
      if (property == nullptr || mutant_named(row.mutant) == nullptr) continue;  // reported above
      const std::string spec = std::string("mutant:") + row.mutant;
      const PropertyResult r = pecheck::testing::run_property(row.property, spec);
      // The planted bug is caught: the property misses its expectation for
      // the mutant's scheme, decided by the row's check.
      BOOST_TEST((r.status() == Status::failed), describe(r));
      BOOST_TEST(deciding_check(r) == row.check, describe(r));
      if (r.expectation == Expect::holds) {
        BOOST_TEST(r.counterexample() != nullptr, describe(r));
        continue;
      }
      // A claim false for correct code: the bug made it hold. The same check
      // must reject the correct twin, or it has not been shown to check.
      BOOST_TEST(r.held(), describe(r));
      const std::string scheme = make_subject(spec)->info().scheme;
      const SubjectEntry* twin = correct_twin(scheme);
      BOOST_TEST(twin != nullptr, "no built-in of scheme " << scheme);
      if (twin == nullptr) continue;
      const PropertyResult correct = pecheck::testing::run_property(row.property, "builtin:" + twin->name);
      BOOST_TEST(correct.counterexample() != nullptr, "builtin:" << twin->name << ": " << describe(correct));
      BOOST_TEST(deciding_check(correct) == row.check, "builtin:" << twin->name << ": " << describe(correct));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_planted_catalog
