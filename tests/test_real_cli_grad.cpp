// Published kinds of backward bug through the CLI (CLAIMS.md §11): each
// transcription in tests/subjects/real/ runs as `pecheck run --subject
// cmd:'/usr/bin/python3 tests/subjects/real/X.py'` over the protocol's backward
// op. A fused RoPE backward that runs its kernel as the forward does (+θ)
// passes every forward claim and fails grad.rotary_inverse; an eager GQA
// attention backward leaking gradient to future keys fails grad.causality,
// and one summing dK over the wrong heads fails grad.reference_values; their
// fixed twins pass.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_grad)

using namespace pecheck;
using namespace pecheck::testing::process_cli;
using pecheck::testing::run_cli;

namespace {

// Forty cases a claim: every backward here is a torch autograd call through Python.
const std::vector<std::string> kCases = {"--cases", "40"};

// The bug's counterexample for `property` (the run exits 1), and that `pecheck replay` of its file still fails.
json fails_and_replays(const std::string& script, const std::string& property) {
  const Run r = run_real(script, {property}, kCases);
  BOOST_TEST(r.exit_code == 1, script << ":\n" << r.console);
  for (const auto& result : r.report["results"]) {
    if (result["property"] != property) continue;
    BOOST_REQUIRE_MESSAGE(result["outcome"] == "violated", result.dump());
    const json& c = result["counterexample"];
    // The witness replays: `pecheck replay` of its file measures the same input and still fails.
    int replayed = 0;
    for (const auto& file : std::filesystem::directory_iterator(r.report_dir + "/counterexamples")) {
      const auto replay = run_cli({"replay", file.path().string(), "--subject", real_subject(script)});
      BOOST_TEST(replay.exit_code == 1, "replay:\n" << replay.output);
      ++replayed;
    }
    BOOST_TEST(replayed == 1);
    return c;
  }
  BOOST_FAIL(property << " did not run:\n" << r.console);
  return json();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_fused_rope_backward_turning_by_plus_theta_passes_the_forward_and_fails_rotary_inverse) {
  expect_passes("liger_rope_backward.py", {"rope.*"}, kCases);
  expect_passes("liger_rope_backward.py --fixed", {"rope.*", "grad.*"}, kCases);
  const json c = fails_and_replays("liger_rope_backward.py", "grad.rotary_inverse");
  BOOST_TEST(c["check"] == "R(θ)·dx = m²·g");
}

BOOST_AUTO_TEST_CASE(an_eager_gqa_backward_leaking_or_summing_the_wrong_heads_fails) {
  expect_passes("eager_attention_backward.py --fixed", {"grad.*"}, kCases);
  const json leak = fails_and_replays("eager_attention_backward.py --leak", "grad.causality");
  BOOST_TEST((leak["check"] == "dk" || leak["check"] == "dv"), leak.dump());
  const json sum = fails_and_replays("eager_attention_backward.py --gqa-sum", "grad.reference_values");
  BOOST_TEST(sum["check"] == "dk", sum.dump());
}

BOOST_AUTO_TEST_SUITE_END()  // test_real_cli_grad
