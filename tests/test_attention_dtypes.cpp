// Dtype fairness for the attention family: a correct implementation computing
// in float32, float16 or bfloat16 (builtin:attention@DTYPE rounds every
// operation) passes every holds-property at the tolerances its declared dtype
// gets, and the tolerances at float32 are still tight enough to catch bugs.
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>

#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_attention_dtypes)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {
std::vector<std::string> attention_ids(Expect expect) {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) {
    if (p.info.family == "attention" && p.info.expect == expect) ids.push_back(p.info.id);
  }
  return ids;
}
}  // namespace

BOOST_AUTO_TEST_CASE(reduced_precision_variants_declare_their_dtype) {
  for (const char* dtype : {"float32", "float16", "bfloat16"}) {
    auto s = make_subject(std::string("builtin:attention@") + dtype);
    BOOST_TEST(name(s->info().dtype) == dtype);
    BOOST_TEST(s->info().scheme == "attention");
    BOOST_TEST(s->info().multi_head);
  }
}

BOOST_AUTO_TEST_CASE(correct_attention_passes_every_holds_property_at_its_dtype) {
  for (const char* spec : {"builtin:attention@float32", "builtin:attention@float16", "builtin:attention@bfloat16"}) {
    const auto info = make_subject(spec)->info();
    for (const auto& id : attention_ids(Expect::holds)) {
      // §8's claims apply to subjects declaring their convention (a window, a
      // cap, sinks…); builtin:attention declares none.
      if (!find_property(id)->info.applies_to(info)) continue;
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto r = run_property(id, spec, QuickRun{.seed = seed});
        BOOST_TEST(name(r.outcome) == "holds", id << " on " << spec << " seed " << seed << ": " << r.message()
                                                  << (r.counterexample() ? r.counterexample()->inputs.dump() : ""));
        // Inputs outside a dtype's range are discarded, never most of them.
        BOOST_TEST(r.discards <= r.cases / 4, id << " on " << spec << ": " << r.discards << " discards");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(float32_still_shows_the_expected_violations) {
  for (const auto& id : attention_ids(Expect::violated)) {
    const auto r = run_property(id, "builtin:attention@float32");
    BOOST_TEST(name(r.outcome) == "violated", id);
    BOOST_REQUIRE(r.counterexample() != nullptr);
    BOOST_TEST(r.counterexample()->inputs["x"].size() == 2u, id);
  }
}

BOOST_AUTO_TEST_CASE(bugs_are_still_caught_at_float32) {
  // exp overflows past ln FLT_MAX ≈ 88.7 in float32: the witness shifts a logit past it.
  const auto overflow = run_property("attention.softmax_stability", "mutant:attention-softmax-no-max@float32");
  BOOST_TEST(name(overflow.outcome) == "violated");
  BOOST_REQUIRE(overflow.counterexample() != nullptr);
  const double shift = std::fabs(overflow.counterexample()->inputs["shift"][0][0].get<double>());
  BOOST_TEST(shift > std::log(FLT_MAX));
  BOOST_TEST(shift < std::log(DBL_MAX));  // a float64 softmax without the max would survive it
  // A √2 error in the logits is far outside float32's rounding.
  const auto scale = run_property("attention.logit_decomposition", "mutant:attention-scale-by-d@float32");
  BOOST_TEST(name(scale.outcome) == "violated");
  BOOST_REQUIRE(scale.counterexample() != nullptr);
  BOOST_TEST(scale.counterexample()->error > 1e3 * scale.counterexample()->tolerance.bound);
}

// The causal violation is an effect of up to max|v| at uniform attention; the
// generator draws small and zero logits too, so even bfloat16's bound (which
// grows with the logits) lets it show. The with-PE violation needs logits,
// and at 16 bits the worst-case bound hides it: a known limit, see docs/judging.md.
BOOST_AUTO_TEST_CASE(the_causal_violation_is_shown_at_every_dtype) {
  for (const char* spec : {"builtin:attention@float32", "builtin:attention@float16", "builtin:attention@bfloat16"}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      BOOST_TEST_CONTEXT(spec << " seed " << seed) {
        QuickRun options;
        options.seed = seed;
        const auto r = run_property("attention.causal_permutation_equivariance", spec, options);
        BOOST_TEST(name(r.status()) == "passed", r.message());
        BOOST_REQUIRE(r.counterexample() != nullptr);
        BOOST_TEST(r.counterexample()->inputs["x"].size() == 2u);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_attention_dtypes
