// Issue 36: transformers #37574 through the CLI. A static sliding-window cache
// that rolls one slot early when the length reaches the window W (fixed by
// transformers PR #37972) moves one decoded row by one key of W: red at W = 8
// with the default settings, and at W = 200 (reached by the shape ladder's 256
// tokens) judged by the bound that follows the computation
// (result/tight_bound.h), tens of times under the worst case. The fixed twin
// passes at both windows.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_rolling)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

constexpr const char* kProperty = "module.incremental_decoding";

// The one result of a run.
struct Judged {
  int exit_code = -1;
  std::string console;
  json result;
};

// `shrink` false: the first counterexample as found (shrinking a 200-token decode through Python takes minutes).
Judged run(const std::string& arguments, bool shrink = true) {
  std::vector<std::string> args = {"-q", "--no-regressions", "--properties", kProperty, "--subject",
                                   real_subject("hf_sliding_window_cache.py " + arguments)};
  if (!shrink) args.push_back("--no-shrink");
  const Run r = run_pecheck(args, 120);
  BOOST_REQUIRE_MESSAGE(r.report.contains("results") && r.report["results"].size() == 1u, r.console);
  return {r.exit_code, r.console, r.report["results"][0]};
}

}  // namespace

BOOST_AUTO_TEST_CASE(rolls_one_slot_early_at_window_8) {
  const Judged fixed = run("--fixed");
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  BOOST_TEST(fixed.result["status"] == "passed", fixed.result.dump());

  const Judged bug = run("");
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
  const Judged fixed = run("--fixed --window 200");
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  BOOST_TEST(fixed.result["status"] == "passed", fixed.result.dump());

  const Judged bug = run("--window 200", false);
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

// Mistral's window, W = 4,096, in a module declaring sessions of 4,100 tokens:
// the declared length raises the shape ladder there (the default stops at 256
// tokens), and the bound that judges follows the layer's sums over the
// sequence (two of them, not twelve), so one key of 4,096 rolled out early —
// an error of a few 10⁻⁴ — is red; the fixed twin is green at the same length.
BOOST_AUTO_TEST_CASE(rolls_one_slot_early_at_window_4096_in_sessions_of_4100) {
  const Judged fixed = run("--fixed --window 4096 --sessions 4100", false);
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  BOOST_TEST(fixed.result["status"] == "passed", fixed.result.dump());
  const json& tokens = fixed.result["coverage"]["axes"]["tokens"];
  BOOST_TEST(tokens["reached"].get<std::int64_t>() == 4100, tokens.dump());
  BOOST_TEST(tokens["gate"].get<std::int64_t>() == 4100, tokens.dump());
  BOOST_TEST(tokens["set_by"].get<std::string>().find("params.forward.shapes.n") != std::string::npos, tokens.dump());

  const Judged bug = run("--window 4096 --sessions 4100", false);
  BOOST_TEST(bug.exit_code == 1, bug.console);
  BOOST_REQUIRE_MESSAGE(bug.result["outcome"] == "violated", bug.result.dump());
  const json& c = bug.result["counterexample"];
  BOOST_TEST(c["inputs"]["x"].size() >= 4096u, c.dump().substr(0, 2000));
  const json& t = c["tolerance"];
  BOOST_TEST(c["error"].get<double>() > t["bound"].get<double>(), t.dump());
  BOOST_TEST_MESSAGE("W = 4096, N = 4100: error " << c["error"] << ", judged bound " << t["bound"] << ", worst case "
                                                  << t["worst_case"]);
}

// A declared window alone raises the module's tokens to W + 1: at W = 300 the
// ladder's default 256 tokens never fill it, so the cell reaches 301 (and the
// bug is red there); where the sessions declared are shorter than the window,
// the cell cannot reach W + 1 and is uncovered, never green.
BOOST_AUTO_TEST_CASE(a_declared_window_raises_the_token_gate_to_w_plus_1) {
  const Judged fixed = run("--fixed --window 300", false);
  BOOST_TEST(fixed.exit_code == 0, fixed.console);
  const json& tokens = fixed.result["coverage"]["axes"]["tokens"];
  BOOST_TEST(tokens["gate"].get<std::int64_t>() == 301, tokens.dump());
  BOOST_TEST(tokens["reached"].get<std::int64_t>() == 301, tokens.dump());
  BOOST_TEST(tokens["set_by"].get<std::string>().find("params.forward.window 300") != std::string::npos, tokens.dump());

  const Judged bug = run("--window 300", false);
  BOOST_TEST(bug.exit_code == 1, bug.console);
  BOOST_TEST(bug.result["outcome"] == "violated", bug.result.dump().substr(0, 2000));

  const Judged short_sessions = run("--fixed --window 300 --sessions 200", false);
  BOOST_TEST(short_sessions.exit_code == 1, short_sessions.console);
  BOOST_TEST(short_sessions.result["outcome"] == "uncovered", short_sessions.result.dump().substr(0, 2000));
}

BOOST_AUTO_TEST_SUITE_END()
