// Issue 35 — attention.reference_values: the attention op judged by value
// against the float64 reference of its declared conventions. Every correct
// attention built-in passes (the dtype variants are test_attention_dtypes');
// a Gemma-2-style attention scaled by 1/√d_h where query_pre_attn_scalar^−½
// is declared, and one capping after the mask, fail at default settings with
// a diagnosis naming the cause; so do the §8 planted bugs the structural
// claims catch, each named by value.
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/property/registry.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_attention_reference_values)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

constexpr const char* kClaim = "attention.reference_values";

// The failing run's counterexample on `spec`, its check and diagnosis tested.
void expect_caught(const std::string& spec, const std::string& check, const std::string& cause) {
  const PropertyResult r = run_property(kClaim, spec);
  BOOST_TEST((r.status() == Status::failed), spec << ": " << r.message());
  const auto* c = r.counterexample();
  BOOST_REQUIRE_MESSAGE(c != nullptr, spec << ": no counterexample");
  BOOST_TEST(c->check == check, spec << ": " << c->check);
  BOOST_TEST(c->diagnosis.find(cause) != std::string::npos, spec << ": " << c->diagnosis);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_claim_is_implemented_not_pending) {
  BOOST_TEST(find_property(kClaim) != nullptr);
  BOOST_TEST(find_pending_claim(kClaim) == nullptr);
}

BOOST_AUTO_TEST_CASE(every_correct_attention_builtin_passes) {
  for (const char* spec : {"builtin:attention", "builtin:attention-llama4", "builtin:gemma2-block",
                           "builtin:mistral-block", "builtin:gpt-oss-block", "builtin:llama-gqa-block"}) {
    for (std::uint64_t seed : {1, 2}) {
      const PropertyResult r = run_property(kClaim, spec, {.seed = seed});
      BOOST_TEST((r.status() == Status::passed), spec << " seed " << seed << ": " << r.message());
      BOOST_TEST(r.discards <= r.cases / 4, spec << ": " << r.discards << " discards of " << r.cases);
    }
  }
}

BOOST_AUTO_TEST_CASE(gemma2_scaled_by_head_dim_fails_on_the_entries) {
  expect_caught("mutant:gemma2-attention-scale-inverse-sqrt-d", "entries", "1/√d_h");
}

BOOST_AUTO_TEST_CASE(gemma2_capped_after_the_mask_leaks_into_the_masked_keys) {
  expect_caught("mutant:gemma2-attention-softcap-after-mask", "masked keys carry no weight", "after the mask");
  // Only the masked rows show it: every structural claim of the cap holds.
  const PropertyResult bound = run_property("attention.softcap_bound", "mutant:gemma2-attention-softcap-after-mask");
  BOOST_TEST((bound.status() == Status::passed), bound.message());
}

BOOST_AUTO_TEST_CASE(the_section_8_bugs_are_named_by_value_too) {
  expect_caught("mutant:attention-softcap-dropped", "entries", "no cap at all");
  expect_caught("mutant:attention-sinks-ignored", "entries", "sink logits left out");
  expect_caught("mutant:attention-window-plus-one", "entries", "a window of 5 keys where 4 is declared");
}

BOOST_AUTO_TEST_SUITE_END()  // test_attention_reference_values
