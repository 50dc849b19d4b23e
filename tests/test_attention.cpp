// The attention family (properties/attention/family.cpp and its topic files
// attention/order.cpp, attention/logits.cpp, attention/softmax.cpp, with
// attention/support.h): every property meets its expectation on
// builtin:attention and is shown to fail on a planted bug of a kind real
// implementations have, with the shrunk witness checked where it says something.
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>

#include "attention/support.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/builtin/attention.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_attention)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {

// The expected verdicts must not hang on one lucky seed.
constexpr std::uint64_t kSeeds[] = {1, 2, 3, 4, 5};

void require_holds(const std::string& id, const std::string& spec, std::uint64_t seed = 1) {
  const auto r = run_property(id, spec, QuickRun{.seed = seed});
  BOOST_TEST(name(r.outcome) == "holds", id << " on " << spec << " seed " << seed << ": " << r.message()
                                            << (r.counterexample() ? r.counterexample()->inputs.dump() : ""));
  BOOST_TEST(r.cases == 100);
}

// A violation with its shrunk witness (inputs, observed, expected).
Counterexample require_violated(const std::string& id, const std::string& spec, std::uint64_t seed = 1) {
  const auto r = run_property(id, spec, QuickRun{.seed = seed});
  BOOST_TEST(name(r.outcome) == "violated", id << " on " << spec << " seed " << seed << ": " << r.message());
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(!(r.counterexample()->error <= r.counterexample()->tolerance.bound));
  return *r.counterexample();
}

size_t rows(const json& m) { return m.size(); }
size_t cols(const json& m) { return m.empty() ? 0 : m[0].size(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(attention_order)

BOOST_AUTO_TEST_CASE(permutation_equivariance_holds_and_catches_a_causal_mask_applied_unasked) {
  for (auto seed : kSeeds) require_holds("attention.permutation_equivariance", "builtin:attention", seed);
  // torch.tril applied when no mask was asked: token order leaks in; two tokens show it.
  const auto w = require_violated("attention.permutation_equivariance", "mutant:attention-causal-always");
  BOOST_TEST(rows(w.inputs["x"]) == 2u);
  BOOST_TEST(w.inputs["permutation"] == json::parse("[1, 0]"));
  // Rotary rotation fused into the op (positions by row index) breaks it as well.
  require_violated("attention.permutation_equivariance", "mutant:attention-rotary-inside");
}

BOOST_AUTO_TEST_CASE(kv_permutation_invariance_holds_and_catches_a_causal_mask_applied_unasked) {
  for (auto seed : kSeeds) require_holds("attention.kv_permutation_invariance", "builtin:attention", seed);
  const auto w = require_violated("attention.kv_permutation_invariance", "mutant:attention-causal-always");
  // One query, two keys swapped: the query sees key 0 only, whichever it is.
  BOOST_TEST(rows(w.inputs["q"]) == 1u);
  BOOST_TEST(rows(w.inputs["k"]) == 2u);
  BOOST_TEST(w.inputs["mask"] == "none");
  require_violated("attention.kv_permutation_invariance", "mutant:attention-rotary-inside");
}

BOOST_AUTO_TEST_CASE(query_permutation_equivariance_holds_and_catches_a_causal_mask_applied_unasked) {
  for (auto seed : kSeeds) require_holds("attention.query_permutation_equivariance", "builtin:attention", seed);
  const auto w = require_violated("attention.query_permutation_equivariance", "mutant:attention-causal-always");
  BOOST_TEST(rows(w.inputs["q"]) == 2u);
  BOOST_TEST(w.inputs["permutation"] == json::parse("[1, 0]"));
}

BOOST_AUTO_TEST_CASE(causal_equivariance_is_violated_with_a_two_token_witness) {
  for (auto seed : kSeeds) {
    const auto w = require_violated("attention.causal_permutation_equivariance", "builtin:attention", seed);
    // Shrunk to n = 2 tokens swapped: token 0 sees only itself, token 1 sees both.
    BOOST_TEST(rows(w.inputs["x"]) == 2u, "seed " << seed << ": " << w.inputs.dump());
    BOOST_TEST(cols(w.inputs["x"]) <= 2u);
    BOOST_TEST(w.inputs["permutation"] == json::parse("[1, 0]"));
    BOOST_TEST(w.inputs["heads"] == 1);
  }
  // A causal request dropped on the way (bidirectional attention): the
  // expected violation is no longer found, and the cell fails.
  const auto r = run_property("attention.causal_permutation_equivariance", "mutant:attention-causal-ignored");
  BOOST_TEST(name(r.outcome) == "holds");
  BOOST_TEST(name(r.status()) == "failed");
}

BOOST_AUTO_TEST_CASE(equivariance_with_pe_is_violated_with_a_two_token_witness) {
  for (auto seed : kSeeds) {
    const auto w = require_violated("attention.permutation_equivariance_with_pe", "builtin:attention", seed);
    BOOST_TEST(rows(w.inputs["x"]) == 2u, "seed " << seed << ": " << w.inputs.dump());
    BOOST_TEST(w.inputs["permutation"] == json::parse("[1, 0]"));
  }
  // Softmax over an axis of length 1: every weight is 1, every row is Σ_j v_j,
  // position-blind; the expected violation is not found and the cell fails.
  const auto r = run_property("attention.permutation_equivariance_with_pe", "mutant:attention-softmax-singleton-axis");
  BOOST_TEST(name(r.outcome) == "holds");
  BOOST_TEST(name(r.status()) == "failed");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(attention_logits)

BOOST_AUTO_TEST_CASE(logit_sum_invariance_holds_and_catches_rotary_inside_the_op) {
  for (auto seed : kSeeds) require_holds("attention.logit_sum_invariance", "builtin:attention", seed);
  const auto w = require_violated("attention.logit_sum_invariance", "mutant:attention-rotary-inside");
  // A rotation needs a pair of dimensions and two positions.
  BOOST_TEST(rows(w.inputs["x"]) == 2u);
  BOOST_TEST(cols(w.inputs["x"]) == 2u);
}

BOOST_AUTO_TEST_CASE(logit_decomposition_holds_and_catches_scaling_by_d) {
  for (auto seed : kSeeds) require_holds("attention.logit_decomposition", "builtin:attention", seed);
  // 1/d and 1/√d agree at d = 1: the witness needs d = 2, and is off by √2.
  const auto w = require_violated("attention.logit_decomposition", "mutant:attention-scale-by-d");
  BOOST_TEST(cols(w.inputs["x"]) == 2u);
  BOOST_TEST(rows(w.inputs["x"]) == 1u);
  const double observed = w.observed.get<double>(), expected = w.expected.get<double>();
  BOOST_TEST(observed * std::sqrt(2.0) == expected, boost::test_tools::tolerance(1e-12));
  require_violated("attention.logit_decomposition", "mutant:attention-rotary-inside");
}

BOOST_AUTO_TEST_CASE(logit_properties_need_the_logits_op) {
  for (const char* id : {"attention.logit_sum_invariance", "attention.logit_decomposition"}) {
    BOOST_TEST(name(find_property(id)->info.op) == "logits");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(attention_softmax)

BOOST_AUTO_TEST_CASE(convex_combination_holds_and_catches_unrenormalised_padding) {
  for (auto seed : kSeeds) require_holds("attention.convex_combination", "builtin:attention", seed);
  // Weights zeroed after the softmax: one masked key of two leaves a row summing to 1/2.
  const auto w = require_violated("attention.convex_combination", "mutant:attention-mask-multiplied");
  BOOST_TEST(w.inputs["mask"] == "boolean");
  BOOST_TEST(w.observed.get<double>() == 0.5);
  BOOST_TEST(w.note.find("sum to 1") != std::string::npos);
  // Normalising the wrong axis: two queries and one key give weights 1/2.
  const auto c = require_violated("attention.convex_combination", "mutant:attention-softmax-columns");
  BOOST_TEST(c.observed.get<double>() == 0.5);
}

BOOST_AUTO_TEST_CASE(softmax_stability_holds_and_catches_a_softmax_without_the_max) {
  for (auto seed : kSeeds) require_holds("attention.softmax_stability", "builtin:attention", seed);
  for (auto seed : kSeeds) {
    const auto w = require_violated("attention.softmax_stability", "mutant:attention-softmax-no-max", seed);
    // Shrunk to one query and one key, the logit shifted just past exp's range (ln DBL_MAX ≈ 709.8).
    BOOST_TEST(rows(w.inputs["q"]) == 1u);
    BOOST_TEST(rows(w.inputs["k"]) == 1u);
    const double shift = std::fabs(w.inputs["shift"][0][0].get<double>());
    BOOST_TEST(shift > std::log(DBL_MAX));
    BOOST_TEST(shift <= 2 * std::log(DBL_MAX) * (1 + 1e-12));
    BOOST_TEST(w.observed == "NaN");
    BOOST_TEST(w.expected == "a finite number");
  }
  // Softmax over the wrong axis is not invariant to shifting a row of logits.
  require_violated("attention.softmax_stability", "mutant:attention-softmax-columns");
}

BOOST_AUTO_TEST_CASE(padding_mask_isolation_holds_and_catches_mask_bugs) {
  for (auto seed : kSeeds) require_holds("attention.padding_mask_isolation", "builtin:attention", seed);
  for (const char* bug : {"mutant:attention-mask-inverted", "mutant:attention-mask-added-as-float",
                          "mutant:attention-mask-multiplied"}) {
    const auto w = require_violated("attention.padding_mask_isolation", bug);
    // Two keys, one of them padding, whose replaced contents leak into the output.
    BOOST_TEST(cols(w.inputs["real"]) == 2u, bug);
    const auto& real = w.inputs["real"][0];
    BOOST_TEST((real[0].get<bool>() != real[1].get<bool>()), bug);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(attention_support)

BOOST_AUTO_TEST_CASE(generated_masks_leave_every_query_a_key) {
  for (int seed = 0; seed < 200; ++seed) {
    const BoolMatrix b = attention::attendable_mask(1 + seed % 5, 1 + seed % 3)(rc::Random(seed), 100).value();
    for (Eigen::Index i = 0; i < b.rows(); ++i) BOOST_TEST(b.row(i).any());
  }
}

BOOST_AUTO_TEST_CASE(output_tolerance_is_the_error_model_with_its_terms_named) {
  SubjectInfo float32;
  float32.dtype = Dtype::float32;
  const Tolerance t = BoundModel(ErrorModel{}, "attention.permutation_equivariance", float32)
                          .evaluate(attention::output_bound(2, 4, 3, 10, 2));
  // 8 · u · 2·(2(4 + 6)·10 + 2·3 + 4) · 2
  BOOST_TEST(t.bound == 8 * std::ldexp(1.0, -24) * 2 * (2 * 10 * 10 + 10) * 2);
  for (const char* term : {"d_h = 4", "H = 10", "m = 3 keys", "max|v|", "float32"}) {
    BOOST_TEST(t.formula.find(term) != std::string::npos, t.formula);
  }
}

// A subject that speaks only the protocol: one head, no logits op.
class SingleHead : public AttentionSubject {
 public:
  SingleHead() : AttentionSubject([] {
    auto info = attention_info("single-head", cpp_spec("single-head"), Dtype::float64);
    info.ops = static_cast<unsigned>(Op::attention);
    info.multi_head = false;
    return info;
  }()) {}
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    if (heads != 1) throw SubjectFailure("a protocol subject was asked for " + std::to_string(heads) + " heads");
    return AttentionSubject::attention(q, k, v, mask, heads);
  }
};

BOOST_AUTO_TEST_CASE(a_single_head_subject_gets_one_head_and_no_logits_properties) {
  SingleHead subject;
  for (const auto& p : all_properties()) {
    if (p.info.family != "attention") continue;
    if (!p.info.applies_to(subject.info())) {
      // Only the logits op's claims, and §8's claims of a convention this
      // subject does not declare (params.attention), are left out.
      const bool undeclared_convention = p.info.applies_when.starts_with("attention.") ||
                                         p.info.applies_when == "forward.temperature_tuning";
      BOOST_TEST((name(p.info.op) == "logits" || undeclared_convention), p.info.id << " (" << p.info.applies_when << ")");
      continue;
    }
    const auto r = run_property(p.info.id, subject);
    BOOST_TEST(name(r.status()) == "passed", p.info.id << ": " << r.message());
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // test_attention
