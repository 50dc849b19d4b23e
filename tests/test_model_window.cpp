// module.window_no_lookback (CLAIMS.md §10, issue 34): a block declaring a
// window W whose attention keeps W + 1 keys, in prefill and in its rolling
// cache alike (mlx-lm PR #390's "one too many"), fails at default settings
// with a diagnosis naming the layer and the field; one keeping W passes; so
// does a stack of two windowed layers, while the same stack whose whole
// forward runs its last layer over every key fails through the stack only.
// The published code itself (tests/subjects/real/mlx_lm_mistral_window_block.py)
// is checked through the CLI, bug and fix.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "pecheck/core/json.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"
#include "support/cli.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_model_window)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

constexpr const char* kClaim = "module.window_no_lookback";

std::string described(const PropertyResult& r) {
  std::string out = std::string(name(r.outcome)) + ": " + r.message();
  if (const Counterexample* c = r.counterexample()) out += " | " + c->check + " | " + c->note + " | " + c->diagnosis;
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_block_keeping_w_keys_passes_and_w_plus_one_fails_naming_the_layer_and_field) {
  const PropertyResult good = run_property(kClaim, "builtin:mistral-block");
  BOOST_TEST((good.status() == Status::passed), described(good));

  const PropertyResult wide = run_property(kClaim, "mutant:mistral-block-window-plus-one");
  BOOST_REQUIRE_MESSAGE(wide.counterexample() != nullptr, described(wide));
  BOOST_TEST(wide.counterexample()->check == "rows past the window unchanged", described(wide));
  BOOST_TEST(has(wide.counterexample()->diagnosis, "the module's attention layer (params.forward.window = 4)"),
             described(wide));
  BOOST_TEST(has(wide.counterexample()->diagnosis, "W + 1 = 5 keys"), described(wide));
  BOOST_TEST(has(wide.counterexample()->diagnosis, "mlx-lm PR #390"), described(wide));
}

BOOST_AUTO_TEST_CASE(a_window_that_masks_its_oldest_key_fails_the_edge) {
  const PropertyResult narrow = run_property(kClaim, "mutant:mistral-block-window-minus-one");
  BOOST_REQUIRE_MESSAGE(narrow.counterexample() != nullptr, described(narrow));
  BOOST_TEST(narrow.counterexample()->check == "oldest token in the window seen", described(narrow));
  BOOST_TEST(has(narrow.counterexample()->diagnosis, "W − 1 = 3 keys"), described(narrow));
}

BOOST_AUTO_TEST_CASE(a_stack_reaches_l_times_w_minus_one_and_no_further) {
  const PropertyResult stack = run_property(kClaim, "builtin:mistral-stack");
  BOOST_TEST((stack.status() == Status::passed), described(stack));

  const PropertyResult leak = run_property(kClaim, "mutant:mistral-stack-last-layer-full");
  BOOST_REQUIRE_MESSAGE(leak.counterexample() != nullptr, described(leak));
  BOOST_TEST(leak.counterexample()->check == "nothing past L·(W − 1) through the stack", described(leak));
  BOOST_TEST(has(leak.counterexample()->diagnosis, "vLLM #51756"), described(leak));
  BOOST_TEST(has(leak.counterexample()->diagnosis, "layer "), described(leak));
}

BOOST_AUTO_TEST_CASE(the_claim_applies_where_a_window_is_declared) {
  install_planted_subjects();
  const PropertyDef* claim = find_property(kClaim);
  BOOST_REQUIRE(claim != nullptr);
  BOOST_TEST(!claim->info.applies_to(make_subject("builtin:llama-block")->info()));
  BOOST_TEST(claim->info.applies_to(make_subject("builtin:mistral-block")->info()));
  BOOST_TEST(claim->info.applies_to(make_subject("builtin:gpt-oss-block")->info()));
  BOOST_TEST(claim->info.applies_to(make_subject("builtin:mistral-stack")->info()));
}

// The mlx-lm block as published (both paths keep W + 1) fails at default
// settings through the CLI; its fix passes, with decode agreeing with forward.
BOOST_AUTO_TEST_CASE(the_mlx_lm_transcription_fails_and_its_fix_passes) {
  const char* root = std::getenv("PECHECK_SOURCE_DIR");
  BOOST_REQUIRE(root != nullptr);
  const std::string script = std::string("cmd:/usr/bin/python3 ") + root + "/tests/subjects/real/mlx_lm_mistral_window_block.py";
  const auto run = [&](const std::string& spec, const std::vector<std::string>& claims) {
    const std::string dir = pecheck::testing::temp_dir("model_window");
    std::vector<std::string> args = {"run", "-q", "--no-regressions", "--report-dir", dir, "--subject", spec};
    for (const auto& c : claims) args.insert(args.end(), {"--properties", c});
    const auto r = pecheck::testing::run_cli(args);
    return std::make_pair(r, json::parse(pecheck::testing::read_file(dir + "/report.json")));
  };
  const auto [fixed, fixed_report] = run(script + " --fixed", {kClaim, "module.incremental_decoding"});
  BOOST_TEST(fixed.exit_code == 0, fixed.output);
  for (const auto& result : fixed_report["results"]) BOOST_TEST(result["status"] == "passed", result.dump());

  const auto [bug, bug_report] = run(script, {kClaim, "module.incremental_decoding"});
  BOOST_TEST(bug.exit_code == 1, bug.output);
  for (const auto& result : bug_report["results"]) {
    if (result["property"] == "module.incremental_decoding") {
      BOOST_TEST(result["status"] == "passed", result.dump());  // both paths wrong alike: decode agrees with forward
      continue;
    }
    BOOST_REQUIRE(result["outcome"] == "violated");
    const json& c = result["counterexample"];
    BOOST_TEST(c["check"] == "rows past the window unchanged", c.dump());
    BOOST_TEST(c["inputs"]["x"].size() <= 8u, c.dump());
    BOOST_TEST(has(c["diagnosis"].get<std::string>(), "W + 1 = 5 keys"), c.dump());
  }
}

BOOST_AUTO_TEST_SUITE_END()
