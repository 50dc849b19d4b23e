// Issue 36: an attention op declaring a real window (Mistral 7B's W = 4,096,
// grouped-query heads) is checked at that window by a plain `pecheck run`,
// within the subject timeouts: every case of attention.window_no_lookback
// holds W + 1 keys or more (the row past the changed key's window exists),
// the references pecheck needs are of the probe row alone, and the diagnosis
// probes a handful of keys, not a row of 4,099. The correct NumPy subject is
// green; the window written one key too wide (transformers #29623's kind) is
// red. Few cases: every case is 4,097 tokens or more, and the bug's
// counterexample is reported unshrunk. Default batching: the look-ahead's
// first line holds what a slow subject answers well within the timeout
// (BatchLimits::first_numbers), so one such case of ~49,000 numbers, not the
// four in one line that took this subject past its 10 s timeout.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_attention_real_window)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

// The one result of a run.
struct Judged {
  int exit_code = -1;
  std::string console;
  json result;
};

// attention.window_no_lookback on tests/subjects/gqa_window_4096.py (with `args`), default timeouts.
// `more`: further options (the bug's run reports its first counterexample unshrunk: every shrink
// step is two requests of 4,097 tokens, and the first is as readable).
Judged run_window(const std::string& args, std::vector<std::string> more = {}) {
  std::vector<std::string> options = {"--no-regressions", "--cases", "4", "--properties", "attention.window_no_lookback",
                                      "--subject", python_subject("tests/subjects/gqa_window_4096.py", args)};
  options.insert(options.end(), more.begin(), more.end());
  const Run r = run_pecheck(options, 120);
  BOOST_REQUIRE_MESSAGE(r.report.contains("results") && r.report["results"].size() == 1U, r.console);
  return {r.exit_code, r.console, r.report["results"][0]};
}

}  // namespace

BOOST_AUTO_TEST_CASE(correct_gqa_at_window_4096_is_green_at_w_plus_one_keys) {
  const auto start = std::chrono::steady_clock::now();
  const Judged r = run_window("");
  BOOST_TEST(r.exit_code == 0, r.console);
  BOOST_TEST(r.result["status"] == "passed", r.result.dump());
  BOOST_TEST(r.result["cases"].get<int>() == 4, r.result.dump());
  BOOST_TEST(r.result["discards"].get<int>() == 0, r.result.dump());
  // The window is reached: every case holds the row past the changed key's window.
  BOOST_TEST(r.result["coverage"]["axes"]["keys"]["reached"].get<int>() >= 4097, r.result["coverage"].dump());
  BOOST_TEST(r.result["coverage"]["axes"]["heads"]["reached"].get<int>() == 4, r.result["coverage"].dump());
  BOOST_TEST_MESSAGE("correct W = 4096 run: "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
}

BOOST_AUTO_TEST_CASE(window_one_key_too_wide_at_4096_is_red_and_diagnosed) {
  const Judged r = run_window("--wide", {"--no-shrink"});
  BOOST_TEST(r.exit_code == 1, r.console);
  BOOST_REQUIRE_MESSAGE(r.result["outcome"] == "violated", r.result.dump());
  const json& c = r.result["counterexample"];
  BOOST_TEST(c["check"] == "rows past the window unchanged", c.dump());
  // The row past the window, W = 4,096 keys after the changed one, sees it.
  BOOST_TEST(c["location"]["query"].get<int>() - c["location"]["key"].get<int>() >= 4096, c["location"].dump());
  // Diagnosed within the timeout: the subject answered every probe.
  const std::string diagnosis = c["diagnosis"].get<std::string>();
  BOOST_TEST(diagnosis.find("within") == std::string::npos, diagnosis);
  BOOST_TEST(diagnosis.find("W + 1 = 4097 keys") != std::string::npos, diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()
