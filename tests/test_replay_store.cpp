// The regression store (src/replay/regression_store.cpp): an unexpected
// failure is saved, and the next run for the same property × subject replays
// it first — found at once, no case generated; once fixed, the entry holds and
// generation goes on; --no-regressions turns the store off.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>

#include "pecheck/property/registry.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/report/report_files.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/factory.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_replay_store)

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;

namespace {

const char* const kProperty = "pe.reference_values";
const char* const kMutant = "mutant:sinusoidal-off-by-one";

RunReport one_result_report(const PropertyResult& r) {
  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.seed = 1;
  report.cases = 100;
  report.started_at = "2026-01-01T00:00:00Z";
  report.properties = {find_property(r.property)->info};
  report.results = {r};
  return report;
}

// One cell, run by the session with the store as its step (as `pecheck run` composes it).
PropertyResult run_with(const std::shared_ptr<RegressionStore>& store, const std::string& spec) {
  Plan plan;
  plan.selected = {find_property(kProperty)};
  plan.subjects.push_back(plan_subject(make_subject(spec), plan.selected, nullptr));
  plan.steps.before_cell.push_back(store);
  RunObserver quiet;
  return run(plan, quiet).results.front();
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".json";
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_saved_failure_is_replayed_first_and_found_without_generating) {
  const fs::path dir = fs::path(temp_dir("pecheck-store")) / "regressions";
  auto empty = std::make_shared<RegressionStore>(dir);
  BOOST_TEST(empty->size() == 0u);
  const PropertyResult first = run_with(empty, kMutant);
  BOOST_REQUIRE(first.status() == Status::failed);
  BOOST_TEST(first.regression_file().empty());
  BOOST_TEST(first.regressions_replayed == 0);
  BOOST_TEST(first.cases > 0);

  const auto saved = save_regressions(*empty, one_result_report(first));
  BOOST_REQUIRE(saved.size() == 1u);
  BOOST_TEST(saved[0].filename().string().rfind("pe.reference_values--mutant_sinusoidal-off-by-one--", 0) == 0);
  // Saving the same failure again adds nothing.
  BOOST_TEST(save_regressions(RegressionStore(dir), one_result_report(first)).empty());
  BOOST_TEST(entries(dir) == 1u);

  const auto store = std::make_shared<RegressionStore>(dir);
  BOOST_TEST(store->cases_for(kProperty, kMutant).size() == 1u);
  BOOST_TEST(store->cases_for(kProperty, "builtin:sinusoidal").empty());
  const PropertyResult second = run_with(store, kMutant);
  BOOST_TEST(!second.regression_file().empty());
  BOOST_TEST(second.cases == 0);  // nothing generated: the stored case is the result
  BOOST_TEST(second.regressions_replayed == 1);
  // The replayed failure names its cause as the first sighting did (issue 40), probed afresh.
  BOOST_REQUIRE(first.counterexample() != nullptr && second.counterexample() != nullptr);
  BOOST_TEST(!first.counterexample()->diagnosis.empty());
  BOOST_TEST(second.counterexample()->diagnosis == first.counterexample()->diagnosis);
  BOOST_TEST(name(second.status()) == "failed");
  BOOST_REQUIRE(second.counterexample() != nullptr);
  BOOST_TEST(second.counterexample()->inputs == first.counterexample()->inputs);
  BOOST_TEST(second.regression_file() == saved[0].string());
  // A result from the store is not saved a second time.
  BOOST_TEST(save_regressions(*store, one_result_report(second)).empty());
}

BOOST_AUTO_TEST_CASE(a_fixed_bug_replays_its_entry_then_generates_as_usual) {
  const fs::path dir = fs::path(temp_dir("pecheck-store")) / "regressions";
  const PropertyResult found = run_with(std::make_shared<RegressionStore>(dir), kMutant);
  save_regressions(RegressionStore(dir), one_result_report(found));
  // The entry is keyed by subject: point it at the fixed subject, as if the bug were fixed in place.
  json entry = json::parse(read_file((*fs::directory_iterator(dir)).path().string()));
  entry["subject"] = "builtin:sinusoidal";
  RegressionStore(dir).save(entry);
  const PropertyResult fixed = run_with(std::make_shared<RegressionStore>(dir), "builtin:sinusoidal");
  BOOST_TEST(name(fixed.status()) == "passed");
  BOOST_TEST(fixed.regression_file().empty());
  BOOST_TEST(fixed.regressions_replayed == 1);
  BOOST_TEST(fixed.cases == 100);
  BOOST_TEST(entries(dir) == 2u);  // kept, as Hypothesis keeps its examples: a fixed bug may come back
}

BOOST_AUTO_TEST_CASE(unreadable_entries_are_skipped_and_named) {
  const fs::path dir = temp_dir("pecheck-store");
  write_file_atomically(dir / "broken.json", "{not json");
  const RegressionStore store(dir);
  BOOST_TEST(store.size() == 0u);
  BOOST_REQUIRE(store.problems().size() == 1u);
  BOOST_TEST(store.problems()[0].find("broken.json") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(second_cli_run_replays_the_saved_failure_first) {
  unsetenv("PECHECK_NO_REGRESSIONS");  // the test environment turns the store off for other tests
  const std::string root = temp_dir("pecheck-store-cli");
  const std::string store = root + "/store", a = root + "/a", b = root + "/b", c = root + "/c";
  const std::vector<std::string> common = {"run", "--subject", kMutant, "--properties", kProperty,
                                           "--regression-dir", store};
  auto with_dir = [&](const std::string& dir) {
    auto args = common;
    args.insert(args.end(), {"--report-dir", dir});
    return args;
  };
  const auto first = run_cli(with_dir(a));
  BOOST_TEST(first.exit_code == 1);
  BOOST_TEST(first.output.find("saved 1 new failure(s)") != std::string::npos, first.output);
  BOOST_TEST(entries(store) == 1u);

  const auto second = run_cli(with_dir(b));
  BOOST_TEST(second.exit_code == 1);
  const json rb = json::parse(read_file(b + "/report.json"));
  BOOST_TEST(rb["regression_dir"] == store);
  const json& result = rb["results"][0];
  BOOST_TEST(result["from_regression_store"] == true);
  BOOST_TEST(result["cases"] == 0);
  BOOST_TEST(result["regressions_replayed"] == 1);
  BOOST_TEST(result["message"].get<std::string>().find("replayed first") != std::string::npos);
  BOOST_TEST(result["counterexample"]["inputs"] ==
             json::parse(read_file(a + "/report.json"))["results"][0]["counterexample"]["inputs"]);

  // Off: generates afresh, and reads nothing from the store.
  auto off = with_dir(c);
  off.push_back("--no-regressions");
  BOOST_TEST(run_cli(off).exit_code == 1);
  const json rc = json::parse(read_file(c + "/report.json"));
  BOOST_TEST(!rc.contains("regression_dir"));
  BOOST_TEST(rc["results"][0]["cases"].get<int>() > 0);
  BOOST_TEST(!rc["results"][0].contains("from_regression_store"));

  // The environment switch does the same, for CI.
  setenv("PECHECK_NO_REGRESSIONS", "1", 1);
  const auto env_off = run_cli(with_dir(c));
  unsetenv("PECHECK_NO_REGRESSIONS");
  BOOST_TEST(env_off.exit_code == 1);
  BOOST_TEST(!json::parse(read_file(c + "/report.json")).contains("regression_dir"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_replay_store
