// `pecheck list` shows the planted catalog: under each claim the planted bugs
// that fail each sub-check, per property `caught_by` and per planted bug
// `catches` in --json, both read from the same table, and no warning (every
// sub-check is caught by some planted bug).
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <tuple>

#include "pecheck/core/json.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_list_command)

using namespace pecheck;
using namespace pecheck::testing;

namespace {
using Row = std::tuple<std::string, std::string, std::string>;  // mutant, property, check

std::set<Row> catalog_rows() {
  std::set<Row> rows;
  for (const auto& c : planted_catches()) rows.emplace(c.mutant, c.property, c.check);
  return rows;
}
}  // namespace

BOOST_AUTO_TEST_CASE(json_lists_the_catalog_per_property_and_per_planted_bug) {
  const auto r = run_cli({"list", "--json"});
  BOOST_REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  std::set<Row> by_property, by_mutant;
  for (const auto& p : j["properties"]) {
    const auto id = p["id"].get<std::string>();
    const auto checks = p["checks"].get<std::vector<std::string>>();
    BOOST_TEST(!checks.empty(), id);
    BOOST_TEST(p["uncaught_checks"].empty(), id << " has sub-checks no planted bug catches: " << p["uncaught_checks"]);
    for (const auto& c : p["caught_by"]) {
      const auto spec = c["mutant"].get<std::string>();
      BOOST_TEST(spec.rfind("mutant:", 0) == 0, spec);
      by_property.emplace(spec.substr(7), id, c["check"].get<std::string>());
    }
  }
  for (const auto& m : j["mutants"]) {
    const auto name = m["spec"].get<std::string>().substr(7);
    for (const auto& c : m["catches"]) by_mutant.emplace(name, c["property"].get<std::string>(), c["check"].get<std::string>());
  }
  BOOST_TEST(j["uncatalogued_mutants"].empty(), j["uncatalogued_mutants"].dump());
  BOOST_TEST((by_property == catalog_rows()));
  BOOST_TEST((by_mutant == catalog_rows()));
  // A planted bug written for one sub-check lists it.
  BOOST_TEST(by_mutant.count({"attention-softmax-cubic-exp", "attention.convex_combination", "weights non-negative"}) == 1);
}

BOOST_AUTO_TEST_CASE(text_shows_each_sub_check_and_its_planted_bugs_without_warnings) {
  const auto r = run_cli({"list"});
  BOOST_REQUIRE(r.exit_code == 0);
  BOOST_TEST(r.output.find("warning:") == std::string::npos, r.output);
  BOOST_TEST(r.output.find("'norm within the longest value' caught by mutant:attention-value-tile-stale-row") !=
                 std::string::npos,
             r.output);
  // Every declared sub-check of every property has its line.
  for (const auto& p : all_properties()) {
    for (const auto& check : p.impl.checks) {
      BOOST_TEST(r.output.find("'" + check + "' caught by") != std::string::npos, p.info.id << " / " << check);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_list_command
