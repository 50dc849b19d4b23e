// Issue 35 — attention.poison_invariance (caches whose unused slots are
// uninitialised memory, vLLM PR #30887): the declaration (the hello; only
// params.attention carries it), the built-in paged attention that passes in
// every dtype, the planted bugs of the two published kinds, each failing its
// sub-check with a diagnosis naming the cause, and a subject that does not
// declare it never sent a poisoned key.
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "support/hello_refusal.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_poison_invariance)

using namespace pecheck;
using pecheck::testing::hello_refusal;
using pecheck::testing::run_property;

namespace {

constexpr const char* kClaim = "attention.poison_invariance";

json hello(json attention, const char* op = "attention") {
  return json{{"protocol", 2}, {"name", "paged"}, {"ops", json::array({op})}, {"dtype", "float32"},
              {"params", {{op, std::move(attention)}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(params_attention_declares_it_and_only_then_the_claim_applies) {
  const auto info = process::read_hello(hello({{"alignment", "bottom_right"}, {"poison_invariance", true}})).info;
  BOOST_TEST(info.attention.poison_invariance);
  BOOST_TEST(find_property(kClaim)->info.applies_to(info));
  const auto plain = process::read_hello(hello({{"alignment", "bottom_right"}})).info;
  BOOST_TEST(!plain.attention.poison_invariance);
  BOOST_TEST(!find_property(kClaim)->info.applies_to(plain));
  BOOST_TEST(!find_property(kClaim)->info.applies_to(make_subject("builtin:attention")->info()));
  BOOST_TEST(hello_refusal(hello({{"poison_invariance", "yes"}})).find("true or false") != std::string::npos);
  // A module's forward is not an attention request: the field is refused there.
  json forward = hello({{"causal", true}, {"poison_invariance", true}}, "forward");
  BOOST_TEST(hello_refusal(forward).find("poison_invariance") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_paged_builtin_passes_in_every_dtype) {
  for (const char* spec : {"builtin:attention-paged", "builtin:attention-paged@float32",
                           "builtin:attention-paged@float16", "builtin:attention-paged@bfloat16"}) {
    const PropertyResult r = run_property(kClaim, spec);
    BOOST_TEST((r.status() == Status::passed), spec << ": " << r.message());
  }
}

BOOST_AUTO_TEST_CASE(the_paged_builtin_passes_the_attention_claims_it_declares) {
  for (const char* id : {"attention.window_no_lookback", "attention.alignment", "attention.reference_values",
                         "attention.causal_no_lookahead"}) {
    const PropertyResult r = run_property(id, "builtin:attention-paged");
    BOOST_TEST((r.status() == Status::passed), id << ": " << r.message());
  }
}

BOOST_AUTO_TEST_CASE(each_planted_poison_bug_fails_its_sub_check_with_its_cause) {
  struct Expected {
    const char* mutant;
    const char* check;
    const char* cause;
  };
  for (const Expected& e :
       {Expected{"attention-paged-nan-times-zero", "finite output", "NaN leaks through the value product"},
        Expected{"attention-paged-additive-mask", "unchanged by unreachable keys", "the masked logit is overwhelmed"}}) {
    const PropertyResult r = run_property(kClaim, std::string("mutant:") + e.mutant);
    BOOST_TEST_CONTEXT(e.mutant) {
      BOOST_TEST((r.status() == Status::failed), r.message());
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->check == e.check);
      BOOST_TEST(r.counterexample()->diagnosis.find(e.cause) != std::string::npos, r.counterexample()->diagnosis);
    }
  }
  // The value product's leak is not mistaken for an overwhelmed mask, nor the other way round.
  const PropertyResult nan = run_property(kClaim, "mutant:attention-paged-nan-times-zero");
  BOOST_REQUIRE(nan.counterexample() != nullptr);
  BOOST_TEST(nan.counterexample()->diagnosis.find("#30887") != std::string::npos, nan.counterexample()->diagnosis);
  BOOST_TEST(nan.counterexample()->diagnosis.find("overwhelmed") == std::string::npos, nan.counterexample()->diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()  // test_poison_invariance
