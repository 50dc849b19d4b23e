// Issue 36: transformers #37574 through the CLI. A static sliding-window cache
// that rolls one slot early when the length reaches the window W (fixed by
// transformers PR #37972) moves one decoded row by one key of W: red at W = 8
// with the default settings, and at W = 200 (reached by the shape ladder's 256
// tokens) judged by the bound that follows the computation
// (result/tight_bound.h), tens of times under the worst case. The fixed twin
// passes at both windows.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_rolling)

using namespace pecheck;
using pecheck::testing::read_file;
using pecheck::testing::run_cli;
using pecheck::testing::temp_dir;

namespace {

constexpr const char* kProperty = "module.incremental_decoding";

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

struct Run {
  int exit_code = -1;
  std::string console;
  json result;
};

// `shrink` false: the first counterexample as found (shrinking a 200-token decode through Python takes minutes).
Run run(const std::string& arguments, bool shrink = true) {
  const std::string dir = temp_dir("real_cli_rolling");
  std::vector<std::string> args = {"run", "-q", "--no-regressions", "--report-dir", dir, "--properties", kProperty,
                                   "--subject",
                                   "cmd:/usr/bin/python3 " + source_dir() +
                                       "/tests/subjects/real/hf_sliding_window_cache.py " + arguments};
  if (!shrink) args.push_back("--no-shrink");
  const auto r = run_cli(args);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_REQUIRE_MESSAGE(report["results"].size() == 1u, r.output);
  return {r.exit_code, r.output, report["results"][0]};
}

}  // namespace

BOOST_AUTO_TEST_CASE(rolls_one_slot_early_at_window_8) {
  const Run fixed = run("--fixed");
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  BOOST_TEST(fixed.result["status"] == "passed", fixed.result.dump());

  const Run bug = run("");
  BOOST_TEST(bug.exit_code == 1, bug.console);
  BOOST_REQUIRE_MESSAGE(bug.result["outcome"] == "violated", bug.result.dump());
  const json& c = bug.result["counterexample"];
  // Shrunk to the window and one step past it at most: the W-th decoded row is the first wrong one.
  BOOST_TEST(c["inputs"]["x"].size() >= 8u, c.dump());
  BOOST_TEST(c["inputs"]["x"].size() <= 9u, c.dump());
  BOOST_TEST(c["tolerance"]["formula"].get<std::string>().find("judged by") != std::string::npos, c.dump());
  BOOST_TEST(c["diagnosis"].get<std::string>().find("transformers #37574") != std::string::npos, c.dump());
}

BOOST_AUTO_TEST_CASE(rolls_one_slot_early_at_window_200_under_the_tight_bound_only) {
  const Run fixed = run("--fixed --window 200");
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  BOOST_TEST(fixed.result["status"] == "passed", fixed.result.dump());

  const Run bug = run("--window 200", false);
  BOOST_TEST(bug.exit_code == 1, bug.console);
  BOOST_REQUIRE_MESSAGE(bug.result["outcome"] == "violated", bug.result.dump());
  const json& c = bug.result["counterexample"];
  BOOST_TEST(c["inputs"]["x"].size() >= 200u, c.dump());
  const json& t = c["tolerance"];
  BOOST_TEST(t["judged_by"] == "probabilistic", t.dump());
  const double error = c["error"].get<double>(), worst = t["worst_case"].get<double>();
  BOOST_TEST(error > t["bound"].get<double>(), c.dump());
  // The bound that judged is far under the worst case (about 40× at 256 tokens of width 8), which a
  // shrunk witness of a few 10⁻³ can pass: 3·10⁻⁴ at W = 4096 would pass it at any length.
  BOOST_TEST(t["bound"].get<double>() * 10 < worst, c.dump());
  BOOST_TEST_MESSAGE("W = 200: error " << error << ", judged bound " << t["bound"] << ", worst case " << worst);
  // The console names the bound that judged and the worst case beside it.
  BOOST_TEST(bug.console.find("judged by the probabilistic") != std::string::npos, bug.console);
}

BOOST_AUTO_TEST_SUITE_END()
